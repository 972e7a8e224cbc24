/**
 * The delivery rules of the run-list change feed (docs/GRAPHQL-CONTRACT.md `workflowRunChanges`,
 * docs/PROTOCOL.md "workflowRunChanges"), called through `ChangeFeed.followRunChanges`.
 *
 * - Order: the durable positions of `run-change-log.ts`, in commit order. Every event is read
 *   from the database after a wake-up of the `ChangeFeed` (this process's commits, or
 *   another process's through `PRAGMA data_version`); nothing is delivered from memory, and a
 *   stream reads its next page only when its consumer pulled the last event, so a slow
 *   consumer holds one page (at most {@link READ_PAGE} runs) and its cursor.
 * - Replay: a cursor gives every run whose latest change is after it, once, in its latest
 *   state, oldest position first; then live. A run never goes backwards: each page is read in one
 *   snapshot and positions only grow.
 * - Reset: a cursor of another database file, one ahead of the head, or one below the oldest
 *   replayable position answers `reset_required` first (with the head as its cursor), then live.
 * - Lease expiry: a claim whose lease expires without a renewal is a change of its run derived
 *   from the feed's lease clock (docs/PROTOCOL.md "Lease expiry"): at each step, before the
 *   changes after its position, a stream delivers the runs at or before its position whose lease
 *   expired since its expiry mark, in `(expires_at, run_id)` order, each read at the lease clock
 *   (so `claim` is null), each event's cursor naming the stream's position and that expiry; then
 *   the changes after its position, read at the same lease clock, their cursors carrying the
 *   mark of the whole window. A resumed stream so re-derives exactly the expiries its consumer
 *   has not been told, whether they happened while it was away or not.
 * - Filter: a change is delivered when the run matches the filter now, or when it matched the
 *   filter's changing parts (status, queue status) at some earlier change (it may be in the
 *   subscriber's list and has left it: the subscriber drops it). See {@link deliversTo}.
 */
import type { FeedSource } from './feed-source.js';
import { stream, type FollowOptions } from './feed-follow.js';
import {
  decodeRunChangeCursor,
  encodeRunChangeCursor,
  matchesFilter,
  matchesFixedParts,
  mayHaveMatched,
  type LeaseExpiryMark,
  type RunChangeRow,
  type WorkflowRunFilter,
  type WorkflowRunRecord,
  type WorkflowStore,
} from '../store/index.js';
import type { RunChangeRecord } from './run-change-read-cache.js';

/** Runs read from the log per step of a stream. */
export const READ_PAGE = 64;

/** One event of {@link followRunChanges}. */
export type RunChangeEvent =
  /**
   * A run created or changed, or whose lease expired; `cursor` resumes after it. Followers at the same position in one
   * wake-up get the same object (see `RunChangeReadCache`).
   */
  | RunChangeRecord
  /**
   * The cursor cannot be replayed (another database, ahead of the head, or older than what the
   * file keeps): re-query the list, then continue after `cursor` (the stream goes on by itself).
   */
  | { kind: 'reset_required'; cursor: string };

/**
 * Whether a change goes to a subscriber with `filter` (docs/PROTOCOL.md "Leaving a filter"):
 * always without a filter; else the run must pass the filter's fixed parts (lineage, session,
 * workflow name) and either match the whole filter now, or have matched its changing parts
 * (status, queue status) at an earlier change — a run that left the filter, delivered so a list
 * can drop it. Where the file keeps no status history (a pi-workflows state file), every run
 * passing the fixed parts counts as one that may have matched.
 */
export function deliversTo(
  change: Pick<RunChangeRow, 'heldStatuses' | 'heldQueueStatuses'> & { run: WorkflowRunRecord },
  filter: WorkflowRunFilter | undefined,
): boolean {
  if (filter === undefined) return true;
  if (!matchesFixedParts(change.run, filter)) return false;
  if (matchesFilter(change.run, filter)) return true;
  if (change.heldStatuses === undefined || change.heldQueueStatuses === undefined) return true;
  return mayHaveMatched(filter, change.heldStatuses, change.heldQueueStatuses);
}

/**
 * Every run created or changed, for a subscriber with `filter` (see the module comment).
 *
 * @param after a cursor of a previous event (replay after it, then live), or null (live only,
 *   from the head at this call, not at the first pull)
 * @returns the stream (lazy: nothing is read before the first pull)
 * @throws StoreError(validation, field `after`) `MALFORMED_RUN_CHANGE_CURSOR` at once, for a
 *   cursor this server does not mint
 */
export function followRunChanges(
  feed: FeedSource,
  store: WorkflowStore,
  filter: WorkflowRunFilter | undefined,
  after: string | null,
  options: FollowOptions = {},
): AsyncIterableIterator<RunChangeEvent> {
  const decoded = after === null ? undefined : decodeRunChangeCursor(after);
  // The tick before the head: a commit after this read wakes the stream (no commit is missed).
  let tick = feed.ticks;
  const start = store.runChangeHead();
  const databaseId = start.databaseId;
  const cursorOf = (seq: number, expiry: LeaseExpiryMark): string => encodeRunChangeCursor({ databaseId, seq, expiry });
  let cursor = start.head;
  // Expiries after this mark are delivered: live only (and a cursor without a mark, or one that
  // cannot be replayed), those from now on.
  let mark: LeaseExpiryMark = { at: Math.max(feed.leaseNow, store.now()), runId: null };
  let reset = false;
  if (decoded !== undefined) {
    reset = decoded.databaseId !== databaseId || decoded.seq > start.head || decoded.seq < start.floor;
    if (!reset) {
      cursor = decoded.seq;
      if (decoded.expiry !== undefined) mark = decoded.expiry;
    }
  }
  return stream<RunChangeEvent>(options.signal, async (push, aborted) => {
    if (reset) await push({ kind: 'reset_required', cursor: cursorOf(cursor, mark) });
    let readNow = decoded !== undefined && !reset;
    while (!aborted.aborted) {
      // false once the feed closed (server shutdown): waiting again would return at once.
      if (!readNow && !(await feed.waitForChange(tick, aborted))) return;
      tick = feed.ticks;
      // This step's lease clock; never before the mark (a cursor of a server whose clock is ahead).
      const at = Math.max(feed.leaseNow, mark.at);
      const expired = feed.readLeaseExpiries({ throughSeq: cursor, after: mark, through: at, limit: READ_PAGE }, databaseId);
      for (const { row, event } of expired.expiries) {
        if (aborted.aborted) return;
        if (deliversTo(row, filter)) await push(event);
        mark = { at: row.expiresAt, runId: row.runId };
      }
      if (expired.full) {
        readNow = true;
        continue;
      }
      mark = { at, runId: null };
      const page = feed.readRunChanges(cursor, READ_PAGE, at);
      if (cursor < page.head.floor) {
        // The file dropped what this subscriber had not read yet (pi-workflows pruning).
        cursor = page.head.head;
        await push({ kind: 'reset_required', cursor: cursorOf(cursor, mark) });
        readNow = false;
        continue;
      }
      for (const { row, event } of page.changes) {
        if (aborted.aborted) return;
        if (deliversTo(row, filter)) await push(event);
        cursor = row.seq;
      }
      cursor = page.scannedTo;
      // A full page may mean more is already committed: read again without waiting.
      readNow = page.full;
    }
  });
}
