import { FILTER_JOINS } from './run-filter.js';
import type { IndexedRun } from './layout/run-order-index.js';
import { RUN_ROW_SELECT, toRunRecords, type RunRow, type WorkflowRunRecord } from './run-records.js';
import type { StoreContext } from './store-context.js';

/**
 * A run as a key-only page reads it: its ids alone: run id, root run id and
 * parent run id (null for a root). What a page whose selection asks for nothing but ids and
 * lineage links returns instead of the whole run record: read from `runs` and the rows the
 * filter needs, without the run record's thirteen joined tables. It is not a run record:
 * never give it where one is expected (a cache of records, a resolver reading other fields).
 */
export interface RunIdOnly {
  runId: string;
  rootRunId: string;
  parentRunId: string | null;
}

/** The columns of a slice's rows its keyset keys read (the order's value and the run id). */
export type KeyColumns = Pick<RunRow, 'run_id' | 'run_created_at' | 'updated_at'>;

/** The columns {@link RUN_ID_COLUMNS} reads. */
type IdColumns = KeyColumns & Pick<RunRow, 'root_run_id' | 'parent_run_id'>;

/**
 * What a slice (run list, lineage) reads of each run and how a batch of its rows becomes the
 * runs it returns. Every query of a slice is written `${select(joins)} WHERE …` with the
 * aliases of {@link FILTER_JOINS} (`r` the run, `q` its queue row, `b` its binding, `d` its
 * definition); the conditions, order and keyset bounds are the same SQL for every reading.
 */
export interface RunColumns<Run> {
  /**
   * `SELECT … FROM runs r …` with at least the columns of {@link KeyColumns} and the joins
   * given (those the conditions and the order need; a reading may join more).
   */
  select(joins: readonly string[]): string;
  /** The runs of one batch of rows, in the rows' order. */
  toRuns(context: StoreContext, rows: KeyColumns[]): Run[];
  /**
   * The run of an in-process run index entry, when the reading needs nothing the index lacks:
   * an unfiltered slice through the index then reads no row (docs/PI-WORKFLOWS-FILES.md §7).
   */
  fromIndex?: (entry: IndexedRun) => Run;
}

/** Whole run records (docs/STORE-RULES.md §10): the joined row of `RUN_ROW_SELECT`, which joins every table. */
export const FULL_RUN_COLUMNS: RunColumns<WorkflowRunRecord> = {
  select: () => RUN_ROW_SELECT,
  toRuns: (context, rows) => toRunRecords(context, rows as RunRow[], context.clock()),
};

/**
 * Run ids only ({@link RunIdOnly}): `runs` and only the joins the conditions and the order
 * need (none for an unfiltered CREATED_AT page). `updated_at` is read when the queue row is
 * joined (the UPDATED_AT order's key).
 */
export const RUN_ID_COLUMNS: RunColumns<RunIdOnly> = {
  select: (joins) =>
    `SELECT r.run_id, r.root_run_id, r.parent_run_id, r.created_at AS run_created_at${joins.includes(FILTER_JOINS.q) ? ', q.updated_at' : ''} FROM runs r ${joins.join(' ')}`,
  toRuns: (_context, rows) => (rows as IdColumns[]).map((row) => ({ runId: row.run_id, rootRunId: row.root_run_id, parentRunId: row.parent_run_id })),
  fromIndex: (entry) => ({ runId: entry.runId, rootRunId: entry.rootRunId, parentRunId: entry.parentRunId }),
};

/**
 * A child run as `childKeysOfRuns` reads it: its run id and its parent's.
 * Its root run id is its parent's (docs/STORE-RULES.md §6.1: root_run_id := parent's root_run_id), which
 * the caller knows; not a run record.
 */
export interface ChildRunKey {
  runId: string;
  parentRunId: string;
}
