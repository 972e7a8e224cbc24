import Database from 'better-sqlite3';
import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';
import { BEGIN_ATTEMPTS, isBusyError } from './connection.js';

/**
 * The group-commit write queue behind `StateDatabase.transactionAsync` (docs/STORE-RULES.md §1):
 * concurrent writes of one connection committed together in one `BEGIN IMMEDIATE … COMMIT`,
 * each in its own savepoint, without ever waiting synchronously for the write lock. The rules
 * (grouping, lock waits, deadlines, failures) are on `StateDatabase.transactionAsync`.
 */

/**
 * Longest pause between two asynchronous `BEGIN IMMEDIATE` attempts of a waiting write, ms
 * (before jitter); the pauses grow 0.25, 0.5, 1, 2, 4, 8, 8, … (see `StateDatabase.transactionAsync`).
 */
export const LOCK_RETRY_MAX_DELAY_MS = 8;

/**
 * Most writes of `StateDatabase.transactionAsync` committed together in one group (one
 * `BEGIN IMMEDIATE … COMMIT`): bounds how long the first write of a group
 * waits for the others' work before its answer.
 */
export const MAX_GROUP_WRITES = 64;

/** A write waiting for its group (and the write lock). */
interface PendingWrite {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  /** `performance.now()` after which it gives up with `SQLITE_BUSY`. */
  deadline: number;
  /** True once a `BEGIN IMMEDIATE` for it found the lock taken (counted once in `beginRetries`). */
  waited: boolean;
}

/** How one write of a group ended inside the shared transaction. */
type WriteOutcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Counters of the grouped commits of `StateDatabase.transactionAsync` since open. */
export interface WriteGroupStats {
  /** Groups committed (one `COMMIT` each). */
  commits: number;
  /** Writes those groups committed (each write whose function returned). */
  writes: number;
  /** Writes whose function threw, rolled back alone to their savepoint (or with their group). */
  failed: number;
  /** Wall time inside the groups, ms: every function, savepoint and `COMMIT` (fsync included). */
  ms: number;
}

/** What the queue uses of its connection (`StateDatabase` builds one). */
export interface WriteGroupHost {
  /** The connection now (a replica's reopen swaps it). */
  connection(): SqliteDatabase;
  /** The cached prepared statement for `sql`. */
  statement(sql: string): Statement;
  /** The connection's busy timeout, ms. */
  readonly busyTimeoutMs: number;
  /** Counts one write that had to wait for the lock (`StateDatabase.beginRetries`). */
  waited(): void;
  /** Runs the commit listeners, once per committed group, before its promises settle. */
  committed(): void;
}

/** See the module comment. One per `StateDatabase`. */
export class WriteGroupQueue {
  /** Writes waiting for their group (and the write lock), oldest first. */
  private readonly writeQueue: PendingWrite[] = [];
  /** The next group's start on the next turn of the event loop (the lock was free at the last attempt). */
  private groupImmediate: NodeJS.Immediate | undefined;
  /** Pending timer of the next `BEGIN IMMEDIATE` attempt after `SQLITE_BUSY`. */
  private groupTimer: NodeJS.Timeout | undefined;
  private readonly groupStats: WriteGroupStats = { commits: 0, writes: 0, failed: 0, ms: 0 };
  /** Failed attempts since the last one that took the lock (the backoff exponent). */
  private lockFailures = 0;
  /** The last `SQLITE_BUSY` an asynchronous `BEGIN IMMEDIATE` got (its code and message are what a timed-out write throws). */
  private lastBusy: { code: string; message: string } = { code: 'SQLITE_BUSY', message: 'database is locked' };

  constructor(private readonly host: WriteGroupHost) {}

  /**
   * Queues `fn` for the next group (see `StateDatabase.transactionAsync`); inside an open
   * transaction it joins that one at once.
   *
   * @returns a promise of what `fn` returns, settled after its group's `COMMIT`
   */
  enqueue<T>(fn: () => T): Promise<T> {
    if (this.host.connection().inTransaction) {
      try {
        return Promise.resolve(fn());
      } catch (error) {
        return Promise.reject(error as Error);
      }
    }
    return new Promise<T>((resolve, reject) => {
      this.writeQueue.push({
        fn,
        resolve: resolve as (value: unknown) => void,
        reject,
        deadline: performance.now() + BEGIN_ATTEMPTS * this.host.busyTimeoutMs,
        waited: false,
      });
      this.scheduleGroup();
    });
  }

  /** Writes of `StateDatabase.transactionAsync` waiting for their group (and the write lock) now. */
  get waiting(): number {
    return this.writeQueue.length;
  }

  /** Counters of the grouped commits since open (tests, benchmarks). */
  get stats(): Readonly<WriteGroupStats> {
    return this.groupStats;
  }

  /**
   * One `BEGIN IMMEDIATE` with the busy timeout at 0 (restored after), through cached
   * statements.
   *
   * @returns true when the transaction is open, false when another connection holds the lock
   * @throws any error but `SQLITE_BUSY`
   */
  private tryBeginImmediate(): boolean {
    this.host.statement('PRAGMA busy_timeout = 0').get();
    try {
      this.host.statement('BEGIN IMMEDIATE').run();
      this.lockFailures = 0;
      return true;
    } catch (error) {
      if (!isBusyError(error)) throw error;
      this.lastBusy = { code: (error as { code: string }).code, message: (error as Error).message };
      this.lockFailures += 1;
      return false;
    } finally {
      this.host.statement(`PRAGMA busy_timeout = ${this.host.busyTimeoutMs}`).get();
    }
  }

  /**
   * Starts the next group: on the next turn of the event loop when the lock was free at the last
   * attempt (writes of this turn join it), else after the backoff pause. No-op while one is due.
   */
  private scheduleGroup(): void {
    if (this.groupTimer !== undefined || this.groupImmediate !== undefined || this.writeQueue.length === 0) return;
    if (this.lockFailures === 0) {
      this.groupImmediate = setImmediate(() => {
        this.groupImmediate = undefined;
        this.serveWrites();
      });
      return;
    }
    const base = Math.min(LOCK_RETRY_MAX_DELAY_MS, 0.25 * 2 ** Math.max(0, this.lockFailures - 1));
    this.groupTimer = setTimeout(
      () => {
        this.groupTimer = undefined;
        this.serveWrites();
      },
      base * (0.5 + Math.random()),
    );
  }

  /** Fails the writes past their deadline, then runs the oldest ones as a group if the lock is free. */
  private serveWrites(): void {
    const now = performance.now();
    for (let index = 0; index < this.writeQueue.length;) {
      const write = this.writeQueue[index] as PendingWrite;
      if (write.deadline > now) {
        index += 1;
        continue;
      }
      this.writeQueue.splice(index, 1);
      write.reject(new Database.SqliteError(this.lastBusy.message, this.lastBusy.code));
    }
    const head = this.writeQueue[0];
    if (head === undefined) return;
    if (!this.host.connection().open) {
      for (const write of this.writeQueue.splice(0)) write.reject(new TypeError('The database connection is not open'));
      return;
    }
    let begun: boolean;
    try {
      begun = this.host.connection().inTransaction ? false : this.tryBeginImmediate();
    } catch (error) {
      this.writeQueue.shift();
      head.reject(error as Error);
      this.scheduleGroup();
      return;
    }
    if (!begun) {
      for (const write of this.writeQueue) {
        if (write.waited) continue;
        write.waited = true;
        this.host.waited();
      }
    } else {
      this.runGroup(this.writeQueue.splice(0, MAX_GROUP_WRITES));
    }
    this.scheduleGroup();
  }

  /**
   * Runs `group` in the transaction {@link tryBeginImmediate} opened, each write in its own
   * savepoint, commits once, notifies the commit listeners, then settles every promise (see
   * `StateDatabase.transactionAsync`).
   */
  private runGroup(group: PendingWrite[]): void {
    const started = performance.now();
    const savepoints = group.length > 1;
    const outcomes: WriteOutcome[] = [];
    let committed = 0;
    for (const [index, write] of group.entries()) {
      try {
        if (savepoints) this.host.statement('SAVEPOINT group_write').run();
        const value = write.fn();
        if (savepoints) this.host.statement('RELEASE group_write').run();
        outcomes.push({ ok: true, value });
        committed += 1;
      } catch (error) {
        outcomes.push({ ok: false, error });
        if (!this.undoWrite(savepoints)) {
          // SQLite abandoned the whole transaction: what ran before is gone; the rest waits for the next group.
          this.writeQueue.unshift(...group.slice(index + 1));
          this.failGroup(group, outcomes, error, started);
          return;
        }
      }
    }
    if (committed === 0) {
      // Nothing to commit (every write failed, or a group of one): no COMMIT, no commit listener.
      if (this.host.connection().inTransaction) this.host.statement('ROLLBACK').run();
      this.failGroup(group, outcomes, undefined, started);
      return;
    }
    try {
      this.host.statement('COMMIT').run();
    } catch (error) {
      if (this.host.connection().inTransaction) this.host.statement('ROLLBACK').run();
      this.failGroup(group, outcomes, error, started);
      return;
    }
    this.groupStats.commits += 1;
    this.groupStats.writes += committed;
    this.groupStats.failed += group.length - committed;
    this.groupStats.ms += performance.now() - started;
    this.host.committed();
    outcomes.forEach((outcome, at) => {
      const write = group[at] as PendingWrite;
      if (outcome.ok) write.resolve(outcome.value);
      else write.reject(outcome.error as Error);
    });
  }

  /**
   * Ends a group none of whose writes committed: counts them failed, then rejects each write
   * that ran (`group[0 … outcomes.length)`) with its own error, or with `error` when its `fn`
   * had returned (its work was rolled back with the group).
   *
   * @param started `performance.now()` when the group started (for {@link WriteGroupStats.ms})
   */
  private failGroup(group: readonly PendingWrite[], outcomes: readonly WriteOutcome[], error: unknown, started: number): void {
    this.groupStats.failed += outcomes.length;
    this.groupStats.ms += performance.now() - started;
    outcomes.forEach((outcome, at) => group[at]?.reject((outcome.ok ? error : outcome.error) as Error));
  }

  /**
   * Undoes the write that just threw: back to its savepoint (then released), or the whole
   * transaction for a group of one.
   *
   * @returns false when the transaction is gone (SQLite rolled it back, or undoing failed and
   *   it was rolled back here): every write of the group that ran is lost
   */
  private undoWrite(savepoints: boolean): boolean {
    if (!this.host.connection().inTransaction) return false;
    if (!savepoints) {
      this.host.statement('ROLLBACK').run();
      return true;
    }
    try {
      this.host.statement('ROLLBACK TO group_write').run();
      this.host.statement('RELEASE group_write').run();
      return true;
    } catch {
      if (this.host.connection().inTransaction) this.host.statement('ROLLBACK').run();
      return false;
    }
  }

  /**
   * Rejects every waiting write with `The database connection is not open` and cancels the
   * next group's start (the connection is closing).
   */
  close(): void {
    if (this.groupTimer !== undefined) clearTimeout(this.groupTimer);
    this.groupTimer = undefined;
    if (this.groupImmediate !== undefined) clearImmediate(this.groupImmediate);
    this.groupImmediate = undefined;
    for (const write of this.writeQueue.splice(0)) write.reject(new TypeError('The database connection is not open'));
  }
}
