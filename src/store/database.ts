import Database from 'better-sqlite3';
import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';
import { StoreError } from './errors.js';
import { applyMigrations, checkMigrations, refuseNewerDatabase } from './migrations.js';
import { checkPiWorkflowsReadSide } from './read-side-schema.js';
import { detectStateFile, headerApplicationId, PI_WORKFLOWS_APPLICATION_ID, walHasFrames, type StateFile } from './state-file.js';

/**
 * Rounds of `BEGIN IMMEDIATE`, each waiting up to the busy timeout, before `SQLITE_BUSY`
 * reaches the caller of {@link StateDatabase.transaction}.
 */
export const BEGIN_ATTEMPTS = 3;

/**
 * Longest pause between two asynchronous `BEGIN IMMEDIATE` attempts of a waiting write, ms
 * (before jitter); the pauses grow 0.25, 0.5, 1, 2, 4, 8, 8, … (see {@link StateDatabase.transactionAsync}).
 */
export const LOCK_RETRY_MAX_DELAY_MS = 8;

/**
 * Most writes of {@link StateDatabase.transactionAsync} committed together in one group (one
 * `BEGIN IMMEDIATE … COMMIT`): bounds how long the first write of a group
 * waits for the others' work before its answer.
 */
export const MAX_GROUP_WRITES = 64;

function isBusyError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/**
 * Opens one connection and makes its first real read (a file that is not a database fails
 * there). Sets only the busy timeout, which writes nothing.
 *
 * @throws StoreError(integrity) `Cannot open workflow state database <path>: …`,
 *   `Not a workflow state database: <path> (…)`
 */
function connect(options: StateDatabaseOptions, readOnly: boolean): SqliteDatabase {
  let connection: SqliteDatabase;
  try {
    connection = new Database(options.path, { readonly: readOnly, fileMustExist: readOnly });
  } catch (error) {
    throw new StoreError('integrity', `Cannot open workflow state database ${options.path}: ${(error as Error).message}`);
  }
  try {
    connection.pragma(`busy_timeout = ${busyTimeoutOf(options)}`);
    connection.prepare('SELECT count(*) AS n FROM sqlite_master').get();
  } catch (error) {
    connection.close();
    throw new StoreError('integrity', `Not a workflow state database: ${options.path} (${(error as Error).message})`);
  }
  return connection;
}

/**
 * The settings of a read-write connection to a pi-workflows state file, as pi-workflows sets
 * them on its own (docs/PI-WORKFLOWS-FILES.md §2): foreign keys on, WAL (already the file's
 * mode: pi-workflows sets it at every open), `synchronous=FULL`, `wal_autocheckpoint` 1000 pages
 * and `journal_size_limit` 64 MiB; the busy timeout was set by {@link connect}. Each is a
 * setting of this connection only; none changes the schema.
 */
function setPiWorkflowsPragmas(connection: SqliteDatabase): void {
  connection.pragma('foreign_keys = ON');
  connection.pragma('journal_mode = WAL');
  connection.pragma('synchronous = FULL');
  connection.pragma('wal_autocheckpoint = 1000');
  connection.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
}

/** The busy timeout asked for, ms (default 5000, docs/STORE-RULES.md §1). */
function busyTimeoutOf(options: StateDatabaseOptions): number {
  return Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000));
}

/** A write of {@link StateDatabase.transactionAsync} waiting for its group (and the write lock). */
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

/** Counters of the grouped commits of {@link StateDatabase.transactionAsync} since open. */
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

/**
 * True when `error` is SQLite's unique-index violation (`SQLITE_CONSTRAINT_UNIQUE`, raised by a
 * UNIQUE column or a unique index; a primary key raises `SQLITE_CONSTRAINT_PRIMARYKEY`, a
 * trigger `SQLITE_CONSTRAINT_TRIGGER`). Decided by better-sqlite3's `SqliteError.code`, never
 * by the message text. Which index was hit is for the caller to establish
 * (SQLite names the columns, not the index).
 */
export function isUniqueViolation(error: unknown): boolean {
  return error instanceof Database.SqliteError && error.code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/** Parameters bound to a statement: positional values. */
export type SqlParams = readonly unknown[];

/** Options for {@link StateDatabase.open}. */
export interface StateDatabaseOptions {
  /** Path of the SQLite file, or `:memory:`. */
  path: string;
  /** Open read-only: no migration, no pruning, every write refused (docs/STORE-RULES.md §1). */
  readOnly?: boolean;
  /** SQLite busy timeout in ms (default 5000, docs/STORE-RULES.md §1). */
  busyTimeoutMs?: number;
}

/**
 * One SQLite connection with the store's pragmas, a statement cache, a statement counter and
 * a transaction helper that joins an open transaction (docs/STORE-RULES.md §1, §13.8).
 *
 * All SQL of the project runs through {@link run}, {@link get}, {@link all} and
 * {@link exec}; {@link statementCount} counts those calls so tests can bound them.
 */
export class StateDatabase {
  /**
   * The better-sqlite3 connection. Replaced only by {@link reopenReplacedFile} (a replica whose
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
  /** Writes of {@link transactionAsync} waiting for their group (and the write lock), oldest first. */
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

  private constructor(connection: SqliteDatabase, path: string, readOnly: boolean, file: StateFile, busyTimeoutMs: number) {
    this.connection = connection;
    this.path = path;
    this.readOnly = readOnly;
    this.file = file;
    this.busyTimeoutMs = busyTimeoutMs;
  }

  /**
   * Opens a state database after deciding what kind of file it is:
   *
   * - this server's own file (or a new one): read-write opens migrate it and set WAL,
   *   `synchronous=FULL`, `foreign_keys=ON` and the busy timeout (docs/STORE-RULES.md §1); read-only opens
   *   require it to be fully migrated;
   * - a pi-workflows state file: every table and column the read side uses is checked first
   *   (`read-side-schema.ts`); then, unless `readOnly`, a file of a layout this server writes
   *   (and holding every column the writes use) is opened read-write with pi-workflows' own
   *   connection settings (docs/PI-WORKFLOWS-FILES.md §2); any other one read-only with
   *   `query_only` on. Never a migration, never a schema change;
   * - anything else: refused before anything is written.
   *
   * A read-write request on a file whose header carries the pi-workflows application id (or
   * whose WAL holds frames the header may not show yet) first looks with a read-only
   * connection, so a file to be served read-only is never touched by a read-write one (closing
   * it would checkpoint someone else's WAL into the file); only a file this server writes is
   * then reopened read-write.
   *
   * @throws StoreError(integrity) when the file is not a SQLite database, is of neither kind,
   *   is a pi-workflows file of an unknown schema version or lacking a column the read side
   *   uses, when its recorded migrations are newer than this code, or (read-only) when it has
   *   never been migrated
   */
  static open(options: StateDatabaseOptions): StateDatabase {
    const requestedReadOnly = options.readOnly === true;
    const path = options.path;
    const onDisk = path !== ':memory:' && path !== '';
    const lookFirst = !requestedReadOnly && onDisk && (headerApplicationId(path) === PI_WORKFLOWS_APPLICATION_ID || walHasFrames(path));
    let readOnly = requestedReadOnly || lookFirst;
    let connection = connect(options, readOnly);
    let file: StateFile;
    try {
      const detected = detectStateFile(connection, path);
      if (detected.kind === 'pi-workflows') {
        const checked = checkPiWorkflowsReadSide(connection, path, detected);
        const writable = !requestedReadOnly && checked.writeRefusal === null;
        if (readOnly !== !writable) {
          // Reopen in the mode decided: read-write for a layout this server writes, else read-only.
          connection.close();
          readOnly = !writable;
          connection = connect(options, readOnly);
          const again = detectStateFile(connection, path);
          if (again.kind !== 'pi-workflows' || again.appVersion !== detected.appVersion) {
            throw new StoreError('integrity', `Workflow state database ${path} changed kind while it was opened`);
          }
        }
        if (readOnly) {
          connection.pragma('query_only = ON');
          connection.pragma('foreign_keys = ON');
        } else {
          setPiWorkflowsPragmas(connection);
        }
        return new StateDatabase(connection, path, readOnly, checked, busyTimeoutOf(options));
      }
      file = { kind: 'own' };
      if (readOnly && !requestedReadOnly) {
        // Our own file behind a WAL with frames: now open it as asked.
        connection.close();
        readOnly = false;
        connection = connect(options, false);
      }
    } catch (error) {
      connection.close();
      throw error;
    }
    const database = new StateDatabase(connection, path, readOnly, file, busyTimeoutOf(options));
    try {
      // Nothing is written before we know the file is not newer than this code.
      refuseNewerDatabase(database);
      if (!readOnly) connection.pragma('journal_mode = WAL');
      connection.pragma('synchronous = FULL');
      connection.pragma('foreign_keys = ON');
      if (readOnly) {
        connection.pragma('query_only = ON');
        checkMigrations(database);
      } else {
        applyMigrations(database);
      }
    } catch (error) {
      connection.close();
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
    if (this.connection.inTransaction) {
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
        deadline: performance.now() + BEGIN_ATTEMPTS * this.busyTimeoutMs,
        waited: false,
      });
      this.scheduleGroup();
    });
  }

  /** Writes of {@link transactionAsync} waiting for their group (and the write lock) now. */
  get lockWaiters(): number {
    return this.writeQueue.length;
  }

  /** Counters of the grouped commits of {@link transactionAsync} since open (tests, benchmarks). */
  get writeGroups(): Readonly<WriteGroupStats> {
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
    this.statement('PRAGMA busy_timeout = 0').get();
    try {
      this.statement('BEGIN IMMEDIATE').run();
      this.lockFailures = 0;
      return true;
    } catch (error) {
      if (!isBusyError(error)) throw error;
      this.lastBusy = { code: (error as { code: string }).code, message: (error as Error).message };
      this.lockFailures += 1;
      return false;
    } finally {
      this.statement(`PRAGMA busy_timeout = ${this.busyTimeoutMs}`).get();
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
    if (!this.connection.open) {
      for (const write of this.writeQueue.splice(0)) write.reject(new TypeError('The database connection is not open'));
      return;
    }
    let begun: boolean;
    try {
      begun = this.connection.inTransaction ? false : this.tryBeginImmediate();
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
        this.beginRetries += 1;
      }
    } else {
      this.runGroup(this.writeQueue.splice(0, MAX_GROUP_WRITES));
    }
    this.scheduleGroup();
  }

  /**
   * Runs `group` in the transaction {@link tryBeginImmediate} opened, each write in its own
   * savepoint, commits once, notifies the commit listeners, then settles every promise (see
   * {@link transactionAsync}).
   */
  private runGroup(group: PendingWrite[]): void {
    const started = performance.now();
    const savepoints = group.length > 1;
    const outcomes: WriteOutcome[] = [];
    let committed = 0;
    for (const [index, write] of group.entries()) {
      try {
        if (savepoints) this.statement('SAVEPOINT group_write').run();
        const value = write.fn();
        if (savepoints) this.statement('RELEASE group_write').run();
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
      if (this.connection.inTransaction) this.statement('ROLLBACK').run();
      this.failGroup(group, outcomes, undefined, started);
      return;
    }
    try {
      this.statement('COMMIT').run();
    } catch (error) {
      if (this.connection.inTransaction) this.statement('ROLLBACK').run();
      this.failGroup(group, outcomes, error, started);
      return;
    }
    this.groupStats.commits += 1;
    this.groupStats.writes += committed;
    this.groupStats.failed += group.length - committed;
    this.groupStats.ms += performance.now() - started;
    this.notifyCommit();
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
    if (!this.connection.inTransaction) return false;
    if (!savepoints) {
      this.statement('ROLLBACK').run();
      return true;
    }
    try {
      this.statement('ROLLBACK TO group_write').run();
      this.statement('RELEASE group_write').run();
      return true;
    } catch {
      if (this.connection.inTransaction) this.statement('ROLLBACK').run();
      return false;
    }
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
   * (renamed over by a restore), so this connection still reads the old, unlinked file. Opens
   * the new file read-only exactly as {@link open} does (our own, fully migrated file only),
   * then swaps it in: every later statement reads the new file (the statement cache is
   * dropped), the old connection is closed, and the {@link onReopen} listeners run. When the
   * new file is refused, nothing changes (the old connection stays) and the error is thrown.
   *
   * @throws Error `reopenReplacedFile needs a read-only connection to this server's own file`
   *   (read-write, pi-workflows file, `:memory:`) or `… needs no open transaction`;
   *   StoreError(integrity) when the new file is not a database, not our own file, or not
   *   migrated to this code's migrations (see {@link open})
   */
  reopenReplacedFile(): void {
    if (!this.readOnly || this.file.kind !== 'own' || this.path === ':memory:' || this.path === '') {
      throw new Error("reopenReplacedFile needs a read-only connection to this server's own file");
    }
    if (this.connection.inTransaction) throw new Error('reopenReplacedFile needs no open transaction');
    const fresh = StateDatabase.open({ path: this.path, readOnly: true, busyTimeoutMs: this.busyTimeoutMs });
    if (fresh.file.kind !== 'own') {
      fresh.close();
      throw new StoreError('integrity', `Workflow state database ${this.path} was replaced by a file of another kind (${fresh.file.kind})`);
    }
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
   * Calls `listener` after each {@link reopenReplacedFile}.
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
    if (this.groupTimer !== undefined) clearTimeout(this.groupTimer);
    this.groupTimer = undefined;
    if (this.groupImmediate !== undefined) clearImmediate(this.groupImmediate);
    this.groupImmediate = undefined;
    for (const write of this.writeQueue.splice(0)) write.reject(new TypeError('The database connection is not open'));
    if (this.connection.open) this.connection.close();
  }
}
