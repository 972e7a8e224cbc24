import { describe, expect, it } from 'vitest';
import { attachReceiver, pullStream } from '../../src/delivery/pull-stream.js';

/** Resolves once `aborted` fires. */
function abortedPromise(aborted: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (aborted.aborted) resolve();
    else aborted.addEventListener('abort', () => resolve(), { once: true });
  });
}

describe('pullStream (the iterator under every follow stream)', () => {
  it('is lazy and pull-based: the loop starts at the first next() and goes on only when the next value is asked for', async () => {
    const log: string[] = [];
    const stream = pullStream<number>(undefined, async (push) => {
      log.push('start');
      for (let value = 1; value <= 3; value += 1) {
        log.push(`push ${String(value)}`);
        await push(value);
        log.push(`resumed after ${String(value)}`);
      }
    });
    await Promise.resolve();
    expect(log).toEqual([]);
    expect(await stream.next()).toEqual({ done: false, value: 1 });
    // Nothing more is read while the consumer holds value 1.
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['start', 'push 1']);
    expect(await stream.next()).toEqual({ done: false, value: 2 });
    expect(log).toEqual(['start', 'push 1', 'resumed after 1', 'push 2']);
    expect(await stream.next()).toEqual({ done: false, value: 3 });
    expect(await stream.next()).toEqual({ done: true, value: undefined });
    expect(await stream.next()).toEqual({ done: true, value: undefined });
    expect(log).toEqual(['start', 'push 1', 'resumed after 1', 'push 2', 'resumed after 2', 'push 3', 'resumed after 3']);
  });

  it('hands every value out once, in order, to overlapping next() calls', async () => {
    const stream = pullStream<number>(undefined, async (push) => {
      for (let value = 1; value <= 4; value += 1) await push(value);
    });
    const results = await Promise.all([stream.next(), stream.next(), stream.next(), stream.next(), stream.next()]);
    expect(results.map((result) => (result.done === true ? 'done' : result.value))).toEqual([1, 2, 3, 4, 'done']);
  });

  it('return() while the loop waits fires its aborted signal, ends pending next() calls and resolves after the loop left', async () => {
    let loopLeft = false;
    let loopAborted: AbortSignal | undefined;
    const stream = pullStream<number>(undefined, async (push, aborted) => {
      loopAborted = aborted;
      await push(1);
      await abortedPromise(aborted);
      loopLeft = true;
    });
    expect(await stream.next()).toEqual({ done: false, value: 1 });
    const pending = stream.next();
    await new Promise((resolve) => setImmediate(resolve));
    expect(await stream.return?.()).toEqual({ done: true, value: undefined });
    expect(loopAborted?.aborted).toBe(true);
    expect(loopLeft).toBe(true);
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(await stream.next()).toEqual({ done: true, value: undefined });
  });

  it("the caller's signal ends the stream at once, also while the loop waits; a pushed value not taken is dropped", async () => {
    const controller = new AbortController();
    let loopLeft = false;
    const stream = pullStream<number>(controller.signal, async (push, aborted) => {
      await push(1);
      void push(2);
      await abortedPromise(aborted);
      loopLeft = true;
    });
    expect(await stream.next()).toEqual({ done: false, value: 1 });
    const pending = stream.next();
    const second = await pending;
    expect(second).toEqual({ done: false, value: 2 });
    controller.abort();
    expect(await stream.next()).toEqual({ done: true, value: undefined });
    await new Promise((resolve) => setImmediate(resolve));
    expect(loopLeft).toBe(true);

    const already = new AbortController();
    already.abort();
    let started = false;
    const never = pullStream<number>(already.signal, async () => {
      started = true;
    });
    expect(await never.next()).toEqual({ done: true, value: undefined });
    expect(started).toBe(false);
  });

  it("the loop's error goes to the pending (or next) next() call, then the stream is done", async () => {
    const pendingError = pullStream<number>(undefined, async (push) => {
      await push(1);
      throw new Error('read failed');
    });
    expect(await pendingError.next()).toEqual({ done: false, value: 1 });
    await expect(pendingError.next()).rejects.toThrow('read failed');
    expect(await pendingError.next()).toEqual({ done: true, value: undefined });

    const laterError = pullStream<number>(undefined, () => Promise.reject(new Error('at once')));
    await expect(laterError.next()).rejects.toThrow('at once');
    expect(await laterError.next()).toEqual({ done: true, value: undefined });
  });

  it('handOver: an attached receiver accepts values synchronously, in one order with pushed values; a refused value is left to push', async () => {
    const received: number[] = [];
    let budget = 0;
    const handedOver: Array<[number, boolean]> = [];
    let handOverOutside: ((value: number) => boolean) | undefined;
    const stream = pullStream<number>(undefined, async (push, _aborted, handOver) => {
      handOverOutside = handOver;
      const deliver = async (value: number): Promise<void> => {
        const accepted = handOver(value);
        handedOver.push([value, accepted]);
        if (!accepted) await push(value);
      };
      for (let value = 1; value <= 5; value += 1) await deliver(value);
    });
    expect(attachReceiver(stream, (value) => (budget > 0 ? (received.push(value), (budget -= 1), true) : false))).toBe(true);
    expect(await stream.next()).toEqual({ done: false, value: 1 }); // refused (no budget): pushed
    // While value 1 is out and the loop waits for the next ask, hand-overs are refused: one order.
    budget = 2;
    expect(handOverOutside?.(99)).toBe(false);
    expect(received).toEqual([]);
    // The next ask resumes the loop: 2 and 3 go to the receiver at once, 4 is refused and pushed.
    expect(await stream.next()).toEqual({ done: false, value: 4 });
    expect(received).toEqual([2, 3]);
    budget = 1;
    expect(await stream.next()).toEqual({ done: true, value: undefined });
    expect(received).toEqual([2, 3, 5]);
    expect(handedOver).toEqual([
      [1, false],
      [2, true],
      [3, true],
      [4, false],
      [5, true],
    ]);
    // Ended: nothing is handed over any more.
    expect(handOverOutside?.(6)).toBe(false);
  });

  it('attachReceiver refuses a stream that pullStream did not make', () => {
    const other: AsyncIterator<number> = { next: () => Promise.resolve({ done: true, value: undefined }) };
    expect(attachReceiver(other, () => true)).toBe(false);
  });
});
