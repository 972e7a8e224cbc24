/**
 * What every watch of the typed client shares: events as an async iterator or to a callback,
 * how it ended, and its counters (docs/IDE.md "The typed client").
 */
import type { ResumableSink } from './connection.js';
import type { WorkflowClientError } from './errors.js';
import { EventQueue } from './event-queue.js';

/** How a watch ended: closed by its caller (or the client), completed by the server, or failed. */
export type WatchEnd = { reason: 'closed' } | { reason: 'completed' } | { reason: 'failed'; error: WorkflowClientError };

/** Options every watch takes. */
export interface WatchCallbacks<TEvent> {
  /** Each event, in order; when given, the watch is not also an iterator (nothing is queued). */
  onEvent?: (event: TEvent) => void;
  /** Once, when the watch ends. */
  onEnd?: (end: WatchEnd) => void;
}

/** Counters of one watch. */
export interface WatchStats {
  /** Events handed to the caller. */
  delivered: number;
  /** Events dropped as already delivered (same revision or cursor again). */
  duplicates: number;
  /** (Re)subscriptions sent: 1 + the resumes after drops. */
  subscriptions: number;
}

/**
 * A running watch: `for await (const event of watch)` (ends when the watch ends; a failure is
 * thrown after the events before it; `break` closes the watch), or the `onEvent` callback.
 */
export interface Watch<TEvent> extends AsyncIterable<TEvent> {
  /** Stops the watch (idempotent); the iterator ends after what was already received. */
  close(): void;
  /** Resolves (never rejects) with how the watch ended. */
  readonly finished: Promise<WatchEnd>;
  readonly stats: Readonly<WatchStats>;
}

/** How many delivered cursors a watch remembers to drop a repeated event. */
const REMEMBERED_CURSORS = 4096;

/** The event plumbing of a watch; subclasses decide what to deliver. */
export abstract class WatchBase<TEvent> implements Watch<TEvent> {
  readonly stats: WatchStats = { delivered: 0, duplicates: 0, subscriptions: 0 };
  readonly finished: Promise<WatchEnd>;
  private resolveFinished!: (end: WatchEnd) => void;
  private readonly queue: EventQueue<TEvent> | undefined;
  private ended = false;
  private readonly seenCursors = new Set<string>();

  constructor(private readonly callbacks: WatchCallbacks<TEvent>) {
    this.queue = callbacks.onEvent === undefined ? new EventQueue<TEvent>() : undefined;
    this.finished = new Promise((resolve) => {
      this.resolveFinished = resolve;
    });
  }

  /** Whether the watch has ended. */
  get isEnded(): boolean {
    return this.ended;
  }

  /** Hands one event to the caller. */
  protected deliver(event: TEvent): void {
    if (this.ended) return;
    this.stats.delivered += 1;
    if (this.queue !== undefined) this.queue.push(event);
    else this.callbacks.onEvent?.(event);
  }

  /**
   * The sink of one of the watch's subscriptions: each (re)subscribe counted in
   * `stats.subscriptions`, data to `next`, an error or the server's complete ending the watch.
   */
  protected sinkOf<TData>(next: (data: TData) => void): ResumableSink<TData> {
    return {
      sent: () => {
        this.stats.subscriptions += 1;
      },
      next,
      error: (error) => this.end({ reason: 'failed', error }),
      complete: () => this.end({ reason: 'completed' }),
    };
  }

  /**
   * Whether an event's cursor was delivered already (counted in `stats.duplicates`); remembers
   * the last {@link REMEMBERED_CURSORS} cursors otherwise.
   */
  protected repeated(cursor: string): boolean {
    if (this.seenCursors.has(cursor)) {
      this.stats.duplicates += 1;
      return true;
    }
    this.seenCursors.add(cursor);
    if (this.seenCursors.size > REMEMBERED_CURSORS) this.seenCursors.delete(this.seenCursors.values().next().value as string);
    return false;
  }

  /** Ends the watch once: stops its streams ({@link stop}), ends the iterator, tells `onEnd`. */
  protected end(end: WatchEnd): void {
    if (this.ended) return;
    this.ended = true;
    this.stop();
    if (end.reason === 'failed') this.queue?.fail(end.error);
    else this.queue?.end();
    this.callbacks.onEnd?.(end);
    this.resolveFinished(end);
  }

  /** Stops the watch's subscriptions (called once, by {@link end}). */
  protected abstract stop(): void;

  close(): void {
    this.end({ reason: 'closed' });
  }

  async *[Symbol.asyncIterator](): AsyncIterator<TEvent> {
    if (this.queue === undefined) throw new Error('this watch delivers to onEvent: it is not also an iterator');
    try {
      yield* this.queue;
    } finally {
      this.close();
    }
  }
}
