import { builder } from './builder.js';

/** runs.status (STORE.md §4). */
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

/** run_queue.status (STORE.md §4). */
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

/** runs.lineage_kind. */
export const LineageKindEnum = builder.enumType('LineageKind', {
  description: 'How a child run relates to its parent.',
  values: {
    CONTINUATION: { value: 'continuation', description: 'The child goes on from where its parent stopped (same restart number).' },
    RESTART: { value: 'restart', description: 'The child runs its terminal parent again (restart number + 1).' },
  } as const,
});

/** run_bindings.execution_mode. */
export const ExecutionModeEnum = builder.enumType('ExecutionMode', {
  description: 'Whether a Pi session drives the run (interactive) or not (headless).',
  values: {
    INTERACTIVE: { value: 'interactive', description: 'A Pi session drives the run.' },
    HEADLESS: { value: 'headless', description: 'No session drives the run.' },
  } as const,
});

/** viewer_deltas.target_type. */
export const ViewerTargetTypeEnum = builder.enumType('ViewerTargetType', {
  description: 'The part of a live view a delta patches.',
  values: {
    SUMMARY: { value: 'summary', description: 'The run summary.' },
    GRAPH: { value: 'graph', description: 'The workflow graph.' },
    REPLAY: { value: 'replay', description: 'The replay log.' },
    TIMELINE: { value: 'timeline', description: 'The timeline.' },
    CONVERSATION: { value: 'conversation', description: 'The conversation.' },
    INSPECTOR: { value: 'inspector', description: 'The inspector (keyed by what it shows).' },
  } as const,
});

/** Patch operations of a viewer delta. */
export const PatchOpEnum = builder.enumType('PatchOp', {
  description: 'A viewer patch operation.',
  values: {
    ADD: { value: 'add', description: 'Add value at path.' },
    REPLACE: { value: 'replace', description: 'Replace the value at path.' },
    REMOVE: { value: 'remove', description: 'Remove the value at path.' },
    APPEND: { value: 'append', description: 'Append value to the list at path.' },
  } as const,
});

/** Terminal outcomes accepted by settleWorkflowRun. */
export const SettleStatusEnum = builder.enumType('SettleStatus', {
  description: 'Terminal outcome a claim holder settles a run with.',
  values: {
    COMPLETED: { value: 'completed', description: 'Finished successfully.' },
    FAILED: { value: 'failed', description: 'Finished with an error (give error).' },
    TIMED_OUT: { value: 'timed_out', description: 'Ran out of time (give error).' },
    CANCELLED: { value: 'cancelled', description: 'Cancelled.' },
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
