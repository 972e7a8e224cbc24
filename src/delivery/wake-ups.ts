/**
 * The change feed's wake-ups (the wake-up step of src/delivery/index.ts): when the durable log
 * may have changed, one wake-up per turn of the event loop moves the lease clock and wakes the
 * waiters. Two sources: this process's own commits (the store's commit hook) and other
 * connections' commits (commit-watcher.ts, while someone waits); besides, the lease clock's
 * expiry timer (lease-clock.ts). Waiters learn only *that* something moved, never what: they
 * read the log after their own cursor.
 *
 * A wake-up, in order: the lease clock moves; the revision waiters whose run passed their cursor
 * are woken (revision-waiters.ts); every change waiter is resolved; the lease waits the clock
 * reached are resolved; watching stops when nobody waits; the expiry timer is re-armed.
 */
import { AbortHooks, type AbortHook } from './abort-hooks.js';
import { CommitWatcher } from './commit-watcher.js';
import { LeaseClock, type LeaseClockWakeUps } from './lease-clock.js';
import { RevisionWaiters, type RevisionWakeUps } from './revision-waiters.js';
import type { WorkflowStore } from '../store/index.js';

/** The wake-ups of one change feed, and the waiters they wake. */
export class WakeUps implements RevisionWakeUps, LeaseClockWakeUps {
  /** Runs waiting for a revision (`ChangeFeed.waitForRevision`). */
  readonly revisions: RevisionWaiters;
  /** The lease clock and its waits (`ChangeFeed.leaseNow`, `ChangeFeed.waitForLeaseTime`). */
  readonly leaseClock: LeaseClock;
  private readonly watcher: CommitWatcher;
  private readonly hooks = new AbortHooks();
  /** Told each time a waiter registers or leaves (the feed's waiter-count listeners). */
  private readonly waitersChanged: () => void;
  private readonly unsubscribeCommit: () => void;
  /** Waits for the next wake-up (`ChangeFeed.waitForChange`). */
  private changeWaiters: Array<() => void> = [];
  private tickCount = 0;
  private tickScheduled = false;
  private isClosed = false;
  /** `performance.now()` when the commits of the scheduled wake-up were first noticed. */
  private pendingNoticedAt = 0;
  /** `performance.now()` when the commits of the latest processed wake-up were first noticed. */
  private latestNoticedAt = 0;

  /**
   * @param store the store whose commits wake the feed (its file must be shared for the
   *   cross-process watcher; `:memory:` gets in-process notifications only)
   * @param pollIntervalMs ms between `data_version` checks at most (commit-watcher.ts)
   * @param waitersChanged called each time a waiter registers or leaves (woken, aborted, released by `close`)
   */
  constructor(store: WorkflowStore, pollIntervalMs: number, waitersChanged: () => void) {
    this.waitersChanged = waitersChanged;
    this.watcher = new CommitWatcher(store, pollIntervalMs, () => this.wakeUp());
    this.revisions = new RevisionWaiters(store, this.hooks, this);
    this.leaseClock = new LeaseClock(store, this.hooks, this);
    this.unsubscribeCommit = store.onCommit(() => this.ownCommit());
  }

  /** Number of wake-ups processed. */
  get ticks(): number {
    return this.tickCount;
  }

  /** True once {@link close}d. */
  get closed(): boolean {
    return this.isClosed;
  }

  /** `performance.now()` when the commits of the latest processed wake-up were first noticed (ms). */
  get noticedAt(): number {
    return this.latestNoticedAt;
  }

  /** True while a stream waits for the next wake-up ({@link waitForChange}). */
  get changeWaiting(): boolean {
    return this.changeWaiters.length > 0;
  }

  /** Number of pending waiters: change waits and revision waits (lease waits are not counted). */
  get waiterCount(): number {
    return this.changeWaiters.length + this.revisions.count;
  }

  /**
   * Resolves once a wake-up (any commit seen by either source) has been processed after
   * `sinceTick` — at once when one already was — or when `signal` aborts or the feed closes.
   *
   * @param sinceTick a value of {@link ticks} taken before the caller read the state
   * @returns true after a wake-up; false when `signal` aborted or the feed is closed
   */
  waitForChange(sinceTick: number, signal?: AbortSignal): Promise<boolean> {
    if (this.isClosed || signal?.aborted === true) return Promise.resolve(false);
    if (this.tickCount > sinceTick) return Promise.resolve(true);
    return new Promise((resolve) => {
      const hook: AbortHook = {
        aborted: () => {
          this.changeWaiters = this.changeWaiters.filter((waiter) => waiter !== done);
          done();
          this.left();
        },
      };
      const done = (): void => {
        if (signal !== undefined) this.hooks.remove(signal, hook);
        resolve(!this.isClosed && signal?.aborted !== true);
      };
      if (signal !== undefined) this.hooks.add(signal, hook);
      this.changeWaiters.push(done);
      this.watcher.start();
      this.leaseClock.arm();
      this.waitersChanged();
    });
  }

  /** A revision waiter registered: other connections' commits are looked for while it waits. */
  registered(): void {
    this.watcher.start();
    this.waitersChanged();
  }

  /**
   * Waiters left: stops watching once nobody waits (after a wake-up, and when the last waiter
   * aborts: a subscriber that leaves), so an idle server does not keep polling until the next commit.
   */
  left(): void {
    this.stopWatchingWhenIdle();
    this.waitersChanged();
  }

  /**
   * Schedules a wake-up in the next turn of the event loop (one for every commit noticed before
   * it runs). The run heads read so far are stale from now on.
   */
  wakeUp(): void {
    this.revisions.forgetHeads();
    if (this.tickScheduled || this.isClosed) return;
    this.tickScheduled = true;
    this.pendingNoticedAt = performance.now();
    setImmediate(() => {
      this.tickScheduled = false;
      this.tick();
    });
  }

  /** The store reopened a replaced replica file: the watcher follows it, and every waiter is woken once. */
  fileReopened(): void {
    this.watcher.reopen();
    this.wakeUp();
  }

  /** Stops watching and releases every waiter. Idempotent. */
  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.unsubscribeCommit();
    this.watcher.close();
    this.revisions.close();
    const changeWaiters = this.changeWaiters;
    this.changeWaiters = [];
    for (const done of changeWaiters) done();
    this.leaseClock.close();
    this.waitersChanged();
  }

  private tick(): void {
    if (this.isClosed) return;
    this.latestNoticedAt = this.pendingNoticedAt;
    this.tickCount += 1;
    this.leaseClock.advance();
    this.revisions.wakeDue(this.tickCount);
    const changeWaiters = this.changeWaiters;
    this.changeWaiters = [];
    for (const done of changeWaiters) done();
    this.leaseClock.wakeDue();
    this.stopWatchingWhenIdle();
    this.waitersChanged();
    // Waiters resolved above wait again in later microtasks (and arm the timer then); this
    // covers a wake-up that left them all waiting, and lease waits only.
    this.leaseClock.rearm();
  }

  /** This process's own commit (the commit hook): the watcher's new baseline, and a wake-up. */
  private ownCommit(): void {
    this.watcher.ownCommit();
    this.wakeUp();
  }

  private stopWatchingWhenIdle(): void {
    if (this.waiterCount === 0) this.watcher.stop();
  }
}
