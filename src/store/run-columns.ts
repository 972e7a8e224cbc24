import { FILTER_JOINS } from './run-filter.js';
import { RUN_ROW_SELECT, toRunRecords, type RunRow, type WorkflowRunRecord } from './run-records.js';
import type { StoreContext } from './store-context.js';

/**
 * A run as a key-only page reads it: its run id alone (issue 15 item 2). What a page whose
 * selection asks for nothing but the run's id returns instead of the whole run record: read
 * from the order's index and the rows the filter needs, without the run record's thirteen
 * joined tables. It is not a run record: never give it where one is expected (a cache of
 * records, a resolver reading other fields).
 */
export interface RunIdOnly {
  runId: string;
}

/** The columns of a slice's rows its keyset keys read (the order's value and the run id). */
export type KeyColumns = Pick<RunRow, 'run_id' | 'run_created_at' | 'updated_at'>;

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
}

/** Whole run records (STORE.md §10): the joined row of `RUN_ROW_SELECT`, which joins every table. */
export const FULL_RUN_COLUMNS: RunColumns<WorkflowRunRecord> = {
  select: () => RUN_ROW_SELECT,
  toRuns: (context, rows) => toRunRecords(context, rows as RunRow[], context.clock()),
};

/**
 * Run ids only ({@link RunIdOnly}): `runs` and only the joins the conditions and the order
 * need (none for an unfiltered CREATED_AT page, which the covering `runs_created_idx` answers).
 * `updated_at` is read when the queue row is joined (the UPDATED_AT order's key).
 */
export const RUN_ID_COLUMNS: RunColumns<RunIdOnly> = {
  select: (joins) =>
    `SELECT r.run_id, r.created_at AS run_created_at${joins.includes(FILTER_JOINS.q) ? ', q.updated_at' : ''} FROM runs r ${joins.join(' ')}`,
  toRuns: (_context, rows) => rows.map((row) => ({ runId: row.run_id })),
};
