/**
 * The mutations that control a run without holding its claim, with their inputs:
 * `cancelWorkflowRun` (with its claim or without one), `pauseWorkflowRun` and `resumeWorkflowRun`
 * (docs/PI-WORKFLOWS-FILES.md §5).
 */
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
const CANCEL_ERRORS = mutationErrors(
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
    errors: CANCEL_ERRORS,
    resolve: (_root, { input }, context) =>
      runMutation(context, () => ({
        run: context.store.cancelWorkflowRunOrThrow({ runId: input.runId, ...(input.claimToken == null ? {} : { claimToken: input.claimToken }) }),
      })),
  }),
);

const PauseInputRef = builder.inputType('PauseWorkflowRunInput', {
  description: 'Pause a parked run waiting for input (docs/PI-WORKFLOWS-FILES.md §5 "pause a parked run").',
  validate: limitedInput({ runId: limitedText() }),
  fields: (t) => ({ runId: t.string({ required: true, description: 'The parked run.' }) }),
});

const PauseSuccessRef = runSuccessType('PauseWorkflowRunSuccess', 'The paused run.');

/** The typed errors pauseWorkflowRun can return, and when: its result union lists exactly these. */
const PAUSE_ERRORS = mutationErrors(
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
    errors: PAUSE_ERRORS,
    resolve: (_root, { input }, context) => runMutation(context, () => ({ run: context.store.pauseParkedWorkflowRunOrThrow({ runId: input.runId }) })),
  }),
);

const ResumeInputRef = builder.inputType('ResumeWorkflowRunInput', {
  description: 'Resume a paused interaction (docs/PI-WORKFLOWS-FILES.md §5 "resume a paused interaction").',
  validate: limitedInput({ runId: limitedText() }),
  fields: (t) => ({ runId: t.string({ required: true, description: 'The paused run.' }) }),
});

const ResumeSuccessRef = runSuccessType('ResumeWorkflowRunSuccess', 'The resumed run, waiting for input again.');

/** The typed errors resumeWorkflowRun can return, and when: its result union lists exactly these. */
const RESUME_ERRORS = mutationErrors(
  'resumeWorkflowRun',
  [NotFoundError, ConflictError, ValidationError, ForbiddenError],
  'ResumeWorkflowRunSuccess, or: NotFoundError (no such run), ConflictError (the run cannot be resumed: not parked, not ' +
    'waiting, not paused, claimed, no pending interaction; the message says which), ValidationError (malformed input), ' +
    'ForbiddenError (read scope, read-only server).',
);

builder.mutationField('resumeWorkflowRun', (t) =>
  t.field({
    type: ResumeSuccessRef,
    description:
      'Resume a paused, parked, unclaimed run waiting for input: not paused, statusDetail `waiting for origin-session input`, ' + 'event run.resumed.',
    args: { input: t.arg({ type: ResumeInputRef, required: true, description: 'The run to resume.' }) },
    errors: RESUME_ERRORS,
    resolve: (_root, { input }, context) => runMutation(context, () => ({ run: context.store.resumePausedInteractionOrThrow({ runId: input.runId }) })),
  }),
);
