import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';

/** Prepared statements of one connection, by SQL text (prepared once, reused). */
const statements = new WeakMap<SqliteDatabase, Map<string, Statement>>();

/** The tables of one connection's file, read once from `sqlite_schema`. */
const tables = new WeakMap<SqliteDatabase, ReadonlySet<string>>();

/** The columns of each table of one connection's file, read once per table with `PRAGMA table_info`. */
const columns = new WeakMap<SqliteDatabase, Map<string, ReadonlySet<string>>>();

/** A row as better-sqlite3 returns it. */
export type Row = Record<string, unknown>;

/** Named (`@name`) or positional parameters of a statement. */
export type Params = Record<string, unknown> | readonly unknown[];

/** The cached prepared statement of `sql` on `connection`. */
export function prepared(connection: SqliteDatabase, sql: string): Statement {
  let cache = statements.get(connection);
  if (cache === undefined) {
    cache = new Map();
    statements.set(connection, cache);
  }
  let statement = cache.get(sql);
  if (statement === undefined) {
    statement = connection.prepare(sql);
    cache.set(sql, statement);
  }
  return statement;
}

function bind(params: Params): unknown[] {
  return Array.isArray(params) ? [...(params as readonly unknown[])] : [params];
}

/** One row of `sql`, or undefined. */
export function getRow<T extends Row = Row>(connection: SqliteDatabase, sql: string, params: Params = []): T | undefined {
  return prepared(connection, sql).get(...bind(params)) as T | undefined;
}

/** Every row of `sql`. */
export function allRows<T extends Row = Row>(connection: SqliteDatabase, sql: string, params: Params = []): T[] {
  return prepared(connection, sql).all(...bind(params)) as T[];
}

/**
 * True when the file has every table named. The table list is read from `sqlite_schema` once
 * per connection: a missing table reads as an empty list, never as an SQL error
 * (docs/PI-WORKFLOWS-FILES.md §9).
 */
export function hasTables(connection: SqliteDatabase, ...names: string[]): boolean {
  let present = tables.get(connection);
  if (present === undefined) {
    const rows = connection.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as Array<{ name: string }>;
    present = new Set(rows.map((row) => row.name));
    tables.set(connection, present);
  }
  for (const name of names) if (!present.has(name)) return false;
  return true;
}

/** True when table `table` has every column named (false when the table is missing). */
export function hasColumns(connection: SqliteDatabase, table: string, ...names: string[]): boolean {
  if (!hasTables(connection, table)) return false;
  let byTable = columns.get(connection);
  if (byTable === undefined) {
    byTable = new Map();
    columns.set(connection, byTable);
  }
  let present = byTable.get(table);
  if (present === undefined) {
    const rows = connection.prepare('SELECT name FROM pragma_table_info(?)').all(table) as Array<{ name: string }>;
    present = new Set(rows.map((row) => row.name));
    byTable.set(table, present);
  }
  for (const name of names) if (!present.has(name)) return false;
  return true;
}

/** `<prefix><column>` when the table has the column, else `NULL` (a column older files lack reads as NULL). */
export function columnOrNull(connection: SqliteDatabase, table: string, column: string, prefix = ''): string {
  return hasColumns(connection, table, column) ? `${prefix}${column}` : 'NULL';
}

/**
 * Runs `fn` inside one deferred read transaction (`BEGIN DEFERRED … COMMIT`): every read in it
 * sees the same snapshot of the file — in WAL mode, a commit of another connection after the
 * first read does not show until `fn` returns. Inside a transaction already open on this
 * connection, `fn` joins it. The run view's revision (`viewer_runs.presentation_revision`) and
 * every part read with it agree this way (docs/PI-WORKFLOWS-FILES.md §9).
 *
 * @returns what `fn` returns
 * @throws whatever `fn` throws (the transaction is rolled back, which for a read changes nothing)
 */
export function readSnapshot<T>(connection: SqliteDatabase, fn: () => T): T {
  if (connection.inTransaction) return fn();
  return connection.transaction(fn).deferred();
}
