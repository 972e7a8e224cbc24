import { builder } from '../builder.js';
import { ClaimLostError, ConflictError, ForbiddenError, mutationErrors, NotFoundError, runMutation, ValidationError } from '../errors.js';
import { limitedInput, limitedText } from '../input-limits.js';
import { runSuccessType } from './run-success.js';

const CancelInputRef = builder.inputType('CancelWorkflowRunInput', {
  description: 'Cancel a run: with its claim, or without one as pi-workflows’ control surface does (docs/PI-WORKFLOWS-FILES.md §5).',
  validate: limitedInput({ runId: limitedText(), claimToken: limitedText() }),
  fields: (t) => ({
    runId: t.string({ required: true, description: 'The run to cancel.' }),
    claimToken: t.string({
      required: false,
      description:
        'The live claim to cancel with. Without it: a queued or starting run nobody claimed is cancelled directly, any other ' +
        'through a control claim taken and released in the same transaction; a run under a live claim is refused.',
    }),
  }),
});

const CancelSuccessRef = runSuccessType('CancelWorkflowRunSuccess', 'The cancelled run.');

/** The typed errors cancelWorkflowRun can return, and when: its result union lists exactly these. */
const ERRORS = mutationErrors(
  'cancelWorkflowRun',
  [NotFoundError, ClaimLostError, ConflictError, ValidationError, ForbiddenError],
  'CancelWorkflowRunSuccess, or: NotFoundError (no such run), ClaimLostError (the given token is not the live claim), ' +
    'ConflictError (the run has already finished; without a token: another live claim holds the run), ValidationError ' +
    '(malformed input), ForbiddenError (read scope, read-only server).',
);

builder.mutationField('cancelWorkflowRun', (t) =>
  t.field({
    type: CancelSuccessRef,
    description:
      'Cancel a run (status and queue CANCELLED, error code cancelled, its pending work cancelled), with its claim or, without ' +
      'a token, through a control claim (docs/PI-WORKFLOWS-FILES.md §5 "settle CANCELLED / cancel with the claim", "cancel without a claim").',
    args: { input: t.arg({ type: CancelInputRef, required: true, description: 'The run to cancel.' }) },
    errors: ERRORS,
    resolve: (_root, { input }, context) =>
      runMutation(context, () => ({
        run: context.store.cancelWorkflowRunOrThrow({ runId: input.runId, ...(input.claimToken == null ? {} : { claimToken: input.claimToken }) }),
      })),
  }),
);
