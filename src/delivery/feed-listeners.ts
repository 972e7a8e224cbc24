/**
 * The change feed's listeners: the delivery lag of every event a follow stream delivers after a
 * wake-up (a `/metrics` histogram), and the waiter count (a test hook).
 */
import { observe, type PullObserver } from './pull-stream.js';

/** What the listeners read of the feed's wake-ups (wake-ups.ts). */
export interface ListenedWakeUps {
  /** Number of wake-ups processed. */
  readonly ticks: number;
  /** `performance.now()` when the commits of the latest processed wake-up were first noticed (ms). */
  readonly noticedAt: number;
  /** Number of pending waiters. */
  readonly waiterCount: number;
}

/** The delivery-lag and waiter-count listeners of one feed. */
export class FeedListeners {
  private readonly wakeUps: ListenedWakeUps;
  private readonly deliveryListeners = new Set<(lagMs: number) => void>();
  private readonly waiterListeners = new Set<(waiterCount: number) => void>();

  constructor(wakeUps: ListenedWakeUps) {
    this.wakeUps = wakeUps;
  }

  /**
   * Calls `listener` with the lag, ms, of every event a {@link measured} stream delivers after a
   * wake-up: from the moment the feed noticed the commit to the moment the subscriber took the
   * event. Replayed events, read without waiting, are not reported.
   *
   * @returns a function that removes the listener
   */
  onDelivery(listener: (lagMs: number) => void): () => void {
    this.deliveryListeners.add(listener);
    return () => this.deliveryListeners.delete(listener);
  }

  /**
   * Calls `listener` with the waiter count each time a waiter registers or leaves (see
   * {@link waitersChanged}).
   *
   * @returns a function that removes the listener
   */
  onWaiterCount(listener: (waiterCount: number) => void): () => void {
    this.waiterListeners.add(listener);
    return () => this.waiterListeners.delete(listener);
  }

  /** Tells {@link onWaiterCount}'s listeners the new count (nothing to read when there are none). */
  waitersChanged(): void {
    if (this.waiterListeners.size === 0) return;
    const count = this.wakeUps.waiterCount;
    for (const listener of this.waiterListeners) listener(count);
  }

  /**
   * `source`, reporting the lag of each event delivered after a wake-up to {@link onDelivery}'s
   * listeners through an observer attached to the stream itself (no wrapper). Every follow
   * stream is a `pullStream` (feed-follow.ts `stream`).
   */
  measured<T>(source: AsyncIterableIterator<T>): AsyncIterableIterator<T> {
    observe(source, this.deliveryObserver);
    return source;
  }

  /** `mark`: the wake-ups processed when the consumer asked; `delivered`: reports the lag when one happened since. */
  private readonly deliveryObserver: PullObserver = {
    mark: () => this.wakeUps.ticks,
    delivered: (ticksBefore) => {
      if (this.wakeUps.ticks > ticksBefore && this.deliveryListeners.size > 0) {
        const lagMs = performance.now() - this.wakeUps.noticedAt;
        for (const listener of this.deliveryListeners) listener(lagMs);
      }
    },
  };
}
