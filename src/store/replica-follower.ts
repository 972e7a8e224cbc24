import type { RunChangeHead } from './run-change-log.js';
import type { WorkflowStore } from './workflow-store.js';

/** Options of {@link ReplicaFollower}. */
export interface ReplicaFollowerOptions {
  /** How often the path's identity is checked, ms (the server's poll interval). */
  intervalMs: number;
  /**
   * Called with the error of a reopen that failed (the store stays on the old file; the next check
   * tries again), once per distinct error: the same refusal again is not told twice in a row.
   */
  onError?: (error: Error) => void;
  /** Called after each reopen, with how long it took in ms. */
  onReopen?: (ms: number) => void;
}

/** Where a replica stands (`/health`, `/metrics`; docs/DEPLOYMENT.md "Read replicas"). */
export interface ReplicaFileState {
  /** The run change log of the file served now: its database id and newest position. */
  head: RunChangeHead;
  /** Times the file was replaced and reopened since start. */
  reopens: number;
  /** Epoch ms of the latest reopen, or null. */
  lastReopenAt: number | null;
  /** How long the latest reopen took, ms, or null. */
  lastReopenMs: number | null;
  /** The latest failed reopen's message, or null (cleared by a successful one). */
  lastError: string | null;
}

/**
 * Keeps a replica store on the file at its path (docs/DEPLOYMENT.md "Read replicas"): every
 * `intervalMs` it calls `WorkflowStore.reopenIfReplaced`, so a copy renamed over the path (a
 * plain `litestream restore` into a temporary file, then `mv`) is served within one interval;
 * the change feed wakes its followers on the reopen. One `stat` per interval; the timer does not
 * keep the process alive.
 */
export class ReplicaFollower {
  private readonly store: WorkflowStore;
  private readonly options: ReplicaFollowerOptions;
  private readonly timer: NodeJS.Timeout;
  private reopens = 0;
  private lastReopenAt: number | null = null;
  private lastReopenMs: number | null = null;
  private lastError: string | null = null;

  /**
   * Starts checking at once (every `intervalMs`).
   *
   * @throws Error when `store` was not opened with `replica: true`
   */
  constructor(store: WorkflowStore, options: ReplicaFollowerOptions) {
    if (!store.replica) throw new Error('ReplicaFollower needs a store opened with replica: true');
    this.store = store;
    this.options = options;
    this.timer = setInterval(() => this.check(), options.intervalMs);
    this.timer.unref();
  }

  /**
   * Checks the path once now (the timer does the same).
   *
   * @returns true when the file was replaced and reopened
   */
  check(): boolean {
    const started = performance.now();
    try {
      if (!this.store.reopenIfReplaced()) return false;
    } catch (error) {
      // Told once per distinct refusal: a copy that stays bad is retried every interval.
      const repeated = (error as Error).message === this.lastError;
      this.lastError = (error as Error).message;
      if (!repeated) this.options.onError?.(error as Error);
      return false;
    }
    const ms = performance.now() - started;
    this.reopens += 1;
    this.lastReopenAt = this.store.now();
    this.lastReopenMs = ms;
    this.lastError = null;
    this.options.onReopen?.(ms);
    return true;
  }

  /** Where the replica stands now (one read of the run change head). */
  state(): ReplicaFileState {
    return {
      head: this.store.runChangeHead(),
      reopens: this.reopens,
      lastReopenAt: this.lastReopenAt,
      lastReopenMs: this.lastReopenMs,
      lastError: this.lastError,
    };
  }

  /** Stops checking. Idempotent. */
  close(): void {
    clearInterval(this.timer);
  }
}
