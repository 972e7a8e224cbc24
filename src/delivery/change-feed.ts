import { watch, type FSWatcher } from 'node:fs';
import { DeltaReadCache } from './delta-read-cache.js';
import { RunChangeReadCache, type LeaseExpiryPage, type RunChangePage } from './run-change-read-cache.js';
import * as follow from './feed-follow.js';
import type { FollowOptions, RunDeltaEvent } from './feed-follow.js';
import { followChain, type ChainEvent } from './feed-chain.js';
import { followRunChanges, type RunChangeEvent } from './feed-run-changes.js';
import { observe, type PullObserver } from './pull-stream.js';
import { followRunView, positionsKey, readViewEvent, type RunViewEvent } from './feed-view.js';
import { revisionAfter, ViewReadCache, type ViewReadPeers } from './view-reads.js';
import {
  openDataVersionProbe,
  type DataVersionProbe,
  type LeaseExpiryRequest,
  type ViewerDeltaRead,
  type ViewPositions,
  type WorkflowRunFilter,
  type WorkflowRunRecord,
  type WorkflowStore,
} from '../store/index.js';

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

/** Interval of the safety poll while the `-wal` file is watched, ms (catches a lost file event). */
const SAFETY_POLL_MS = 1_000;
/** A burst of checks after a `-wal` change event lasts this many poll intervals after the last event. */
const BURST_POLLS = 10;
/**
 * Revision waiters resolved per turn of the event loop by one wake-up (see `ChangeFeed.wake`);
 * the rest in later turns.
 */
export const WAKE_CHUNK = 1_000;

/** Something to do when a wait's signal aborts (see `ChangeFeed.hookAbort`). */
interface AbortHook {
  aborted(): void;
}

/** A wait for the lease clock (see `ChangeFeed.waitForLeaseTime`). */
interface LeaseWaiter extends AbortHook {
  /** Epoch ms. */
  at: number;
  done: (reached: boolean) => void;
}

interface RevisionWaiter extends AbortHook {
  runId: string;
  after: number;
  /** See `ChangeFeed.waitForRevision`'s `handOver`. */
  handOver: ((head: number) => number | undefined) | undefined;
  /** The wait's promise was resolved (a later wake-up or abort is a no-op). */
  settled: boolean;
  /** In a wake-up's list, not handled yet (it stays registered meanwhile; later wake-ups skip it). */
  queued: boolean;
  resolve: (head: number | undefined) => void;
}

/**
 * The change feed (docs/ARCHITECTURE.md "The change feed"), the wake-up step of delivery
 * (src/delivery/index.ts). Its follow streams
 * ({@link followRunDeltas}, {@link followRunUpdates}, {@link followChainUpdates}) are what
 * subscriptions call; their delivery rules live in `feed-follow.ts`. The run-list change feed
 * ({@link followRunChanges}) sits beside them, its rules in `feed-run-changes.ts`.
 *
 * Underneath, the feed wakes readers of the durable viewer-delta log when it may have changed.
 * Two sources: this process's own commits (the store's commit hook) and commits by other
 * processes (a change event of the `-wal` file, then `PRAGMA data_version` checks on a
 * dedicated read connection, the store's `openDataVersionProbe`; a slow safety poll besides, or
 * plain polling where the file cannot be watched). Either way, waiters
 * learn only *that* a run's revision moved; they then read the log after their own cursor.
 * Nothing is ever delivered from memory.
 */
export class ChangeFeed {
  private readonly store: WorkflowStore;
  private readonly pollIntervalMs: number;
  private readonly revisionWaiters = new Map<string, Set<RevisionWaiter>>();
  /** Per signal of a wait, what to do when it aborts (see {@link hookAbort}). */
  private readonly abortHooks = new WeakMap<AbortSignal, Set<AbortHook>>();
  private changeWaiters: Array<() => void> = [];
  private leaseWaiters = new Set<LeaseWaiter>();
  /**
   * The lease clock (epoch ms): the store's clock as sampled at the latest wake-up, never going
   * back. Every read of a wake-up decides whether a lease is live at this one time
   * (docs/PROTOCOL.md "Lease expiry").
   */
  private leaseClock: number;
  /** The one expiry timer (see {@link armExpiryTimer}) and the lease clock time it waits for. */
  private expiryTimer: NodeJS.Timeout | undefined;
  private expiryTimerAt: number | undefined;
  /** `store.nextLeaseExpiry(leaseClock)` as read at wake-up {@link nextExpiryTick}. */
  private nextExpiry: number | undefined;
  private nextExpiryTick = -1;
  private readonly unsubscribeCommit: () => void;
  /** The store's `data_version` reader (src/store/data-version.ts), open while watching. */
  private watcher: DataVersionProbe | undefined;
  private dataVersion: number | undefined;
  /** Poll timer: the safety poll while the `-wal` file is watched, else the regular poll. */
  private timer: NodeJS.Timeout | undefined;
  /** True while someone waits and commits of other connections are looked for. */
  private watching = false;
  /** True while the `-wal` file watch is the signal (the timer is then only the safety poll). */
  private fileMode = false;
  /** File-system watch of the `-wal` file (see {@link watchWalFile}). */
  private walWatcher: FSWatcher | undefined;
  private burstTimer: NodeJS.Timeout | undefined;
  /** `performance.now()` of the latest `-wal` change event. */
  private lastWalEventAt = 0;
  private tickScheduled = false;
  private closed = false;
  /** Replaced (emptied) when a replica's file is reopened (see {@link fileReopened}). */
  private cache: DeltaReadCache;
  private runChangeCache: RunChangeReadCache;
  private readonly unsubscribeReopen: () => void;
  /**
   * Run heads read since the last commit was noticed (cleared by {@link scheduleTick}): after
   * a fan-out every subscriber of a run checks its head again before waiting, and this
   * answers them without one SQL read each (≈ 8 µs per subscriber and
   * revision in the profile).
   */
  private readonly knownHeads = new Map<string, number>();
  /** `performance.now()` when the commits of the scheduled wake-up were first noticed. */
  private pendingNoticedAt = 0;
  /** `performance.now()` when the commits of the latest processed wake-up were first noticed. */
  private noticedAt = 0;
  private readonly deliveryListeners = new Set<(lagMs: number) => void>();
  private readonly waiterListeners = new Set<(waiterCount: number) => void>();
  /** Number of wake-ups processed (for tests and benchmarks). */
  ticks = 0;

  /**
   * @param store the store whose database is watched (its file must be shared for the
   *   cross-process watcher; `:memory:` gets in-process notifications only)
   */
  constructor(store: WorkflowStore, options: ChangeFeedOptions) {
    this.store = store;
    this.pollIntervalMs = options.pollIntervalMs;
    this.cache = this.newDeltaReadCache();
    this.runChangeCache = this.newRunChangeReadCache();
    this.leaseClock = store.now();
    this.unsubscribeCommit = store.onCommit(() => this.ownCommit());
    this.unsubscribeReopen = store.onReopen(() => this.fileReopened());
  }

  private newDeltaReadCache(): DeltaReadCache {
    return new DeltaReadCache((runId, afterRevision, limit) => this.store.readViewerDeltas(runId, afterRevision, limit));
  }

  private newRunChangeReadCache(): RunChangeReadCache {
    return new RunChangeReadCache(
      (afterSeq, limit, at) => this.store.readRunChanges(afterSeq, limit, at),
      (request) => this.store.readLeaseExpiries(request),
      () => this.ticks,
    );
  }

  /**
   * A replica's file was replaced and the store reopened it (`WorkflowStore.reopenIfReplaced`,
   * docs/DEPLOYMENT.md "Read replicas"): the `data_version` watcher still reads the old file, so
   * it is reopened on the new one (and the `-wal` watch re-armed), the read caches are emptied,
   * and every waiter is woken once. Followers keep their own cursors (a position of the durable
   * log, a revision), so each reads on after exactly what it delivered: nothing twice, nothing
   * skipped, as long as the new file is a later copy of the same database.
   */
  private fileReopened(): void {
    if (this.closed) return;
    this.unwatchWalFile();
    this.watcher?.close();
    this.watcher = undefined;
    this.dataVersion = undefined;
    this.cache = this.newDeltaReadCache();
    this.runChangeCache = this.newRunChangeReadCache();
    if (this.watching) {
      this.stopWatching();
      this.startWatching();
    }
    this.scheduleTick();
  }

  /**
   * One run's viewer deltas after a cursor: replay, then live, exactly once, in order;
   * a snapshot event when the cursor cannot be served (docs/GRAPHQL-CONTRACT.md `workflowRunDeltas`).
   * See {@link follow.followRunDeltas} for the rules and errors.
   *
   * @param afterRevision the last revision the consumer applied; null = live only
   */
  followRunDeltas(runId: string, afterRevision: number | null, options?: FollowOptions): AsyncIterableIterator<RunDeltaEvent> {
    return this.measured(follow.followRunDeltas(this, this.store, runId, afterRevision, options));
  }

  /**
   * One run's view: the whole view first (or after `after`, what changed since), then what
   * changed at each revision move, live (docs/PROTOCOL.md "Following a run's view"). See
   * {@link followRunView} in `feed-view.ts` for the rules and errors.
   *
   * @param after the positions of the client's copy of the view; null = the whole view first
   */
  followRunView(runId: string, after: ViewPositions | null, options?: FollowOptions): AsyncIterableIterator<RunViewEvent> {
    return this.measured(followRunView(this, this.store, this.readViewChanges, runId, after, options));
  }

  /**
   * The run after each committed change of its summary, live only (docs/GRAPHQL-CONTRACT.md
   * `workflowRunUpdated`). See {@link follow.followRunUpdates}.
   */
  followRunUpdates(runId: string, options?: FollowOptions): AsyncIterableIterator<WorkflowRunRecord> {
    return this.measured(follow.followRunUpdates(this, this.store, runId, options));
  }

  /**
   * Every run of a chain that changed or joined it, live only (docs/GRAPHQL-CONTRACT.md
   * `workflowRunLineageUpdated`). See {@link follow.followChainUpdates}.
   */
  followChainUpdates(rootRunId: string, options?: FollowOptions): AsyncIterableIterator<WorkflowRunRecord> {
    return this.measured(follow.followChainUpdates(this, this.store, rootRunId, options));
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
    return this.measured(followChain(this, this.store, runId, after, options));
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
    return this.measured(followRunChanges(this, this.store, filter, after, options));
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
    this.deliveryListeners.add(listener);
    return () => this.deliveryListeners.delete(listener);
  }

  /**
   * Calls `listener` with {@link waiterCount} each time a waiter registers or leaves (woken,
   * aborted, released by `close`). A test hook: tests await "the server registered the
   * subscription" (it waits on the feed) or "the subscriber left" on it instead of polling.
   *
   * @returns a function that removes the listener
   */
  onWaiterCount(listener: (waiterCount: number) => void): () => void {
    this.waiterListeners.add(listener);
    return () => this.waiterListeners.delete(listener);
  }

  /** Tells {@link onWaiterCount}'s listeners the new count. */
  private waitersChanged(): void {
    if (this.waiterListeners.size === 0) return;
    const count = this.waiterCount;
    for (const listener of this.waiterListeners) listener(count);
  }

  /**
   * A follow stream that reports the lag of each event delivered after a wake-up to
   * {@link onDelivery}'s listeners, through an observer attached to the stream itself (no
   * wrapper). Every follow stream is a `pullStream` (feed-follow.ts `stream`).
   */
  private measured<T>(source: AsyncIterableIterator<T>): AsyncIterableIterator<T> {
    observe(source, this.deliveryObserver);
    return source;
  }

  /** `mark`: the wake-ups processed when the consumer asked; `delivered`: reports the lag when one happened since. */
  private readonly deliveryObserver: PullObserver = {
    mark: () => this.ticks,
    delivered: (ticksBefore) => {
      if (this.ticks > ticksBefore && this.deliveryListeners.size > 0) {
        const lagMs = performance.now() - this.noticedAt;
        for (const listener of this.deliveryListeners) listener(lagMs);
      }
    },
  };

  /** The view reads followers share, by run and follower positions (see {@link readViewChanges}). */
  private readonly viewReads = new ViewReadCache();
  /** The other workers of this server, when it has several (see {@link shareViewReads}). */
  private viewPeers: ViewReadPeers | undefined;
  /** Reads of a view this process made (not served from {@link viewReads} or by a peer). */
  private viewReadCount = 0;

  /**
   * Shares view reads with the other worker processes of this server from now on: a run's
   * view is read by one worker (`peers.readsElsewhere`), whose answers the others' followers
   * take (docs/OPERATIONS.md "Workers").
   */
  shareViewReads(peers: ViewReadPeers): void {
    this.viewPeers = peers;
  }

  /** How many times this process read a run's view for its followers or a peer's (a `/metrics` counter). */
  get viewReadsMade(): number {
    return this.viewReadCount;
  }

  /**
   * A view follower's next event after `since` (`feed-view.ts` `readViewEvent`) at presentation
   * revision `atLeast` or later: one read, and one event object, for every follower at the same
   * positions (`view-reads.ts`), in this process or, when another worker reads the run's view,
   * in that one (then a promise of its answer; a reset, a whole view, is read here).
   */
  readonly readViewChanges = (runId: string, since: ViewPositions | null, atLeast: number): RunViewEvent | undefined | Promise<RunViewEvent | undefined> => {
    const key = positionsKey(runId, since);
    const cached = this.viewReads.get(runId, key, atLeast);
    if (cached !== undefined) return cached;
    const peers = this.viewPeers;
    if (since === null || peers === undefined || !peers.readsElsewhere(runId)) return this.readView(runId, since, key);
    const answer: Promise<RunViewEvent | undefined> = peers.request(runId, since, atLeast).then((answered) => {
      if (this.closed) return undefined;
      if (answered === 'unanswered') {
        this.viewReads.forget(runId, key, answer);
        return this.readView(runId, since, key);
      }
      if (answered.event !== undefined) this.viewReads.set(runId, key, revisionAfter(answered.event), answered.event);
      return answered.event;
    });
    this.viewReads.set(runId, key, atLeast, answer);
    return answer;
  };

  /**
   * A peer's request for a view follower's next event (src/server/cluster/): the shared read
   * of {@link readViewChanges}, read here.
   *
   * @returns the event; `reset` when a whole view is due (the peer reads that itself); undefined for an unknown run
   */
  readViewForPeer(runId: string, since: ViewPositions, atLeast: number): RunViewEvent | 'reset' | undefined {
    const key = positionsKey(runId, since);
    const cached = this.viewReads.get(runId, key, atLeast);
    const event = cached === undefined || cached instanceof Promise ? this.readView(runId, since, key) : cached;
    return event?.kind === 'reset' ? 'reset' : event;
  }

  /** Reads a follower's next event in this process and keeps it for the others at `key`. */
  private readView(runId: string, since: ViewPositions | null, key: string): RunViewEvent | undefined {
    const event = readViewEvent(this.store, runId, since);
    this.viewReadCount += 1;
    if (event !== undefined) this.viewReads.set(runId, key, revisionAfter(event), event);
    return event;
  }

  /**
   * Reads the delta log after a cursor like `WorkflowStore.readViewerDeltas`, sharing the
   * read between subscribers at the same cursor (see {@link DeltaReadCache}).
   *
   * @param knownHead a committed revision the caller was woken with, if any
   */
  readDeltas(runId: string, afterRevision: number, limit: number, knownHead?: number): ViewerDeltaRead | undefined {
    return this.cache.read(runId, afterRevision, limit, knownHead);
  }

  /**
   * Reads the run change log after a position like `WorkflowStore.readRunChanges`, sharing the
   * read and its event objects between followers at the same position during one wake-up (see
   * {@link RunChangeReadCache}).
   *
   * @param afterSeq a position of the log (≥ 0)
   * @param limit at most this many runs
   * @param at the lease clock the records are read at (default {@link leaseNow})
   */
  readRunChanges(afterSeq: number, limit: number, at = this.leaseClock): RunChangePage {
    return this.runChangeCache.read(afterSeq, limit, at);
  }

  /**
   * The lease expiries of a window (`WorkflowStore.readLeaseExpiries`), the read and its event
   * objects shared between followers during one wake-up (see {@link RunChangeReadCache}).
   *
   * @param databaseId the database identity the events' cursors carry
   */
  readLeaseExpiries(request: LeaseExpiryRequest, databaseId: string): LeaseExpiryPage {
    return this.runChangeCache.readLeaseExpiries(request, databaseId);
  }

  /**
   * The lease clock, epoch ms: the store's clock at the latest wake-up (never going back). A
   * lease with `expires_at` at or before it is expired for every follow stream; the one expiry
   * timer wakes the feed when the next owned lease expires (docs/PROTOCOL.md "Lease expiry").
   */
  get leaseNow(): number {
    return this.leaseClock;
  }

  /**
   * Resolves true once a wake-up has moved the lease clock to `at` or later (at once when it
   * already is), false when `signal` aborts or the feed closes. The expiry timer is armed for
   * the earliest such wait.
   *
   * @param at epoch ms
   */
  waitForLeaseTime(at: number, signal?: AbortSignal): Promise<boolean> {
    if (this.closed || signal?.aborted === true) return Promise.resolve(false);
    if (this.leaseClock >= at) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter: LeaseWaiter = {
        at,
        done: (reached) => {
          this.leaseWaiters.delete(waiter);
          if (signal !== undefined) this.unhookAbort(signal, waiter);
          resolve(reached);
        },
        aborted: () => {
          waiter.done(false);
          this.armExpiryTimer();
        },
      };
      if (signal !== undefined) this.hookAbort(signal, waiter);
      this.leaseWaiters.add(waiter);
      this.armExpiryTimer();
    });
  }

  /**
   * The store's clock may have moved by more than the expiry timer knows (a test's hand-moved
   * clock, a step of the system clock): re-arms the timer from the clock now, so a lease that
   * expired by it is delivered at once (within a turn of the event loop), not when the timer
   * armed earlier would have fired.
   */
  checkLeaseExpiries(): void {
    if (this.expiryTimer !== undefined) clearTimeout(this.expiryTimer);
    this.expiryTimer = undefined;
    this.expiryTimerAt = undefined;
    this.armExpiryTimer();
  }

  /**
   * Arms the feed's one expiry timer for the earliest lease time someone waits for: the next
   * expiry of an owned run lease after the lease clock while a stream waits for any change (the
   * run-list feed delivers expiries), and every {@link waitForLeaseTime}. Due already: a wake-up
   * is scheduled at once. Its delay is measured on the store's clock, so an injected clock works;
   * a timer that fires early re-arms for the rest. No waiter: no timer.
   */
  private armExpiryTimer(): void {
    if (this.closed) return;
    let target: number | undefined;
    if (this.changeWaiters.length > 0) {
      if (this.nextExpiryTick !== this.ticks) {
        this.nextExpiry = this.store.nextLeaseExpiry(this.leaseClock);
        this.nextExpiryTick = this.ticks;
      }
      target = this.nextExpiry;
    }
    for (const waiter of this.leaseWaiters) if (target === undefined || waiter.at < target) target = waiter.at;
    if (target === this.expiryTimerAt && (target === undefined || this.expiryTimer !== undefined)) return;
    if (this.expiryTimer !== undefined) clearTimeout(this.expiryTimer);
    this.expiryTimer = undefined;
    this.expiryTimerAt = target;
    if (target === undefined) return;
    const delay = target - this.store.now();
    if (delay <= 0) {
      this.expiryTimerAt = undefined;
      this.scheduleTick();
      return;
    }
    this.expiryTimer = setTimeout(
      () => {
        this.expiryTimer = undefined;
        this.expiryTimerAt = undefined;
        if (this.store.now() >= target) this.scheduleTick();
        else this.armExpiryTimer();
      },
      Math.min(delay, 2 ** 31 - 1),
    );
    this.expiryTimer.unref();
  }

  /**
   * Resolves with the run's current revision once it is greater than `after` (at once when it
   * already is), or with undefined when `signal` aborts or the feed closes. The check and the
   * registration happen in one synchronous step, so no commit can slip between them.
   *
   * @param after a presentation revision the caller has already seen
   * @param handOver called synchronously by a wake-up in which the run's revision passed
   *   `after`, instead of resolving (the direct route: a fan-out delivers a revision to every
   *   follower in one synchronous loop, no promise per follower): the caller may deliver the
   *   revisions up to `head` at once and return its new cursor, to go on waiting after it; or
   *   return undefined (or throw) to have the promise resolve with `head` as without it. A cursor
   *   below `head`, or one returned after a later wake-up already ran, resolves too, so no
   *   commit is missed.
   */
  waitForRevision(runId: string, after: number, signal?: AbortSignal, handOver?: (head: number) => number | undefined): Promise<number | undefined> {
    if (this.closed || signal?.aborted === true) return Promise.resolve(undefined);
    // A head read since the last commit was noticed is as good as a fresh read: any commit
    // after that read schedules a wake-up (commit hook, or the data_version watcher, which
    // compares with the last version it saw when it starts) that resolves this waiter if it
    // needs to be.
    let head = this.knownHeads.get(runId);
    if (head === undefined) {
      head = this.store.viewerHead(runId)?.currentRevision;
      if (head !== undefined) this.knownHeads.set(runId, head);
    }
    if (head !== undefined && head > after) return Promise.resolve(head);
    return new Promise((resolve) => {
      let waiters = this.revisionWaiters.get(runId);
      if (waiters === undefined) {
        waiters = new Set();
        this.revisionWaiters.set(runId, waiters);
      }
      const waiter: RevisionWaiter = {
        runId,
        after,
        handOver,
        settled: false,
        queued: false,
        resolve: (value) => {
          waiter.settled = true;
          if (signal !== undefined) this.unhookAbort(signal, waiter);
          resolve(value);
        },
        aborted: () => {
          this.removeWaiter(runId, waiter);
          waiter.resolve(undefined);
          this.stopWatchingWhenIdle();
          this.waitersChanged();
        },
      };
      if (signal !== undefined) this.hookAbort(signal, waiter);
      waiters.add(waiter);
      this.startWatching();
      this.waitersChanged();
    });
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
    if (this.closed || signal?.aborted === true) return Promise.resolve(false);
    if (this.ticks > sinceTick) return Promise.resolve(true);
    return new Promise((resolve) => {
      const hook: AbortHook = {
        aborted: () => {
          this.changeWaiters = this.changeWaiters.filter((waiter) => waiter !== done);
          done();
          this.stopWatchingWhenIdle();
          this.waitersChanged();
        },
      };
      const done = (): void => {
        if (signal !== undefined) this.unhookAbort(signal, hook);
        resolve(!this.closed && signal?.aborted !== true);
      };
      if (signal !== undefined) this.hookAbort(signal, hook);
      this.changeWaiters.push(done);
      this.startWatching();
      this.armExpiryTimer();
      this.waitersChanged();
    });
  }

  /**
   * Runs `hook.aborted()` when `signal` aborts, through one listener per signal for all its
   * waits (a follow stream waits on the feed once per revision with the same signal; an
   * `AbortSignal` listener added and removed per wait showed in the fan-out profile).
   * The hook stays until {@link unhookAbort}.
   */
  private hookAbort(signal: AbortSignal, hook: AbortHook): void {
    let hooks = this.abortHooks.get(signal);
    if (hooks === undefined) {
      const created = new Set<AbortHook>();
      hooks = created;
      this.abortHooks.set(signal, created);
      signal.addEventListener(
        'abort',
        () => {
          for (const each of created) each.aborted();
          created.clear();
        },
        { once: true },
      );
    }
    hooks.add(hook);
  }

  private unhookAbort(signal: AbortSignal, hook: AbortHook): void {
    this.abortHooks.get(signal)?.delete(hook);
  }

  /** Number of pending waiters (for tests and memory checks). */
  get waiterCount(): number {
    let count = this.changeWaiters.length;
    for (const waiters of this.revisionWaiters.values()) count += waiters.size;
    return count;
  }

  /** Stops watching and releases every waiter. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribeCommit();
    this.unsubscribeReopen();
    this.stopWatching();
    for (const waiters of this.revisionWaiters.values()) for (const waiter of waiters) waiter.resolve(undefined);
    this.revisionWaiters.clear();
    const changeWaiters = this.changeWaiters;
    this.changeWaiters = [];
    for (const done of changeWaiters) done();
    for (const waiter of [...this.leaseWaiters]) waiter.done(false);
    if (this.expiryTimer !== undefined) clearTimeout(this.expiryTimer);
    this.expiryTimer = undefined;
    this.waitersChanged();
  }

  private removeWaiter(runId: string, waiter: RevisionWaiter): void {
    const waiters = this.revisionWaiters.get(runId);
    if (waiters === undefined) return;
    waiters.delete(waiter);
    if (waiters.size === 0) this.revisionWaiters.delete(runId);
  }

  private scheduleTick(): void {
    this.knownHeads.clear();
    if (this.tickScheduled || this.closed) return;
    this.tickScheduled = true;
    this.pendingNoticedAt = performance.now();
    setImmediate(() => {
      this.tickScheduled = false;
      this.tick();
    });
  }

  private tick(): void {
    if (this.closed) return;
    this.noticedAt = this.pendingNoticedAt;
    this.ticks += 1;
    this.leaseClock = Math.max(this.leaseClock, this.store.now());
    if (this.revisionWaiters.size > 0) {
      const heads = this.store.viewerHeads([...this.revisionWaiters.keys()]);
      const due: RevisionWaiter[] = [];
      const dueHeads: number[] = [];
      for (const [runId, waiters] of this.revisionWaiters) {
        const head = heads.get(runId);
        if (head === undefined) continue;
        this.knownHeads.set(runId, head);
        // Due waiters stay registered until their turn of the wake-up (most go on waiting:
        // see `handOverTo`); one aborted meanwhile leaves the set and is skipped.
        for (const waiter of waiters) {
          if (!waiter.queued && head > waiter.after) {
            waiter.queued = true;
            due.push(waiter);
            dueHeads.push(head);
          }
        }
      }
      this.wake(due, dueHeads, 0, this.ticks);
    }
    const changeWaiters = this.changeWaiters;
    this.changeWaiters = [];
    for (const done of changeWaiters) done();
    for (const waiter of [...this.leaseWaiters]) if (waiter.at <= this.leaseClock) waiter.done(true);
    this.stopWatchingWhenIdle();
    this.waitersChanged();
    // Waiters resolved above wait again in later microtasks (and arm the timer then); this
    // covers a wake-up that left them all waiting, and lease waits only.
    this.expiryTimerAt = undefined;
    if (this.expiryTimer !== undefined) clearTimeout(this.expiryTimer);
    this.expiryTimer = undefined;
    this.armExpiryTimer();
  }

  /**
   * Resolves `due[from…]` with their heads, {@link WAKE_CHUNK} at a time, each chunk in its own
   * turn of the event loop (`setImmediate`): a revision fanned out to 50,000 subscribers does
   * not hold the loop for the whole fan-out (each resolved waiter reads, executes and sends in
   * the microtasks after it), so sockets, keep-alives and queries get turns in between.
   * The waiters stay registered until their turn (no set churn per subscriber and
   * revision): one that aborts meanwhile leaves and resolves with undefined at once, and is
   * skipped here. A waiter with a `handOver` gets its revisions synchronously here and goes on
   * waiting ({@link handOverTo}); any other leaves the set and resolves with its head.
   *
   * @param tick the wake-up (`ticks`) whose heads `heads` are
   */
  private wake(due: RevisionWaiter[], heads: number[], from: number, tick: number): void {
    const end = Math.min(due.length, from + WAKE_CHUNK);
    let resolved = false;
    for (let index = from; index < end; index += 1) {
      const waiter = due[index] as RevisionWaiter;
      waiter.queued = false;
      if (waiter.settled) continue;
      const head = heads[index] as number;
      if (!this.closed && waiter.handOver !== undefined && this.handOverTo(waiter, head, tick)) continue;
      this.removeWaiter(waiter.runId, waiter);
      waiter.resolve(this.closed ? undefined : head);
      resolved = true;
    }
    if (resolved) {
      this.stopWatchingWhenIdle();
      this.waitersChanged();
    }
    if (end < due.length) setImmediate(() => this.wake(due, heads, end, tick));
  }

  /**
   * Hands the revisions up to `head` over to `waiter` (its `handOver`); it goes on waiting
   * (still registered) after the cursor `handOver` returns. False (the caller resolves the wait)
   * when `handOver` declines or throws, when the cursor is below `head`, or when a later wake-up
   * already ran: that one skipped this waiter, which then reads on by itself (its next wait
   * checks the head).
   */
  private handOverTo(waiter: RevisionWaiter, head: number, tick: number): boolean {
    let after: number | undefined;
    try {
      after = waiter.handOver?.(head);
    } catch {
      return false;
    }
    if (after === undefined || after < head || this.ticks !== tick || waiter.settled) return false;
    waiter.after = after;
    return true;
  }

  /**
   * Stops polling once nobody waits: after a wake-up, and when the last waiter aborts (a
   * subscriber that leaves), so an idle server does not keep polling until the next commit.
   */
  private stopWatchingWhenIdle(): void {
    if (this.waiterCount === 0) this.stopWatching();
  }

  private startWatching(): void {
    if (this.watching || this.closed) return;
    // Undefined for `:memory:` or a file that cannot be opened: in-process notifications still work.
    this.watcher ??= openDataVersionProbe(this.store.path);
    if (this.watcher === undefined) return;
    this.watching = true;
    // The waiter read the state before it got here. A commit of another connection made since
    // the last version this feed saw (maybe after that read) would vanish into a fresh baseline:
    // compare with the last version seen instead, and wake everyone once when it moved.
    this.poll();
    this.fileMode = this.watchWalFile();
    if (this.fileMode) {
      // Notified by the file system: only a slow safety poll (a lost event, a replaced file).
      this.timer = setInterval(() => this.poll(), Math.max(SAFETY_POLL_MS, this.pollIntervalMs));
    } else {
      this.timer = setInterval(() => this.poll(), this.pollIntervalMs);
    }
    this.timer.unref();
  }

  /**
   * Watches the `-wal` file (inotify on Linux): another process's commit appends frames to it,
   * so its change event is the cheap signal; nothing wakes this process
   * while nobody writes. The handle stays open for the life of the feed (no wake-up work when
   * nobody waits). SQLite makes a commit visible (wal-index header) only after its last frame
   * is written and synced, so an event starts a burst of `data_version` checks, 1 ms apart at
   * first and at most the poll interval apart, until {@link BURST_POLLS} × the poll interval
   * passed without another event.
   *
   * @returns false when the file cannot be watched (no `-wal` file, unsupported file system):
   *   the caller polls at the poll interval instead
   */
  private watchWalFile(): boolean {
    if (this.walWatcher !== undefined) return true;
    try {
      const watcher = watch(`${this.store.path}-wal`, { persistent: false }, (eventType) => {
        if (eventType === 'rename') this.unwatchWalFile(); // replaced or removed: the safety poll re-arms
        this.walChanged();
      });
      watcher.on('error', () => this.unwatchWalFile());
      this.walWatcher = watcher;
      return true;
    } catch {
      return false;
    }
  }

  private unwatchWalFile(): void {
    this.walWatcher?.close();
    this.walWatcher = undefined;
  }

  /** A write to the `-wal` file: check now, then keep checking for a while (see {@link watchWalFile}). */
  private walChanged(): void {
    this.lastWalEventAt = performance.now();
    if (!this.watching) return;
    this.poll();
    if (this.burstTimer === undefined) this.scheduleBurstPoll();
  }

  private scheduleBurstPoll(): void {
    const sinceEvent = performance.now() - this.lastWalEventAt;
    if (!this.watching || sinceEvent > BURST_POLLS * this.pollIntervalMs) {
      this.burstTimer = undefined;
      return;
    }
    const delay = Math.min(this.pollIntervalMs, Math.max(1, sinceEvent / 2));
    this.burstTimer = setTimeout(() => {
      this.burstTimer = undefined;
      this.poll();
      this.scheduleBurstPoll();
    }, delay);
    this.burstTimer.unref();
  }

  private stopWatching(): void {
    this.watching = false;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    if (this.burstTimer !== undefined) clearTimeout(this.burstTimer);
    this.burstTimer = undefined;
    if (this.closed) {
      this.unwatchWalFile();
      this.watcher?.close();
      this.watcher = undefined;
    }
  }

  /**
   * After this process's own commit (the commit hook, which wakes everyone anyway): make the
   * watcher's `data_version` as the new baseline, so neither the file event of that very commit
   * nor the check when watching starts again wakes everyone a second time. Also while nobody
   * waits (the watcher connection stays open): a stale baseline made the next waiter's first
   * check (see {@link startWatching}) count this commit again, a wake-up with no new commit that
   * dropped the run change pages shared in the commit's own wake-up, so a follower reading late
   * got a fresh event object and the server executed its GraphQL result twice. A
   * foreign commit folded into this baseline is not lost: the wake-up scheduled by the same
   * commit reads the state after it.
   */
  private ownCommit(): void {
    if (this.watcher !== undefined) {
      const version = this.readDataVersion();
      if (version !== undefined) this.dataVersion = version;
    }
    this.scheduleTick();
  }

  private readDataVersion(): number | undefined {
    return this.watcher?.read();
  }

  private poll(): void {
    if (this.fileMode && this.walWatcher === undefined && this.watching && !this.watchWalFile()) {
      // The watch was lost (file replaced or removed) and cannot be re-armed: poll as before.
      this.fileMode = false;
      if (this.timer !== undefined) clearInterval(this.timer);
      this.timer = setInterval(() => this.poll(), this.pollIntervalMs);
      this.timer.unref();
    }
    const version = this.readDataVersion();
    if (version !== undefined && version !== this.dataVersion) {
      this.dataVersion = version;
      this.scheduleTick();
    }
  }
}
