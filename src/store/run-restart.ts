import { StoreError } from './errors.js';
import { assertOwnUnusedFingerprint, assertRestartable, assertWithinRestartLimit, ownFingerprint } from './restart-policy.js';
import {
  loadRunRow,
  requireRunRecord,
  toRunRecords,
  TERMINAL_QUEUE_STATUSES,
  TERMINAL_RUN_STATUSES,
  type RunRow,
  type WorkflowRunRecord,
} from './run-records.js';
import { reserveCheckedRun, restartChildOf, type ClaimRequest, type ReserveWorkflowRunInput } from './run-reservation.js';
import { assertWritable, type StoreContext } from './store-context.js';
import { assertLeaseMs, assertRunId, resolveNow, sha256Hex, terminalFingerprintBuffer } from './values.js';
import { workflowMessageIdFor } from './workflow-messages.js';

/** Input of {@link restartWorkflowRun} (docs/STORE-RULES.md §13.1). */
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
 * The deterministic restart run id (docs/STORE-RULES.md §7 rule 11): `restart-` + first 40 hex of
 * SHA-256 of the terminal message id, itself derived from (`terminal`,
 * `terminal:<parentRunId>`, fingerprint).
 *
 * @param fingerprintHex 64 lowercase hex characters
 */
export function restartRunIdFor(parentRunId: string, fingerprintHex: string): string {
  const terminalMessageId = workflowMessageIdFor(fingerprintHex, 'terminal', `terminal:${parentRunId}`);
  return `restart-${sha256Hex(terminalMessageId).slice(0, 40)}`;
}

function isTerminal(parent: RunRow): boolean {
  return TERMINAL_RUN_STATUSES.includes(parent.run_status) && TERMINAL_QUEUE_STATUSES.includes(parent.queue_status);
}

/**
 * The idempotent restart command (docs/STORE-RULES.md §13.1): run exists; same session; interactive and
 * not cancelled (the rules of `restart-policy.ts`, one with the reservation path); an existing restart
 * child is adopted; restart limit; parent terminal; fingerprint parses and equals the run's
 * own; not already used in the chain; then prepare-or-adopt (with a claim) or reserve
 * (without) the restart with the deterministic id.
 *
 * @returns the restart run and `adopted`
 * @throws StoreError not_found `Workflow run not found: <runId>`; forbidden
 *   `Workflow run belongs to another Pi session`; restart_rejected
 *   `Only interactive workflow runs can be restarted`, `An explicitly cancelled workflow cannot be restarted`,
 *   `Workflow restart limit reached (3 restarts)`,
 *   `The same terminal outcome already occurred in this restart chain`; lineage
 *   `Restart parent is not terminal`, `Expected a terminal fingerprint`; conflict
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
    if (parent.origin_session_id !== input.originSessionId) {
      throw new StoreError('forbidden', 'Workflow run belongs to another Pi session');
    }
    assertRestartable(parent);
    const existing = restartChildOf(context, input.runId);
    if (existing !== undefined) {
      return { run: requireRunRecord(context, existing, now), adopted: true };
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
    if (input.claim !== undefined) assertLeaseMs(input.claim.leaseMs);
    // The policy ran above, in §13.1's order; the reservation's values come from the parent's row.
    const reserved = reserveCheckedRun(context, { input: reservation, now, digest: parent.definition_digest, claim: input.claim }, 'skip');
    return { run: reserved.run, adopted: reserved.state === 'adopted' };
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
  };
}
