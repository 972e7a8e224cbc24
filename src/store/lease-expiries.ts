import type { StateDatabase } from './database.js';
import type { FileLayout } from './layout/file-layout.js';
import type { RunChangeRow } from './run-change-log.js';
import type { QueueStatus, RunStatus } from './run-records.js';

/**
 * Lease expiries as the change feed sees them (docs/PROTOCOL.md "Lease expiry"): a claim whose
 * lease passes its `leases.expires_at` without a renewal changes nothing in the database, so the
 * feed derives the change from time. These reads find the leases that expired in a window of the
 * feed's clock, in one order, `(expires_at, run_id)`, which the run-list cursor's expiry mark
 * names (`run-change-cursor.ts`). Read only, on both kinds of file: nothing is written for an
 * expiry (a pi-workflows file gets nothing: docs/PI-WORKFLOWS-FILES.md §3).
 *
 * Which index a read walks depends on the file (`FileLayout.expiredLeases`):
 * - our own files walk `leases_owned_expiry_idx` (migration 0006) and find the run's position in
 *   `run_changes` (`layout/own-file.ts`);
 * - pi-workflows state files walk their own `leases_expires_idx` (`expires_at`, where set); the
 *   run's position is its latest event's (`events_resource_idx`, `layout/pi-workflows-file.ts`).
 */

/**
 * A point of the expiry order: every owned lease with `(expires_at, run_id)` at or before it has
 * been seen. `runId` null stands for every run at `at` (the mark after a whole window).
 */
export interface LeaseExpiryMark {
  /** Epoch ms. */
  at: number;
  runId: string | null;
}

/** One expired lease: its run's current position and held statuses (as `RunChangeRow`), and when it expired. */
export interface LeaseExpiryRow extends RunChangeRow {
  /** The lease's `expires_at`, epoch ms. */
  expiresAt: number;
}

/** What {@link readLeaseExpiries} reads. */
export interface LeaseExpiryRequest {
  /** Only runs whose current position in the run change log is at or before this one. */
  throughSeq: number;
  /** Only leases after this mark … */
  after: LeaseExpiryMark;
  /** … and expired at this time (`expires_at ≤ through`), epoch ms. */
  through: number;
  limit: number;
}

function heldSet<T extends string>(text: string | null): T[] | undefined {
  return text === null ? undefined : (text.split(',').filter((part) => part !== '') as T[]);
}

/**
 * A window of {@link readLeaseExpiries} as each layout reads it (`FileLayout.expiredLeases`):
 * the owned leases with `expires_at ≤ through` and after the mark, of runs at a position at or
 * before `throughSeq`.
 */
export interface ExpiredLeaseQuery {
  /** The condition after the mark, over `l` (leases) and `r` (runs). */
  window: string;
  /** The parameters of {@link window}, in order. */
  windowParams: readonly unknown[];
  /** Epoch ms. */
  through: number;
  throughSeq: number;
  limit: number;
}

/** One row of `FileLayout.expiredLeases`: held statuses as comma lists, or null where the file does not keep them. */
export interface ExpiredLeaseRow {
  /** Epoch ms. */
  expires_at: number;
  run_id: string;
  /** The run's current position in the run change log. */
  seq: number;
  statuses: string | null;
  queue_statuses: string | null;
}

/**
 * The owned run leases that expired in `(after, through]` (by `(expires_at, run_id)`), of runs
 * at a position at or before `throughSeq`, in that order, read through the file's layout.
 *
 * @returns at most `limit` rows
 */
export function readLeaseExpiries(layout: Pick<FileLayout, 'expiredLeases'>, request: LeaseExpiryRequest): LeaseExpiryRow[] {
  const { throughSeq, after, through, limit } = request;
  if (through < after.at || (through === after.at && after.runId === null)) return [];
  const afterRunId = after.runId;
  const window = afterRunId === null ? 'l.expires_at > ?' : '(l.expires_at > ? OR (l.expires_at = ? AND r.run_id > ?))';
  const windowParams = afterRunId === null ? [after.at] : [after.at, after.at, afterRunId];
  const rows = layout.expiredLeases({ window, windowParams, through, throughSeq, limit });
  return rows.map((row) => ({
    seq: row.seq,
    runId: row.run_id,
    expiresAt: row.expires_at,
    heldStatuses: heldSet<RunStatus>(row.statuses),
    heldQueueStatuses: heldSet<QueueStatus>(row.queue_statuses),
  }));
}

/**
 * The earliest expiry after `afterMs` of an owned run lease: when the feed's one expiry timer
 * is due (`ChangeFeed`).
 *
 * @param afterMs epoch ms
 * @returns epoch ms, or undefined when no owned run lease expires after `afterMs`
 */
export function nextLeaseExpiry(database: StateDatabase, afterMs: number): number | undefined {
  // `expires_at IS NOT NULL` lets a pi-workflows file use its own `leases_expires_idx`.
  const row = database.get<{ expires_at: number }>(
    `SELECT l.expires_at FROM leases l
     WHERE l.owner_id IS NOT NULL AND l.expires_at IS NOT NULL AND l.expires_at > ?
       AND EXISTS (SELECT 1 FROM runs r WHERE r.resource_id = l.resource_id)
     ORDER BY l.expires_at LIMIT 1`,
    afterMs,
  );
  return row?.expires_at;
}

/**
 * The `expires_at` of a run's lease when it has an owner and expires after `now` (both epoch ms).
 *
 * @returns epoch ms, or undefined (no such run, no owner, expired)
 */
export function liveLeaseExpiry(database: StateDatabase, runId: string, now: number): number | undefined {
  const row = database.get<{ expires_at: number }>(
    'SELECT l.expires_at FROM runs r JOIN leases l ON l.resource_id = r.resource_id WHERE r.run_id = ? AND l.owner_id IS NOT NULL AND l.expires_at > ?',
    runId,
    now,
  );
  return row?.expires_at;
}
