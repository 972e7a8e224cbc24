import { builder } from './builder.js';

/** runs.status (STORE.md §4). */
export const WorkflowRunStatusEnum = builder.enumType('WorkflowRunStatus', {
  description: 'Durable run state (runs.status).',
  values: {
    QUEUED: { value: 'queued' },
    RUNNING: { value: 'running' },
    WAITING: { value: 'waiting' },
    COMPLETED: { value: 'completed' },
    FAILED: { value: 'failed' },
    TIMED_OUT: { value: 'timed_out' },
    CANCELLED: { value: 'cancelled' },
  } as const,
});

/** run_queue.status (STORE.md §4). */
export const RunQueueStatusEnum = builder.enumType('RunQueueStatus', {
  description: 'Scheduling state (run_queue.status): who may execute the run now.',
  values: {
    QUEUED: { value: 'queued' },
    STARTING: { value: 'starting' },
    RUNNING: { value: 'running' },
    PARKED: { value: 'parked' },
    DONE: { value: 'done' },
    FAILED: { value: 'failed' },
    CANCELLED: { value: 'cancelled' },
  } as const,
});

/** runs.lineage_kind. */
export const LineageKindEnum = builder.enumType('LineageKind', {
  description: 'How a child run relates to its parent.',
  values: { CONTINUATION: { value: 'continuation' }, RESTART: { value: 'restart' } } as const,
});

/** run_bindings.execution_mode. */
export const ExecutionModeEnum = builder.enumType('ExecutionMode', {
  description: 'Whether a Pi session drives the run (interactive) or not (headless).',
  values: { INTERACTIVE: { value: 'interactive' }, HEADLESS: { value: 'headless' } } as const,
});

/** viewer_deltas.target_type. */
export const ViewerTargetTypeEnum = builder.enumType('ViewerTargetType', {
  description: 'The part of a live view a delta patches.',
  values: {
    SUMMARY: { value: 'summary' },
    GRAPH: { value: 'graph' },
    REPLAY: { value: 'replay' },
    TIMELINE: { value: 'timeline' },
    CONVERSATION: { value: 'conversation' },
    INSPECTOR: { value: 'inspector' },
  } as const,
});

/** Patch operations of a viewer delta. */
export const PatchOpEnum = builder.enumType('PatchOp', {
  description: 'A viewer patch operation.',
  values: {
    ADD: { value: 'add' },
    REPLACE: { value: 'replace' },
    REMOVE: { value: 'remove' },
    APPEND: { value: 'append' },
  } as const,
});

/** Terminal outcomes accepted by settleWorkflowRun. */
export const SettleStatusEnum = builder.enumType('SettleStatus', {
  description: 'Terminal outcome a claim holder settles a run with.',
  values: {
    COMPLETED: { value: 'completed' },
    FAILED: { value: 'failed' },
    TIMED_OUT: { value: 'timed_out' },
    CANCELLED: { value: 'cancelled' },
  } as const,
});

/** What a `ViewerDeltaPage` holds (issue 11 item 5: an enum, not a string). */
export const ViewerDeltaPageKindEnum = builder.enumType('ViewerDeltaPageKind', {
  description: 'What a catch-up read of the delta log answered.',
  values: {
    DELTAS: { value: 'deltas', description: 'batches holds every revision after the cursor, in order (none when the cursor is current).' },
    SNAPSHOT_REQUIRED: {
      value: 'snapshot_required',
      description: 'The cursor cannot be served (0, ahead of the run, or older than the retained window): reload the run; batches is empty.',
    },
  } as const,
});
