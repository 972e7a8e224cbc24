import { randomUUID } from 'node:crypto';
import { normalizeJson } from './canonical-json.js';
import { claimNotLiveMessage, StoreError } from './errors.js';
import { bumpResource, bumpRun, leaseVerifies, ownerActor, readLease, releaseLease, SUMMARY_REPLAY, type LeaseState } from './run-events.js';
import { loadRunRow, requireRunRecord, requireRunRow, TERMINAL_QUEUE_STATUSES, type RunRow, type WorkflowRunRecord } from './run-records.js';
import { assertWritable, type StoreContext } from './store-context.js';
import { resolveNow, tokenHash } from './values.js';

/** Terminal outcomes a claim holder may settle a run with (docs/STORE-RULES.md §13.3). */
export type SettleStatus = 'completed' | 'failed' | 'timed_out' | 'cancelled';

/** Input of {@link settleWorkflowRun}. */
export interface SettleWorkflowRunInput {
  runId: string;
  claimToken: string;
  status: SettleStatus;
  /** Error text for failed / timed_out (default `Workflow run failed` / `Workflow run timed out`). */
  error?: string;
  /** Final output for completed (stored as JSON; default null = none). */
  output?: unknown;
  now?: string;
}

/** The cancel message and code (docs/STORE-RULES.md §6.10). */
export const CANCELLED_MESSAGE = 'Workflow run cancelled';

/** Lease time (ms) of the control claim a cancel without a claim takes and releases. */
const STALE_CONTROL_LEASE_MS = 30_000;
/** Owner id of that control claim, and the canceller of the dependents of an unowned cancel (as pi-workflows). */
const STALE_CONTROL_ID = 'workflow-control';

/**
 * Settles a claimed run terminal (docs/PI-WORKFLOWS-FILES.md §5): `completed` writes the runs
 * row as pi-workflows' engine persists a completed run, then pi's queue completion (queue
 * `done`, `run.queue_done`; messages left as they are); `failed`/`timed_out` use the fail
 * routine with error_code = the status; `cancelled` the cancel routine (both settle workflow
 * messages). Every path releases the lease in the same transaction.
 *
 * @returns the settled run's record
 * @throws StoreError(not_found) `Workflow run not found: <runId>`;
 *   StoreError(claim_lost) `Claim token is not the live claim of workflow run: <runId>`,
 *   `Workflow run <runId> claim changed during terminal transition`; validation errors for an
 *   output canonical JSON refuses
 */
export function settleWorkflowRun(context: StoreContext, input: SettleWorkflowRunInput): WorkflowRunRecord {
  assertWritable(context);
  const now = resolveNow(input.now, context.clock);
  if (input.output !== undefined) normalizeJson(input.output);
  return context.database.transaction(() => {
    const row = requireRunRow(context, input.runId);
    const lease = readLease(context, row.resource_id);
    if (TERMINAL_QUEUE_STATUSES.includes(row.queue_status) || !leaseVerifies(lease, input.claimToken, now)) {
      throw new StoreError('claim_lost', claimNotLiveMessage(input.runId));
    }
    if (input.status === 'completed') completeRun(context, row, lease, input, now);
    else if (input.status === 'cancelled') terminateRun(context, row, lease, input.claimToken, 'cancelled', 'cancelled', CANCELLED_MESSAGE, now);
    else {
      const message = input.error ?? (input.status === 'failed' ? 'Workflow run failed' : 'Workflow run timed out');
      terminateRun(context, row, lease, input.claimToken, input.status, input.status, message, now);
    }
    return requireRunRecord(context, input.runId, now);
  });
}

/**
 * Settle COMPLETED (docs/PI-WORKFLOWS-FILES.md §5): first the runs row as pi-workflows' engine
 * persists a completed run state (status `completed`, paused 0, status detail NULL, the final
 * output when one is given, updated_at, finished_at), then exactly pi's queue completion
 * (`completeWorkflowRun`: queue `done`, lease released, `run.queue_done`, 4 + 2 deltas). Workflow
 * messages and turns are not settled: pi's completion leaves them.
 */
function completeRun(context: StoreContext, row: RunRow, lease: LeaseState, input: SettleWorkflowRunInput, now: number): void {
  const outputHash = input.output === undefined ? undefined : context.blobs.putJson(input.output, now);
  context.database.run(
    `UPDATE runs SET status = 'completed', paused = 0, status_detail = NULL,${outputHash === undefined ? '' : ' final_output_hash = ?,'} updated_at = ?,
       finished_at = ? WHERE run_id = ?`,
    ...(outputHash === undefined ? [] : [outputHash]),
    now,
    now,
    row.run_id,
  );
  context.database.run("UPDATE run_queue SET status = 'done', updated_at = ?, finished_at = ? WHERE run_id = ?", now, now, row.run_id);
  if (!releaseLease(context, lease, input.claimToken, now)) {
    throw new StoreError('claim_lost', `Workflow run ${row.run_id} claim changed during terminal transition`);
  }
  bumpRun(context, row, 'run.queue_done', ownerActor(lease), { status: 'done' }, now, SUMMARY_REPLAY);
}

/**
 * The shared fail / cancel routine (docs/STORE-RULES.md §6.10; its rows: docs/PI-WORKFLOWS-FILES.md §5
 * "settle FAILED", "settle CANCELLED") for a run whose claim is verified (or, without a token, a
 * queued/starting run with an unowned lease: actor `system`, the dependents cancelled by
 * `workflow-control`).
 */
function terminateRun(
  context: StoreContext,
  row: RunRow,
  lease: LeaseState,
  claimToken: string | undefined,
  runStatus: 'failed' | 'timed_out' | 'cancelled',
  errorCode: string,
  errorMessage: string,
  now: number,
): void {
  const queueStatus = runStatus === 'cancelled' ? 'cancelled' : 'failed';
  const errorHash = context.blobs.putText(errorMessage, now);
  const queue = context.database.run(
    `UPDATE run_queue SET status = ?, error_code = ?, error_hash = ?, updated_at = ?, finished_at = ?
     WHERE run_id = ? AND status NOT IN ('done', 'failed', 'cancelled')`,
    queueStatus,
    errorCode,
    errorHash,
    now,
    now,
    row.run_id,
  );
  if (queue.changes !== 1) throw new StoreError('conflict', `Workflow run ${row.run_id} has inconsistent queue state`);
  if (claimToken !== undefined && !releaseLease(context, lease, claimToken, now)) {
    throw new StoreError('claim_lost', `Workflow run ${row.run_id} claim changed during terminal transition`);
  }
  context.database.run(
    `UPDATE runs SET status = ?, paused = 0, status_detail = NULL, error_hash = ?, updated_at = ?, finished_at = ?
     WHERE run_id = ?`,
    runStatus,
    errorHash,
    now,
    now,
    row.run_id,
  );
  settleMessages(context, row.run_id, now);
  if (runStatus === 'cancelled') cancelDependents(context, row.run_id, lease.owner_id ?? STALE_CONTROL_ID, errorHash, now);
  bumpRun(
    context,
    row,
    runStatus === 'cancelled' ? 'run.queue_cancelled' : 'run.queue_failed',
    ownerActor(lease),
    { status: queueStatus, code: errorCode, error: errorMessage },
    now,
    SUMMARY_REPLAY,
  );
}

/** 0.16.2 run settlement (docs/STORE-RULES.md §9): open turns end `lost`, pending step/decision/followUp messages cancelled. */
function settleMessages(context: StoreContext, runId: string, now: number): void {
  context.messages.settleOpenTurnsForRun(runId, 'lost', now);
  context.messages.cancelPendingForRun(runId, now);
}

/**
 * Cancels a run's dependents as pi-workflows' cancel does (docs/PI-WORKFLOWS-FILES.md §5
 * "cancel"): open node attempts `cancelled` (their error the cancel text when they had none,
 * finished_at kept or now); the run's pending/applying effects (`cancelled` / `ambiguous`, the
 * applying attempt `interrupted` where the file keeps attempts, a bump and an `effect.*` event
 * by `control`/`actorId` each) and its unresolved human decisions (a `cancelled` resolution);
 * the receipt blob `{status:'rejected', error:'Workflow run cancelled'}`, put whether or not a
 * submission refers to it, on every validating submission; pending requests `cancelled`
 * (revision + 1).
 *
 * @param actorId the canceller: the lease owner, else the control id
 * @param errorHash the blob of the cancel text
 * @param now epoch ms
 */
function cancelDependents(context: StoreContext, runId: string, actorId: string, errorHash: Buffer, now: number): void {
  context.database.run(
    `UPDATE node_attempts SET status = 'cancelled', error_hash = coalesce(error_hash, ?), updated_at = ?, finished_at = coalesce(finished_at, ?)
     WHERE run_id = ? AND status IN ('pending', 'running', 'waiting', 'interrupted')`,
    errorHash,
    now,
    now,
    runId,
  );
  // Effects and human decisions are pi-workflows' tables: a writable pi-workflows file has them
  // (its write-side check at open, docs/PI-WORKFLOWS-FILES.md §2), our own file since migration 0009.
  cancelRunEffects(context, runId, actorId, errorHash, now);
  context.database.run(
    `INSERT INTO human_decision_resolutions(decision_id, outcome, provenance, response_hash, reason, channel, actor_id, request_digest, resolved_at)
     SELECT d.decision_id, 'cancelled', 'explicit_cancel', NULL, ?, NULL, ?, d.request_digest, ?
     FROM human_decisions d LEFT JOIN human_decision_resolutions r ON r.decision_id = d.decision_id
     WHERE d.run_id = ? AND r.decision_id IS NULL`,
    CANCELLED_MESSAGE,
    actorId,
    now,
    runId,
  );
  const receiptHash = context.blobs.putJson({ status: 'rejected', error: CANCELLED_MESSAGE }, now);
  context.database.run(
    `UPDATE interactive_submissions SET outcome = 'rejected', receipt_hash = ?
     WHERE outcome = 'validating' AND request_id IN (SELECT request_id FROM interactive_requests WHERE run_id = ?)`,
    receiptHash,
    runId,
  );
  context.database.run(
    `UPDATE interactive_requests SET status = 'cancelled', revision = revision + 1, updated_at = ?
     WHERE run_id = ? AND status = 'pending'`,
    now,
    runId,
  );
}

/**
 * The run-scoped effects of a cancelled run: `pending` → `cancelled`, `applying` → `ambiguous`
 * with its open attempt `interrupted` (`FileLayout.interruptEffectAttempt`); each effect's resource bumped
 * with one `effect.cancelled` / `effect.ambiguous` event `{runId, reason:'workflowCancelled'}` by
 * `control`/`actorId` (no viewer row: effects have none).
 */
function cancelRunEffects(context: StoreContext, runId: string, actorId: string, errorHash: Buffer, now: number): void {
  const effects = context.database.all<{ effect_id: string; resource_id: string; status: 'pending' | 'applying'; attempt_count: number }>(
    `SELECT e.effect_id, e.resource_id, e.status, e.attempt_count FROM effects e JOIN runs r ON r.resource_id = e.source_resource_id
     WHERE r.run_id = ? AND e.owner_scope = 'run' AND e.status IN ('pending', 'applying') ORDER BY e.effect_id`,
    runId,
  );
  for (const effect of effects) {
    const status = effect.status === 'applying' ? 'ambiguous' : 'cancelled';
    const changed = context.database.run(
      `UPDATE effects SET status = ?, next_attempt_at = NULL, error_hash = ?, updated_at = ?, settled_at = ?
       WHERE effect_id = ? AND status = ? AND attempt_count = ?`,
      status,
      errorHash,
      now,
      now,
      effect.effect_id,
      effect.status,
      effect.attempt_count,
    );
    if (changed.changes !== 1) throw new StoreError('conflict', `Workflow effect ${effect.effect_id} changed during cancellation`);
    // Its open attempt row, where the file keeps attempts (`effect_attempts`: pi-workflows files).
    if (effect.status === 'applying') context.layout.interruptEffectAttempt(effect.effect_id, effect.attempt_count, errorHash, now);
    bumpResource(context, effect.resource_id, `effect.${status}`, { type: 'control', id: actorId }, { runId, reason: 'workflowCancelled' }, now);
  }
}

/**
 * Fails a run (docs/STORE-RULES.md §6.10 `failWorkflowRun`): with a token the lease must verify; without,
 * the queue must be `queued`/`starting` with an unowned lease.
 *
 * @returns false when refused (nothing written)
 */
export function failWorkflowRun(
  context: StoreContext,
  input: { runId: string; claimToken?: string; errorCode: string; errorMessage: string; now?: string },
): boolean {
  assertWritable(context);
  const now = resolveNow(input.now, context.clock);
  return context.database.transaction(() => {
    const prepared = terminable(context, input.runId, input.claimToken, now);
    if (prepared === undefined) return false;
    terminateRun(context, prepared.row, prepared.lease, input.claimToken, 'failed', input.errorCode, input.errorMessage, now);
    return true;
  });
}

/** Input of {@link cancelWorkflowRun}: without `claimToken` a control cancel. */
export interface CancelWorkflowRunInput {
  runId: string;
  /** The live claim to cancel with; absent: cancel without a claim (control claim). */
  claimToken?: string;
  /** Owner id of the stale-cancel control claim (default `workflow-control`). */
  controlId?: string;
  /** ISO-8601; default the store clock. */
  now?: string;
}

/**
 * Cancels a run (docs/STORE-RULES.md §6.10 `cancelWorkflowRun`); a token-less cancel the routine refuses
 * falls back to the stale cancel (non-terminal queue, lease free or expired: a 30 s `system`
 * lease of `controlId`, cancelled, released, stale-cancel event).
 *
 * @returns false when neither path applies (nothing written)
 */
export function cancelWorkflowRun(context: StoreContext, input: CancelWorkflowRunInput): boolean {
  assertWritable(context);
  const now = resolveNow(input.now, context.clock);
  return context.database.transaction(() => cancelRun(context, input, now) === undefined);
}

/**
 * Cancels a run and decides the refusals (docs/PI-WORKFLOWS-FILES.md §5 "settle CANCELLED /
 * cancel with the claim", "cancel without a claim"): the cancel of {@link cancelWorkflowRun}, in one
 * transaction.
 *
 * @returns the cancelled run's record
 * @throws StoreError(not_found) `Workflow run not found: <runId>`; StoreError(conflict)
 *   `Workflow run <runId> has already finished (queue status <status>)`, and without a token
 *   `Workflow run <runId> is claimed by <owner> until <ISO>: cancel it with that claim's token,
 *   or once the lease has expired`; StoreError(claim_lost)
 *   `Claim token is not the live claim of workflow run: <runId>`; the errors of the cancel
 */
export function cancelWorkflowRunOrThrow(context: StoreContext, input: CancelWorkflowRunInput): WorkflowRunRecord {
  assertWritable(context);
  const now = resolveNow(input.now, context.clock);
  return context.database.transaction(() => {
    const refusal = cancelRun(context, input, now);
    if (refusal !== undefined) throw refusal;
    return requireRunRecord(context, input.runId, now);
  });
}

/**
 * The cancel inside the caller's transaction: with a token, the cancel routine when the token
 * is the live claim; without, the routine for a `queued`/`starting` run with no lease owner,
 * else the stale cancel when no live lease is held.
 *
 * @param now epoch ms
 * @returns undefined when cancelled, else the refusal (nothing written)
 */
function cancelRun(context: StoreContext, input: CancelWorkflowRunInput, now: number): StoreError | undefined {
  const row = loadRunRow(context, input.runId);
  if (row === undefined) return new StoreError('not_found', `Workflow run not found: ${input.runId}`);
  if (TERMINAL_QUEUE_STATUSES.includes(row.queue_status)) {
    return new StoreError('conflict', `Workflow run ${input.runId} has already finished (queue status ${row.queue_status})`);
  }
  const prepared = terminable(context, input.runId, input.claimToken, now);
  if (prepared !== undefined) {
    terminateRun(context, prepared.row, prepared.lease, input.claimToken, 'cancelled', 'cancelled', CANCELLED_MESSAGE, now);
    return undefined;
  }
  if (input.claimToken !== undefined) return new StoreError('claim_lost', claimNotLiveMessage(input.runId));
  if (staleCancel(context, input.runId, input.controlId ?? STALE_CONTROL_ID, now)) return undefined;
  const lease = readLease(context, row.resource_id);
  return new StoreError(
    'conflict',
    `Workflow run ${input.runId} is claimed by ${lease.owner_id ?? 'another owner'} until ${new Date(lease.expires_at ?? now).toISOString()}: ` +
      "cancel it with that claim's token, or once the lease has expired",
  );
}

function terminable(context: StoreContext, runId: string, claimToken: string | undefined, now: number): { row: RunRow; lease: LeaseState } | undefined {
  const row = loadRunRow(context, runId);
  if (row === undefined || TERMINAL_QUEUE_STATUSES.includes(row.queue_status)) return undefined;
  const lease = readLease(context, row.resource_id);
  if (claimToken === undefined) {
    if ((row.queue_status !== 'queued' && row.queue_status !== 'starting') || lease.owner_id !== null) return undefined;
  } else if (!leaseVerifies(lease, claimToken, now)) {
    return undefined;
  }
  return { row, lease };
}

/**
 * The cancel of a run whose claim is absent or expired (docs/PI-WORKFLOWS-FILES.md §5 "cancel
 * without a claim", pi-workflows' `cancelStaleWorkflowRun`): a 30 s `system` control claim of
 * `controlId` with a random token (generation + 1), queue and run cancelled, messages and
 * dependents settled, the claim released, `run.queue_cancelled` by `control`/`controlId`.
 *
 * @returns false when the run is finished or another owner's lease is live (nothing written)
 */
function staleCancel(context: StoreContext, runId: string, controlId: string, now: number): boolean {
  const row = loadRunRow(context, runId);
  if (row === undefined || TERMINAL_QUEUE_STATUSES.includes(row.queue_status)) return false;
  const lease = readLease(context, row.resource_id);
  if (lease.owner_id !== null && lease.expires_at !== null && lease.expires_at > now) return false;
  const controlToken = randomUUID();
  const generation = lease.generation + 1;
  const taken = context.database.run(
    `UPDATE leases SET generation = ?, owner_type = 'system', owner_id = ?, token_hash = ?, acquired_at = ?,
       heartbeat_at = ?, expires_at = ? WHERE resource_id = ? AND generation = ?`,
    generation,
    controlId,
    tokenHash(controlToken),
    now,
    now,
    now + STALE_CONTROL_LEASE_MS,
    row.resource_id,
    lease.generation,
  );
  if (taken.changes !== 1) {
    throw new StoreError('conflict', `Workflow run ${runId} control claim changed during cancellation`);
  }
  const errorHash = context.blobs.putText(CANCELLED_MESSAGE, now);
  const queue = context.database.run(
    `UPDATE run_queue SET status = 'cancelled', error_code = 'cancelled', error_hash = ?, updated_at = ?, finished_at = ?
     WHERE run_id = ? AND status NOT IN ('done', 'failed', 'cancelled')`,
    errorHash,
    now,
    now,
    runId,
  );
  if (queue.changes !== 1) throw new StoreError('conflict', `Workflow run ${runId} has inconsistent queue state`);
  const run = context.database.run(
    `UPDATE runs SET status = 'cancelled', paused = 0, status_detail = NULL, error_hash = ?, updated_at = ?, finished_at = ?
     WHERE run_id = ? AND status NOT IN ('completed', 'failed', 'timed_out', 'cancelled')`,
    errorHash,
    now,
    now,
    runId,
  );
  if (run.changes !== 1) throw new StoreError('conflict', `Workflow run ${runId} has inconsistent durable state`);
  settleMessages(context, runId, now);
  cancelDependents(context, runId, controlId, errorHash, now);
  const controlLease = { ...lease, generation, token_hash: tokenHash(controlToken) };
  if (!releaseLease(context, controlLease, controlToken)) {
    throw new StoreError('conflict', `Workflow run ${runId} control claim changed during cancellation`);
  }
  bumpRun(
    context,
    row,
    'run.queue_cancelled',
    { type: 'control', id: controlId, generation },
    { status: 'cancelled', code: 'cancelled', staleControl: true },
    now,
    SUMMARY_REPLAY,
  );
  return true;
}
