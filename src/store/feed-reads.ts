import { readLeaseExpiries, type LeaseExpiryRequest, type LeaseExpiryRow } from './lease-expiries.js';
import type { RunChangeHead, RunChangeRow } from './run-change-log.js';
import { getWorkflowRuns } from './run-queries.js';
import type { WorkflowRunRecord } from './run-records.js';
import type { StoreContext } from './store-context.js';

/**
 * The change feed's reads of several statements (docs/PROTOCOL.md "workflowRuns changes",
 * "Lease expiry", "Following a run's view"): each reads its positions and the runs they name
 * in one snapshot, so a record is never older than its position.
 */

/** What {@link readRunChanges} returns. */
export interface RunChangesRead {
  head: RunChangeHead;
  /** The changed runs, oldest position first, each with its record. */
  changes: Array<RunChangeRow & { run: WorkflowRunRecord }>;
  /** The last position read (`afterSeq` when none: a run gone from `runs` is skipped but still passed). */
  scannedTo: number;
  /** True when `limit` rows were read (more may follow at once). */
  full: boolean;
}

/**
 * The runs whose latest change is after a position, oldest position first, each with its
 * record, all read in one snapshot together with the log's head. The run-list change feed's
 * read (`feed-run-changes.ts`).
 *
 * @param afterSeq a position of the log (≥ 0)
 * @param limit at most this many runs
 * @param now epoch ms the records' `claim` is live at: the change feed reads at its lease
 *   clock (docs/PROTOCOL.md "Lease expiry")
 */
export function readRunChanges(context: StoreContext, afterSeq: number, limit: number, now: number): RunChangesRead {
  const runChanges = context.layout.runChanges;
  return context.database.readSnapshot(() => {
    const head = runChanges.head();
    const rows = runChanges.readAfter(afterSeq, limit);
    const runs = getWorkflowRuns(
      context,
      rows.map((row) => row.runId),
      now,
    );
    const changes: Array<RunChangeRow & { run: WorkflowRunRecord }> = [];
    rows.forEach((row, index) => {
      const run = runs[index];
      if (run !== undefined) changes.push({ ...row, run });
    });
    return { head, changes, scannedTo: rows.at(-1)?.seq ?? afterSeq, full: rows.length === limit };
  });
}

/**
 * The owned run leases that expired in a window of the change feed's lease clock, each with
 * its run read at `request.through` (so its `claim` is null), all in one snapshot. See
 * {@link readLeaseExpiries} (docs/PROTOCOL.md "Lease expiry").
 *
 * @returns at most `request.limit` expiries, by `(expires_at, run_id)`; runs gone are skipped
 */
export function readExpiredLeaseRuns(context: StoreContext, request: LeaseExpiryRequest): Array<LeaseExpiryRow & { run: WorkflowRunRecord }> {
  return context.database.readSnapshot(() => {
    const rows = readLeaseExpiries(context.layout, request);
    const runs = getWorkflowRuns(
      context,
      rows.map((row) => row.runId),
      request.through,
    );
    const expiries: Array<LeaseExpiryRow & { run: WorkflowRunRecord }> = [];
    rows.forEach((row, index) => {
      const run = runs[index];
      if (run !== undefined) expiries.push({ ...row, run });
    });
    return expiries;
  });
}

/**
 * A run and its viewer head read in one snapshot, so the record is the run as of
 * `currentRevision` (a follower reloads from it, then applies the revisions after it;
 * docs/STORE-RULES.md §8).
 *
 * @returns undefined for an unknown run
 */
export function readRunAtViewerHead(
  context: StoreContext,
  runId: string,
): { run: WorkflowRunRecord; currentRevision: number; retainedFromRevision: number } | undefined {
  return context.database.readSnapshot(() => {
    const head = context.viewer.head(runId);
    const run = head === undefined ? undefined : getWorkflowRuns(context, [runId])[0];
    return head === undefined || run === undefined ? undefined : { run, ...head };
  });
}
