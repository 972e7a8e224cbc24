import { StoreError } from './errors.js';
import { loadRunRow, requireRunRow, toRunRecords, TERMINAL_QUEUE_STATUSES, TERMINAL_RUN_STATUSES, type RunRow, type WorkflowRunRecord } from './run-records.js';
import {
  prepareOrAdoptWorkflowRun,
  reserveWorkflowRun,
  restartChildOf,
  type ClaimRequest,
  type OwnLineageRules,
  type PreparedRun,
  type ReserveWorkflowRunInput,
} from './run-reservation.js';
import { assertWritable, type StoreContext } from './store-context.js';
import { assertRunId, resolveNow, sha256Hex, terminalFingerprintBuffer } from './values.js';
import { workflowMessageIdFor } from './workflow-messages.js';

/** Most restarts in one chain (`MAX_RESTARTS`, STORE.md §7). */
export const MAX_RESTARTS = 3;

/** Input of {@link restartWorkflowRun} (STORE.md §13.1). */
export interface RestartWorkflowRunInput {
  /** The terminal run to restart. */
  runId: string;
  originSessionId: string;
  /** Optional; when absent the run's own terminal fingerprint is used. */
  parentTerminalFingerprint?: string;
  /** Optional; default {@link restartRunIdFor}. */
  restartRunId?: string;
  /** When given, the restart is reserved and claimed in one transaction. */
  claim?: ClaimRequest;
  now?: string;
}

/** Result of {@link restartWorkflowRun}: the restart run and whether it already existed. */
export interface RestartResult {
  run: WorkflowRunRecord;
  adopted: boolean;
}

/**
 * The deterministic restart run id (STORE.md §7 rule 11): `restart-` + first 40 hex of
 * SHA-256 of the terminal message id, itself derived from (`terminal`,
 * `terminal:<parentRunId>`, fingerprint).
 *
 * @param fingerprintHex 64 lowercase hex characters
 */
export function restartRunIdFor(parentRunId: string, fingerprintHex: string): string {
  const terminalMessageId = workflowMessageIdFor(fingerprintHex, 'terminal', `terminal:${parentRunId}`);
  return `restart-${sha256Hex(terminalMessageId).slice(0, 40)}`;
}

/**
 * Text of the rule that only interactive runs restart (issue 10 item 8; STORE.md §12.5: the
 * host computes restarts only for interactive runs). Both `restartWorkflowRun` and a
 * reservation with lineage `restart` refuse a headless parent with it.
 */
export const ONLY_INTERACTIVE_RESTART = 'Only interactive workflow runs can be restarted';

/**
 * Text of a given fingerprint that is not the parent's own terminal fingerprint (STORE.md
 * §13.1; on the reservation path since issue 10 item 8).
 */
export function fingerprintMismatchMessage(parentRunId: string): string {
  return `Terminal fingerprint does not match the terminal outcome of workflow run: ${parentRunId}`;
}

/**
 * The policy of STORE.md §13.1 that comes before adoption, on both restart paths: the run
 * being restarted is interactive, and it was not explicitly cancelled. The caller has checked
 * that it exists and belongs to the caller's session.
 *
 * @throws StoreError(restart_rejected) {@link ONLY_INTERACTIVE_RESTART},
 *   `An explicitly cancelled workflow cannot be restarted`
 */
function assertRestartable(parent: RunRow): void {
  if (parent.execution_mode !== 'interactive') throw new StoreError('restart_rejected', ONLY_INTERACTIVE_RESTART);
  if (parent.queue_status === 'cancelled' || parent.run_status === 'cancelled') {
    throw new StoreError('restart_rejected', 'An explicitly cancelled workflow cannot be restarted');
  }
}

/** @throws StoreError(restart_rejected) `Workflow restart limit reached (3 restarts)` */
function assertWithinRestartLimit(parent: RunRow): void {
  if (parent.restart_number >= MAX_RESTARTS) {
    throw new StoreError('restart_rejected', `Workflow restart limit reached (${MAX_RESTARTS} restarts)`);
  }
}

function isTerminal(parent: RunRow): boolean {
  return TERMINAL_RUN_STATUSES.includes(parent.run_status) && TERMINAL_QUEUE_STATUSES.includes(parent.queue_status);
}

/** The parent's own terminal fingerprint (STORE.md §7.1, §13.2) as 64 lowercase hex; the parent is terminal. */
function ownFingerprint(context: StoreContext, parent: RunRow, now: number): string {
  const [record] = toRunRecords(context, [parent], now);
  const own = record?.terminalFingerprint;
  if (typeof own !== 'string') throw new StoreError('integrity', `Workflow run has no terminal fingerprint: ${parent.run_id}`);
  return own;
}

/**
 * The given fingerprint must be the parent's own, and that outcome must not have been restarted
 * already in the chain (STORE.md §13.1 steps 8 and 9).
 *
 * @param given parsed fingerprint bytes
 * @throws StoreError conflict {@link fingerprintMismatchMessage}; restart_rejected
 *   `The same terminal outcome already occurred in this restart chain`
 */
function assertOwnUnusedFingerprint(context: StoreContext, parent: RunRow, given: Buffer, own: string): void {
  if (given.toString('hex') !== own) throw new StoreError('conflict', fingerprintMismatchMessage(parent.run_id));
  const used = context.database.get('SELECT 1 FROM runs WHERE root_run_id = ? AND parent_terminal_fingerprint = ? LIMIT 1', parent.root_run_id, given);
  if (used !== undefined) {
    throw new StoreError('restart_rejected', 'The same terminal outcome already occurred in this restart chain');
  }
}

/**
 * The restart policy of a reservation with lineage `restart` (STORE.md §13.11 and its
 * 2026-12-01 addition, issue 10 item 8), in the order of §13.1, run by the reservation after
 * every seed rule (docs/PI-WORKFLOWS-FILES.md §8: the seed's rules decide first, so a wrong
 * restart number is `Restart number does not follow its parent` whatever the fingerprint): the
 * parent is interactive and not cancelled; restart limit; the fingerprint is the parent's own,
 * and not already restarted in the chain. The seeds' rules have found the parent, in the caller's
 * session and terminal, and parsed the fingerprint.
 *
 * @throws StoreError restart_rejected ({@link ONLY_INTERACTIVE_RESTART}, cancelled, limit,
 *   repeated outcome); conflict {@link fingerprintMismatchMessage}
 */
function restartReservationPolicy(context: StoreContext, now: number): OwnLineageRules {
  return (lineage) => {
    const { parent, fingerprint } = lineage;
    if (lineage.lineageKind !== 'restart' || parent === undefined || fingerprint === null) return;
    assertRestartable(parent);
    assertWithinRestartLimit(parent);
    assertOwnUnusedFingerprint(context, parent, fingerprint, ownFingerprint(context, parent, now));
  };
}

/**
 * Reservation with the restart policy (STORE.md §13.11): §6.1 (and with a claim, §6.2) with
 * {@link restartReservationPolicy} after the seeds' rules, in one transaction. A restart
 * reservation therefore carries the parent's own terminal fingerprint and restarts only
 * interactive runs, as `restartWorkflowRun` does (issue 10 item 8).
 *
 * @returns `{state, run}`; `state` is `reserved` without a claim
 * @throws every error of `reserveWorkflowRun` / `prepareOrAdoptWorkflowRun`, and the errors of
 *   {@link restartReservationPolicy}
 */
export function reserveWithRestartPolicy(
  context: StoreContext,
  input: ReserveWorkflowRunInput,
  claim?: ClaimRequest,
): { state: 'reserved' | 'claimed' | 'adopted'; run: WorkflowRunRecord } {
  assertWritable(context);
  assertRunId(input.runId);
  const now = resolveNow(input.now, context.clock);
  const policy = restartReservationPolicy(context, now);
  return context.database.transaction(() => {
    if (claim === undefined) return { state: 'reserved' as const, run: reserveWorkflowRun(context, input, policy) };
    return prepareOrAdoptWorkflowRun(context, input, claim, policy);
  });
}

/**
 * The idempotent restart command (STORE.md §13.1): run exists; same session; interactive and
 * not cancelled (one rule with the reservation path, issue 10 item 8); an existing restart
 * child is adopted; restart limit; parent terminal; fingerprint parses and equals the run's
 * own; not already used in the chain; then prepare-or-adopt (with a claim) or reserve
 * (without) the restart with the deterministic id.
 *
 * @returns the restart run and `adopted`
 * @throws StoreError not_found `Workflow run not found: <runId>`; forbidden
 *   `Workflow run belongs to another Pi session`; restart_rejected
 *   {@link ONLY_INTERACTIVE_RESTART}, `An explicitly cancelled workflow cannot be restarted`,
 *   `Workflow restart limit reached (3 restarts)`,
 *   `The same terminal outcome already occurred in this restart chain`; lineage
 *   `Restart parent is not terminal`, `Expected a terminal fingerprint`; conflict
 *   {@link fingerprintMismatchMessage}
 */
export function restartWorkflowRun(context: StoreContext, input: RestartWorkflowRunInput): RestartResult {
  assertWritable(context);
  assertRunId(input.runId);
  if (input.restartRunId !== undefined) assertRunId(input.restartRunId, 'restartRunId');
  const now = resolveNow(input.now, context.clock);
  return context.database.transaction(() => {
    const parent = loadRunRow(context, input.runId);
    if (parent === undefined) throw new StoreError('not_found', `Workflow run not found: ${input.runId}`);
    if (parent.origin_session_id !== input.originSessionId) {
      throw new StoreError('forbidden', 'Workflow run belongs to another Pi session');
    }
    assertRestartable(parent);
    const existing = restartChildOf(context, input.runId);
    if (existing !== undefined) {
      return { run: toRunRecords(context, [requireRunRow(context, existing)], now)[0] as WorkflowRunRecord, adopted: true };
    }
    assertWithinRestartLimit(parent);
    if (!isTerminal(parent)) throw new StoreError('lineage', 'Restart parent is not terminal');
    const own = ownFingerprint(context, parent, now);
    let given: Buffer = Buffer.from(own, 'hex');
    if (input.parentTerminalFingerprint !== undefined) {
      try {
        given = terminalFingerprintBuffer(input.parentTerminalFingerprint);
      } catch (error) {
        throw new StoreError('lineage', (error as Error).message);
      }
    }
    assertOwnUnusedFingerprint(context, parent, given, own);
    const reservation = restartReservation(context, parent, input, own, now);
    if (input.claim === undefined) {
      return { run: reserveWorkflowRun(context, reservation), adopted: false };
    }
    const prepared: PreparedRun = prepareOrAdoptWorkflowRun(context, reservation, input.claim);
    return { run: prepared.run, adopted: prepared.state === 'adopted' };
  });
}

function restartReservation(context: StoreContext, parent: RunRow, input: RestartWorkflowRunInput, fingerprint: string, now: number): ReserveWorkflowRunInput {
  const [record] = toRunRecords(context, [parent], now);
  const snapshot = context.database.get<{ definition_hash: Buffer }>(
    'SELECT definition_hash FROM workflow_definitions WHERE definition_digest = ?',
    parent.definition_digest,
  );
  if (record === undefined || snapshot === undefined) {
    throw new StoreError('restart_rejected', 'Workflow definition snapshot is missing');
  }
  return {
    runId: input.restartRunId ?? restartRunIdFor(parent.run_id, fingerprint),
    workflowName: record.workflowName,
    workflowSourceRef: record.workflowSourceRef,
    workflowSource: record.workflowSource.mounted.length === 0 ? record.workflowSource.root : record.workflowSource,
    definitionDigest: record.definitionDigest,
    definitionSnapshot: context.blobs.readJson(snapshot.definition_hash),
    input: record.input,
    launchOptions: record.launchOptions,
    runnerId: input.claim?.runnerId ?? null,
    originSessionId: parent.origin_session_id,
    executionMode: 'interactive',
    parentRunId: parent.run_id,
    lineageKind: 'restart',
    restartNumber: parent.restart_number + 1,
    parentTerminalFingerprint: fingerprint,
    now: new Date(now).toISOString(),
  };
}
