/**
 * The change feed's lease clock and its one expiry timer (docs/PROTOCOL.md "Lease expiry"): the
 * time, epoch ms, at which every read of a wake-up decides whether a run's lease is live, and
 * the timer that wakes the feed when the next lease someone waits for expires.
 */
import type { AbortHook, AbortHooks } from './abort-hooks.js';
import type { WorkflowStore } from '../store/index.js';

/** A wait for the lease clock (see {@link LeaseClock.wait}). */
interface LeaseWaiter extends AbortHook {
  /** Epoch ms. */
  at: number;
  done: (reached: boolean) => void;
}

/** What the lease clock reads of the feed's wake-ups (wake-ups.ts), and asks of them. */
export interface LeaseClockWakeUps {
  /** Number of wake-ups processed. */
  readonly ticks: number;
  /** True once the feed closed. */
  readonly closed: boolean;
  /** True while a stream waits for any change (`waitForChange`): the next owned lease expiry is then due to it. */
  readonly changeWaiting: boolean;
  /** Schedules a wake-up (which moves the clock: {@link LeaseClock.advance}). */
  wakeUp(): void;
}

/**
 * The lease clock: the store's clock as sampled at the latest wake-up, never going back, and
 * the waits for it. Moved only by a wake-up, so every follow stream of one wake-up sees a lease
 * expire at the same time.
 */
export class LeaseClock {
  private readonly store: Pick<WorkflowStore, 'now' | 'nextLeaseExpiry'>;
  private readonly hooks: AbortHooks;
  private readonly wakeUps: LeaseClockWakeUps;
  /** Epoch ms: the store's clock at the latest wake-up (see {@link advance}). */
  private clock: number;
  private readonly waiters = new Set<LeaseWaiter>();
  /** The one expiry timer (see {@link arm}) and the lease clock time it waits for. */
  private timer: NodeJS.Timeout | undefined;
  private timerAt: number | undefined;
  /** `store.nextLeaseExpiry(clock)` as read at wake-up {@link nextExpiryTick}. */
  private nextExpiry: number | undefined;
  private nextExpiryTick = -1;

  /**
   * @param store the clock (`now`, epoch ms; injectable in tests) and the owned leases' next expiry
   * @param hooks the feed's abort hooks (one listener per signal for all its waits)
   */
  constructor(store: Pick<WorkflowStore, 'now' | 'nextLeaseExpiry'>, hooks: AbortHooks, wakeUps: LeaseClockWakeUps) {
    this.store = store;
    this.hooks = hooks;
    this.wakeUps = wakeUps;
    this.clock = store.now();
  }

  /**
   * The lease clock, epoch ms: the store's clock at the latest wake-up (never going back). A
   * lease with `expires_at` at or before it is expired for every follow stream.
   */
  get now(): number {
    return this.clock;
  }

  /** A wake-up starts: the clock moves to the store's clock, never back. */
  advance(): void {
    this.clock = Math.max(this.clock, this.store.now());
  }

  /** Resolves (true) the waits the clock has reached. */
  wakeDue(): void {
    for (const waiter of [...this.waiters]) if (waiter.at <= this.clock) waiter.done(true);
  }

  /**
   * Resolves true once a wake-up has moved the lease clock to `at` or later (at once when it
   * already is), false when `signal` aborts or the feed closes. The expiry timer is armed for
   * the earliest such wait.
   *
   * @param at epoch ms
   */
  wait(at: number, signal?: AbortSignal): Promise<boolean> {
    if (this.wakeUps.closed || signal?.aborted === true) return Promise.resolve(false);
    if (this.clock >= at) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter: LeaseWaiter = {
        at,
        done: (reached) => {
          this.waiters.delete(waiter);
          if (signal !== undefined) this.hooks.remove(signal, waiter);
          resolve(reached);
        },
        aborted: () => {
          waiter.done(false);
          this.arm();
        },
      };
      if (signal !== undefined) this.hooks.add(signal, waiter);
      this.waiters.add(waiter);
      this.arm();
    });
  }

  /**
   * Re-arms the timer from the store's clock now: after a wake-up (the waits left changed), and
   * when the clock may have moved by more than the timer knows (a test's hand-moved clock, a
   * step of the system clock), so a lease that expired by it is delivered at once (within a
   * turn of the event loop), not when the timer armed earlier would have fired.
   */
  rearm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = undefined;
    this.arm();
  }

  /**
   * Arms the one expiry timer for the earliest lease time someone waits for: the next expiry of
   * an owned run lease after the lease clock while a stream waits for any change (the run-list
   * feed delivers expiries), and every {@link wait}. Due already: a wake-up is scheduled at once.
   * Its delay is measured on the store's clock, so an injected clock works; a timer that fires
   * early re-arms for the rest. No waiter: no timer.
   */
  arm(): void {
    if (this.wakeUps.closed) return;
    let target: number | undefined;
    if (this.wakeUps.changeWaiting) {
      if (this.nextExpiryTick !== this.wakeUps.ticks) {
        this.nextExpiry = this.store.nextLeaseExpiry(this.clock);
        this.nextExpiryTick = this.wakeUps.ticks;
      }
      target = this.nextExpiry;
    }
    for (const waiter of this.waiters) if (target === undefined || waiter.at < target) target = waiter.at;
    if (target === this.timerAt && (target === undefined || this.timer !== undefined)) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = target;
    if (target === undefined) return;
    const delay = target - this.store.now();
    if (delay <= 0) {
      this.timerAt = undefined;
      this.wakeUps.wakeUp();
      return;
    }
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.timerAt = undefined;
        if (this.store.now() >= target) this.wakeUps.wakeUp();
        else this.arm();
      },
      Math.min(delay, 2 ** 31 - 1),
    );
    this.timer.unref();
  }

  /** The feed closed: every wait resolves false, the timer stops. */
  close(): void {
    for (const waiter of [...this.waiters]) waiter.done(false);
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
