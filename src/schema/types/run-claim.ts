/**
 * The claim of a run: `RunClaim` with `WorkflowRun.claim` and `expiredClaim`, the `ClaimInput`
 * that reserve and restart take, and the claim mutations (`claimWorkflowRun`,
 * `renewWorkflowRunClaim`) with their inputs (docs/PI-WORKFLOWS-FILES.md §5).
 */
import type { ClaimRequest, WorkflowRunRecord } from '../../store/index.js';
import { builder } from '../builder.js';
import { ClaimLostError, ConflictError, ForbiddenError, mutationErrors, NotFoundError, runMutation, ValidationError } from '../errors.js';
import { limitedInput, limitedText } from '../input-limits.js';
import { runSuccessType } from './run-success.js';
import { WorkflowRunRef } from './workflow-run.js';

/** `WorkflowRun.claim`: a live lease, without its token. */
export const RunClaimRef = builder.objectRef<NonNullable<WorkflowRunRecord['claim']>>('RunClaim').implement({
  description:
    'A live claim (lease) on a run. A value type without an identity of its own: one lease of one run, replaced whole by the ' +
    'next claim (client caches keep it under its run, docs/CLIENTS.md "Client caches"). The claim token and its hash are never exposed.',
  fields: (t) => ({
    ownerId: t.exposeString('ownerId', { description: 'Runner id holding the lease.' }),
    leaseGeneration: t.exposeInt('leaseGeneration', { description: 'Lease generation: +1 on every claim.' }),
    expiresAt: t.field({ type: 'DateTime', description: 'When the lease expires.', resolve: (claim) => claim.expiresAt }),
  }),
});

builder.objectFields(WorkflowRunRef, (t) => ({
  claim: t.field({
    type: RunClaimRef,
    nullable: true,
    description: 'The live claim, or null.',
    resolve: (run) => run.claim,
  }),
  expiredClaim: t.field({
    type: RunClaimRef,
    nullable: true,
    description:
      'The claim whose lease expired without a renewal or a release (its runner is still recorded), or null: ' +
      'when it expires the run-list change feed and `workflowRunUpdated` deliver the run with `claim: null` and this set ' +
      '(docs/PROTOCOL.md "Lease expiry"). A stale mark can name when the lease expired.',
    resolve: (run) => run.expiredClaim,
  }),
}));

/**
 * The limits of a `ClaimInput`, checked in place by the input that holds it (reserve and restart
 * put `claim: claimInputLimits.nullish()` last in their shapes, where the field is), so its
 * fields are reported in the holder's definition order.
 */
export const claimInputLimits = limitedInput({ runnerId: limitedText(), claimToken: limitedText() });

/** `ClaimInput`: reserve and claim in one transaction (prepare-or-adopt); limits: {@link claimInputLimits}. */
export const ClaimInputRef = builder.inputType('ClaimInput', {
  description: 'Claim the run in the same transaction. The token is stored only as a SHA-256 hash and never returned.',
  fields: (t) => ({
    runnerId: t.string({ required: true, description: 'Id of the runner taking the lease (stored as the claim owner).' }),
    claimToken: t.string({
      required: true,
      description: 'Secret chosen by the caller; stored only as a SHA-256 hash, never returned.',
    }),
    leaseMs: t.int({ required: true, description: 'Lease duration in ms, 1 … 86400000.' }),
  }),
});

/**
 * Converts a `ClaimInput` (its limits are checked by the holder's `validate`, {@link claimInputLimits}).
 *
 * @returns undefined when no claim was given
 */
export function claimRequest(claim: typeof ClaimInputRef.$inferInput | null | undefined): ClaimRequest | undefined {
  if (claim == null) return undefined;
  return { runnerId: claim.runnerId, claimToken: claim.claimToken, leaseMs: claim.leaseMs };
}

const ClaimWorkflowRunInputRef = builder.inputType('ClaimWorkflowRunInput', {
  description: 'Claim a run by id, or the next eligible run.',
  validate: limitedInput({ runnerId: limitedText(), claimToken: limitedText(), runId: limitedText(), sessionId: limitedText() }),
  fields: (t) => ({
    runnerId: t.string({ required: true, description: 'Id of the runner taking the lease (stored as the claim owner).' }),
    claimToken: t.string({ required: true, description: 'Chosen by the caller; stored only as a SHA-256 hash.' }),
    leaseMs: t.int({ required: true, description: 'Lease duration in ms, 1 … 86400000.' }),
    runId: t.string({
      required: false,
      description:
        'Claim this run; else the next eligible one. A run that is not claimable now (settled, or under another runner’s live lease) answers run: null, as when nothing is eligible.',
    }),
    sessionId: t.string({
      required: false,
      description: 'For the next eligible run: only runs of this origin session (else headless or already started runs).',
    }),
  }),
});

const ClaimSuccessRef = builder.objectRef<{ run: WorkflowRunRecord | null }>('ClaimWorkflowRunSuccess').implement({
  description: 'The claimed run, or null when nothing was eligible.',
  fields: (t) => ({
    run: t.field({
      type: WorkflowRunRef,
      nullable: true,
      description: 'The claimed run, or null when no run was eligible (with runId: that run is not claimable now; an unknown runId is a NotFoundError).',
      resolve: (result) => result.run,
    }),
  }),
});

/** The typed errors claimWorkflowRun can return, and when: its result union lists exactly these. */
const CLAIM_ERRORS = mutationErrors(
  'claimWorkflowRun',
  [NotFoundError, ConflictError, ValidationError, ForbiddenError],
  'ClaimWorkflowRunSuccess (run null when nothing is eligible), or: NotFoundError (no run with that runId), ConflictError ' +
    "(the run's session already has an active run), ValidationError (malformed input, leaseMs out of range), ForbiddenError " +
    '(read-only server).',
);

builder.mutationField('claimWorkflowRun', (t) =>
  t.field({
    type: ClaimSuccessRef,
    description: 'Claim a run by id, or the next eligible one. run is null when nothing is eligible.',
    args: { input: t.arg({ type: ClaimWorkflowRunInputRef, required: true, description: 'What to claim and for how long.' }) },
    errors: CLAIM_ERRORS,
    resolve: (_root, { input }, context) =>
      runMutation(context, () => {
        const claim = { runnerId: input.runnerId, claimToken: input.claimToken, leaseMs: input.leaseMs };
        const run =
          input.runId == null
            ? context.store.claimNextWorkflowRun({ ...claim, ...(input.sessionId == null ? {} : { sessionId: input.sessionId }) })
            : context.store.claimWorkflowRun({ ...claim, runId: input.runId });
        return { run: run ?? null };
      }),
  }),
);

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
const RENEW_ERRORS = mutationErrors(
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
    errors: RENEW_ERRORS,
    resolve: (_root, { input }, context) =>
      runMutation(context, () => ({
        run: context.store.renewWorkflowRunClaimOrThrow({ runId: input.runId, claimToken: input.claimToken, leaseMs: input.leaseMs }),
      })),
  }),
);
