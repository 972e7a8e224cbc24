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
   * A run created or changed; `cursor` resumes after it. Followers at the same position in one
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
export function deliversTo(change: RunChangeRow & { run: WorkflowRunRecord }, filter: WorkflowRunFilter | undefined): boolean {
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
  const cursorOf = (seq: number): string => encodeRunChangeCursor({ databaseId, seq });
  let cursor = start.head;
  let reset = false;
  if (decoded !== undefined) {
    reset = decoded.databaseId !== databaseId || decoded.seq > start.head || decoded.seq < start.floor;
    if (!reset) cursor = decoded.seq;
  }
  return stream<RunChangeEvent>(options.signal, async (push, aborted) => {
    if (reset) await push({ kind: 'reset_required', cursor: cursorOf(cursor) });
    let readNow = decoded !== undefined && !reset;
    while (!aborted.aborted) {
      // false once the feed closed (server shutdown): waiting again would return at once.
      if (!readNow && !(await feed.waitForChange(tick, aborted))) return;
      tick = feed.ticks;
      const page = feed.readRunChanges(cursor, READ_PAGE);
      if (cursor < page.head.floor) {
        // The file dropped what this subscriber had not read yet (pi-workflows pruning).
        cursor = page.head.head;
        await push({ kind: 'reset_required', cursor: cursorOf(cursor) });
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
