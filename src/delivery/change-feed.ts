/**
 * The change feed (docs/ARCHITECTURE.md "The change feed"): what subscriptions call. Its follow
 * streams ({@link ChangeFeed.followRunDeltas} and the others) deliver the durable logs exactly
 * once, in order, after a cursor; their rules live in `feed-follow.ts`, `feed-view.ts`,
 * `feed-chain.ts` and `feed-run-changes.ts`. This class composes the pieces underneath
 * (src/delivery/index.ts maps each step to its file):
 *
 * - wake-ups (`wake-ups.ts`): own commits through the store's commit hook, other processes'
 *   through the commit watcher (`commit-watcher.ts`), lease expiries through the lease clock
 *   (`lease-clock.ts`); each wakes the revision waiters (`revision-waiters.ts`, the direct
 *   route's hand-over included) and the change waiters;
 * - shared reads (`feed-reads.ts`, `feed-view-reads.ts`): one read per position for every
 *   follower;
 * - listeners (`feed-listeners.ts`): delivery lag and waiter count.
 *
 * Waiters learn only *that* a run's revision moved; they then read the log after their own
 * cursor. Nothing is ever delivered from memory.
 */
import * as follow from './feed-follow.js';
import type { FollowOptions, RunDeltaEvent } from './feed-follow.js';
import { followChain, type ChainEvent } from './feed-chain.js';
import { followRunChanges, type RunChangeEvent } from './feed-run-changes.js';
import { followRunView, type RunViewEvent, type ViewChangesRead } from './feed-view.js';
import type { FeedSource } from './feed-source.js';
import { FeedListeners } from './feed-listeners.js';
import { FeedReads } from './feed-reads.js';
import { FeedViewReads } from './feed-view-reads.js';
import type { LeaseExpiryPage, RunChangePage } from './run-change-read-cache.js';
import type { ViewReadPeers } from './view-reads.js';
import { WakeUps } from './wake-ups.js';
import type { LeaseExpiryRequest, ViewerDeltaRead, ViewPositions, WorkflowRunFilter, WorkflowRunRecord, WorkflowStore } from '../store/index.js';

/** Options of {@link ChangeFeed}. */
export interface ChangeFeedOptions {
  /**
   * Commits of other processes (and other connections) are noticed through a file-system watch
   * of the `-wal` file followed by a short burst of `PRAGMA data_version` checks on a dedicated
   * read connection, checks at most this many ms apart; where the file
   * cannot be watched, `data_version` is polled at this interval. Only while someone waits.
   */
  pollIntervalMs: number;
}

/** The change feed of one store (see the module comment). */
export class ChangeFeed implements FeedSource {
  private readonly store: WorkflowStore;
  private readonly wakeUps: WakeUps;
  private readonly listeners: FeedListeners;
  private readonly reads: FeedReads;
  private readonly viewReads: FeedViewReads;
  private readonly unsubscribeReopen: () => void;

  /**
   * @param store the store whose database is watched (its file must be shared for the
   *   cross-process watcher; `:memory:` gets in-process notifications only)
   */
  constructor(store: WorkflowStore, options: ChangeFeedOptions) {
    this.store = store;
    this.wakeUps = new WakeUps(store, options.pollIntervalMs, () => this.listeners.waitersChanged());
    this.listeners = new FeedListeners(this.wakeUps);
    this.reads = new FeedReads(store, this.wakeUps);
    this.viewReads = new FeedViewReads(store, this.wakeUps);
    this.readViewChanges = this.viewReads.read;
    this.unsubscribeReopen = store.onReopen(() => this.fileReopened());
  }

  /** Number of wake-ups processed (for tests and benchmarks). */
  get ticks(): number {
    return this.wakeUps.ticks;
  }

  /** Number of pending waiters: change waits and revision waits (for tests and memory checks). */
  get waiterCount(): number {
    return this.wakeUps.waiterCount;
  }

  /**
   * One run's viewer deltas after a cursor: replay, then live, exactly once, in order;
   * a snapshot event when the cursor cannot be served (docs/GRAPHQL-CONTRACT.md `workflowRunDeltas`).
   * See {@link follow.followRunDeltas} for the rules and errors.
   *
   * @param afterRevision the last revision the consumer applied; null = live only
   */
  followRunDeltas(runId: string, afterRevision: number | null, options?: FollowOptions): AsyncIterableIterator<RunDeltaEvent> {
    return this.listeners.measured(follow.followRunDeltas(this, this.store, runId, afterRevision, options));
  }

  /**
   * One run's view: the whole view first (or after `after`, what changed since), then what
   * changed at each revision move, live (docs/PROTOCOL.md "Following a run's view"). See
   * {@link followRunView} in `feed-view.ts` for the rules and errors.
   *
   * @param after the positions of the client's copy of the view; null = the whole view first
   */
  followRunView(runId: string, after: ViewPositions | null, options?: FollowOptions): AsyncIterableIterator<RunViewEvent> {
    return this.listeners.measured(followRunView(this, this.store, this.readViewChanges, runId, after, options));
  }

  /**
   * The run after each committed change of its summary, live only (docs/GRAPHQL-CONTRACT.md
   * `workflowRunUpdated`). See {@link follow.followRunUpdates}.
   */
  followRunUpdates(runId: string, options?: FollowOptions): AsyncIterableIterator<WorkflowRunRecord> {
    return this.listeners.measured(follow.followRunUpdates(this, this.store, runId, options));
  }

  /**
   * Every run of a chain that changed or joined it, live only (docs/GRAPHQL-CONTRACT.md
   * `workflowRunLineageUpdated`). See {@link follow.followChainUpdates}.
   */
  followChainUpdates(rootRunId: string, options?: FollowOptions): AsyncIterableIterator<WorkflowRunRecord> {
    return this.listeners.measured(follow.followChainUpdates(this, this.store, rootRunId, options));
  }

  /**
   * The viewer deltas of a chain's latest run, moving to a continuation or restart when one
   * becomes the latest run, resumable by a cursor (docs/GRAPHQL-CONTRACT.md
   * `workflowRunChainDeltas`). See {@link followChain} in `feed-chain.ts` for the rules and errors.
   *
   * @param runId any run of the chain
   * @param after an event's cursor, or null (the first event is a snapshot of the latest run)
   */
  followChain(runId: string, after: string | null, options?: FollowOptions): AsyncIterableIterator<ChainEvent> {
    return this.listeners.measured(followChain(this, this.store, runId, after, options));
  }

  /**
   * Every run created or changed, in commit order, for subscribers whose filter it matches
   * (docs/GRAPHQL-CONTRACT.md `workflowRunChanges`): replay after a cursor, then live; a reset event
   * for a cursor that cannot be replayed. See {@link followRunChanges} in `feed-run-changes.ts`
   * for the rules and errors. Also the invalidation source of `@live` queries (with no filter and
   * a null cursor).
   *
   * @param filter the `workflowRuns` filter (undefined: every run)
   * @param after an event's cursor, or null for live only
   * @throws StoreError(validation) for a malformed cursor, at once
   */
  followRunChanges(filter: WorkflowRunFilter | undefined, after: string | null, options?: FollowOptions): AsyncIterableIterator<RunChangeEvent> {
    return this.listeners.measured(followRunChanges(this, this.store, filter, after, options));
  }

  /**
   * Calls `listener` with the change-feed lag of every event a follow stream delivers after a
   * wake-up: the ms from the moment the feed noticed the commit (this process's own commits at
   * once, through the commit hook; other processes' at the next `data_version` poll) to the
   * moment the subscriber took the event. Replayed events, read without waiting, are not
   * reported. (A `/metrics` histogram.)
   *
   * @returns a function that removes the listener
   */
  onDelivery(listener: (lagMs: number) => void): () => void {
    return this.listeners.onDelivery(listener);
  }

  /**
   * Calls `listener` with {@link waiterCount} each time a waiter registers or leaves (woken,
   * aborted, released by `close`). A test hook: tests await "the server registered the
   * subscription" (it waits on the feed) or "the subscriber left" on it instead of polling.
   *
   * @returns a function that removes the listener
   */
  onWaiterCount(listener: (waiterCount: number) => void): () => void {
    return this.listeners.onWaiterCount(listener);
  }

  /**
   * Shares view reads with the other worker processes of this server from now on: a run's
   * view is read by one worker (`peers.readsElsewhere`), whose answers the others' followers
   * take (docs/OPERATIONS.md "Workers").
   */
  shareViewReads(peers: ViewReadPeers): void {
    this.viewReads.share(peers);
  }

  /** How many times this process read a run's view for its followers or a peer's (a `/metrics` counter). */
  get viewReadsMade(): number {
    return this.viewReads.readsMade;
  }

  /**
   * A view follower's next event after `since` at presentation revision `atLeast` or later: one
   * read, and one event object, for every follower at the same positions, in this process or in
   * the worker that reads the run's view (then a promise of its answer). See
   * {@link FeedViewReads.read} in `feed-view-reads.ts`.
   */
  readonly readViewChanges: ViewChangesRead;

  /**
   * A peer's request for a view follower's next event (src/server/cluster/): the shared read
   * of {@link readViewChanges}, read here.
   *
   * @returns the event; `reset` when a whole view is due (the peer reads that itself); undefined for an unknown run
   */
  readViewForPeer(runId: string, since: ViewPositions, atLeast: number): RunViewEvent | 'reset' | undefined {
    return this.viewReads.readForPeer(runId, since, atLeast);
  }

  /**
   * Reads the delta log after a cursor like `WorkflowStore.readViewerDeltas`, sharing the
   * read between subscribers at the same cursor (see `feed-reads.ts`).
   *
   * @param knownHead a committed revision the caller was woken with, if any
   */
  readDeltas(runId: string, afterRevision: number, limit: number, knownHead?: number): ViewerDeltaRead | undefined {
    return this.reads.readDeltas(runId, afterRevision, limit, knownHead);
  }

  /**
   * Reads the run change log after a position like `WorkflowStore.readRunChanges`, sharing the
   * read and its event objects between followers at the same position during one wake-up (see
   * `feed-reads.ts`).
   *
   * @param afterSeq a position of the log (≥ 0)
   * @param limit at most this many runs
   * @param at the lease clock the records are read at, epoch ms (default {@link leaseNow})
   */
  readRunChanges(afterSeq: number, limit: number, at = this.wakeUps.leaseClock.now): RunChangePage {
    return this.reads.readRunChanges(afterSeq, limit, at);
  }

  /**
   * The lease expiries of a window (`WorkflowStore.readLeaseExpiries`), the read and its event
   * objects shared between followers during one wake-up (see `feed-reads.ts`).
   *
   * @param databaseId the database identity the events' cursors carry
   */
  readLeaseExpiries(request: LeaseExpiryRequest, databaseId: string): LeaseExpiryPage {
    return this.reads.readLeaseExpiries(request, databaseId);
  }

  /**
   * The lease clock, epoch ms: the store's clock at the latest wake-up (never going back). A
   * lease with `expires_at` at or before it is expired for every follow stream; the one expiry
   * timer wakes the feed when the next owned lease expires (docs/PROTOCOL.md "Lease expiry",
   * `lease-clock.ts`).
   */
  get leaseNow(): number {
    return this.wakeUps.leaseClock.now;
  }

  /**
   * Resolves true once a wake-up has moved the lease clock to `at` or later (at once when it
   * already is), false when `signal` aborts or the feed closes. The expiry timer is armed for
   * the earliest such wait.
   *
   * @param at epoch ms
   */
  waitForLeaseTime(at: number, signal?: AbortSignal): Promise<boolean> {
    return this.wakeUps.leaseClock.wait(at, signal);
  }

  /**
   * The store's clock may have moved by more than the expiry timer knows (a test's hand-moved
   * clock, a step of the system clock): re-arms the timer from the clock now, so a lease that
   * expired by it is delivered at once (within a turn of the event loop), not when the timer
   * armed earlier would have fired.
   */
  checkLeaseExpiries(): void {
    this.wakeUps.leaseClock.rearm();
  }

  /**
   * Resolves with the run's current revision once it is greater than `after` (at once when it
   * already is), or with undefined when `signal` aborts or the feed closes; or, on the direct
   * route, hands the revisions over synchronously inside the wake-up through `handOver`. See
   * {@link RevisionWaiters.wait} in `revision-waiters.ts` for the rules.
   *
   * @param after a presentation revision the caller has already seen
   * @param handOver called synchronously by a wake-up in which the run's revision passed `after`:
   *   returns the caller's new cursor to go on waiting, or undefined (or throws) to have the
   *   promise resolve with the head instead
   */
  waitForRevision(runId: string, after: number, signal?: AbortSignal, handOver?: (head: number) => number | undefined): Promise<number | undefined> {
    return this.wakeUps.revisions.wait(runId, after, signal, handOver);
  }

  /**
   * Resolves once a wake-up (any commit seen by either source) has been processed after
   * `sinceTick` — at once when one already was — or when `signal` aborts or the feed closes.
   * Read {@link ticks} before reading state, then wait with it: no commit is missed.
   *
   * @param sinceTick a value of {@link ticks} taken before the caller read the state
   * @returns true after a wake-up; false when `signal` aborted or the feed is closed (the caller
   *   must stop: waiting again would return at once)
   */
  waitForChange(sinceTick: number, signal?: AbortSignal): Promise<boolean> {
    return this.wakeUps.waitForChange(sinceTick, signal);
  }

  /** Stops watching and releases every waiter. Idempotent. */
  close(): void {
    if (this.wakeUps.closed) return;
    this.unsubscribeReopen();
    this.wakeUps.close();
  }

  /**
   * A replica's file was replaced and the store reopened it (`WorkflowStore.reopenIfReplaced`,
   * docs/DEPLOYMENT.md "Read replicas"): the read caches are emptied, the commit watcher
   * follows the new file, and every waiter is woken once. Followers keep their own cursors (a
   * position of the durable log, a revision), so each reads on after exactly what it
   * delivered: nothing twice, nothing skipped, as long as the new file is a later copy of the
   * same database.
   */
  private fileReopened(): void {
    if (this.wakeUps.closed) return;
    this.reads.reset();
    this.wakeUps.fileReopened();
  }
}
