import { builder } from '../builder.js';

/** run_queue.status (docs/STORE-RULES.md §4). */
export const RunQueueStatusEnum = builder.enumType('RunQueueStatus', {
  description: 'Scheduling state (run_queue.status): who may execute the run now.',
  values: {
    QUEUED: { value: 'queued', description: 'Waiting for a runner to claim it.' },
    STARTING: { value: 'starting', description: 'Claimed; the runner is starting or resuming it.' },
    RUNNING: { value: 'running', description: 'Executing under its runner.' },
    PARKED: { value: 'parked', description: 'Not executing: released by its runner, waiting for an interaction, or paused.' },
    DONE: { value: 'done', description: 'Finished: completed, or handed on to a continuation.' },
    FAILED: { value: 'failed', description: 'Failed or timed out (errorCode is the run status).' },
    CANCELLED: { value: 'cancelled', description: 'Cancelled.' },
  } as const,
});
