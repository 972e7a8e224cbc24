/**
 * The async iterator under every follow stream of the change feed (`feed-follow.ts`,
 * `feed-run-changes.ts`): a producer loop that pushes values, pulled one at a time by its
 * consumer, with no buffering (it replaces `@repeaterjs/repeater`, whose
 * promise chains per value were the largest share of fan-out CPU and garbage after GC).
 *
 * Rules (those the feed's delivery rules rely on):
 * - Lazy: the loop starts at the first `next()`.
 * - Pull-based: a `push` resolves only when the consumer asks for the value after the pushed
 *   one (calls `next()` again, or already had), so the loop reads its next event only then and a slow consumer
 *   holds at most the one value it has not received.
 * - In order, exactly once: values are given out in push order, each to one `next()`.
 * - Ends: when the loop returns (pending and later `next()` calls get done), when it throws
 *   (the error goes to the pending or next `next()` call, then done), when the consumer calls
 *   `return()`/`throw()`, or when the caller's signal aborts. The loop's `aborted` signal fires
 *   in each case, so a loop waiting on the feed leaves at once; every pending `push` resolves.
 *   A value pushed but not received when the stream ends is dropped.
 * - Handed over, synchronously: a consumer may attach a receiver ({@link attachReceiver});
 *   the loop's `handOver(value)` gives a value to it at once, without a promise, and tells
 *   whether the receiver accepted it. A value the receiver refuses is not delivered: the loop
 *   pushes it (or reads it again later). A hand-over is refused while a pushed value waits to
 *   be received, so handed-over and pushed values keep one order, each value once. A fan-out
 *   delivers each revision to every subscriber through `handOver` inside one synchronous loop
 *   of the feed's wake-up (the direct route, src/delivery/index.ts).
 */

/**
 * The producer of a {@link pullStream}: must return once `aborted` fires. `handOver` gives a
 * value to the consumer's receiver synchronously: true when it was accepted (as if pushed and
 * received), false when not (no receiver, the receiver refused, a pushed value not yet
 * received, the stream ended).
 */
export type PullLoop<T> = (push: (value: T) => Promise<void>, aborted: AbortSignal, handOver: (value: T) => boolean) => Promise<void>;

/**
 * A consumer's synchronous receiver of handed-over values ({@link attachReceiver}): returns
 * true when it accepted `value` (it must then have delivered it, in order), false to leave it to
 * `push`. Must not throw.
 */
export type PullReceiver<T> = (value: T) => boolean;

/**
 * Told when a value reaches its consumer (ChangeFeed's delivery lag):
 * `mark()` when the consumer asks (`next()`), `delivered(mark)` when that call gets its value
 * (or the receiver accepted a hand-over).
 */
export interface PullObserver {
  mark(): number;
  delivered(mark: number): void;
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });
const RESOLVED: Promise<void> = Promise.resolve();

interface PendingNext<T> {
  resolve: (result: IteratorResult<T>) => void;
  reject: (error: unknown) => void;
  mark: number;
}

class PullStream<T> implements AsyncIterableIterator<T> {
  private readonly abort = new AbortController();
  private readonly signal: AbortSignal | undefined;
  private readonly loop: PullLoop<T>;
  private started = false;
  /** No value is handed out any more (the loop ended, the consumer left, or the signal aborted). */
  private finished = false;
  /** `next()` calls waiting for a value, oldest first (one, unless the consumer overlaps calls). */
  private readonly nexts: Array<PendingNext<T>> = [];
  /** A pushed value no `next()` took yet. */
  private held: { value: T } | undefined;
  /** Resolves the loop's latest `push` (see the module comment). */
  private resume: (() => void) | undefined;
  /** The loop's error, for the next `next()` call when none was pending. */
  private failure: { error: unknown } | undefined;
  /** Settles once the loop returned or threw (undefined before it starts). */
  private running: Promise<void> | undefined;
  observer: PullObserver | undefined;
  receiver: PullReceiver<T> | undefined;
  private readonly onAbort = (): void => this.finish();
  private readonly pushValue = (value: T): Promise<void> => this.push(value);
  private readonly handOverValue = (value: T): boolean => this.handOver(value);

  constructor(signal: AbortSignal | undefined, loop: PullLoop<T>) {
    this.signal = signal;
    this.loop = loop;
    if (signal?.aborted === true) {
      this.finished = true;
      this.abort.abort();
    } else {
      signal?.addEventListener('abort', this.onAbort, { once: true });
    }
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    const held = this.held;
    if (held !== undefined) {
      this.held = undefined;
      return Promise.resolve({ done: false, value: held.value });
    }
    const failure = this.failure;
    if (failure !== undefined) {
      this.failure = undefined;
      return Promise.reject(failure.error);
    }
    if (this.finished) return Promise.resolve(DONE);
    const mark = this.observer === undefined ? 0 : this.observer.mark();
    const result = new Promise<IteratorResult<T>>((resolve, reject) => {
      this.nexts.push({ resolve, reject, mark });
    });
    const resume = this.resume;
    if (resume !== undefined) {
      this.resume = undefined;
      resume();
    } else if (!this.started) {
      this.start();
    }
    return result;
  }

  async return(): Promise<IteratorResult<T>> {
    this.finish();
    if (this.running !== undefined) await this.running;
    return DONE;
  }

  async throw(error?: unknown): Promise<IteratorResult<T>> {
    this.finish();
    if (this.running !== undefined) await this.running;
    throw error;
  }

  private push(value: T): Promise<void> {
    if (this.finished) return RESOLVED;
    const next = this.nexts.shift();
    if (next === undefined) {
      this.held = { value };
    } else {
      if (this.observer !== undefined) this.observer.delivered(next.mark);
      next.resolve({ done: false, value });
      // Overlapping next() calls: the consumer already asked for the value after this one.
      if (this.nexts.length > 0) return RESOLVED;
    }
    return new Promise((resolve) => {
      this.resume = resolve;
    });
  }

  private handOver(value: T): boolean {
    const receiver = this.receiver;
    if (receiver === undefined || this.finished || this.held !== undefined || this.resume !== undefined) return false;
    if (!receiver(value)) return false;
    if (this.observer !== undefined) this.observer.delivered(this.nexts[0]?.mark ?? this.observer.mark());
    return true;
  }

  private start(): void {
    this.started = true;
    let loopRun: Promise<void>;
    try {
      loopRun = this.loop(this.pushValue, this.abort.signal, this.handOverValue);
    } catch (error) {
      loopRun = Promise.reject(error);
    }
    this.running = loopRun.then(
      () => this.finish(),
      (error: unknown) => this.finish({ error }),
    );
  }

  /** Ends the stream (idempotent): see the module comment. */
  private finish(failure?: { error: unknown }): void {
    if (this.finished) return;
    this.finished = true;
    this.held = undefined;
    this.signal?.removeEventListener('abort', this.onAbort);
    this.abort.abort();
    const resume = this.resume;
    this.resume = undefined;
    resume?.();
    const nexts = this.nexts.splice(0);
    if (failure !== undefined) {
      const first = nexts.shift();
      if (first === undefined) this.failure = failure;
      else first.reject(failure.error);
    }
    for (const next of nexts) next.resolve(DONE);
  }
}

/**
 * A stream driven by `loop`, pulled one value at a time (see the module comment).
 *
 * @param signal ends the stream when it aborts (at once, also while the loop waits)
 * @param loop pushes the values; must return once its `aborted` signal fires
 * @returns the stream; {@link observe} can attach a delivery observer to it
 */
export function pullStream<T>(signal: AbortSignal | undefined, loop: PullLoop<T>): AsyncIterableIterator<T> {
  return new PullStream(signal, loop);
}

/**
 * Attaches `observer` to a stream made by {@link pullStream} (replacing any other), so
 * measuring its deliveries costs no wrapper around it.
 *
 * @throws TypeError when `stream` was not made by {@link pullStream} (a programming error)
 */
export function observe(stream: AsyncIterableIterator<unknown>, observer: PullObserver): void {
  if (!(stream instanceof PullStream)) throw new TypeError('observe() takes a stream made by pullStream()');
  stream.observer = observer;
}

/**
 * Attaches `receiver` to a stream made by {@link pullStream} (replacing any other; undefined
 * detaches): the stream's loop may then hand values over to it synchronously (see the module
 * comment).
 *
 * @returns false when `stream` was not made by {@link pullStream} (nothing attached: every
 *   value comes through `next()`)
 */
export function attachReceiver<T>(stream: AsyncIterator<T>, receiver: PullReceiver<T> | undefined): boolean {
  if (!(stream instanceof PullStream)) return false;
  (stream as PullStream<T>).receiver = receiver;
  return true;
}
