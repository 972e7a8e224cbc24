/**
 * The result streams of an `@live` query as pushed (docs/PROTOCOL.md "Live queries"): a result
 * equal to the one before is not pushed, the store's `isLive` marker is not sent, and the live
 * query's slot is released once when the stream ends.
 */
import type { ExecutionResult } from 'graphql';

/** A result as the live-query store yields it (it marks its results `isLive`; that is not sent). */
export type LiveResult = ExecutionResult & { isLive?: boolean };

/** The JSON text a result is compared by (data, errors, extensions; not `isLive`). */
function comparable(result: LiveResult): string {
  return JSON.stringify([result.data, result.errors, result.extensions]);
}

/**
 * The store's results, minus those equal to the one before (a change that did not touch what
 * the query shows pushes nothing). A result without `data` (the operation could not run, e.g.
 * bad variables) is the last one: the stream ends after it. `return()` reaches the store at
 * once, also while waiting.
 */
export function changedOnly(source: AsyncIterable<LiveResult>): AsyncIterableIterator<LiveResult> {
  const iterator = source[Symbol.asyncIterator]();
  let previous: string | undefined;
  let failed = false;
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      if (failed) {
        await iterator.return?.();
        return { done: true, value: undefined };
      }
      for (;;) {
        const step = await iterator.next();
        if (step.done === true) return step;
        failed = step.value.data === undefined;
        const text = comparable(step.value);
        if (text === previous) continue;
        previous = text;
        return step;
      }
    },
    async return() {
      return (await iterator.return?.()) ?? { done: true, value: undefined };
    },
  };
}

/**
 * The results as pushed (without the store's `isLive` marker), calling `onPush` for each and
 * `release` once, when the stream ends or its consumer stops it.
 */
export function counted(source: AsyncIterable<LiveResult>, release: () => void, onPush: () => void): AsyncIterableIterator<ExecutionResult> {
  const iterator = source[Symbol.asyncIterator]();
  let released = false;
  const done = (): void => {
    if (released) return;
    released = true;
    release();
  };
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      try {
        const step = await iterator.next();
        if (step.done === true) {
          done();
          return step;
        }
        onPush();
        const { isLive: _isLive, ...result } = step.value;
        return { done: false, value: result };
      } catch (error) {
        done();
        throw error;
      }
    },
    async return() {
      try {
        await iterator.return?.();
      } finally {
        done();
      }
      return { done: true, value: undefined };
    },
  };
}
