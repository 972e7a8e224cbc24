import { claimNotLiveMessage, StoreError } from './errors.js';
import type { RunClaimInput } from './run-claims.js';
import { bumpRun, type LeaseState, leaseVerifies, ownerActor, readLease, releaseLease, SUMMARY_REPLAY, withActiveSessionSlot } from './run-events.js';
import { loadRunRow, requireRunRecord, requireRunRow, type RunRow, type WorkflowRunRecord } from './run-records.js';
import { assertWritable, type StoreContext } from './store-context.js';
import { resolveNow } from './values.js';

/**
 * The claim holder's transitions of a run (docs/STORE-RULES.md §6.5–§6.7): worker ready
 * (queue `running`), release to parked or done, park for worker no progress, each with a
 * verified claim; the `…OrThrow` forms decide the refusals for the GraphQL mutations.
 */

/**
 * Loads a run and its lease when `claimToken` is the run's live claim (docs/STORE-RULES.md §5).
 *
 * @returns the joined row and the lease, or undefined when the run is missing or the claim
 *   does not verify
 */
export function verifiedClaim(context: StoreContext, runId: string, claimToken: string, now: number): { row: RunRow; lease: LeaseState } | undefined {
  const row = loadRunRow(context, runId);
  if (row === undefined) return undefined;
  const lease = readLease(context, row.resource_id);
  return leaseVerifies(lease, claimToken, now) ? { row, lease } : undefined;
}

/** Longest stored no-progress detail, in UTF-16 code units (docs/STORE-RULES.md §6.7). */
export const NO_PROGRESS_DETAIL_LIMIT = 8_192;

/**
 * Worker ready (docs/STORE-RULES.md §6.5): with a verified claim, queue `running`, `started_at` set once,
 * bump with `run.queue_running` `{status:'running'}`.
 *
 * @returns false when the claim does not verify (nothing written)
 * @throws StoreError(conflict) `Pi session already has an active workflow run: <sessionId>` when a
 *   parked run (control claim) would become a second active queue entry of its session
 */
export function markWorkflowRunRunning(context: StoreContext, input: RunClaimInput): boolean {
  assertWritable(context);
  const now = resolveNow(input.now, context.clock);
  return context.database.transaction(() => {
    const claimed = verifiedClaim(context, input.runId, input.claimToken, now);
    if (claimed === undefined) return false;
    const { row, lease } = claimed;
    withActiveSessionSlot(context, row.origin_session_id, () =>
      context.database.run(
        "UPDATE run_queue SET status = 'running', started_at = coalesce(started_at, ?), updated_at = ? WHERE run_id = ?",
        now,
        now,
        input.runId,
      ),
    );
    bumpRun(context, row, 'run.queue_running', ownerActor(lease), { status: 'running' }, now);
    return true;
  });
}

/**
 * Worker ready for the claim holder, deciding the refusals: the writes of
 * {@link markWorkflowRunRunning} (docs/PI-WORKFLOWS-FILES.md §5 "mark running"), in one
 * transaction.
 *
 * @returns the run's record, queue `running`
 * @throws StoreError(not_found) `Workflow run not found: <runId>`; StoreError(claim_lost)
 *   `Claim token is not the live claim of workflow run: <runId>`; the conflict of
 *   {@link markWorkflowRunRunning}
 */
export function markWorkflowRunRunningOrThrow(context: StoreContext, input: RunClaimInput): WorkflowRunRecord {
  assertWritable(context);
  return context.database.transaction(() => {
    requireRunRow(context, input.runId);
    if (!markWorkflowRunRunning(context, input)) throw new StoreError('claim_lost', claimNotLiveMessage(input.runId));
    return requireRunRecord(context, input.runId, resolveNow(input.now, context.clock));
  });
}

/**
 * Releases a verified claim to `parked` or `done` (docs/STORE-RULES.md §6.6): queue status, updated_at,
 * finished_at (now for done, else NULL), lease released by token and generation, bump with
 * `run.queue_parked` / `run.queue_done`, then viewer summary, replay. The runs row is not
 * touched. A release that misses rolls back (docs/STORE-RULES.md §13.8).
 *
 * @returns false when the claim does not verify (nothing written)
 * @throws StoreError(claim_lost) `Workflow run <runId> claim changed during release`
 */
export function releaseWorkflowRunClaim(context: StoreContext, input: RunClaimInput, status: 'parked' | 'done'): boolean {
  assertWritable(context);
  const now = resolveNow(input.now, context.clock);
  return context.database.transaction(() => {
    const claimed = verifiedClaim(context, input.runId, input.claimToken, now);
    if (claimed === undefined) return false;
    releaseVerified(context, claimed, input.claimToken, status, now);
    return true;
  });
}

/** The writes of {@link releaseWorkflowRunClaim} once the claim verified, inside its transaction. */
function releaseVerified(
  context: StoreContext,
  { row, lease }: { row: RunRow; lease: LeaseState },
  claimToken: string,
  status: 'parked' | 'done',
  now: number,
): void {
  context.database.run(
    'UPDATE run_queue SET status = ?, updated_at = ?, finished_at = ? WHERE run_id = ?',
    status,
    now,
    status === 'done' ? now : null,
    row.run_id,
  );
  if (!releaseLease(context, lease, claimToken)) {
    throw new StoreError('claim_lost', `Workflow run ${row.run_id} claim changed during release`);
  }
  bumpRun(context, row, status === 'done' ? 'run.queue_done' : 'run.queue_parked', ownerActor(lease), { status }, now, SUMMARY_REPLAY);
}

/**
 * Parks a run whose worker made no progress (docs/STORE-RULES.md §6.7, 0.16.2): detail cut to 8,192
 * code units and stored as a text blob; runs detail (non-terminal runs), queue `parked` with
 * `workerNoProgress`; lease released; bump with `run.worker_no_progress`; viewer summary,
 * replay. A `waiting` run is refused (docs/STORE-RULES.md §13.7).
 *
 * @returns false when the claim does not verify (nothing written)
 * @throws StoreError(conflict) `Workflow run <runId> changed during worker recovery`,
 *   `Workflow run <runId> is waiting and cannot be parked for worker no progress`;
 *   StoreError(claim_lost) `Workflow run <runId> claim changed during worker recovery`
 */
export function parkWorkflowRunForWorkerNoProgress(context: StoreContext, input: RunClaimInput & { detail: string }): boolean {
  assertWritable(context);
  const now = resolveNow(input.now, context.clock);
  assertDetail(input.detail);
  return context.database.transaction(() => {
    const claimed = verifiedClaim(context, input.runId, input.claimToken, now);
    if (claimed === undefined) return false;
    parkNoProgressVerified(context, claimed, input.claimToken, input.detail, now);
    return true;
  });
}

function assertDetail(detail: unknown): void {
  if (typeof detail !== 'string') throw new StoreError('validation', 'detail must be a string', 'noProgressDetail');
}

/** The writes of {@link parkWorkflowRunForWorkerNoProgress} once the claim verified, inside its transaction. */
function parkNoProgressVerified(
  context: StoreContext,
  { row, lease }: { row: RunRow; lease: LeaseState },
  claimToken: string,
  fullDetail: string,
  now: number,
): void {
  const runId = row.run_id;
  if (row.run_status === 'waiting') {
    throw new StoreError('conflict', `Workflow run ${runId} is waiting and cannot be parked for worker no progress`);
  }
  const detail = fullDetail.slice(0, NO_PROGRESS_DETAIL_LIMIT);
  const errorHash = context.blobs.putText(detail, now);
  const run = context.database.run(
    `UPDATE runs SET status_detail = ?, updated_at = ?, finished_at = NULL
     WHERE run_id = ? AND status NOT IN ('completed', 'failed', 'timed_out', 'cancelled')`,
    detail,
    now,
    runId,
  );
  const queue = context.database.run(
    `UPDATE run_queue SET status = 'parked', error_code = 'workerNoProgress', error_hash = ?, available_at = ?,
       updated_at = ?, finished_at = NULL
     WHERE run_id = ? AND status IN ('queued', 'starting', 'running', 'parked')`,
    errorHash,
    now,
    now,
    runId,
  );
  if (run.changes !== 1 || queue.changes !== 1) {
    throw new StoreError('conflict', `Workflow run ${runId} changed during worker recovery`);
  }
  if (!releaseLease(context, lease, claimToken, now)) {
    throw new StoreError('claim_lost', `Workflow run ${runId} claim changed during worker recovery`);
  }
  bumpRun(context, row, 'run.worker_no_progress', ownerActor(lease), { status: 'parked', code: 'workerNoProgress' }, now, SUMMARY_REPLAY);
}

/**
 * Parks a claimed run for its claim holder and decides every refusal itself (callers
 * map the error kind, they do not re-read the run): without `noProgressDetail` the
 * release to `parked` of docs/STORE-RULES.md §6.6, with it the worker-no-progress park of §6.7 — in one
 * transaction, nothing written when refused.
 *
 * @returns the parked run's record
 * @throws StoreError(not_found) `Workflow run not found: <runId>`;
 *   StoreError(claim_lost) `Claim token is not the live claim of workflow run: <runId>` (also
 *   for an expired lease), and every error of {@link releaseWorkflowRunClaim} /
 *   {@link parkWorkflowRunForWorkerNoProgress}
 */
export function parkClaimedWorkflowRun(context: StoreContext, input: RunClaimInput & { noProgressDetail?: string }): WorkflowRunRecord {
  assertWritable(context);
  const now = resolveNow(input.now, context.clock);
  if (input.noProgressDetail !== undefined) assertDetail(input.noProgressDetail);
  return context.database.transaction(() => {
    const row = requireRunRow(context, input.runId);
    const lease = readLease(context, row.resource_id);
    if (!leaseVerifies(lease, input.claimToken, now)) throw new StoreError('claim_lost', claimNotLiveMessage(input.runId));
    if (input.noProgressDetail === undefined) releaseVerified(context, { row, lease }, input.claimToken, 'parked', now);
    else parkNoProgressVerified(context, { row, lease }, input.claimToken, input.noProgressDetail, now);
    return requireRunRecord(context, input.runId, now);
  });
}
