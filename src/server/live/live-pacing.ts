/**
 * The throttle of one `@live` query (docs/PROTOCOL.md "Live queries"): at most one
 * re-execution per window, the invalidations inside a window folded into one at its end.
 */
import type { ExecutionArgs, ExecutionResult } from 'graphql';

/** What the store's re-execution of a live query calls: {@link paced}. */
export interface Paced {
  execute(args: ExecutionArgs): unknown;
  /** Drops a re-execution still waiting for its window (the live query stopped). */
  stop(): void;
}

/** What a superseded or stopped re-execution answers; the store discards it (a newer one runs). */
const SUPERSEDED: ExecutionResult = {};

/**
 * At most one execution per `windowMs` for one live query: an invalidation inside the window
 * waits for its end, and of the invalidations that waited, only the last one executes (it reads
 * the state after all of them). The store pushes only the result of its latest invalidation,
 * so the waiting ones it superseded answer {@link SUPERSEDED} without executing.
 *
 * @param windowMs ms between the starts of two executions
 */
export function paced(windowMs: number, execute: (args: ExecutionArgs) => unknown): Paced {
  let lastStart: number | undefined;
  let generation = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let waiters: Array<() => void> = [];
  const wakeAll = (): void => {
    timer = undefined;
    const waiting = waiters;
    waiters = [];
    for (const wake of waiting) wake();
  };
  return {
    execute(args) {
      generation += 1;
      const mine = generation;
      const wait = lastStart === undefined ? 0 : lastStart + windowMs - performance.now();
      if (wait <= 0 && timer === undefined) {
        lastStart = performance.now();
        return execute(args);
      }
      timer ??= setTimeout(wakeAll, Math.max(0, wait));
      return new Promise<void>((resolve) => waiters.push(resolve)).then(() => {
        if (stopped || mine !== generation) return SUPERSEDED;
        lastStart = performance.now();
        return execute(args);
      });
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      wakeAll();
    },
  };
}
