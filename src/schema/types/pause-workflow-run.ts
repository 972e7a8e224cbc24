import { builder } from '../builder.js';
import { ConflictError, ForbiddenError, mutationErrors, NotFoundError, runMutation, ValidationError } from '../errors.js';
import { limitedInput, limitedText } from '../input-limits.js';
import { runSuccessType } from './run-success.js';

const PauseInputRef = builder.inputType('PauseWorkflowRunInput', {
  description: 'Pause a parked run waiting for input (docs/PI-WORKFLOWS-FILES.md §5 "pause a parked run").',
  validate: limitedInput({ runId: limitedText() }),
  fields: (t) => ({ runId: t.string({ required: true, description: 'The parked run.' }) }),
});

const PauseSuccessRef = runSuccessType('PauseWorkflowRunSuccess', 'The paused run.');

/** The typed errors pauseWorkflowRun can return, and when: its result union lists exactly these. */
const ERRORS = mutationErrors(
  'pauseWorkflowRun',
  [NotFoundError, ConflictError, ValidationError, ForbiddenError],
  'PauseWorkflowRunSuccess, or: NotFoundError (no such run), ConflictError (the run cannot be paused: not parked, claimed, ' +
    'no pending interaction, neither running nor waiting; the message says which), ValidationError (malformed input), ' +
    'ForbiddenError (read scope, read-only server).',
);

builder.mutationField('pauseWorkflowRun', (t) =>
  t.field({
    type: PauseSuccessRef,
    description:
      'Pause a parked, unclaimed run with a pending interaction: paused, statusDetail `paused`, event run.paused; a paused run ' +
      'is answered as it is. resumeWorkflowRun undoes it.',
    args: { input: t.arg({ type: PauseInputRef, required: true, description: 'The run to pause.' }) },
    errors: ERRORS,
    resolve: (_root, { input }, context) => runMutation(context, () => ({ run: context.store.pauseParkedWorkflowRunOrThrow({ runId: input.runId }) })),
  }),
);
