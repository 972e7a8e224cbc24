import type { WorkflowRunRecord } from '../../store/index.js';
import { builder } from '../builder.js';
import { ConflictError, ForbiddenError, mutationErrors, NotFoundError, runMutation, ValidationError } from '../errors.js';
import { limitedInput, limitedText } from '../input-limits.js';
import { WorkflowRunRef } from './workflow-run.js';

const ClaimInputRef = builder.inputType('ClaimWorkflowRunInput', {
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
const ERRORS = mutationErrors(
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
    args: { input: t.arg({ type: ClaimInputRef, required: true, description: 'What to claim and for how long.' }) },
    errors: ERRORS,
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
