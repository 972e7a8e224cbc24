import { StoreError } from './errors.js';
import { loadRunRow, requireRunRow, toRunRecords, TERMINAL_QUEUE_STATUSES, TERMINAL_RUN_STATUSES, type RunRow, type WorkflowRunRecord } from './run-records.js';
import { prepareOrAdoptWorkflowRun, reserveWorkflowRun, type ClaimRequest, type PreparedRun, type ReserveWorkflowRunInput } from './run-reservation.js';
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
 * The restart policy that does not depend on the computed fingerprint (STORE.md §13.11):
 * cancelled parent, restart limit, and (when given) a fingerprint already used in the chain.
 * Both `restartWorkflowRun` and a reservation with lineage `restart` call it.
 *
 * @throws StoreError(restart_rejected) `An explicitly cancelled workflow cannot be restarted`,
 *   `Workflow restart limit reached (3 restarts)`,
 *   `The same terminal outcome already occurred in this restart chain`
 */
export function assertRestartPolicy(context: StoreContext, parent: RunRow, fingerprint?: Buffer): void {
  assertNotCancelled(parent);
  if (parent.restart_number >= MAX_RESTARTS) {
    throw new StoreError('restart_rejected', `Workflow restart limit reached (${MAX_RESTARTS} restarts)`);
  }
  if (fingerprint !== undefined) assertFingerprintUnused(context, parent, fingerprint);
}

function assertNotCancelled(parent: RunRow): void {
  if (parent.queue_status === 'cancelled' || parent.run_status === 'cancelled') {
    throw new StoreError('restart_rejected', 'An explicitly cancelled workflow cannot be restarted');
  }
}

function assertFingerprintUnused(context: StoreContext, parent: RunRow, fingerprint: Buffer): void {
  const used = context.database.get(
    'SELECT 1 FROM runs WHERE root_run_id = ? AND parent_terminal_fingerprint = ? LIMIT 1',
    parent.root_run_id,
    fingerprint,
  );
  if (used !== undefined) {
    throw new StoreError('restart_rejected', 'The same terminal outcome already occurred in this restart chain');
  }
}

/**
 * Reservation with the restart policy in front (STORE.md §13.11): for lineage `restart` of a
 * new run, first the cancelled-parent, limit and used-fingerprint checks of
 * {@link assertRestartPolicy}, then §6.1 (and with a claim, §6.2) in the same transaction.
 *
 * @returns `{state, run}`; `state` is `reserved` without a claim
 * @throws every error of `reserveWorkflowRun` / `prepareOrAdoptWorkflowRun`, and the
 *   restart_rejected errors of {@link assertRestartPolicy}
 */
export function reserveWithRestartPolicy(
  context: StoreContext,
  input: ReserveWorkflowRunInput,
  claim?: ClaimRequest,
): { state: 'reserved' | 'claimed' | 'adopted'; run: WorkflowRunRecord } {
  assertWritable(context); // before the policy checks: a read-only store refuses first
  return context.database.transaction(() => {
    if (input.lineageKind === 'restart' && input.parentRunId !== undefined && loadRunRow(context, input.runId) === undefined) {
      const parent = loadRunRow(context, input.parentRunId);
      if (parent !== undefined) {
        let fingerprint: Buffer | undefined;
        try {
          fingerprint =
            input.parentTerminalFingerprint === undefined ? undefined : terminalFingerprintBuffer(input.parentTerminalFingerprint);
        } catch {
          fingerprint = undefined; // the reservation reports the syntax error in its own order
        }
        assertRestartPolicy(context, parent, fingerprint);
      }
    }
    if (claim === undefined) return { state: 'reserved' as const, run: reserveWorkflowRun(context, input) };
    return prepareOrAdoptWorkflowRun(context, input, claim);
  });
}

/**
 * The idempotent restart command (STORE.md §13.1): run exists; same session and interactive;
 * not cancelled; an existing restart child is adopted; restart limit; parent terminal;
 * fingerprint parses and equals the run's own; not already used in the chain; then
 * prepare-or-adopt (with a claim) or reserve (without) the restart with the deterministic id.
 *
 * @returns the restart run and `adopted`
 * @throws StoreError not_found `Workflow run not found: <runId>`; forbidden
 *   `Workflow run belongs to another Pi session`; restart_rejected (see
 *   {@link assertRestartPolicy}); lineage `Restart parent is not terminal`,
 *   `Expected a terminal fingerprint`; conflict
 *   `Terminal fingerprint does not match the terminal outcome of workflow run: <runId>`
 */
export function restartWorkflowRun(context: StoreContext, input: RestartWorkflowRunInput): RestartResult {
  assertWritable(context);
  assertRunId(input.runId);
  if (input.restartRunId !== undefined) assertRunId(input.restartRunId, 'restartRunId');
  const now = resolveNow(input.now, context.clock);
  return context.database.transaction(() => {
    const parent = loadRunRow(context, input.runId);
    if (parent === undefined) throw new StoreError('not_found', `Workflow run not found: ${input.runId}`);
    if (parent.origin_session_id !== input.originSessionId || parent.execution_mode !== 'interactive') {
      throw new StoreError('forbidden', 'Workflow run belongs to another Pi session');
    }
    assertNotCancelled(parent);
    const existing = context.database.get<{ run_id: string }>(
      "SELECT run_id FROM runs WHERE parent_run_id = ? AND lineage_kind = 'restart'",
      input.runId,
    );
    if (existing !== undefined) {
      return { run: toRunRecords(context, [requireRunRow(context, existing.run_id)], now)[0] as WorkflowRunRecord, adopted: true };
    }
    assertRestartPolicy(context, parent);
    if (!TERMINAL_RUN_STATUSES.includes(parent.run_status) || !TERMINAL_QUEUE_STATUSES.includes(parent.queue_status)) {
      throw new StoreError('lineage', 'Restart parent is not terminal');
    }
    const [parentRecord] = toRunRecords(context, [parent], now);
    const own = parentRecord?.terminalFingerprint as string;
    let fingerprint = own;
    if (input.parentTerminalFingerprint !== undefined) {
      let given: Buffer;
      try {
        given = terminalFingerprintBuffer(input.parentTerminalFingerprint);
      } catch (error) {
        throw new StoreError('lineage', (error as Error).message);
      }
      if (given.toString('hex') !== own) {
        throw new StoreError('conflict', `Terminal fingerprint does not match the terminal outcome of workflow run: ${input.runId}`);
      }
      fingerprint = own;
    }
    assertFingerprintUnused(context, parent, Buffer.from(fingerprint, 'hex'));
    const reservation = restartReservation(context, parent, input, fingerprint, now);
    if (input.claim === undefined) {
      return { run: reserveWorkflowRun(context, reservation), adopted: false };
    }
    const prepared: PreparedRun = prepareOrAdoptWorkflowRun(context, reservation, input.claim);
    return { run: prepared.run, adopted: prepared.state === 'adopted' };
  });
}

function restartReservation(
  context: StoreContext,
  parent: RunRow,
  input: RestartWorkflowRunInput,
  fingerprint: string,
  now: number,
): ReserveWorkflowRunInput {
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
