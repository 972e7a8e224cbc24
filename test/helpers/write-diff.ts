/**
 * What one call wrote to a database: every table read before and after, rows matched by
 * primary key (rowid for a table without one), and per table the rows inserted, the rows
 * updated with the columns that changed, and the rows deleted — `sqlite_sequence` included.
 * The per-operation write tests (test/store/pi-workflows-writes.test.ts) compare these with
 * docs/PI-WORKFLOWS-FILES.md §5.
 *
 * Values are compared as SQLite returns them, BLOBs as lowercase hex strings.
 */
import type Database from 'better-sqlite3';

/** One row, BLOB columns as hex strings. */
export type Row = Record<string, unknown>;

/** An updated row: its key and, per changed column, the value before and after. */
export interface RowUpdate {
  key: string;
  before: Row;
  after: Row;
  /** Names of the columns whose value changed, sorted. */
  columns: string[];
}

/** The writes of one call to one table. */
export interface TableWrites {
  inserted: Row[];
  updated: RowUpdate[];
  deleted: Row[];
}

/** Table name → its writes; only tables something was written to. */
export type WriteDiff = Record<string, TableWrites>;

/** Every row of every table, by key. */
export type DatabaseState = Map<string, Map<string, Row>>;

function normalize(row: Row): Row {
  const out: Row = {};
  for (const [column, value] of Object.entries(row)) out[column] = Buffer.isBuffer(value) ? value.toString('hex') : value;
  return out;
}

/**
 * Reads every table (and `sqlite_sequence`) except those named in `exclude`; rows of
 * `sqlite_sequence` naming an excluded table are left out too.
 */
export function readDatabaseState(connection: Database.Database, exclude: ReadonlySet<string> = new Set()): DatabaseState {
  const state: DatabaseState = new Map();
  const tables = connection.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'table' ORDER BY name").all() as Array<{
    name: string;
    sql: string | null;
  }>;
  for (const { name, sql } of tables) {
    if (exclude.has(name)) continue;
    const columns = connection.prepare('SELECT name, pk FROM pragma_table_info(?) ORDER BY cid').all(name) as Array<{ name: string; pk: number }>;
    const keyColumns =
      name === 'sqlite_sequence'
        ? ['name']
        : columns
            .filter((column) => column.pk > 0)
            .sort((a, b) => a.pk - b.pk)
            .map((column) => column.name);
    const withoutRowid = /WITHOUT\s+ROWID/i.test(sql ?? '');
    const useRowid = keyColumns.length === 0 && !withoutRowid;
    const select = useRowid ? `SELECT rowid AS "__rowid", * FROM "${name}"` : `SELECT * FROM "${name}"`;
    const rows = new Map<string, Row>();
    for (const raw of connection.prepare(select).all() as Row[]) {
      const row = normalize(raw);
      if (name === 'sqlite_sequence' && exclude.has(String(row.name))) continue;
      const key = useRowid ? String(row.__rowid) : keyColumns.map((column) => String(row[column])).join('|');
      if (useRowid) delete row.__rowid;
      rows.set(key, row);
    }
    state.set(name, rows);
  }
  return state;
}

/** The rows `after` has that `before` lacks, the rows changed and the rows gone, per table. */
export function diffDatabaseStates(before: DatabaseState, after: DatabaseState): WriteDiff {
  const diff: WriteDiff = {};
  const names = new Set([...before.keys(), ...after.keys()]);
  for (const name of [...names].sort()) {
    const old = before.get(name) ?? new Map<string, Row>();
    const now = after.get(name) ?? new Map<string, Row>();
    const writes: TableWrites = { inserted: [], updated: [], deleted: [] };
    for (const [key, row] of now) {
      const previous = old.get(key);
      if (previous === undefined) {
        writes.inserted.push(row);
        continue;
      }
      const columns = Object.keys(row)
        .filter((column) => row[column] !== previous[column])
        .sort();
      if (columns.length > 0) writes.updated.push({ key, before: previous, after: row, columns });
    }
    for (const [key, row] of old) if (!now.has(key)) writes.deleted.push(row);
    if (writes.inserted.length + writes.updated.length + writes.deleted.length > 0) diff[name] = writes;
  }
  return diff;
}

/**
 * Runs `fn` and returns what it returned with what it wrote.
 *
 * @param exclude tables left out of both reads (and their `sqlite_sequence` rows)
 */
export function diffCall<T>(connection: Database.Database, fn: () => T, exclude: ReadonlySet<string> = new Set()): { result: T; diff: WriteDiff } {
  const before = readDatabaseState(connection, exclude);
  const result = fn();
  return { result, diff: diffDatabaseStates(before, readDatabaseState(connection, exclude)) };
}

/**
 * A diff in short: per table, `+n` rows inserted, one entry per updated row with the
 * columns that changed, `-n` rows deleted (keys left out when zero).
 */
export function writeShape(diff: WriteDiff): Record<string, { inserted?: number; updated?: string[][]; deleted?: number }> {
  const shape: Record<string, { inserted?: number; updated?: string[][]; deleted?: number }> = {};
  for (const [name, writes] of Object.entries(diff)) {
    shape[name] = {
      ...(writes.inserted.length > 0 ? { inserted: writes.inserted.length } : {}),
      ...(writes.updated.length > 0 ? { updated: writes.updated.map((update) => update.columns) } : {}),
      ...(writes.deleted.length > 0 ? { deleted: writes.deleted.length } : {}),
    };
  }
  return shape;
}
