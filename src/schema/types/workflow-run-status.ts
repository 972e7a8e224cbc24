import { builder } from '../builder.js';

/** runs.status (docs/STORE-RULES.md §4). */
export const WorkflowRunStatusEnum = builder.enumType('WorkflowRunStatus', {
  description: 'Durable run state (runs.status).',
  values: {
    QUEUED: { value: 'queued', description: 'Reserved, not started yet.' },
    RUNNING: { value: 'running', description: 'Executing.' },
    WAITING: { value: 'waiting', description: 'Waiting for an interaction (input).' },
    COMPLETED: { value: 'completed', description: 'Finished successfully (terminal).' },
    FAILED: { value: 'failed', description: 'Finished with an error (terminal).' },
    TIMED_OUT: { value: 'timed_out', description: 'Ran out of time (terminal).' },
    CANCELLED: { value: 'cancelled', description: 'Cancelled (terminal).' },
  } as const,
});
