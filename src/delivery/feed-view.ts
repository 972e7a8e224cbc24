/**
 * Following a run's view (docs/PROTOCOL.md "Following a run's view"): after a client's
 * {@link ViewPositions} (from a view it read, or the last event it applied), one event per read of
 * the rows — what the run's view gained and how its head looks now — whenever the run's
 * presentation revision moves; the whole view first when the client has none, or when a list
 * gained more than a page since (then it starts again from that view). Every event carries the
 * positions it brings the client to, so a client that resumes with them misses and repeats
 * nothing, also across a server restart: what changed is read from the rows (as pi-workflows'
 * own viewer does), never from memory, and works on the engine's content-bearing revisions and
 * the controller's content-free signals alike.
 */
import { StoreError, type PlannedRunView, type RunViewHead, type ViewListChanges, type ViewPositions, type WorkflowStore } from '../store/index.js';
import type { FeedSource } from './feed-source.js';
import { stream, type FollowOptions } from './feed-follow.js';

/** The whole view: the client (re)starts from it. */
export interface RunViewResetEvent {
  kind: 'reset';
  runId: string;
  /** The view (its newest page of every list) and its positions. */
  read: PlannedRunView & { positions: ViewPositions };
}

/** What changed after `from`: the head now and the items each list gained. */
export interface RunViewChangedEvent {
  kind: 'changed';
  runId: string;
  /** The positions the client stood at (its revision is the last one it had). */
  from: ViewPositions;
  /** The positions this event brings it to. */
  positions: ViewPositions;
  head: RunViewHead;
  changes: ViewListChanges;
}

/** One event of {@link followRunView}. */
export type RunViewEvent = RunViewResetEvent | RunViewChangedEvent;

/**
 * The read {@link followRunView} shares between followers at the same positions
 * (`ChangeFeed.readViewChanges`): the event after `since` at presentation revision `atLeast` or
 * later, or a promise of it (another worker reads it, `view-reads.ts`).
 */
export type ViewChangesRead = (runId: string, since: ViewPositions | null, atLeast: number) => RunViewEvent | undefined | Promise<RunViewEvent | undefined>;

/** The key of a follower's positions (followers at one key in one wake-up share one read). */
export function positionsKey(runId: string, positions: ViewPositions | null): string {
  return positions === null
    ? `${runId}|view`
    : `${runId}|${positions.revision}|${positions.steps}|${positions.trace}|${positions.entries}|${positions.events}|${positions.updates}`;
}

/**
 * Reads a follower's next event from the store: the whole view when it has no positions, else
 * what changed since them (the whole view when too much did); undefined for an unknown run.
 */
export function readViewEvent(store: WorkflowStore, runId: string, since: ViewPositions | null): RunViewEvent | undefined {
  if (since === null) {
    const read = store.readRunViewNewest(runId);
    return read === null ? undefined : { kind: 'reset', runId, read };
  }
  const result = store.readRunViewChanges(runId, since);
  if (result === null) return undefined;
  if (result.kind === 'reset') return { kind: 'reset', runId, read: result.read as RunViewResetEvent['read'] };
  return { kind: 'changed', runId, from: since, positions: result.positions, head: result.head, changes: result.changes };
}

/**
 * The events of one run's view after `after` (null: the whole view first), then one per
 * revision move, live; an event that changed nothing a client sees (a heartbeat's revision) is
 * still delivered, so its positions keep the client's revision current.
 *
 * @param read the shared read (`ChangeFeed.readViewChanges`)
 * @returns the stream (lazy: nothing is read before the first pull)
 * @throws StoreError(not_found) `Workflow run not found: <runId>`, at once
 */
export function followRunView(
  feed: FeedSource,
  store: WorkflowStore,
  read: ViewChangesRead,
  runId: string,
  after: ViewPositions | null,
  options: FollowOptions = {},
): AsyncIterableIterator<RunViewEvent> {
  const head = store.viewerHead(runId);
  if (head === undefined) throw new StoreError('not_found', `Workflow run not found: ${runId}`);
  return stream<RunViewEvent>(options.signal, async (push, aborted, handOver) => {
    let positions = after;
    // The revision the next read must reach: the run's as the follow started, then each wake-up's.
    let atLeast = head.currentRevision;
    // While waiting live (the direct route, src/delivery/index.ts): a wake-up hands the shared
    // change event over to the consumer at once when it takes it synchronously — the same event
    // object from the same read as below; anything else (a reset, nothing changed, a read still
    // to come from another worker, a consumer that is not ready) ends the wait and the loop
    // below reads on from the same positions.
    const handOverUpTo = (woken: number): number | undefined => {
      const event = read(runId, positions, woken);
      if (event === undefined || event instanceof Promise || event.kind === 'reset' || event.positions.revision === event.from.revision) return undefined;
      if (!handOver(event)) return undefined;
      positions = event.positions;
      return positions.revision;
    };
    // A client with positions may be behind already: read at once; so is a client without any.
    let readNow = true;
    while (!aborted.aborted) {
      if (!readNow) {
        const woken = await feed.waitForRevision(runId, (positions as ViewPositions).revision, aborted, handOverUpTo);
        if (woken === undefined) return;
        atLeast = woken;
      }
      readNow = false;
      const event = await read(runId, positions, atLeast);
      if (event === undefined || aborted.aborted) return;
      const next = event.kind === 'reset' ? event.read.positions : event.positions;
      // Nothing since the client's positions (its revision is the run's): wait for the next one.
      if (event.kind === 'changed' && next.revision === event.from.revision) continue;
      await push(event);
      positions = next;
    }
  });
}
