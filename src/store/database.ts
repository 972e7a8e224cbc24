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
    connection.pragma(`busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`);
    connection.prepare('SELECT count(*) AS n FROM sqlite_master').get();
  } catch (error) {
    connection.close();
    throw new StoreError('integrity', `Not a workflow state database: ${options.path} (${(error as Error).message})`);
  }
  return connection;
}

/**
 * True when `error` is SQLite's unique-index violation (`SQLITE_CONSTRAINT_UNIQUE`, raised by a
 * UNIQUE column or a unique index; a primary key raises `SQLITE_CONSTRAINT_PRIMARYKEY`, a
 * trigger `SQLITE_CONSTRAINT_TRIGGER`). Decided by better-sqlite3's `SqliteError.code`, never
 * by the message text (issue 11 item 7). Which index was hit is for the caller to establish
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
  /** Open read-only: no migration, no pruning, every write refused (STORE.md §1). */
  readOnly?: boolean;
  /** SQLite busy timeout in ms (default 5000, STORE.md §1). */
  busyTimeoutMs?: number;
}

/**
 * One SQLite connection with the store's pragmas, a statement cache, a statement counter and
 * a transaction helper that joins an open transaction (STORE.md §1, §13.8).
 *
 * All SQL of the project runs through {@link run}, {@link get}, {@link all} and
 * {@link exec}; {@link statementCount} counts those calls so tests can bound them.
 */
export class StateDatabase {
  /** The better-sqlite3 connection. */
  readonly connection: SqliteDatabase;
  /** Path the database was opened at. */
  readonly path: string;
  /** True when opened read-only (asked for, or a pi-workflows state file). */
  readonly readOnly: boolean;
  /** What kind of file this is: our own, or a pi-workflows state file (issue 12). */
  readonly file: StateFile;
  /** Number of SQL statements executed through this object since open (or {@link resetStatementCount}). */
  statementCount = 0;
  /** Rounds of `BEGIN IMMEDIATE` tried again after `SQLITE_BUSY` since open (see {@link transaction}). */
  beginRetries = 0;
  private readonly cache = new Map<string, Statement>();
  private readonly commitListeners = new Set<() => void>();

  private constructor(connection: SqliteDatabase, path: string, readOnly: boolean, file: StateFile) {
    this.connection = connection;
    this.path = path;
    this.readOnly = readOnly;
    this.file = file;
  }

  /**
   * Opens a state database after deciding what kind of file it is (issue 12 item 1):
   *
   * - this server's own file (or a new one): read-write opens migrate it and set WAL,
   *   `synchronous=FULL`, `foreign_keys=ON` and the busy timeout (STORE.md §1); read-only opens
   *   require it to be fully migrated;
   * - a pi-workflows state file: opened read-only whatever `readOnly` says, with `query_only`
   *   on, no migration and no pragma that writes; every table and column the read side uses
   *   is checked first (`read-side-schema.ts`);
   * - anything else: refused before anything is written.
   *
   * A read-write request on a file whose header carries the pi-workflows application id (or
   * whose WAL holds frames the header may not show yet) first looks with a read-only
   * connection: closing a read-write connection would checkpoint someone else's WAL into it.
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
    const lookFirst =
      !requestedReadOnly && onDisk && (headerApplicationId(path) === PI_WORKFLOWS_APPLICATION_ID || walHasFrames(path));
    let readOnly = requestedReadOnly || lookFirst;
    let connection = connect(options, readOnly);
    let file: StateFile;
    try {
      const detected = detectStateFile(connection, path);
      if (detected.kind === 'pi-workflows') {
        if (!readOnly) {
          // Only a stale header gets here: look again through a read-only connection.
          connection.close();
          readOnly = true;
          connection = connect(options, true);
          const again = detectStateFile(connection, path);
          if (again.kind !== 'pi-workflows') throw new StoreError('integrity', `Workflow state database ${path} changed kind while it was opened`);
        }
        connection.pragma('query_only = ON');
        connection.pragma('foreign_keys = ON');
        return new StateDatabase(connection, path, true, checkPiWorkflowsReadSide(connection, path, detected));
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
    const database = new StateDatabase(connection, path, readOnly, file);
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

  /** True while a transaction is open on this connection. */
  get inTransaction(): boolean {
    return this.connection.inTransaction;
  }

  /**
   * Runs `fn` inside one `BEGIN IMMEDIATE` transaction, or inside the caller's open
   * transaction (helpers join, STORE.md §13.8). A thrown error rolls everything back.
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
    for (const listener of this.commitListeners) {
      try {
        listener();
      } catch {
        // A listener's failure must not turn a committed write into a reported failure.
      }
    }
    return result;
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
    return this.connection.transaction(fn).deferred();
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

  /** Closes the connection (a WAL checkpoint happens on close). Idempotent. */
  close(): void {
    if (this.connection.open) this.connection.close();
  }
}
