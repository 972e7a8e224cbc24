import type { ClaimRequest, DefinitionReservation, WorkflowRunRecord } from '../store/index.js';
import { builder } from './builder.js';
import { ExecutionModeEnum, LineageKindEnum } from './enums.js';
import { mutationErrors, runMutation } from './errors.js';
import { assertJson, assertText } from './input-limits.js';
import { WorkflowRunRef } from './workflow-run.js';

/** Success shape of reserve and restart. */
interface RunAdoptedShape {
  run: WorkflowRunRecord;
  adopted: boolean;
}

/** `ClaimInput`: reserve and claim in one transaction (prepare-or-adopt). */
export const ClaimInputRef = builder.inputType('ClaimInput', {
  description: 'Claim the run in the same transaction. The token is stored only as a SHA-256 hash and never returned.',
  fields: (t) => ({
    runnerId: t.string({ required: true, description: 'Id of the runner taking the lease (stored as the claim owner).' }),
    claimToken: t.string({ required: true, description: 'Secret chosen by the caller; stored only as a SHA-256 hash, never returned.' }),
    leaseMs: t.int({ required: true, description: 'Lease duration in ms, 1 … 86400000.' }),
  }),
});

/**
 * Checks and converts a `ClaimInput`.
 *
 * @throws ValidationError for oversized strings
 */
export function claimRequest(claim: typeof ClaimInputRef.$inferInput | null | undefined): ClaimRequest | undefined {
  if (claim == null) return undefined;
  assertText(claim.runnerId, 'claim.runnerId');
  assertText(claim.claimToken, 'claim.claimToken');
  return { runnerId: claim.runnerId, claimToken: claim.claimToken, leaseMs: claim.leaseMs };
}

const ReserveInputRef = builder.inputType('ReserveWorkflowRunInput', {
  description: 'Reserve a root run, a continuation or a restart (STORE.md §6.1); with claim, prepare-or-adopt (§6.2).',
  fields: (t) => ({
    runId: t.string({ required: true, description: 'Id of the new run (chosen by the caller; a retry with the same parameters adopts it).' }),
    workflowName: t.string({ required: true, description: 'Name of the workflow definition.' }),
    workflowRef: t.string({ required: true, description: 'Source ref of the workflow at launch (runs.workflow_ref).' }),
    definition: t.field({ type: 'JSON', required: true, description: 'Definition snapshot; its digest is SHA-256 of its canonical JSON.' }),
    workflowSource: t.field({
      type: 'JSON',
      required: false,
      description: "Source identity; default {kind:'file', path: workflowRef, hash: <definition digest>}.",
    }),
    input: t.field({ type: 'JSON', required: false, description: 'The run input (any JSON value).' }),
    launchOptions: t.field({ type: 'JSON', required: false, description: 'Launch options of the run (any JSON value).' }),
    originSessionId: t.string({ required: true, description: 'The Pi session reserving the run (one active run per session).' }),
    executionMode: t.field({
      type: ExecutionModeEnum,
      required: false,
      defaultValue: 'interactive',
      description: 'INTERACTIVE (a Pi session drives it, the default) or HEADLESS.',
    }),
    parentRunId: t.string({ required: false, description: 'For a continuation or restart: the parent run; null for a root run.' }),
    lineageKind: t.field({ type: LineageKindEnum, required: false, description: 'How the run relates to parentRunId; set exactly with a parent.' }),
    restartNumber: t.int({ required: false, description: "For a restart: the parent's restartNumber + 1; a continuation keeps its parent's." }),
    parentTerminalFingerprint: t.string({ required: false, description: "For a restart: the parent's terminalFingerprint (64 hex characters)." }),
    claim: t.field({ type: ClaimInputRef, required: false, description: 'Also claim the run in the same transaction (or adopt an identical one).' }),
  }),
});

const RestartInputRef = builder.inputType('RestartWorkflowRunInput', {
  description: 'Restart a terminal run (STORE.md §13.1). Idempotent: a retry adopts the existing restart.',
  fields: (t) => ({
    runId: t.string({ required: true, description: 'The terminal run to restart.' }),
    originSessionId: t.string({ required: true, description: 'The Pi session asking for the restart: the origin session of the run.' }),
    parentTerminalFingerprint: t.string({
      required: false,
      description: "Optional: when absent the server uses the run's own terminalFingerprint.",
    }),
    restartRunId: t.string({
      required: false,
      description: 'Optional: default is derived deterministically from the parent and its fingerprint.',
    }),
    claim: t.field({ type: ClaimInputRef, required: false, description: 'Also claim the restart in the same transaction.' }),
  }),
});

function successType(name: string, description: string) {
  return builder.objectRef<RunAdoptedShape>(name).implement({
    description,
    fields: (t) => ({
      run: t.field({ type: WorkflowRunRef, description: 'The run as stored after the call.', resolve: (result) => result.run }),
      adopted: t.exposeBoolean('adopted', { description: 'True when an identical run already existed and nothing was written.' }),
    }),
  });
}

const ReserveSuccessRef = successType('ReserveWorkflowRunSuccess', 'The reserved (or adopted) run.');
const RestartSuccessRef = successType('RestartWorkflowRunSuccess', 'The restart run (new, or adopted on retry).');

/**
 * Checks and converts a reserve input; the store computes the definition digest and the
 * default source identity (STORE.md §13.4).
 *
 * @throws ValidationError for oversized strings or JSON values
 */
function reservation(input: typeof ReserveInputRef.$inferInput): DefinitionReservation {
  for (const field of ['runId', 'workflowName', 'workflowRef', 'originSessionId', 'parentRunId', 'parentTerminalFingerprint'] as const) {
    assertText(input[field], field);
  }
  for (const field of ['definition', 'workflowSource', 'input', 'launchOptions'] as const) assertJson(input[field], field);
  return {
    runId: input.runId,
    workflowName: input.workflowName,
    workflowSourceRef: input.workflowRef,
    ...(input.workflowSource == null ? {} : { workflowSource: input.workflowSource }),
    definitionSnapshot: input.definition,
    ...(input.input === undefined ? {} : { input: input.input }),
    ...(input.launchOptions == null ? {} : { launchOptions: input.launchOptions }),
    runnerId: input.claim?.runnerId ?? null,
    originSessionId: input.originSessionId,
    executionMode: input.executionMode ?? 'interactive',
    ...(input.parentRunId == null ? {} : { parentRunId: input.parentRunId }),
    ...(input.lineageKind == null ? {} : { lineageKind: input.lineageKind }),
    ...(input.restartNumber == null ? {} : { restartNumber: input.restartNumber }),
    ...(input.parentTerminalFingerprint == null ? {} : { parentTerminalFingerprint: input.parentTerminalFingerprint }),
  };
}

builder.mutationFields((t) => ({
  reserveWorkflowRun: t.field({
    type: ReserveSuccessRef,
    description:
      'Reserve a run (root, continuation or restart); with claim, reserve and claim in one transaction or adopt an identical run. A restart applies the rules of restartWorkflowRun: the parent is interactive and not cancelled, and parentTerminalFingerprint is its own terminalFingerprint.',
    args: { input: t.arg({ type: ReserveInputRef, required: true, description: 'What to reserve.' }) },
    errors: mutationErrors('reserveWorkflowRun'),
    resolve: (_root, { input }, context) =>
      runMutation(context, () => {
        const result = context.store.reserveFromDefinition(reservation(input), claimRequest(input.claim));
        return { run: result.run, adopted: result.state === 'adopted' };
      }),
  }),
  restartWorkflowRun: t.field({
    type: RestartSuccessRef,
    description:
      'Restart a terminal run; a retry returns the same restart with adopted: true. Only runs of the same origin session (else ForbiddenError) that are interactive (else RestartRejectedError) can be restarted.',
    args: { input: t.arg({ type: RestartInputRef, required: true, description: 'What to restart.' }) },
    errors: mutationErrors('restartWorkflowRun'),
    resolve: (_root, { input }, context) =>
      runMutation(context, () => {
        for (const field of ['runId', 'originSessionId', 'parentTerminalFingerprint', 'restartRunId'] as const) {
          assertText(input[field], field);
        }
        const claim = claimRequest(input.claim);
        return context.store.restartWorkflowRun({
          runId: input.runId,
          originSessionId: input.originSessionId,
          ...(input.parentTerminalFingerprint == null ? {} : { parentTerminalFingerprint: input.parentTerminalFingerprint }),
          ...(input.restartRunId == null ? {} : { restartRunId: input.restartRunId }),
          ...(claim === undefined ? {} : { claim }),
        });
      }),
  }),
}));
