import type { WorkflowRunRecord } from '../store/index.js';
import { builder } from './builder.js';
import { SettleStatusEnum } from './enums.js';
import { mutationErrors, runMutation } from './errors.js';
import { assertJson, assertText, MAX_LONG_TEXT_LENGTH } from './input-limits.js';
import { WorkflowRunRef } from './workflow-run.js';

const ClaimInputRef = builder.inputType('ClaimWorkflowRunInput', {
  description: 'Claim a run by id, or the next eligible run.',
  fields: (t) => ({
    runnerId: t.string({ required: true, description: 'Id of the runner taking the lease (stored as the claim owner).' }),
    claimToken: t.string({ required: true, description: 'Chosen by the caller; stored only as a SHA-256 hash.' }),
    leaseMs: t.int({ required: true, description: 'Lease duration in ms, 1 … 86400000.' }),
    runId: t.string({ required: false, description: 'Claim this run; else the next eligible one.' }),
    sessionId: t.string({
      required: false,
      description: 'For the next eligible run: only runs of this origin session (else headless or already started runs).',
    }),
  }),
});

const ParkInputRef = builder.inputType('ParkWorkflowRunInput', {
  description: 'Release a claim to parked; with noProgressDetail, park for worker no progress.',
  fields: (t) => ({
    runId: t.string({ required: true, description: 'The claimed run.' }),
    claimToken: t.string({ required: true, description: 'The token the run was claimed with.' }),
    noProgressDetail: t.string({
      required: false,
      description: 'When given: park for worker no progress (error code workerNoProgress; detail cut to 8192 characters).',
    }),
  }),
});

const SettleInputRef = builder.inputType('SettleWorkflowRunInput', {
  description: 'Settle a claimed run terminal.',
  fields: (t) => ({
    runId: t.string({ required: true, description: 'The claimed run.' }),
    claimToken: t.string({ required: true, description: 'The token the run was claimed with.' }),
    status: t.field({ type: SettleStatusEnum, required: true, description: 'The terminal outcome.' }),
    error: t.string({ required: false, description: 'Error text for FAILED / TIMED_OUT.' }),
    output: t.field({ type: 'JSON', required: false, description: 'Final output for COMPLETED.' }),
  }),
});

const ClaimSuccessRef = builder.objectRef<{ run: WorkflowRunRecord | null }>('ClaimWorkflowRunSuccess').implement({
  description: 'The claimed run, or null when nothing was eligible.',
  fields: (t) => ({
    run: t.field({ type: WorkflowRunRef, nullable: true, description: 'The claimed run, or null when no run was eligible.', resolve: (result) => result.run }),
  }),
});

function runSuccess(name: string, description: string) {
  return builder.objectRef<{ run: WorkflowRunRecord }>(name).implement({
    description,
    fields: (t) => ({ run: t.field({ type: WorkflowRunRef, description: 'The run as stored after the call.', resolve: (result) => result.run }) }),
  });
}

const ParkSuccessRef = runSuccess('ParkWorkflowRunSuccess', 'The parked run.');
const SettleSuccessRef = runSuccess('SettleWorkflowRunSuccess', 'The settled run.');

builder.mutationFields((t) => ({
  claimWorkflowRun: t.field({
    type: ClaimSuccessRef,
    description: 'Claim a run by id, or the next eligible one. run is null when nothing is eligible.',
    args: { input: t.arg({ type: ClaimInputRef, required: true, description: 'What to claim and for how long.' }) },
    errors: mutationErrors('claimWorkflowRun'),
    resolve: (_root, { input }, context) =>
      runMutation(context, () => {
        for (const field of ['runnerId', 'claimToken', 'runId', 'sessionId'] as const) assertText(input[field], field);
        const claim = { runnerId: input.runnerId, claimToken: input.claimToken, leaseMs: input.leaseMs };
        const run =
          input.runId == null
            ? context.store.claimNextWorkflowRun({ ...claim, ...(input.sessionId == null ? {} : { sessionId: input.sessionId }) })
            : context.store.claimWorkflowRun({ ...claim, runId: input.runId });
        return { run: run ?? null };
      }),
  }),
  parkWorkflowRun: t.field({
    type: ParkSuccessRef,
    description: 'Release a live claim to parked, or park for worker no progress.',
    args: { input: t.arg({ type: ParkInputRef, required: true, description: 'The claimed run to park.' }) },
    errors: mutationErrors('parkWorkflowRun'),
    resolve: (_root, { input }, context) =>
      runMutation(context, () => {
        assertText(input.runId, 'runId');
        assertText(input.claimToken, 'claimToken');
        assertText(input.noProgressDetail, 'noProgressDetail', MAX_LONG_TEXT_LENGTH);
        const run = context.store.parkClaimedWorkflowRun({
          runId: input.runId,
          claimToken: input.claimToken,
          ...(input.noProgressDetail == null ? {} : { noProgressDetail: input.noProgressDetail }),
        });
        return { run };
      }),
  }),
  settleWorkflowRun: t.field({
    type: SettleSuccessRef,
    description: 'Settle a claimed run COMPLETED, FAILED, TIMED_OUT or CANCELLED; releases the claim.',
    args: { input: t.arg({ type: SettleInputRef, required: true, description: 'The claimed run and its outcome.' }) },
    errors: mutationErrors('settleWorkflowRun'),
    resolve: (_root, { input }, context) =>
      runMutation(context, () => {
        assertText(input.runId, 'runId');
        assertText(input.claimToken, 'claimToken');
        assertText(input.error, 'error', MAX_LONG_TEXT_LENGTH);
        assertJson(input.output, 'output');
        const run = context.store.settleWorkflowRun({
          runId: input.runId,
          claimToken: input.claimToken,
          status: input.status,
          ...(input.error == null ? {} : { error: input.error }),
          ...(input.output === undefined ? {} : { output: input.output }),
        });
        return { run };
      }),
  }),
}));
