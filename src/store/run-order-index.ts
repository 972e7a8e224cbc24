import type { StateDatabase } from './database.js';
import type { LineageKind } from './run-records.js';

/**
 * An in-process index of run order for files without this server's lineage indexes (issue 12
 * item 5). A pi-workflows state file has no index on `runs.root_run_id` nor on
 * `runs.created_at`, and is never changed (not even by an index): without help, every
 * `lineage`, `latestRun`, lineage `totalCount` and run-list page would scan and sort the whole
 * `runs` table. This index keeps, in memory, the fields of each run that never change once it
 * is inserted (run id, root, parent, lineage kind, created_at) in list order and per chain, so
 * those reads only fetch the rows of their page by primary key.
 *
 * Kept fresh from the database itself: before each use, one `PRAGMA data_version` tells whether
 * another connection committed since the last look; then only runs with a larger rowid are
 * read, and a count and rowid sum of `runs` (plus the identity of the newest rowid) detect
 * deleted runs and reused rowids, which rebuild the index. Everything happens inside the
 * caller's read snapshot (`StateDatabase.readSnapshot`).
 *
 * Order is (created_at, run_id) as SQLite compares them; run ids are ASCII (STORE.md §1), where
 * JavaScript string order equals SQLite's BINARY order.
 */

/** One run's place in list and lineage order: the fields that never change once it is inserted. */
export interface IndexedRun {
  rowid: number;
  runId: string;
  rootRunId: string;
  parentRunId: string | null;
  lineageKind: LineageKind | null;
  /** runs.created_at, epoch ms. */
  createdAt: number;
}

/** A keyset position: (created_at epoch ms, run id). */
export interface OrderKey {
  createdAt: number;
  runId: string;
}

/** Compares two positions in (created_at, run id) order. */
export function compareOrder(a: OrderKey, b: OrderKey): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1;
  return a.runId === b.runId ? 0 : a.runId < b.runId ? -1 : 1;
}

/**
 * The first index of a sorted array whose entry is greater than `key` (or greater than or
 * equal, with `inclusive`).
 */
export function lowerBound(entries: readonly OrderKey[], key: OrderKey, inclusive: boolean): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const order = compareOrder(entries[mid] as OrderKey, key);
    if (order < 0 || (order === 0 && !inclusive)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function insertSorted(entries: IndexedRun[], entry: IndexedRun): void {
  const at = lowerBound(entries, entry, true);
  if (at === entries.length) entries.push(entry);
  else entries.splice(at, 0, entry);
}

interface RunOrderRow {
  rowid: number;
  run_id: string;
  root_run_id: string;
  parent_run_id: string | null;
  lineage_kind: LineageKind | null;
  created_at: number;
}

const SELECT_ROWS = 'SELECT rowid AS rowid, run_id, root_run_id, parent_run_id, lineage_kind, created_at FROM runs';

/** See the module comment. One per store, over its connection. */
export class RunOrderIndex {
  private byId = new Map<string, IndexedRun>();
  private all: IndexedRun[] = [];
  private chains = new Map<string, IndexedRun[]>();
  private newest: IndexedRun | undefined;
  private rowidSum = 0;
  private dataVersion: number | undefined;
  private stale = true;
  /** Full rebuilds so far (the first build included); for tests. */
  rebuilds = 0;

  constructor(private readonly database: StateDatabase) {}

  /**
   * Brings the index up to the committed state the caller's snapshot sees. Costs one
   * `PRAGMA data_version` when nothing changed.
   */
  refresh(): void {
    const version = this.database.get<{ data_version: number }>('PRAGMA data_version')?.data_version;
    if (!this.stale && version !== undefined && version === this.dataVersion) return;
    if (this.stale || !this.catchUp()) this.rebuild();
    this.stale = false;
    this.dataVersion = version;
  }

  /** Forces a rebuild at the next {@link refresh} (a listed run turned out to be gone). */
  markStale(): void {
    this.stale = true;
  }

  /** Number of runs. */
  get size(): number {
    return this.all.length;
  }

  /** Every run, in (created_at, run id) order. */
  ordered(): readonly IndexedRun[] {
    return this.all;
  }

  /** The runs of a chain (root included), in (created_at, run id) order; empty for an unknown root. */
  chain(rootRunId: string): readonly IndexedRun[] {
    return this.chains.get(rootRunId) ?? [];
  }

  /** One run's entry, or undefined. */
  get(runId: string): IndexedRun | undefined {
    return this.byId.get(runId);
  }

  private add(row: RunOrderRow): boolean {
    if (this.byId.has(row.run_id)) return false;
    const entry: IndexedRun = {
      rowid: row.rowid,
      runId: row.run_id,
      rootRunId: row.root_run_id,
      parentRunId: row.parent_run_id,
      lineageKind: row.lineage_kind,
      createdAt: row.created_at,
    };
    this.byId.set(entry.runId, entry);
    insertSorted(this.all, entry);
    let chain = this.chains.get(entry.rootRunId);
    if (chain === undefined) {
      chain = [];
      this.chains.set(entry.rootRunId, chain);
    }
    insertSorted(chain, entry);
    this.rowidSum += entry.rowid;
    if (this.newest === undefined || entry.rowid > this.newest.rowid) this.newest = entry;
    return true;
  }

  /** Reads the runs inserted since the last look; false when the index cannot be caught up. */
  private catchUp(): boolean {
    const newest = this.newest;
    if (newest !== undefined) {
      const row = this.database.get<{ run_id: string }>('SELECT run_id FROM runs WHERE rowid = ?', newest.rowid);
      if (row?.run_id !== newest.runId) return false; // the newest run is gone, or its rowid was reused
    }
    const rows = this.database.all<RunOrderRow>(`${SELECT_ROWS} WHERE rowid > ? ORDER BY rowid`, newest?.rowid ?? 0);
    for (const row of rows) if (!this.add(row)) return false;
    const tally = this.database.get<{ n: number; s: number }>('SELECT count(*) AS n, total(rowid) AS s FROM runs');
    return tally !== undefined && tally.n === this.all.length && tally.s === this.rowidSum;
  }

  private rebuild(): void {
    this.byId = new Map();
    this.all = [];
    this.chains = new Map();
    this.newest = undefined;
    this.rowidSum = 0;
    const rows = this.database.all<RunOrderRow>(`${SELECT_ROWS} ORDER BY created_at, run_id`);
    for (const row of rows) {
      const entry: IndexedRun = {
        rowid: row.rowid,
        runId: row.run_id,
        rootRunId: row.root_run_id,
        parentRunId: row.parent_run_id,
        lineageKind: row.lineage_kind,
        createdAt: row.created_at,
      };
      this.byId.set(entry.runId, entry);
      this.all.push(entry); // already in order
      let chain = this.chains.get(entry.rootRunId);
      if (chain === undefined) {
        chain = [];
        this.chains.set(entry.rootRunId, chain);
      }
      chain.push(entry);
      this.rowidSum += entry.rowid;
      if (this.newest === undefined || entry.rowid > this.newest.rowid) this.newest = entry;
    }
    this.rebuilds += 1;
  }
}
