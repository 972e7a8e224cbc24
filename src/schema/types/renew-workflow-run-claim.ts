import { builder } from '../builder.js';
import { ClaimLostError, ForbiddenError, mutationErrors, NotFoundError, runMutation, ValidationError } from '../errors.js';
import { limitedInput, limitedText } from '../input-limits.js';
import { runSuccessType } from './run-success.js';

const RenewInputRef = builder.inputType('RenewWorkflowRunClaimInput', {
  description: 'Heartbeat: extend the live claim of a run (docs/PI-WORKFLOWS-FILES.md §5 "renew claim (heartbeat)").',
  validate: limitedInput({ runId: limitedText(), claimToken: limitedText() }),
  fields: (t) => ({
    runId: t.string({ required: true, description: 'The claimed run.' }),
    claimToken: t.string({ required: true, description: 'The token the run was claimed with.' }),
    leaseMs: t.int({ required: true, description: 'The new lease duration from now, in ms, 1 … 86400000.' }),
  }),
});

const RenewSuccessRef = runSuccessType('RenewWorkflowRunClaimSuccess', 'The run with its renewed claim.');

/** The typed errors renewWorkflowRunClaim can return, and when: its result union lists exactly these. */
const ERRORS = mutationErrors(
  'renewWorkflowRunClaim',
  [NotFoundError, ClaimLostError, ValidationError, ForbiddenError],
  'RenewWorkflowRunClaimSuccess, or: NotFoundError (no such run), ClaimLostError (the token is not the live claim: wrong, ' +
    'expired, released, or the run finished), ValidationError (malformed input, leaseMs out of range), ForbiddenError ' +
    '(read scope, read-only server).',
);

builder.mutationField('renewWorkflowRunClaim', (t) =>
  t.field({
    type: RenewSuccessRef,
    description:
      'Heartbeat of the claim holder: the lease’s heartbeat is now and it expires leaseMs from now. Writes the lease times and ' +
      'the summary and replay viewer deltas only: no event, no revision bump (docs/PI-WORKFLOWS-FILES.md §5 "renew claim (heartbeat)").',
    args: { input: t.arg({ type: RenewInputRef, required: true, description: 'The claim to renew and for how long.' }) },
    errors: ERRORS,
    resolve: (_root, { input }, context) =>
      runMutation(context, () => ({
        run: context.store.renewWorkflowRunClaimOrThrow({ runId: input.runId, claimToken: input.claimToken, leaseMs: input.leaseMs }),
      })),
  }),
);
