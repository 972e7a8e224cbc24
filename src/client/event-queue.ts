/**
 * A push queue read as an async iterator: the watches push events as they arrive, a reader
 * pulls them in order. Ending (or failing) lets the reader drain what was pushed first.
 */

/** The events of a watch, in arrival order; `for await` ends at {@link end}, throws at {@link fail}. */
export class EventQueue<T> implements AsyncIterable<T> {
  private readonly pending: T[] = [];
  private wake: (() => void) | undefined;
  private finished = false;
  private error: unknown;
  private failed = false;

  /** Whether {@link end} or {@link fail} was called. */
  get done(): boolean {
    return this.finished;
  }

  /** Adds an event (ignored once done). */
  push(value: T): void {
    if (this.finished) return;
    this.pending.push(value);
    this.notify();
  }

  /** Ends the stream after the events already pushed. */
  end(): void {
    if (this.finished) return;
    this.finished = true;
    this.notify();
  }

  /** Ends the stream with `error`, thrown to the reader after the events already pushed. */
  fail(error: unknown): void {
    if (this.finished) return;
    this.finished = true;
    this.failed = true;
    this.error = error;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      if (this.pending.length > 0) {
        yield this.pending.shift() as T;
        continue;
      }
      if (this.finished) {
        if (this.failed) throw this.error;
        return;
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }
}
