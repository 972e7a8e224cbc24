import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';
import { BEGIN_ATTEMPTS, busyTimeoutOf, isBusyError, type StateDatabaseOptions } from './connection.js';
import { openStateFile } from './layout/open-file.js';
import type { StateFile } from './layout/state-file.js';
import { WriteGroupQueue, type WriteGroupStats } from './write-groups.js';

export { BEGIN_ATTEMPTS, isUniqueViolation, type StateDatabaseOptions } from './connection.js';
export { LOCK_RETRY_MAX_DELAY_MS, MAX_GROUP_WRITES, type WriteGroupStats } from './write-groups.js';

/** Parameters bound to a statement: positional values. */
export type SqlParams = readonly unknown[];

/**
 * One SQLite connection with the store's pragmas, a statement cache, a statement counter and
 * a transaction helper that joins an open transaction (docs/STORE-RULES.md §1, §13.8).
 *
 * All SQL of the project runs through {@link run}, {@link get}, {@link all} and
 * {@link exec}; {@link statementCount} counts those calls so tests can bound them.
 */
export class StateDatabase {
  /**
   * The better-sqlite3 connection. Replaced only by {@link adoptReplacement} (a replica whose
   * file was replaced by a rename); everything reaches it through this object.
   */
  connection: SqliteDatabase;
  /** Path the database was opened at. */
  readonly path: string;
  /**
   * True when opened read-only: asked for, or a pi-workflows state file this server does not
   * write (`file.writeRefusal`, docs/PI-WORKFLOWS-FILES.md §2).
   */
  readonly readOnly: boolean;
  /** What kind of file this is: our own, or a pi-workflows state file. */
  readonly file: StateFile;
  /** Number of SQL statements executed through this object since open (or {@link resetStatementCount}). */
  statementCount = 0;
  /** Rounds of `BEGIN IMMEDIATE` tried again after `SQLITE_BUSY` since open (see {@link transaction}). */
  beginRetries = 0;
  /** The busy timeout of the connection, ms: how long a synchronous `BEGIN IMMEDIATE` round waits. */
  readonly busyTimeoutMs: number;
  private readonly cache = new Map<string, Statement>();
  /** True while {@link readSnapshot} runs its own `BEGIN DEFERRED` transaction. */
  private snapshotOpen = false;
  private readonly commitListeners = new Set<() => void>();
  private readonly reopenListeners = new Set<() => void>();
  /** The group-commit queue of {@link transactionAsync}. */
  private readonly writes: WriteGroupQueue;

  private constructor(connection: SqliteDatabase, path: string, readOnly: boolean, file: StateFile, busyTimeoutMs: number) {
    this.connection = connection;
    this.path = path;
    this.readOnly = readOnly;
    this.file = file;
    this.busyTimeoutMs = busyTimeoutMs;
    this.writes = new WriteGroupQueue({
      connection: () => this.connection,
      statement: (sql) => this.statement(sql),
      busyTimeoutMs,
      waited: () => {
        this.beginRetries += 1;
      },
      committed: () => this.notifyCommit(),
    });
  }

  /**
   * Opens a state database after deciding what kind of file it is (`layout/open-file.ts`):
   * this server's own file (or a new one) is migrated (read-write) or must be fully migrated
   * (read-only); a pi-workflows state file is checked and opened with pi-workflows' own
   * connection settings, read-write only for a layout this server writes, never migrated
   * (docs/STORE-RULES.md §1, docs/PI-WORKFLOWS-FILES.md §2); anything else is refused before
   * anything is written.
   *
   * @throws StoreError(integrity) when the file is not a SQLite database, is of neither kind,
   *   is a pi-workflows file of an unknown schema version or lacking a column the read side
   *   uses, when its recorded migrations are newer than this code, or (read-only) when it has
   *   never been migrated
   */
  static open(options: StateDatabaseOptions): StateDatabase {
    const opened = openStateFile(options);
    const database = new StateDatabase(opened.connection, options.path, opened.readOnly, opened.file, busyTimeoutOf(options));
    try {
      opened.prepare(database);
    } catch (error) {
      opened.connection.close();
      throw error;
    }
    return database;
  }

  /** Returns the cached prepared statement for `sql`. */
  statement(sql: string): Statement {
    let statement = this.cache.get(sql);
    if (statement === undefined) {
      statement = this.connection.prepare(sql);
      this.cache.set(sql, statement);
    }
    return statement;
  }

  /** Runs a write statement; returns the number of changed rows and the last row id. */
  run(sql: string, ...params: SqlParams): { changes: number; lastInsertRowid: number | bigint } {
    this.statementCount += 1;
    return this.statement(sql).run(...params);
  }

  /** Runs a query and returns its first row, or undefined. */
  get<T>(sql: string, ...params: SqlParams): T | undefined {
    this.statementCount += 1;
    return this.statement(sql).get(...params) as T | undefined;
  }

  /** Runs a query and returns all its rows. */
  all<T>(sql: string, ...params: SqlParams): T[] {
    this.statementCount += 1;
    return this.statement(sql).all(...params) as T[];
  }

  /** Executes one or more statements without parameters (migrations, pragmas). */
  exec(sql: string): void {
    this.statementCount += 1;
    this.connection.exec(sql);
  }

  /** Sets {@link statementCount} back to 0. */
  resetStatementCount(): void {
    this.statementCount = 0;
  }

  /**
   * Runs `fn` with SQLite's foreign-key enforcement off (`PRAGMA foreign_keys = OFF`), then
   * turns it back on, also when `fn` throws. Only for a statement that proves by itself that no
   * row references what it deletes (the open-time blob prune, {@link BlobStore}): deleting a
   * parent row makes SQLite look for its children, and with no index on the child column that
   * is a full scan of the child table per deleted row — hours for a few hundred unreferenced
   * blobs on a store of 1,000,000 runs. The pragma is a no-op inside a
   * transaction, so this must be called outside one.
   *
   * @returns what `fn` returns
   * @throws Error `withoutForeignKeyEnforcement needs no open transaction` inside one;
   *   whatever `fn` throws
   */
  withoutForeignKeyEnforcement<T>(fn: () => T): T {
    if (this.connection.inTransaction) throw new Error('withoutForeignKeyEnforcement needs no open transaction');
    this.statement('PRAGMA foreign_keys = OFF').run();
    try {
      return fn();
    } finally {
      this.statement('PRAGMA foreign_keys = ON').run();
    }
  }

  /** True while a transaction is open on this connection. */
  get inTransaction(): boolean {
    return this.connection.inTransaction;
  }

  /**
   * Runs `fn` inside one `BEGIN IMMEDIATE` transaction, or inside the caller's open
   * transaction (helpers join, docs/STORE-RULES.md §13.8). A thrown error rolls everything back.
   * Listeners registered with {@link onCommit} run once the outermost transaction committed.
   * When `BEGIN IMMEDIATE` still finds the database locked after the busy timeout, it is tried
   * again (up to {@link BEGIN_ATTEMPTS} rounds in all; `fn` has not run, so this is safe), so
   * writers starved by a stream of other writers do not see `SQLITE_BUSY`.
   *
   * @returns what `fn` returns
   */
  transaction<T>(fn: () => T): T {
    if (this.connection.inTransaction) return fn();
    let result: T;
    for (let attempt = 1; ; attempt += 1) {
      let started = false;
      try {
        result = this.connection
          .transaction(() => {
            started = true;
            return fn();
          })
          .immediate();
        break;
      } catch (error) {
        // BEGIN IMMEDIATE itself was refused after the busy timeout: nothing ran, so another
        // round is safe. SQLite's busy handler polls every 100 ms once it has waited a while,
        // and a steady stream of short writers can take the lock between every poll; a fresh
        // round starts polling fast again. Anything else, or the last round, reaches the caller.
        if (started || attempt >= BEGIN_ATTEMPTS || !isBusyError(error)) throw error;
        this.beginRetries += 1;
      }
    }
    this.notifyCommit();
    return result;
  }

  private notifyCommit(): void {
    for (const listener of this.commitListeners) {
      try {
        listener();
      } catch {
        // A listener's failure must not turn a committed write into a reported failure.
      }
    }
  }

  /**
   * {@link transaction} without ever waiting synchronously for the write lock,
   * with concurrent writes committed together. A server calls this, so a write
   * lock held by another process (a workflow host, a second server) never stops its event loop
   * — queries, subscriptions and keep-alives go on, only the writes wait — and concurrent
   * mutations share one `COMMIT` (one fsync) instead of paying one each.
   *
   * Grouping: the write joins this connection's FIFO queue of writes; on the next turn of the
   * event loop (`setImmediate`, so every write that arrived in the same turn, or while the
   * previous group ran, is there) up to {@link MAX_GROUP_WRITES} of the oldest run in ONE
   * `BEGIN IMMEDIATE … COMMIT`, each `fn` in its own `SAVEPOINT` (a group of one needs none).
   * A throwing `fn` is rolled back to its savepoint alone (`ROLLBACK TO` + `RELEASE`: no row,
   * event, blob or delta of it remains) and its promise rejects with its own error; the others
   * go on. Every promise settles only after the shared `COMMIT` succeeded, so a write is
   * answered only once another connection can read it; when `COMMIT` fails (a deferred
   * constraint, an I/O error) the whole group is rolled back and every write rejects (the ones
   * whose `fn` returned with the `COMMIT` error), nothing of any of them visible. When SQLite
   * itself abandons the transaction inside an `fn` (an I/O error, `SQLITE_FULL`,
   * `RAISE(ROLLBACK)`), the writes of the group that ran before reject with that error, and the
   * ones not run yet go back to the front of the queue. A group whose writes all failed is
   * rolled back, not committed. The {@link onCommit} listeners run once per committed group,
   * before its promises settle. `BEGIN IMMEDIATE`, every `fn` and `COMMIT` of a group run in
   * one tick: no other code of this process can see or join the open transaction. The writes
   * of a group see each other's changes in queue order, exactly as if they ran one after the
   * other (their positions in the run change log follow that order too).
   *
   * Lock waits: `BEGIN IMMEDIATE` is tried with the busy timeout set to 0. When another
   * connection holds the lock, `BEGIN IMMEDIATE` alone is retried from a timer, with growing
   * jittered pauses (0.25 ms doubling up to {@link LOCK_RETRY_MAX_DELAY_MS}, each × 0.5–1.5);
   * nothing of any `fn` has run, so retrying is safe. After each commit the next group starts
   * on the following turn of the event loop, so I/O (and the other process) get a turn.
   *
   * The overall deadline of each write is the synchronous path's: {@link BEGIN_ATTEMPTS} × the
   * busy timeout from the call. When it passes before its group took the lock, the promise
   * rejects with SQLite's error as the synchronous path reports it: a better-sqlite3
   * `SqliteError` with code `SQLITE_BUSY` and message `database is locked`; nothing was written.
   * {@link beginRetries} counts one per write that had to wait for the lock.
   *
   * Called inside an open transaction (from `fn` of another transaction), `fn` joins it at once
   * (inside the caller's savepoint, so it is rolled back with the caller).
   *
   * @returns a promise of what `fn` returns, settled after the commit
   * @throws (rejects) whatever `fn` throws, everything it wrote rolled back; the `COMMIT` error
   *   of its group; `SQLITE_BUSY` at the deadline; `The database connection is not open` when
   *   closed before its group ran
   */
  transactionAsync<T>(fn: () => T): Promise<T> {
    return this.writes.enqueue(fn);
  }

  /** Writes of {@link transactionAsync} waiting for their group (and the write lock) now. */
  get lockWaiters(): number {
    return this.writes.waiting;
  }

  /** Counters of the grouped commits of {@link transactionAsync} since open (tests, benchmarks). */
  get writeGroups(): Readonly<WriteGroupStats> {
    return this.writes.stats;
  }

  /**
   * Runs `fn` inside one read transaction (`BEGIN DEFERRED`), so every statement it runs sees
   * the same committed state; joins an open transaction. Nothing is written: works on
   * read-only connections.
   *
   * @returns what `fn` returns
   */
  readSnapshot<T>(fn: () => T): T {
    if (this.connection.inTransaction) return fn();
    this.snapshotOpen = true;
    try {
      return this.connection.transaction(fn).deferred();
    } finally {
      this.snapshotOpen = false;
    }
  }

  /**
   * True while a write transaction is open on this connection ({@link transaction},
   * {@link transactionAsync}, or one a caller began): its changes are not committed yet, so
   * whatever is read now may still be rolled back. False in a {@link readSnapshot} of its own.
   */
  get inWriteTransaction(): boolean {
    return this.connection.inTransaction && !this.snapshotOpen;
  }

  /**
   * Calls `listener` after every transaction of {@link transaction} commits on this
   * connection (the in-process change notifier).
   *
   * @returns a function that removes the listener
   */
  onCommit(listener: () => void): () => void {
    this.commitListeners.add(listener);
    return () => this.commitListeners.delete(listener);
  }

  /**
   * Replica mode (docs/DEPLOYMENT.md "Read replicas"): the file at {@link path} was replaced
   * (renamed over by a restore), so this connection still reads the old, unlinked file; `fresh`
   * is the new file, opened and accepted by the caller (the store's open policy, `store-open.ts`).
   * Swaps its connection in: every later statement reads the new file (the statement cache is
   * dropped), the old connection is closed, and the {@link onReopen} listeners run. `fresh` is
   * used up (its connection now belongs to this object).
   *
   * @throws Error `adoptReplacement needs a read-only connection` (read-write, `:memory:`) or
   *   `… needs no open transaction`; nothing changes then
   */
  adoptReplacement(fresh: StateDatabase): void {
    if (!this.readOnly || !fresh.readOnly || this.path === ':memory:' || this.path === '') {
      throw new Error('adoptReplacement needs a read-only connection to a file');
    }
    if (this.connection.inTransaction) throw new Error('adoptReplacement needs no open transaction');
    const old = this.connection;
    this.connection = fresh.connection;
    this.cache.clear();
    old.close();
    for (const listener of this.reopenListeners) {
      try {
        listener();
      } catch {
        // A listener's failure must not undo the reopen.
      }
    }
  }

  /**
   * Calls `listener` after each {@link adoptReplacement}.
   *
   * @returns a function that removes the listener
   */
  onReopen(listener: () => void): () => void {
    this.reopenListeners.add(listener);
    return () => this.reopenListeners.delete(listener);
  }

  /**
   * Closes the connection (a WAL checkpoint happens on close). Idempotent. Writes still waiting
   * in {@link transactionAsync} reject with `The database connection is not open`.
   */
  close(): void {
    this.writes.close();
    if (this.connection.open) this.connection.close();
  }
}
