import { builder } from '../builder.js';
import { ClaimLostError, ConflictError, ForbiddenError, mutationErrors, NotFoundError, runMutation, ValidationError } from '../errors.js';
import { limitedInput, limitedText, MAX_LONG_TEXT_LENGTH } from '../input-limits.js';
import { runSuccessType } from './run-success.js';

const ParkInputRef = builder.inputType('ParkWorkflowRunInput', {
  description:
    'Release a claim to parked; with noProgressDetail, park for worker no progress instead (docs/PI-WORKFLOWS-FILES.md §5 "park", ' + '"park, no progress").',
  validate: limitedInput({ runId: limitedText(), claimToken: limitedText(), noProgressDetail: limitedText(MAX_LONG_TEXT_LENGTH) }),
  fields: (t) => ({
    runId: t.string({ required: true, description: 'The claimed run.' }),
    claimToken: t.string({ required: true, description: 'The token the run was claimed with.' }),
    noProgressDetail: t.string({
      required: false,
      description: 'When given: park for worker no progress (error code workerNoProgress; detail cut to 8192 characters).',
    }),
  }),
});

const ParkSuccessRef = runSuccessType('ParkWorkflowRunSuccess', 'The parked run.');

/** The typed errors parkWorkflowRun can return, and when: its result union lists exactly these. */
const ERRORS = mutationErrors(
  'parkWorkflowRun',
  [NotFoundError, ClaimLostError, ConflictError, ValidationError, ForbiddenError],
  'ParkWorkflowRunSuccess, or: NotFoundError (no such run), ClaimLostError (the token is not the live claim), ConflictError ' +
    '(a waiting run parked for no progress, a concurrent change), ValidationError (malformed input), ForbiddenError ' +
    '(read-only server).',
);

builder.mutationField('parkWorkflowRun', (t) =>
  t.field({
    type: ParkSuccessRef,
    description:
      'Release a live claim to parked (event run.queue_parked), or, with noProgressDetail, park for worker no progress: error code ' +
      'workerNoProgress and the detail as statusDetail and error, event run.worker_no_progress; claimWorkflowRun without runId ' +
      'skips such a run (docs/PI-WORKFLOWS-FILES.md §5 "park", "park, no progress").',
    args: { input: t.arg({ type: ParkInputRef, required: true, description: 'The claimed run to park.' }) },
    errors: ERRORS,
    resolve: (_root, { input }, context) =>
      runMutation(context, () => ({
        run: context.store.parkClaimedWorkflowRun({
          runId: input.runId,
          claimToken: input.claimToken,
          ...(input.noProgressDetail == null ? {} : { noProgressDetail: input.noProgressDetail }),
        }),
      })),
  }),
);
