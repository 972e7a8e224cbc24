import { claimNotLiveMessage, StoreError } from './errors.js';
import { bumpRun, leaseVerifies, ownerTypeFor, readLease, withActiveSessionSlot } from './run-events.js';
import { loadRunRow, requireRunRecord, requireRunRow, TERMINAL_QUEUE_STATUSES, type QueueStatus, type WorkflowRunRecord } from './run-records.js';
import { assertWritable, type StoreContext } from './store-context.js';
import { assertLeaseMs, assertRunId, resolveNow, tokenHash } from './values.js';

/** Claim a run by id (docs/STORE-RULES.md §6.3). */
export interface ClaimWorkflowRunInput {
  runId: string;
  runnerId: string;
  /** Chosen by the caller; only its SHA-256 is stored. */
  claimToken: string;
  /** 1 … 86,400,000 ms. */
  leaseMs: number;
  /** ISO-8601; default the store clock. */
  now?: string;
}

/** Claim the next eligible run (docs/STORE-RULES.md §6.4). */
export interface ClaimNextWorkflowRunInput {
  runnerId: string;
  /** When given, only runs bound to this origin session; else headless or non-queued runs. */
  sessionId?: string;
  claimToken: string;
  leaseMs: number;
  now?: string;
  excludeRunIds?: readonly string[];
}

/** A claim token check (docs/STORE-RULES.md §5). */
export interface RunClaimInput {
  runId: string;
  claimToken: string;
  now?: string;
}

/** Flags of the claim core (docs/STORE-RULES.md §6.3). */
export interface ClaimMode {
  /** Claim even while an interactive request of the run is `pending`. */
  allowPendingInteraction: boolean;
  /** Keep the queue status (control claims). */
  preserveQueueStatus: boolean;
}

function validateClaim(runnerId: string, claimToken: string, leaseMs: number): void {
  if (typeof runnerId !== 'string' || runnerId.length === 0) {
    throw new StoreError('validation', 'runnerId must be a non-empty string', 'runnerId');
  }
  if (typeof claimToken !== 'string' || claimToken.length === 0) {
    throw new StoreError('validation', 'claimToken must be a non-empty string', 'claimToken');
  }
  assertLeaseMs(leaseMs);
}

/** The columns of a run the claim core decides on and writes with. */
interface ClaimRow {
  run_id: string;
  resource_id: string;
  queue_status: QueueStatus;
  origin_session_id: string;
}

/**
 * The claim core (docs/STORE-RULES.md §6.3), inside the caller's transaction: refuses a missing or
 * finished run, a pending interaction (unless allowed), or a live lease of another runner;
 * else takes the lease (generation + 1), moves the queue to `starting` (unless preserving),
 * bumps and writes `lease.claimed` (payload `{expiresAt}`, epoch ms). Moving a parked run to `starting` while its origin session
 * already has an active queue entry fails with a conflict (docs/STORE-RULES.md §3.8).
 *
 * @param now epoch ms
 * @returns the record carrying the caller's token, or undefined when refused
 * @throws StoreError(conflict) `Pi session already has an active workflow run: <sessionId>`
 */
export function claimCore(
  context: StoreContext,
  runId: string,
  claim: { runnerId: string; claimToken: string; leaseMs: number },
  now: number,
  mode: ClaimMode,
): WorkflowRunRecord | undefined {
  // Only what the checks and writes below read; the record is loaded once, after them.
  const row = context.database.get<ClaimRow>(
    `SELECT r.run_id, r.resource_id, q.status AS queue_status, b.origin_session_id FROM runs r
     JOIN run_queue q ON q.run_id = r.run_id JOIN run_bindings b ON b.run_id = r.run_id WHERE r.run_id = ?`,
    runId,
  );
  if (row === undefined || TERMINAL_QUEUE_STATUSES.includes(row.queue_status)) return undefined;
  if (
    !mode.allowPendingInteraction &&
    context.database.get("SELECT 1 FROM interactive_requests WHERE run_id = ? AND status = 'pending' LIMIT 1", runId) !== undefined
  ) {
    return undefined;
  }
  const lease = readLease(context, row.resource_id);
  if (lease.owner_id !== null && lease.expires_at !== null && lease.expires_at > now && lease.owner_id !== claim.runnerId) {
    return undefined;
  }
  const expiresAt = now + claim.leaseMs;
  const generation = lease.generation + 1;
  const taken = context.database.run(
    `UPDATE leases SET generation = ?, owner_type = ?, owner_id = ?, token_hash = ?, acquired_at = ?, heartbeat_at = ?,
       expires_at = ?
     WHERE resource_id = ? AND generation = ?`,
    generation,
    ownerTypeFor(claim.runnerId),
    claim.runnerId,
    tokenHash(claim.claimToken),
    now,
    now,
    expiresAt,
    row.resource_id,
    lease.generation,
  );
  if (taken.changes !== 1) return undefined;
  if (!mode.preserveQueueStatus) {
    withActiveSessionSlot(context, row.origin_session_id, () =>
      context.database.run("UPDATE run_queue SET status = 'starting', error_code = NULL, error_hash = NULL, updated_at = ? WHERE run_id = ?", now, runId),
    );
  }
  bumpRun(
    context,
    row,
    'lease.claimed',
    { type: ownerTypeFor(claim.runnerId), id: claim.runnerId, generation },
    // epoch ms, a number, as pi-workflows writes it (docs/PI-WORKFLOWS-FILES.md §8).
    { expiresAt },
    now,
  );
  const record = requireRunRecord(context, runId, now);
  return { ...record, claimToken: claim.claimToken };
}

/**
 * Claims a run by id (docs/STORE-RULES.md §6.3 `claimWorkflowRun`, normal mode; `error_code` ignored).
 *
 * @returns the record with the token, or undefined when the claim is refused
 * @throws StoreError(validation) for a bad run id, runner id, token, lease time or timestamp;
 *   StoreError(not_found) `Workflow run not found: <runId>`
 */
export function claimWorkflowRun(
  context: StoreContext,
  input: ClaimWorkflowRunInput,
  mode: ClaimMode = { allowPendingInteraction: false, preserveQueueStatus: false },
): WorkflowRunRecord | undefined {
  assertWritable(context);
  assertRunId(input.runId);
  validateClaim(input.runnerId, input.claimToken, input.leaseMs);
  const now = resolveNow(input.now, context.clock);
  return context.database.transaction(() => {
    requireRunRow(context, input.runId);
    return claimCore(context, input.runId, input, now, mode);
  });
}

/**
 * Claims the first eligible run by `available_at`, then queue `created_at`
 * (docs/STORE-RULES.md §6.4, every 0.16.2 condition), in one transaction.
 *
 * @returns the claimed record with the token, or undefined when none is eligible
 * @throws StoreError(validation) for a bad runner id, token, lease time or timestamp
 */
export function claimNextWorkflowRun(context: StoreContext, input: ClaimNextWorkflowRunInput): WorkflowRunRecord | undefined {
  assertWritable(context);
  validateClaim(input.runnerId, input.claimToken, input.leaseMs);
  const now = resolveNow(input.now, context.clock);
  const conditions = [
    'q.available_at <= ?',
    '(l.owner_id IS NULL OR l.expires_at <= ? OR l.owner_id = ?)',
    "(q.affinity_runner_id IS NULL OR q.affinity_runner_id = ? OR q.status IN ('parked', 'starting', 'running'))",
    "NOT (q.status = 'parked' AND (r.status = 'waiting' OR r.paused = 1))",
    "NOT EXISTS (SELECT 1 FROM interactive_requests i WHERE i.run_id = r.run_id AND i.status = 'pending')",
    "(q.error_code IS NULL OR q.error_code NOT IN ('workflowSourceChanged', 'workerNoProgress'))",
  ];
  const params: unknown[] = [now, now, input.runnerId, input.runnerId];
  if (context.projectId !== null) {
    conditions.push('r.project_id = ?');
    params.push(context.projectId);
  }
  if (input.sessionId !== undefined) {
    conditions.push('b.origin_session_id = ?');
    params.push(input.sessionId);
  } else {
    conditions.push("(b.execution_mode = 'headless' OR q.status <> 'queued')");
  }
  if (input.excludeRunIds !== undefined && input.excludeRunIds.length > 0) {
    conditions.push('r.run_id NOT IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(input.excludeRunIds));
  }
  const probe = context.layout.claimNextProbe(conditions.join(' AND '), params, now, input.runnerId);
  return context.database.transaction(() => {
    const found = context.database.get<{ run_id: string }>(probe.sql, ...probe.params);
    if (found === undefined) return undefined;
    return claimCore(context, found.run_id, input, now, { allowPendingInteraction: false, preserveQueueStatus: false });
  });
}

/**
 * True iff the run exists, its lease is owned with an expiry, the token hash matches and the
 * lease has not expired (docs/STORE-RULES.md §5 "Claim verification").
 *
 * @throws StoreError(validation) `Invalid timestamp`
 */
export function verifyWorkflowRunClaim(context: StoreContext, input: RunClaimInput): boolean {
  const now = resolveNow(input.now, context.clock);
  const row = loadRunRow(context, input.runId);
  if (row === undefined || typeof input.claimToken !== 'string') return false;
  return leaseVerifies(readLease(context, row.resource_id), input.claimToken, now);
}

/**
 * Renews a live claim (docs/STORE-RULES.md §5 "Renewal"): heartbeat now, expiry now + leaseMs, only when
 * owner, token hash and generation still match and the lease is unexpired; records viewer
 * targets summary, replay; no bump, no event.
 *
 * @returns the renewed record, or undefined when the claim is not live
 */
export function renewWorkflowRunClaim(context: StoreContext, input: RunClaimInput & { leaseMs: number }): WorkflowRunRecord | undefined {
  assertWritable(context);
  assertLeaseMs(input.leaseMs);
  const now = resolveNow(input.now, context.clock);
  return context.database.transaction(() => {
    const row = loadRunRow(context, input.runId);
    if (row === undefined) return undefined;
    const lease = readLease(context, row.resource_id);
    if (!leaseVerifies(lease, input.claimToken, now)) return undefined;
    const renewed = context.database.run(
      `UPDATE leases SET heartbeat_at = ?, expires_at = ?
       WHERE resource_id = ? AND owner_type = ? AND owner_id = ? AND token_hash = ? AND generation = ? AND expires_at > ?`,
      now,
      now + input.leaseMs,
      row.resource_id,
      lease.owner_type,
      lease.owner_id,
      tokenHash(input.claimToken),
      lease.generation,
      now,
    );
    if (renewed.changes !== 1) return undefined;
    context.viewer.record(row.run_id, [{ targetType: 'summary' }, { targetType: 'replay' }], now);
    return requireRunRecord(context, input.runId, now);
  });
}

/**
 * Renews the live claim of a run for its holder and decides the refusals (the heartbeat of
 * docs/PI-WORKFLOWS-FILES.md §5): the writes of {@link renewWorkflowRunClaim} (lease
 * `heartbeat_at` and `expires_at`, viewer targets summary, replay), in one transaction.
 *
 * @param input `leaseMs` 1 … 86,400,000; `now` ISO-8601, default the store clock
 * @returns the renewed run's record (no claim token in it)
 * @throws StoreError(validation) for a lease time out of range; StoreError(not_found)
 *   `Workflow run not found: <runId>`; StoreError(claim_lost)
 *   `Claim token is not the live claim of workflow run: <runId>` (a wrong token, an expired or
 *   released lease, a finished run)
 */
export function renewWorkflowRunClaimOrThrow(context: StoreContext, input: RunClaimInput & { leaseMs: number }): WorkflowRunRecord {
  assertWritable(context);
  assertLeaseMs(input.leaseMs);
  return context.database.transaction(() => {
    requireRunRow(context, input.runId);
    const run = renewWorkflowRunClaim(context, input);
    if (run === undefined) throw new StoreError('claim_lost', claimNotLiveMessage(input.runId));
    return run;
  });
}
