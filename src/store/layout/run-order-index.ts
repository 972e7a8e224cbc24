import type { StateDatabase } from '../database.js';
import type { LineageKind } from '../run-states.js';

/**
 * An in-process index of run order for files without this server's lineage indexes
 * (docs/PI-WORKFLOWS-FILES.md §7). A pi-workflows state file has no index on `runs.root_run_id`
 * nor on `runs.created_at`, and never gets one (its schema is never changed): without help, every
 * `lineage`, `latestRun`, lineage `totalCount` and run-list page would scan and sort the whole
 * `runs` table. This index keeps, in memory, the fields of each run that never change once it
 * is inserted (run id, root, parent, lineage kind, created_at) in list order and per chain, so
 * those reads only fetch the rows of their page by primary key.
 *
 * Kept fresh from the database itself: before each use, one statement reads `PRAGMA data_version`
 * (moves when another connection committed) and this connection's `total_changes()` (moves with
 * every row this server itself writes — on a pi-workflows file served read-write, our own
 * reservations, docs/PI-WORKFLOWS-FILES.md §7); when either moved, only runs with a larger rowid are
 * read, and a count and rowid sum of `runs` (plus the identity of the newest rowid) detect
 * deleted runs and reused rowids, which rebuild the index. Everything happens inside the
 * caller's read snapshot (`StateDatabase.readSnapshot`).
 *
 * Order is (created_at, run_id) as SQLite compares them; run ids are ASCII (docs/STORE-RULES.md §1), where
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

/** A keyset position: (epoch ms of the order's field, run id). */
export interface OrderKey {
  at: number;
  runId: string;
}

/** Compares two positions in (at, run id) order. */
export function compareOrder(a: OrderKey, b: OrderKey): number {
  if (a.at !== b.at) return a.at < b.at ? -1 : 1;
  return a.runId === b.runId ? 0 : a.runId < b.runId ? -1 : 1;
}

/** The created_at of an entry (the order of {@link RunOrderIndex.ordered} and chains). */
export const createdAtOf = (entry: IndexedRun): number => entry.createdAt;

/**
 * The first index of an array sorted by (`atOf(entry)`, run id) whose entry is greater than
 * `key` (or greater than or equal, with `inclusive`).
 */
export function lowerBound<T extends { runId: string }>(entries: readonly T[], key: OrderKey, inclusive: boolean, atOf: (entry: T) => number): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const entry = entries[mid] as T;
    const order = compareOrder({ at: atOf(entry), runId: entry.runId }, key);
    if (order < 0 || (order === 0 && !inclusive)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** One run in updated order: run_queue.updated_at (epoch ms) and the run's entry. */
export interface UpdatedRun {
  updatedAt: number;
  runId: string;
  entry: IndexedRun;
}

/** The updated_at of an {@link UpdatedRun}. */
export const updatedAtOf = (run: UpdatedRun): number => run.updatedAt;

function byUpdated(a: UpdatedRun, b: UpdatedRun): number {
  return compareOrder({ at: a.updatedAt, runId: a.runId }, { at: b.updatedAt, runId: b.runId });
}

function insertSorted(entries: IndexedRun[], entry: IndexedRun): void {
  const at = lowerBound(entries, { at: entry.createdAt, runId: entry.runId }, true, createdAtOf);
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

/** The index entry of a `runs` row. */
function entryOf(row: RunOrderRow): IndexedRun {
  return {
    rowid: row.rowid,
    runId: row.run_id,
    rootRunId: row.root_run_id,
    parentRunId: row.parent_run_id,
    lineageKind: row.lineage_kind,
    createdAt: row.created_at,
  };
}

/** See the module comment. One per store, over its connection. */
export class RunOrderIndex {
  private byId = new Map<string, IndexedRun>();
  private all: IndexedRun[] = [];
  private chains = new Map<string, IndexedRun[]>();
  private newest: IndexedRun | undefined;
  private rowidSum = 0;
  /** `<data_version>:<total_changes>` at the last look (undefined: look again). */
  private dataVersion: string | undefined;
  private stale = true;
  /** +1 each time {@link refresh} finds a commit it had not seen (or a forced rebuild). */
  private epoch = 0;
  private updated: { epoch: number; all: UpdatedRun[]; byId: Map<string, number> } | undefined;
  /** Full rebuilds so far (the first build included); for tests. */
  rebuilds = 0;
  /** Reads of the updated order so far; for tests. */
  updatedReads = 0;

  constructor(private readonly database: StateDatabase) {}

  /**
   * Brings the index up to the state the caller's snapshot sees (its own transaction's writes
   * included). Costs one statement when nothing changed.
   */
  refresh(): void {
    const row = this.database.get<{ v: number; c: number }>('SELECT (SELECT data_version FROM pragma_data_version) AS v, total_changes() AS c');
    const version = row === undefined ? undefined : `${row.v}:${row.c}`;
    if (!this.stale && version !== undefined && version === this.dataVersion) return;
    // Only this connection wrote since the last look (data_version unmoved): this server never
    // deletes a run, and a rolled-back one shows in the newest rowid, so the count can be skipped.
    const othersCommitted = this.dataVersion === undefined || row === undefined || this.dataVersion.split(':')[0] !== String(row.v);
    if (this.stale || !this.catchUp(othersCommitted)) this.rebuild();
    this.epoch += 1;
    this.stale = false;
    // Inside a write transaction what was read may still be rolled back: look again next time
    // (catchUp then finds a run gone by its newest rowid or its count, and rebuilds).
    this.dataVersion = this.database.inWriteTransaction ? undefined : version;
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

  /**
   * Every run in (run_queue.updated_at, run id) order (the UPDATED_AT order of
   * the run list). updated_at changes with every write of a run, so this order cannot be
   * caught up by rowid like the created order: it is read whole (one statement over
   * `run_queue (run_id, updated_at)` and a sort in memory) the first time it is asked for after
   * a commit the index had not seen, and kept until the next one. Call within the snapshot of
   * the last {@link refresh}.
   */
  updatedOrder(): readonly UpdatedRun[] {
    return this.updatedState().all;
  }

  /** A run's run_queue.updated_at in the current {@link updatedOrder}, or undefined. */
  updatedAt(runId: string): number | undefined {
    return this.updatedState().byId.get(runId);
  }

  private updatedState(): { all: UpdatedRun[]; byId: Map<string, number> } {
    if (this.updated?.epoch === this.epoch) return this.updated;
    const rows = this.database.all<{ run_id: string; updated_at: number }>('SELECT run_id, updated_at FROM run_queue');
    const all: UpdatedRun[] = [];
    const byId = new Map<string, number>();
    for (const row of rows) {
      const entry = this.byId.get(row.run_id);
      if (entry === undefined) continue; // not in the index's snapshot (cannot happen within one snapshot)
      all.push({ updatedAt: row.updated_at, runId: row.run_id, entry });
      byId.set(row.run_id, row.updated_at);
    }
    all.sort(byUpdated);
    this.updatedReads += 1;
    this.updated = { epoch: this.epoch, all, byId };
    return this.updated;
  }

  /** One run's entry, or undefined. */
  get(runId: string): IndexedRun | undefined {
    return this.byId.get(runId);
  }

  private add(row: RunOrderRow): boolean {
    if (this.byId.has(row.run_id)) return false;
    this.place(entryOf(row), false);
    return true;
  }

  /** Puts `entry` in the maps and lists; `inOrder`: it sorts after every entry already there. */
  private place(entry: IndexedRun, inOrder: boolean): void {
    this.byId.set(entry.runId, entry);
    let chain = this.chains.get(entry.rootRunId);
    if (chain === undefined) {
      chain = [];
      this.chains.set(entry.rootRunId, chain);
    }
    if (inOrder) {
      this.all.push(entry);
      chain.push(entry);
    } else {
      insertSorted(this.all, entry);
      insertSorted(chain, entry);
    }
    this.rowidSum += entry.rowid;
    if (this.newest === undefined || entry.rowid > this.newest.rowid) this.newest = entry;
  }

  /**
   * Reads the runs inserted since the last look; false when the index cannot be caught up.
   *
   * @param countRuns also compare the count and rowid sum of `runs` (a run deleted by another
   *   process)
   */
  private catchUp(countRuns: boolean): boolean {
    const newest = this.newest;
    if (newest !== undefined) {
      const row = this.database.get<{ run_id: string }>('SELECT run_id FROM runs WHERE rowid = ?', newest.rowid);
      if (row?.run_id !== newest.runId) return false; // the newest run is gone, or its rowid was reused
    }
    const rows = this.database.all<RunOrderRow>(`${SELECT_ROWS} WHERE rowid > ? ORDER BY rowid`, newest?.rowid ?? 0);
    for (const row of rows) if (!this.add(row)) return false;
    if (!countRuns) return true;
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
    for (const row of rows) this.place(entryOf(row), true);
    this.rebuilds += 1;
  }
}
