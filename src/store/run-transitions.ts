import { claimNotLiveMessage, StoreError } from './errors.js';
import {
  bumpRun,
  leaseVerifies,
  ownerActor,
  ownerTypeFor,
  readLease,
  releaseLease,
  SUMMARY_REPLAY,
  withActiveSessionSlot,
  type LeaseState,
} from './run-events.js';
import { loadRunRow, requireRunRecord, requireRunRow, type RunRow, type WorkflowRunRecord } from './run-records.js';
import { assertWritable, type StoreContext } from './store-context.js';
import { resolveNow } from './values.js';
import type { ViewerDeltaDraft } from './viewer-deltas.js';
import type { RunClaimInput } from './run-claims.js';

/**
 * Loads a run and its lease when `claimToken` is the run's live claim (docs/STORE-RULES.md §5).
 *
 * @returns the joined row and the lease, or undefined when the run is missing or the claim
 *   does not verify
 */
function verifiedClaim(context: StoreContext, runId: string, claimToken: string, now: number): { row: RunRow; lease: LeaseState } | undefined {
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

function hasPendingRequest(context: StoreContext, runId: string): boolean {
  return context.database.get("SELECT 1 FROM interactive_requests WHERE run_id = ? AND status = 'pending' LIMIT 1", runId) !== undefined;
}

/** Why a run with a live lease (`now` epoch ms) refuses a control change, or null when its lease is free or expired. */
function liveLeaseRefusal(row: RunRow, now: number, action: string): string | null {
  if (row.owner_id === null || row.expires_at === null || row.expires_at <= now) return null;
  return `Workflow run ${row.run_id} is claimed by ${row.owner_id} until ${new Date(row.expires_at).toISOString()}: a claimed run cannot be ${action}`;
}

/**
 * The pause of docs/STORE-RULES.md §6.8 inside the caller's transaction: refuses (returns the refusal's
 * text, nothing written) a run that is not parked, has a live lease, has no pending
 * interactive request, or (not yet paused) is neither running nor waiting; an already paused
 * run is left as it is; else paused 1, detail `paused`, bump with `run.paused`, viewer
 * summary, replay.
 *
 * @param now epoch ms
 * @returns null when paused (or already paused), else the refusal's text
 */
function pauseRun(context: StoreContext, row: RunRow, now: number): string | null {
  const runId = row.run_id;
  if (row.queue_status !== 'parked') return `Workflow run ${runId} is not parked (queue status ${row.queue_status}): only a parked run can be paused`;
  const leased = liveLeaseRefusal(row, now, 'paused');
  if (leased !== null) return leased;
  if (!hasPendingRequest(context, runId)) return `Workflow run ${runId} has no pending interaction: only a run waiting for input can be paused`;
  if (row.paused === 1) return null;
  if (row.run_status !== 'running' && row.run_status !== 'waiting') {
    return `Workflow run ${runId} is ${row.run_status}: only a running or waiting run can be paused`;
  }
  context.database.run("UPDATE runs SET paused = 1, status_detail = 'paused', updated_at = ? WHERE run_id = ?", now, runId);
  bumpRun(context, row, 'run.paused', { type: 'control', id: null }, { status: 'parked' }, now, SUMMARY_REPLAY);
  return null;
}

/**
 * Pauses a parked run with a pending interaction (docs/STORE-RULES.md §6.8): see {@link pauseRun}.
 * Already paused → true, no change.
 *
 * @returns false when the run is missing, not parked, has a live lease, no pending request, or
 *   is not running/waiting (nothing written)
 */
export function pauseParkedWorkflowRun(context: StoreContext, input: { runId: string; now?: string }): boolean {
  assertWritable(context);
  const now = resolveNow(input.now, context.clock);
  return context.database.transaction(() => {
    const row = loadRunRow(context, input.runId);
    return row !== undefined && pauseRun(context, row, now) === null;
  });
}

/**
 * Pauses a parked run and decides the refusals (docs/PI-WORKFLOWS-FILES.md §5): the pause of
 * {@link pauseParkedWorkflowRun}, in one transaction; an already paused run is answered as it is.
 *
 * @returns the paused run's record
 * @throws StoreError(not_found) `Workflow run not found: <runId>`; StoreError(conflict) with the
 *   refusal's text: `Workflow run <runId> is not parked (queue status <status>): only a parked
 *   run can be paused`, `… is claimed by <owner> until <ISO>: a claimed run cannot be paused`,
 *   `… has no pending interaction: only a run waiting for input can be paused`,
 *   `… is <status>: only a running or waiting run can be paused`
 */
export function pauseParkedWorkflowRunOrThrow(context: StoreContext, input: { runId: string; now?: string }): WorkflowRunRecord {
  assertWritable(context);
  const now = resolveNow(input.now, context.clock);
  return context.database.transaction(() => {
    const refusal = pauseRun(context, requireRunRow(context, input.runId), now);
    if (refusal !== null) throw new StoreError('conflict', refusal);
    return requireRunRecord(context, input.runId, now);
  });
}

/**
 * The resume of docs/STORE-RULES.md §6.8 inside the caller's transaction: refuses (returns the refusal's
 * text, nothing written) unless queue `parked`, run `waiting`, paused, no live lease and a
 * pending request; else paused 0, detail `waiting for origin-session input`, bump with
 * `run.resumed`, viewer summary, replay.
 *
 * @param now epoch ms
 * @returns null when resumed, else the refusal's text
 */
function resumeRun(context: StoreContext, row: RunRow, now: number): string | null {
  const runId = row.run_id;
  if (row.queue_status !== 'parked') return `Workflow run ${runId} is not parked (queue status ${row.queue_status}): only a parked run can be resumed`;
  if (row.run_status !== 'waiting') return `Workflow run ${runId} is ${row.run_status}, not waiting: only a paused waiting run can be resumed`;
  if (row.paused !== 1) return `Workflow run ${runId} is not paused`;
  const leased = liveLeaseRefusal(row, now, 'resumed');
  if (leased !== null) return leased;
  if (!hasPendingRequest(context, runId)) return `Workflow run ${runId} has no pending interaction to resume`;
  context.database.run("UPDATE runs SET paused = 0, status_detail = 'waiting for origin-session input', updated_at = ? WHERE run_id = ?", now, runId);
  bumpRun(context, row, 'run.resumed', { type: 'control', id: null }, { status: 'waiting' }, now, SUMMARY_REPLAY);
  return null;
}

/**
 * Resumes a paused waiting run (docs/STORE-RULES.md §6.8): see {@link resumeRun}.
 *
 * @returns false unless queue `parked`, run `waiting`, paused, no live lease, a pending request
 */
export function resumePausedInteraction(context: StoreContext, input: { runId: string; now?: string }): boolean {
  assertWritable(context);
  const now = resolveNow(input.now, context.clock);
  return context.database.transaction(() => {
    const row = loadRunRow(context, input.runId);
    return row !== undefined && resumeRun(context, row, now) === null;
  });
}

/**
 * Resumes a paused interaction and decides the refusals (docs/PI-WORKFLOWS-FILES.md §5): the
 * resume of {@link resumePausedInteraction}, in one transaction.
 *
 * @returns the resumed run's record
 * @throws StoreError(not_found) `Workflow run not found: <runId>`; StoreError(conflict) with the
 *   refusal's text: `Workflow run <runId> is not parked (queue status <status>): only a parked
 *   run can be resumed`, `… is <status>, not waiting: only a paused waiting run can be
 *   resumed`, `… is not paused`, `… is claimed by <owner> until <ISO>: a claimed run cannot be
 *   resumed`, `… has no pending interaction to resume`
 */
export function resumePausedInteractionOrThrow(context: StoreContext, input: { runId: string; now?: string }): WorkflowRunRecord {
  assertWritable(context);
  const now = resolveNow(input.now, context.clock);
  return context.database.transaction(() => {
    const refusal = resumeRun(context, requireRunRow(context, input.runId), now);
    if (refusal !== null) throw new StoreError('conflict', refusal);
    return requireRunRecord(context, input.runId, now);
  });
}

/** The error recorded when an interaction deadline expires (0.16.1, docs/STORE-RULES.md §6.9). */
export const INTERACTION_DEADLINE_ERROR = 'Workflow node model-turn deadline expired';

/**
 * Starts the interaction timeout of a parked waiting run (docs/STORE-RULES.md §6.9, 0.16.1 conditions).
 * The caller holds a control claim. Picks the expired pending request of `targetSessionId`
 * with a started turn on its `step` message; cancels it, moves run `waiting` → `running` and
 * queue `parked` → `starting`, rejects its validating submissions (the receipt blob put even
 * when there is none), bumps with
 * `run.interaction_timeout_started`, viewer summary, replay, conversation.
 *
 * @returns false when the claim does not verify or no request qualifies
 * @throws StoreError(conflict) `Workflow run <runId> changed during interaction timeout`,
 *   `Pi session already has an active workflow run: <sessionId>`
 */
export function beginWorkflowRunInteractionTimeout(context: StoreContext, input: RunClaimInput & { targetSessionId: string }): boolean {
  assertWritable(context);
  const now = resolveNow(input.now, context.clock);
  return context.database.transaction(() => {
    const claimed = verifiedClaim(context, input.runId, input.claimToken, now);
    if (claimed === undefined) return false;
    const { row, lease } = claimed;
    const interaction = context.database.get<{ request_id: string; attempt_id: string }>(
      `SELECT i.request_id, i.attempt_id FROM interactive_requests i
       JOIN node_attempts a ON a.attempt_id = i.attempt_id
       JOIN runs r ON r.run_id = i.run_id
       WHERE i.run_id = ? AND i.target_session_id = ? AND i.status = 'pending' AND r.paused = 0
         AND a.deadline_at IS NOT NULL AND a.deadline_at <= ?
         AND EXISTS (
           SELECT 1 FROM workflow_messages m
           JOIN workflow_turns t ON t.workflow_message_id = m.workflow_message_id
           WHERE m.source_id = i.request_id AND m.kind = 'step' AND t.state = 'started')
       ORDER BY a.deadline_at, i.request_id LIMIT 1`,
      input.runId,
      input.targetSessionId,
      now,
    );
    if (interaction === undefined) return false;
    const request = context.database.run(
      `UPDATE interactive_requests SET status = 'cancelled', revision = revision + 1, updated_at = ?
       WHERE request_id = ? AND run_id = ? AND status = 'pending'`,
      now,
      interaction.request_id,
      input.runId,
    );
    const run = context.database.run(
      `UPDATE runs SET status = 'running', status_detail = 'finishing expired interaction deadline', updated_at = ?,
         finished_at = NULL
       WHERE run_id = ? AND status = 'waiting'`,
      now,
      input.runId,
    );
    const queue = withActiveSessionSlot(context, row.origin_session_id, () =>
      context.database.run(
        `UPDATE run_queue SET status = 'starting', error_code = NULL, error_hash = NULL, updated_at = ?, finished_at = NULL
         WHERE run_id = ? AND status = 'parked'`,
        now,
        input.runId,
      ),
    );
    if (request.changes !== 1 || run.changes !== 1 || queue.changes !== 1) {
      throw new StoreError('conflict', `Workflow run ${input.runId} changed during interaction timeout`);
    }
    // The receipt blob is put whether or not a submission refers to it, as pi-workflows does
    // (docs/PI-WORKFLOWS-FILES.md §5).
    const receiptHash = context.blobs.putJson({ status: 'rejected', error: INTERACTION_DEADLINE_ERROR }, now);
    context.database.run(
      "UPDATE interactive_submissions SET outcome = 'rejected', receipt_hash = ? WHERE request_id = ? AND outcome = 'validating'",
      receiptHash,
      interaction.request_id,
    );
    bumpRun(context, row, 'run.interaction_timeout_started', ownerActor(lease), { requestId: interaction.request_id, attemptId: interaction.attempt_id }, now, [
      { targetType: 'summary' },
      { targetType: 'replay' },
      { targetType: 'conversation' },
    ]);
    return true;
  });
}

/** Input of {@link reportWorkflowRunState}. */
export interface ReportWorkflowRunStateInput {
  runId: string;
  claimToken: string;
  /** `running`: the engine started or resumed the run; `waiting`: it waits for input. */
  status: 'running' | 'waiting';
  /** runs.status_detail; default null (`waiting for origin-session input` for waiting). */
  detail?: string | null;
  /** Viewer targets recorded after the bump (default summary, replay). */
  drafts?: readonly ViewerDeltaDraft[];
  now?: string;
}

/**
 * The engine reports a run's durable state (docs/STORE-RULES.md §4 "engine reports run started/resumed",
 * "engine waits for input"): with a verified claim, runs.status `running` (finished_at NULL)
 * or `waiting` (finished_at now, as the CHECK of §3.7 wants), status detail, bump with
 * `run.running` / `run.waiting` `{status}`, then the given viewer drafts. The queue is not
 * touched: the host moves it with mark running / park.
 *
 * @returns the new presentation revision
 * @throws StoreError(not_found) `Workflow run not found: <runId>`;
 *   StoreError(claim_lost) `Claim token is not the live claim of workflow run: <runId>`;
 *   StoreError(conflict) `Workflow run <runId> is terminal`
 */
export function reportWorkflowRunState(context: StoreContext, input: ReportWorkflowRunStateInput): number {
  assertWritable(context);
  if (input.status !== 'running' && input.status !== 'waiting') {
    throw new StoreError('validation', 'status must be running or waiting', 'status');
  }
  const now = resolveNow(input.now, context.clock);
  return context.database.transaction(() => {
    if (loadRunRow(context, input.runId) === undefined) {
      throw new StoreError('not_found', `Workflow run not found: ${input.runId}`);
    }
    const claimed = verifiedClaim(context, input.runId, input.claimToken, now);
    if (claimed === undefined) {
      throw new StoreError('claim_lost', claimNotLiveMessage(input.runId));
    }
    const { row, lease } = claimed;
    const detail = input.detail !== undefined ? input.detail : input.status === 'waiting' ? 'waiting for origin-session input' : null;
    const updated = context.database.run(
      `UPDATE runs SET status = ?, status_detail = ?, finished_at = ?, updated_at = ?
       WHERE run_id = ? AND status NOT IN ('completed', 'failed', 'timed_out', 'cancelled')`,
      input.status,
      detail,
      input.status === 'waiting' ? now : null,
      now,
      input.runId,
    );
    if (updated.changes !== 1) throw new StoreError('conflict', `Workflow run ${input.runId} is terminal`);
    bumpRun(context, row, `run.${input.status}`, ownerActor(lease), { status: input.status }, now, input.drafts ?? SUMMARY_REPLAY);
    return context.viewer.head(input.runId)?.currentRevision ?? 1;
  });
}

/** A run event as returned by {@link recordRunEvent} (docs/STORE-RULES.md §6.11). */
export interface RunEventRecord {
  seq: number;
  /** ISO-8601. */
  recordedAt: string;
  runId: string;
  workflowRef: string;
  type: string;
  runnerId: string | null;
  payload: unknown;
}

/**
 * Records a host run event (docs/STORE-RULES.md §6.11): bump with the event (actor `host` for runner ids
 * starting with `host-`, else `session`), generation of the lease.
 *
 * @throws StoreError(not_found) `Workflow run not found: <runId>`
 */
export function recordRunEvent(
  context: StoreContext,
  input: { runId: string; type: string; payload?: unknown; runnerId?: string; now?: string },
): RunEventRecord {
  assertWritable(context);
  const now = resolveNow(input.now, context.clock);
  return context.database.transaction(() => {
    const row = loadRunRow(context, input.runId);
    if (row === undefined) throw new StoreError('not_found', `Workflow run not found: ${input.runId}`);
    const lease = readLease(context, row.resource_id);
    const actorType = input.runnerId === undefined ? 'session' : ownerTypeFor(input.runnerId);
    bumpRun(context, row, input.type, { type: actorType, id: input.runnerId ?? null, generation: lease.generation }, input.payload ?? {}, now);
    const seq = context.database.get<{ seq: number }>('SELECT max(event_seq) AS seq FROM events') as { seq: number };
    return {
      seq: seq.seq,
      recordedAt: new Date(now).toISOString(),
      runId: row.run_id,
      workflowRef: row.workflow_ref,
      type: input.type,
      runnerId: input.runnerId ?? null,
      payload: input.payload ?? {},
    };
  });
}
