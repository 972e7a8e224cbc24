/**
 * The live page's reconnect policy (src/server/public/reconnect.js): which failures are
 * retried, the backoff, the HTTP read retry loop, and failure texts (never `[object …]`).
 */
import { describe, expect, it } from 'vitest';
import { closeText, failureText, HttpFailure, isTransient, retryDelayMs, retrying, shouldRetry, Superseded } from '../../../src/server/public/reconnect.js';

describe('retry policy', () => {
  it('backoff: 0.5 s, 1 s, 2 s, 4 s, then at most 8 s, plus up to 250 ms of jitter', () => {
    expect([0, 1, 2, 3, 4, 5, 10].map((retries) => retryDelayMs(retries, () => 0))).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
    expect(retryDelayMs(0, () => 0.999)).toBe(749);
    expect(retryDelayMs(7, () => 0.5)).toBe(8125);
  });

  it('retries a refused connection (the socket error Event) and every close but 4403', () => {
    expect(shouldRetry(new Event('error'))).toBe(true);
    expect(shouldRetry({ code: 1006, reason: '' })).toBe(true);
    expect(shouldRetry({ code: 1001, reason: 'Going away' })).toBe(true);
    expect(shouldRetry({ code: 4408, reason: 'Keep-alive timeout' })).toBe(true);
    expect(shouldRetry(new Error('boom'))).toBe(true);
    expect(shouldRetry({ code: 4403, reason: 'Forbidden' })).toBe(false);
  });

  it('HTTP reads: no answer, 502, 503 and 504 are transient; other statuses and GraphQL errors are not', () => {
    expect([0, 502, 503, 504].map((status) => isTransient(new HttpFailure('x', status)))).toEqual([true, true, true, true]);
    expect([400, 401, 403, 413, 500].map((status) => isTransient(new HttpFailure('x', status)))).toEqual([false, false, false, false, false]);
    expect(isTransient(new Error('Workflow run not found'))).toBe(false);
    expect(isTransient(new TypeError("Cannot read properties of undefined (reading 'edges')"))).toBe(false);
  });
});

describe('failure texts', () => {
  it.each([
    [new Event('error'), 'connection failed'],
    [{ code: 1006, reason: '' }, 'connection lost (code 1006)'],
    [{ code: 1001, reason: 'Going away' }, 'server going away (code 1001: Going away)'],
    [{ code: 4403, reason: 'Forbidden' }, 'forbidden: open the page with ?token=…'],
    [{ code: 4400, reason: 'Invalid message' }, 'connection closed (code 4400: Invalid message)'],
    [[{ message: 'Workflow run not found' }, { message: 'Too deep' }], 'Workflow run not found; Too deep'],
    [[], 'unknown error'],
    [new Error('HTTP 500'), 'HTTP 500'],
    [new TypeError('Failed to fetch'), 'connection failed'],
    [new HttpFailure('connection failed', 0), 'connection failed'],
    ['plain text', 'plain text'],
    [{}, 'connection failed'],
    [undefined, 'unknown error'],
    [null, 'unknown error'],
  ])('%o → %s', (error, text) => {
    expect(failureText(error)).toBe(text);
    expect(failureText(error)).not.toContain('[object');
  });

  it('closeText of a close with a reason', () => {
    expect(closeText({ code: 1011, reason: 'Internal error' })).toBe('connection closed (code 1011: Internal error)');
  });
});

describe('retrying (HTTP reads)', () => {
  /** Timers the test fires by hand: delays asked for, in order. */
  function manualTimers() {
    const pending: Array<{ callback: () => void; ms: number }> = [];
    return {
      pending,
      setTimer: (callback: () => void, ms: number) => pending.push({ callback, ms }),
      fire: () => pending.shift()?.callback(),
    };
  }
  const tick = () => new Promise((resolve) => setImmediate(resolve));

  it('tries a transient failure again after each backoff delay until it succeeds', async () => {
    const timers = manualTimers();
    const outcomes: Array<() => Promise<string>> = [
      () => Promise.reject(new HttpFailure('connection failed', 0)),
      () => Promise.reject(new HttpFailure('HTTP 503', 503)),
      () => Promise.resolve('data'),
    ];
    let attempts = 0;
    const retries: number[] = [];
    const result = retrying(() => (outcomes[attempts++] as () => Promise<string>)(), {
      setTimer: timers.setTimer,
      delayMs: (n) => 100 * (n + 1),
      onRetry: (_error, ms) => retries.push(ms),
    });
    await tick();
    expect(attempts).toBe(1);
    expect(timers.pending.map((timer) => timer.ms)).toEqual([100]);
    timers.fire();
    await tick();
    expect(attempts).toBe(2);
    timers.fire();
    await expect(result).resolves.toBe('data');
    expect(attempts).toBe(3);
    expect(retries).toEqual([100, 200]);
  });

  it('goes at once when `wake` resolves (the WebSocket is back), before the delay', async () => {
    const timers = manualTimers();
    let wake: () => void = () => {};
    let attempts = 0;
    const result = retrying(
      () => {
        attempts += 1;
        return attempts === 1 ? Promise.reject(new HttpFailure('connection failed', 0)) : Promise.resolve(attempts);
      },
      { setTimer: timers.setTimer, wake: () => new Promise<void>((resolve) => (wake = resolve)) },
    );
    await tick();
    wake();
    await expect(result).resolves.toBe(2);
    expect(timers.pending).toHaveLength(1); // the delay never had to fire
  });

  it('throws a failure that is not transient at once, and Superseded once the read is no longer wanted', async () => {
    const timers = manualTimers();
    await expect(retrying(() => Promise.reject(new Error('Workflow run not found')), { setTimer: timers.setTimer })).rejects.toThrow('Workflow run not found');
    expect(timers.pending).toHaveLength(0);
    let current = true;
    const result = retrying(() => Promise.reject(new HttpFailure('connection failed', 0)), { setTimer: timers.setTimer, isCurrent: () => current });
    await tick();
    current = false;
    timers.fire();
    await expect(result).rejects.toBeInstanceOf(Superseded);
  });
});
