/**
 * The change feed's revision waiters: follow streams waiting for a run's presentation revision
 * to pass their cursor, and how a wake-up wakes them — resolved with the run's head, or, on the
 * direct route, handed the new revisions synchronously while they go on waiting (the wake-up
 * and hand-over steps of src/delivery/index.ts).
 */
import type { AbortHook, AbortHooks } from './abort-hooks.js';
import type { WorkflowStore } from '../store/index.js';

/**
 * Revision waiters resolved per turn of the event loop by one wake-up (see
 * {@link RevisionWaiters.wakeDue}); the rest in later turns.
 */
export const WAKE_CHUNK = 1_000;

interface RevisionWaiter extends AbortHook {
  runId: string;
  after: number;
  /** See {@link RevisionWaiters.wait}'s `handOver`. */
  handOver: ((head: number) => number | undefined) | undefined;
  /** The wait's promise was resolved (a later wake-up or abort is a no-op). */
  settled: boolean;
  /** In a wake-up's list, not handled yet (it stays registered meanwhile; later wake-ups skip it). */
  queued: boolean;
  resolve: (head: number | undefined) => void;
}

/** What the revision waiters read of the feed's wake-ups (wake-ups.ts), and tell them. */
export interface RevisionWakeUps {
  /** Number of wake-ups processed. */
  readonly ticks: number;
  /** True once the feed closed. */
  readonly closed: boolean;
  /** A waiter registered: watch for other processes' commits; the waiter count changed. */
  registered(): void;
  /** Waiters left (resolved or aborted): stop watching when nobody waits; the waiter count changed. */
  left(): void;
}

/** The revision waiters of one feed, by run. */
export class RevisionWaiters {
  private readonly store: Pick<WorkflowStore, 'viewerHead' | 'viewerHeads'>;
  private readonly hooks: AbortHooks;
  private readonly wakeUps: RevisionWakeUps;
  private readonly waiters = new Map<string, Set<RevisionWaiter>>();
  /**
   * Run heads read since the last commit was noticed (cleared by {@link forgetHeads}): after a
   * fan-out every subscriber of a run checks its head again before waiting, and this answers
   * them without one SQL read each (≈ 8 µs per subscriber and revision in the profile).
   */
  private readonly knownHeads = new Map<string, number>();

  /**
   * @param store the run heads (`viewerHead`, `viewerHeads`: presentation revisions)
   * @param hooks the feed's abort hooks (one listener per signal for all its waits)
   */
  constructor(store: Pick<WorkflowStore, 'viewerHead' | 'viewerHeads'>, hooks: AbortHooks, wakeUps: RevisionWakeUps) {
    this.store = store;
    this.hooks = hooks;
    this.wakeUps = wakeUps;
  }

  /** Number of pending revision waiters. */
  get count(): number {
    let count = 0;
    for (const waiters of this.waiters.values()) count += waiters.size;
    return count;
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
  wait(runId: string, after: number, signal?: AbortSignal, handOver?: (head: number) => number | undefined): Promise<number | undefined> {
    if (this.wakeUps.closed || signal?.aborted === true) return Promise.resolve(undefined);
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
      let waiters = this.waiters.get(runId);
      if (waiters === undefined) {
        waiters = new Set();
        this.waiters.set(runId, waiters);
      }
      const waiter: RevisionWaiter = {
        runId,
        after,
        handOver,
        settled: false,
        queued: false,
        resolve: (value) => {
          waiter.settled = true;
          if (signal !== undefined) this.hooks.remove(signal, waiter);
          resolve(value);
        },
        aborted: () => {
          this.remove(runId, waiter);
          waiter.resolve(undefined);
          this.wakeUps.left();
        },
      };
      if (signal !== undefined) this.hooks.add(signal, waiter);
      waiters.add(waiter);
      this.wakeUps.registered();
    });
  }

  /** A commit was noticed: the heads read before it are stale. */
  forgetHeads(): void {
    this.knownHeads.clear();
  }

  /**
   * The wake-up `tick` (called inside it): reads the heads of the runs waited on, once, and
   * wakes the waiters whose cursor they passed (see {@link wake}).
   */
  wakeDue(tick: number): void {
    if (this.waiters.size === 0) return;
    const heads = this.store.viewerHeads([...this.waiters.keys()]);
    const due: RevisionWaiter[] = [];
    const dueHeads: number[] = [];
    for (const [runId, waiters] of this.waiters) {
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
    this.wake(due, dueHeads, 0, tick);
  }

  /** The feed closed: every wait resolves with undefined. */
  close(): void {
    for (const waiters of this.waiters.values()) for (const waiter of waiters) waiter.resolve(undefined);
    this.waiters.clear();
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
      if (!this.wakeUps.closed && waiter.handOver !== undefined && this.handOverTo(waiter, head, tick)) continue;
      this.remove(waiter.runId, waiter);
      waiter.resolve(this.wakeUps.closed ? undefined : head);
      resolved = true;
    }
    if (resolved) this.wakeUps.left();
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
    if (after === undefined || after < head || this.wakeUps.ticks !== tick || waiter.settled) return false;
    waiter.after = after;
    return true;
  }

  private remove(runId: string, waiter: RevisionWaiter): void {
    const waiters = this.waiters.get(runId);
    if (waiters === undefined) return;
    waiters.delete(waiter);
    if (waiters.size === 0) this.waiters.delete(runId);
  }
}
