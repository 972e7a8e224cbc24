import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Database as SqliteDatabase } from 'better-sqlite3';
import { StoreError } from './errors.js';

/**
 * One better-sqlite3 connection as the store opens it, and what SQLite's errors mean to the
 * store (docs/STORE-RULES.md §1). Which settings a connection then gets depends on the kind of
 * file: `layout/open-file.ts`.
 */

/** Options for `StateDatabase.open`. */
export interface StateDatabaseOptions {
  /** Path of the SQLite file, or `:memory:`. */
  path: string;
  /** Open read-only: no migration, no pruning, every write refused (docs/STORE-RULES.md §1). */
  readOnly?: boolean;
  /** SQLite busy timeout in ms (default 5000, docs/STORE-RULES.md §1). */
  busyTimeoutMs?: number;
}

/** The busy timeout asked for, ms (default 5000, docs/STORE-RULES.md §1). */
export function busyTimeoutOf(options: StateDatabaseOptions): number {
  return Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000));
}

/**
 * Opens one connection and makes its first real read (a file that is not a database fails
 * there). Sets only the busy timeout, which writes nothing.
 *
 * @param readOnly open read-only (the file must then exist)
 * @throws StoreError(integrity) `Cannot open workflow state database <path>: …`,
 *   `Not a workflow state database: <path> (…)`
 */
export function connect(options: StateDatabaseOptions, readOnly: boolean): SqliteDatabase {
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
 * Opens the file at `path` once and closes it, so that SQLite, finding no other connection,
 * checkpoints the write-ahead log into the file and removes its `-wal` and `-shm` files (as the
 * last connection to close does). For the last process of several that closed their
 * connections at the same moment — each found another still open, so none removed them
 * (docs/OPERATIONS.md "Workers"). Never creates a file; a file it cannot open read-write, or
 * one another process still has open, is left as it is.
 *
 * @returns true when no `-wal` file remains
 */
export function closeWriteAheadLog(path: string): boolean {
  if (path === '' || path === ':memory:') return true;
  try {
    const connection = new Database(path, { fileMustExist: true });
    try {
      // The first read opens the write-ahead log; closing it as the only connection ends it.
      connection.prepare('SELECT count(*) AS n FROM sqlite_master').get();
    } finally {
      connection.close();
    }
  } catch {
    // Missing, read-only or not a database: nothing to tidy.
  }
  return !existsSync(`${path}-wal`);
}

/** True when `error` is SQLite's `SQLITE_BUSY` (or one of its extended codes): another connection holds the lock. */
export function isBusyError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
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

/**
 * Rounds of `BEGIN IMMEDIATE`, each waiting up to the busy timeout, before `SQLITE_BUSY`
 * reaches the caller of `StateDatabase.transaction` (and the deadline of a waiting
 * `StateDatabase.transactionAsync` write: this many busy timeouts).
 */
export const BEGIN_ATTEMPTS = 3;
