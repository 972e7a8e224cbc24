import type { Database as SqliteDatabase } from 'better-sqlite3';
import { StoreError } from '../errors.js';
import { allRows, getRow, hasTables, type Row } from './connection.js';

/** The most items one page holds (as pi's viewer pages). */
export const MAX_PAGE_ITEMS = 256;

/**
 * Which part of a list to read, by position (each list names its position: a sequence number
 * or an order number that never changes for an item once written).
 *
 * - `first` (with optional `after`): the first `first` items after position `after`;
 * - `last` (with optional `before`): the last `last` items before position `before`;
 * - `after` and `before` together bound both ends;
 * - neither `first` nor `last`: the tail page, the last {@link MAX_PAGE_ITEMS} items (what pi's
 *   viewer shows by default).
 *
 * `first`/`last` are integers from 0 to 256; `after`/`before` integers.
 */
export interface PageRequest {
  first?: number;
  after?: number;
  last?: number;
  before?: number;
}

/** One page of a list: items in position order, and where they sit in the whole list. */
export interface Page<T> {
  items: T[];
  /** Items in the whole list. */
  total: number;
  /** Index (0-based) of the first item in the whole list (pi's `start`); for an empty page, where it would be. */
  start: number;
  /** True when items exist before the page. */
  hasBefore: boolean;
  /** True when items exist after the page. */
  hasAfter: boolean;
}

/**
 * A list as SQL: `sql` selects the list's rows with a column `pos` (the position), over named
 * parameters; `tables` are the tables it reads (missing ones make the list empty).
 */
export interface ListQuery<T> {
  tables: readonly string[];
  sql: string;
  /**
   * The same rows' positions alone (a column `pos`, the same parameters), for counting: without
   * the joins and JSON the items need, so a count over a long list walks an index only. Default `sql`.
   */
  positions?: string;
  /**
   * For a list that only grows at its end (rows are appended with rising positions and never
   * changed below the last one, as pi-workflows writes trace events and session capture):
   * SQL for the identity of the list's first row (one row, column `id`, the same parameters:
   * a value a list written again from scratch would not repeat, like `events.event_seq`). Its
   * count is then kept per connection and extended by the rows after the last position counted
   * (see {@link countList}) instead of walking the whole list on every read.
   */
  firstRowId?: string;
  params: Record<string, unknown>;
  map: (row: Row) => T;
}

function checkCount(value: number | undefined, field: string): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < 0 || value > MAX_PAGE_ITEMS) {
    throw new StoreError('validation', `${field} must be an integer from 0 to ${MAX_PAGE_ITEMS}`, field);
  }
}

function checkPosition(value: number | undefined, field: string): void {
  if (value !== undefined && !Number.isSafeInteger(value)) throw new StoreError('validation', `${field} must be an integer`, field);
}

/**
 * @throws StoreError(validation) `first must be an integer from 0 to 256` (and for `last`),
 *   `after must be an integer` (and for `before`), `Give first or last, not both`
 */
function checkRequest(request: PageRequest): void {
  checkCount(request.first, 'first');
  checkCount(request.last, 'last');
  checkPosition(request.after, 'after');
  checkPosition(request.before, 'before');
  if (request.first !== undefined && request.last !== undefined) throw new StoreError('validation', 'Give first or last, not both', 'first');
}

/** A list's count as last read on a connection, with the ends it was read at. */
interface KnownCount {
  first: unknown;
  low: number;
  high: number;
  count: number;
}

/** Counts of append-only lists per connection, by their count SQL and parameters. */
const knownCounts = new WeakMap<SqliteDatabase, Map<string, KnownCount>>();

/**
 * The number of items of a list; 0 when a table it reads is missing. A list that only grows at
 * its end (`firstRowId`) is counted in full once per connection; later reads add the rows after
 * the highest position counted then — while the list still starts with the same row at the same
 * position and has not shrunk (else it is counted in full again). So a 10,000-item trace costs
 * two index probes per read, not a walk.
 */
export function countList(connection: SqliteDatabase, query: ListQuery<unknown>): number {
  if (!hasTables(connection, ...query.tables)) return 0;
  const positions = query.positions ?? query.sql;
  const countSql = `WITH list AS (${positions}) SELECT count(*) AS n FROM list`;
  const fullCount = (): number => getRow<{ n: number }>(connection, countSql, query.params)?.n ?? 0;
  if (query.firstRowId === undefined) return fullCount();
  const ends = getRow<{ low: number | null; high: number | null; first: unknown }>(
    connection,
    `WITH list AS NOT MATERIALIZED (${positions})
     SELECT (SELECT pos FROM list ORDER BY pos ASC LIMIT 1) AS low, (SELECT pos FROM list ORDER BY pos DESC LIMIT 1) AS high, (${query.firstRowId}) AS first`,
    query.params,
  );
  if (ends === undefined || ends.low === null || ends.high === null) return 0;
  let byQuery = knownCounts.get(connection);
  if (byQuery === undefined) {
    byQuery = new Map();
    knownCounts.set(connection, byQuery);
  }
  const key = `${countSql}\u0000${JSON.stringify(query.params)}`;
  const known = byQuery.get(key);
  let count: number;
  if (known !== undefined && known.first === ends.first && known.low === ends.low && ends.high >= known.high) {
    count = ends.high === known.high ? known.count : known.count + countWhere(connection, query, 'pos > @pagePos', known.high);
  } else {
    count = fullCount();
  }
  // Bounded: one entry per list read on this connection (a long-lived server reads a list per run).
  if (byQuery.size >= 4_096 && known === undefined) byQuery.clear();
  byQuery.set(key, { first: ends.first, low: ends.low, high: ends.high, count });
  return count;
}

/**
 * Reads one page of a list (see {@link PageRequest}); an empty page when a table it reads is
 * missing. With `counted` false only the items are read: `total` and `start` are -1 and
 * `hasBefore`/`hasAfter` false (no count of the whole list).
 *
 * @throws StoreError(validation) for a malformed request (see {@link PageRequest})
 */
export function readPage<T>(connection: SqliteDatabase, query: ListQuery<T>, request: PageRequest = {}, counted = true): Page<T> {
  checkRequest(request);
  if (!hasTables(connection, ...query.tables)) return { items: [], total: 0, start: 0, hasBefore: false, hasAfter: false };
  const forward = request.first !== undefined;
  const limit = request.first ?? request.last ?? MAX_PAGE_ITEMS;
  const bounds = [request.after === undefined ? '' : 'pos > @pageAfter', request.before === undefined ? '' : 'pos < @pageBefore'].filter((part) => part !== '');
  const where = bounds.length === 0 ? '' : `WHERE ${bounds.join(' AND ')}`;
  const params = { ...query.params, pageAfter: request.after ?? null, pageBefore: request.before ?? null, pageLimit: limit };
  const rows = allRows(connection, `WITH list AS (${query.sql}) SELECT * FROM list ${where} ORDER BY pos ${forward ? 'ASC' : 'DESC'} LIMIT @pageLimit`, params);
  if (!forward) rows.reverse();
  // Items alone (what a follower's changes need): no count of the whole list.
  if (!counted) return { items: rows.map(query.map), total: -1, start: -1, hasBefore: false, hasAfter: false };
  const total = countList(connection, query);
  const firstPos = rows[0]?.pos;
  let start: number;
  // A page at either end of the list (the newest page, the first page) needs no second count.
  if (!forward && request.before === undefined && request.after === undefined) start = total - rows.length;
  else if (forward && request.after === undefined) start = 0;
  else if (typeof firstPos === 'number') start = countWhere(connection, query, 'pos < @pagePos', firstPos);
  else if (forward && request.after !== undefined) start = countWhere(connection, query, 'pos <= @pagePos', request.after);
  else if (!forward && request.before !== undefined) start = countWhere(connection, query, 'pos < @pagePos', request.before);
  else start = forward ? 0 : total;
  return { items: rows.map(query.map), total, start, hasBefore: start > 0, hasAfter: start + rows.length < total };
}

/** The items of a list whose position meets `condition` against `position` (`@pagePos`). */
function countWhere(connection: SqliteDatabase, query: ListQuery<unknown>, condition: string, position: number): number {
  const params = { ...query.params, pagePos: position };
  return getRow<{ n: number }>(connection, `WITH list AS (${query.positions ?? query.sql}) SELECT count(*) AS n FROM list WHERE ${condition}`, params)?.n ?? 0;
}
