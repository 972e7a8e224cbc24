/**
 * Awaiting server-side states through the server's own signals, never by polling:
 *
 * - {@link feedWaiters}: the change feed's waiter count (`ChangeFeed.onWaiterCount`). A
 *   subscription the server registered waits on the feed, so "n subscriptions wait" is how a
 *   test knows the server took them (live-only ones take their cursor then); 0 is "they left".
 * - {@link sharedSubscribers}: the subscriptions registered with the shared event execution
 *   (`SharedEventExecutionStats.onSubscribers`); 0 is "every stream ended on the server".
 * - {@link Signal}: a test-local notifier for state the test itself updates (counters kept by a
 *   client's `next` handler, heads of runs a loop commits to).
 *
 * Each wait checks the state at once, then again at every signal; a guard timeout (never a
 * sleep) fails it with the last value seen instead of hanging.
 */
import type { RunningServer } from '../../src/server/app.js';

/** Guard of every wait here: the same as the live tests' (`WAIT_MS` of live-fixtures.ts). */
export const SIGNAL_WAIT_MS = 20_000;

/** A count to reach: an exact number, or a predicate on the count. */
export type CountTarget = number | ((count: number) => boolean);

function matches(target: CountTarget, count: number): boolean {
  return typeof target === 'number' ? count === target : target(count);
}

/**
 * Resolves once `read()` satisfies `target`, re-checking at every call of the listener that
 * `subscribe` registers.
 *
 * @param subscribe registers a listener of the count; returns a function that removes it
 * @param read the current count
 * @param what names the state in the timeout's message
 * @param timeoutMs guard (ms) after which the promise rejects with the last count
 */
export function whenCount(
  subscribe: (listener: (count: number) => void) => () => void,
  read: () => number,
  target: CountTarget,
  what: string,
  timeoutMs = SIGNAL_WAIT_MS,
): Promise<void> {
  if (matches(target, read())) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`timed out after ${timeoutMs} ms waiting until ${what} (last count ${read()})`));
    }, timeoutMs);
    const unsubscribe = subscribe((count) => {
      if (!matches(target, count)) return;
      clearTimeout(timer);
      unsubscribe();
      resolve();
    });
  });
}

/**
 * Resolves once the server's change feed has `target` waiters (`ChangeFeed.waiterCount`).
 *
 * @param what names the state in the timeout's message
 */
export function feedWaiters(server: Pick<RunningServer, 'feed'>, target: CountTarget, what: string, timeoutMs?: number): Promise<void> {
  const { feed } = server;
  return whenCount(
    (listener) => feed.onWaiterCount(listener),
    () => feed.waiterCount,
    target,
    `${what} (feed waiters)`,
    timeoutMs,
  );
}

/**
 * Resolves once the server's shared event execution has `target` registered subscriptions
 * (`SharedEventExecutionStats.subscribers`).
 */
export function sharedSubscribers(server: Pick<RunningServer, 'sharedExecution'>, target: CountTarget, what: string, timeoutMs?: number): Promise<void> {
  const stats = server.sharedExecution;
  return whenCount(
    (listener) => stats.onSubscribers(listener),
    () => stats.subscribers,
    target,
    `${what} (subscribers)`,
    timeoutMs,
  );
}

/**
 * Resolves once both counts hold together: `subscribers` registered subscriptions and `waiters`
 * feed waiters (e.g. "c and d wait on the feed": both registered and both waiting).
 */
export async function streamsWaiting(
  server: Pick<RunningServer, 'feed' | 'sharedExecution'>,
  counts: { subscribers: number; waiters: number },
  what: string,
  timeoutMs = SIGNAL_WAIT_MS,
): Promise<void> {
  const holds = (): boolean => server.sharedExecution.subscribers === counts.subscribers && server.feed.waiterCount === counts.waiters;
  const signal = new Signal();
  const offFeed = server.feed.onWaiterCount(() => signal.notify());
  const offStats = server.sharedExecution.onSubscribers(() => signal.notify());
  try {
    await signal.until(holds, what, timeoutMs);
  } finally {
    offFeed();
    offStats();
  }
}

/**
 * A notifier for state the test updates itself: the code that changes the state calls
 * {@link notify}; a test awaits a condition on it with {@link until}.
 */
export class Signal {
  private listeners = new Set<() => void>();

  /** Re-checks every pending {@link until}. */
  notify(): void {
    for (const listener of [...this.listeners]) listener();
  }

  /**
   * Resolves once `condition()` holds: checked at once, then at every {@link notify}.
   *
   * @param what names the state in the timeout's message
   */
  until(condition: () => boolean, what: string, timeoutMs = SIGNAL_WAIT_MS): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const listener = (): void => {
        if (!condition()) return;
        clearTimeout(timer);
        this.listeners.delete(listener);
        resolve();
      };
      const timer = setTimeout(() => {
        this.listeners.delete(listener);
        reject(new Error(`timed out after ${timeoutMs} ms waiting until ${what}`));
      }, timeoutMs);
      this.listeners.add(listener);
    });
  }
}

/**
 * Resolves once the server has `target` running `@live` queries (`LiveQueryStats.active`); 0 is
 * "every live query stopped and released what it tracked".
 */
export function liveQueriesActive(server: Pick<RunningServer, 'liveQueries'>, target: CountTarget, what: string, timeoutMs?: number): Promise<void> {
  const { liveQueries } = server;
  return whenCount(
    (listener) => liveQueries.onActive(listener),
    () => liveQueries.active,
    target,
    `${what} (live queries)`,
    timeoutMs,
  );
}
