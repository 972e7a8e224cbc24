/**
 * The mutations that reserve a run: `reserveWorkflowRun` (a root run, a continuation or a
 * restart; with a claim, prepare-or-adopt) and `restartWorkflowRun`, with their inputs.
 */
import type { DefinitionReservation } from '../../store/index.js';
import { builder } from '../builder.js';
import { ConflictError, ForbiddenError, LineageError, mutationErrors, NotFoundError, RestartRejectedError, runMutation, ValidationError } from '../errors.js';
import { limitedInput, limitedJson, limitedText } from '../input-limits.js';
import { claimInputLimits, claimRequest, ClaimInputRef } from './run-claim.js';
import { adoptedRunSuccessType } from './run-success.js';
import { ExecutionModeEnum, LineageKindEnum } from './workflow-run.js';

const ReserveInputRef = builder.inputType('ReserveWorkflowRunInput', {
  description: 'Reserve a root run, a continuation or a restart (docs/STORE-RULES.md §6.1); with claim, prepare-or-adopt (§6.2).',
  validate: limitedInput({
    runId: limitedText(),
    workflowName: limitedText(),
    workflowRef: limitedText(),
    definition: limitedJson,
    workflowSource: limitedJson,
    input: limitedJson,
    launchOptions: limitedJson,
    originSessionId: limitedText(),
    runnerId: limitedText(),
    parentRunId: limitedText(),
    parentTerminalFingerprint: limitedText(),
    claim: claimInputLimits.nullish(),
  }),
  fields: (t) => ({
    runId: t.string({
      required: true,
      description:
        'Id of the new run, chosen by the caller. With claim, a retry with the same parameters adopts the existing run (adopted: true, docs/STORE-RULES.md §6.2); without claim, an existing id is a ConflictError.',
    }),
    workflowName: t.string({
      required: true,
      description:
        'Name of the workflow definition. Definitions are stored once per definition digest, first name wins (docs/STORE-RULES.md §3.6): ' +
        'when a run with the same definition was reserved before under another name, this run reports (and is filtered and ' +
        'searched by) that first name, not this one. Give distinct workflows distinct definitions.',
    }),
    workflowRef: t.string({ required: true, description: 'Source ref of the workflow at launch (runs.workflow_ref).' }),
    definition: t.field({
      type: 'JSON',
      required: true,
      description:
        'Definition snapshot; its digest is SHA-256 of its canonical JSON (keys ordered as pi-workflows orders them, docs/PI-WORKFLOWS-FILES.md §8).',
    }),
    workflowSource: t.field({
      type: 'JSON',
      required: false,
      description: "Source identity; default {kind:'file', path: workflowRef, hash: <definition digest>}.",
    }),
    input: t.field({ type: 'JSON', required: false, description: 'The run input (any JSON value).' }),
    launchOptions: t.field({ type: 'JSON', required: false, description: 'Launch options of the run (any JSON value).' }),
    originSessionId: t.string({ required: true, description: 'The Pi session reserving the run (one active run per session).' }),
    runnerId: t.string({
      required: false,
      description:
        'The reserving runner, stored as the run queue affinity (run_queue.affinity_runner_id) as pi-workflows stores it; ' +
        "null or absent: no affinity. With claim, the claim's runnerId is stored instead (docs/PI-WORKFLOWS-FILES.md §8).",
    }),
    executionMode: t.field({
      type: ExecutionModeEnum,
      required: false,
      defaultValue: 'interactive',
      description: 'INTERACTIVE (a Pi session drives it, the default) or HEADLESS.',
    }),
    parentRunId: t.string({ required: false, description: 'For a continuation or restart: the parent run; null for a root run.' }),
    lineageKind: t.field({ type: LineageKindEnum, required: false, description: 'How the run relates to parentRunId; set exactly with a parent.' }),
    restartNumber: t.int({ required: false, description: "For a restart: the parent's restartNumber + 1; a continuation keeps its parent's." }),
    parentTerminalFingerprint: t.string({
      required: false,
      description: "For a restart: the parent's terminalFingerprint (64 hex characters).",
    }),
    claim: t.field({ type: ClaimInputRef, required: false, description: 'Also claim the run in the same transaction (or adopt an identical one).' }),
  }),
});

const ReserveSuccessRef = adoptedRunSuccessType('ReserveWorkflowRunSuccess', 'The reserved (or adopted) run.');

/**
 * Converts a reserve input (its limits are checked by the type's `validate`); the store
 * computes the definition digest and the default source identity (docs/STORE-RULES.md §13.4).
 */
function reservation(input: typeof ReserveInputRef.$inferInput): DefinitionReservation {
  return {
    runId: input.runId,
    workflowName: input.workflowName,
    workflowSourceRef: input.workflowRef,
    ...(input.workflowSource == null ? {} : { workflowSource: input.workflowSource }),
    definitionSnapshot: input.definition,
    ...(input.input === undefined ? {} : { input: input.input }),
    ...(input.launchOptions == null ? {} : { launchOptions: input.launchOptions }),
    runnerId: input.claim?.runnerId ?? input.runnerId ?? null,
    originSessionId: input.originSessionId,
    executionMode: input.executionMode ?? 'interactive',
    ...(input.parentRunId == null ? {} : { parentRunId: input.parentRunId }),
    ...(input.lineageKind == null ? {} : { lineageKind: input.lineageKind }),
    ...(input.restartNumber == null ? {} : { restartNumber: input.restartNumber }),
    ...(input.parentTerminalFingerprint == null ? {} : { parentTerminalFingerprint: input.parentTerminalFingerprint }),
  };
}

/** The typed errors reserveWorkflowRun can return, and when: its result union lists exactly these. */
const RESERVE_ERRORS = mutationErrors(
  'reserveWorkflowRun',
  [NotFoundError, LineageError, ConflictError, RestartRejectedError, ValidationError, ForbiddenError],
  'ReserveWorkflowRunSuccess, or: NotFoundError (the parent does not exist), LineageError (a lineage rule), ConflictError ' +
    "(already reserved with other parameters, preparation conflict, a restart fingerprint that is not the parent's, the claim " +
    'could not be taken, the session already has an active run), RestartRejectedError (restart policy), ValidationError ' +
    '(malformed input), ForbiddenError (read-only server, or a run that may not be restarted).',
);

builder.mutationField('reserveWorkflowRun', (t) =>
  t.field({
    type: ReserveSuccessRef,
    description:
      'Reserve a run (root, continuation or restart); with claim, reserve and claim in one transaction or adopt an identical run. A restart applies the rules of restartWorkflowRun: the parent is interactive and not cancelled, and parentTerminalFingerprint is its own terminalFingerprint.',
    args: { input: t.arg({ type: ReserveInputRef, required: true, description: 'What to reserve.' }) },
    errors: RESERVE_ERRORS,
    resolve: (_root, { input }, context) =>
      runMutation(context, () => {
        const result = context.store.reserveWorkflowRun(reservation(input), claimRequest(input.claim));
        return { run: result.run, adopted: result.state === 'adopted' };
      }),
  }),
);

const RestartInputRef = builder.inputType('RestartWorkflowRunInput', {
  description: 'Restart a terminal run (docs/STORE-RULES.md §13.1). Idempotent: a retry adopts the existing restart.',
  validate: limitedInput({
    runId: limitedText(),
    originSessionId: limitedText(),
    parentTerminalFingerprint: limitedText(),
    restartRunId: limitedText(),
    claim: claimInputLimits.nullish(),
  }),
  fields: (t) => ({
    runId: t.string({ required: true, description: 'The terminal run to restart.' }),
    originSessionId: t.string({
      required: true,
      description: 'The Pi session asking for the restart: the origin session of the run.',
    }),
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

const RestartSuccessRef = adoptedRunSuccessType('RestartWorkflowRunSuccess', 'The restart run (new, or adopted on retry).');

/** The typed errors restartWorkflowRun can return, and when: its result union lists exactly these. */
const RESTART_ERRORS = mutationErrors(
  'restartWorkflowRun',
  [NotFoundError, LineageError, ConflictError, RestartRejectedError, ValidationError, ForbiddenError],
  'RestartWorkflowRunSuccess, or: NotFoundError (no such run), ForbiddenError (not an interactive run of this session, or ' +
    'read-only server), RestartRejectedError (cancelled run, restart limit, repeated terminal outcome), LineageError (run not ' +
    'terminal, malformed fingerprint), ConflictError (fingerprint of another outcome, the claim could not be taken), ' +
    'ValidationError (malformed input).',
);

builder.mutationField('restartWorkflowRun', (t) =>
  t.field({
    type: RestartSuccessRef,
    description:
      'Restart a terminal run; a retry returns the same restart with adopted: true. Only runs of the same origin session (else ForbiddenError) that are interactive (else RestartRejectedError) can be restarted.',
    args: { input: t.arg({ type: RestartInputRef, required: true, description: 'What to restart.' }) },
    errors: RESTART_ERRORS,
    resolve: (_root, { input }, context) =>
      runMutation(context, () => {
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
);
