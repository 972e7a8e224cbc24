import { compareCodeUnits } from './canonical-json.js';
import { FULL_RUN_COLUMNS, RUN_ID_COLUMNS, type ChildRunKey, type KeyColumns, type RunColumns, type RunIdOnly } from './run-columns.js';
import { FILTER_JOINS, filterClause, type WorkflowRunFilter } from './run-filter.js';
import { RUN_ROW_SELECT, toRunRecords, type LineageKind, type RunRow, type WorkflowRunRecord } from './run-records.js';
import {
  DEFAULT_RUN_ORDER,
  type KeyedRun,
  type LineageKey,
  type LineageSliceRequest,
  type RunIdSlice,
  type RunKey,
  type RunOrderField,
  type RunSlice,
  type RunSliceRequest,
} from './run-slices.js';
import type { StoreContext } from './store-context.js';

/** Largest page any list returns (docs/GRAPHQL-CONTRACT.md). */
export const MAX_PAGE_SIZE = 100;

/** The SQL of an order: its value column, its run id column, and the index it walks. */
const ORDER_COLUMNS: Record<RunOrderField, { at: string; runId: string }> = {
  created_at: { at: 'r.created_at', runId: 'r.run_id' }, // runs_created_idx
  updated_at: { at: 'q.updated_at', runId: 'q.run_id' }, // run_queue_updated_idx (migration 0003)
};

/** The key of a row in an order. */
function runKeyOf(row: KeyColumns, field: RunOrderField): RunKey {
  return { at: field === 'created_at' ? row.run_created_at : row.updated_at, runId: row.run_id };
}

/**
 * Loads runs by id in one statement (plus one for mounted sources).
 *
 * @param now epoch ms the records' `claim` is live at (default the store's clock)
 * @returns records in the order of `runIds`; undefined for ids that do not exist
 */
export function getWorkflowRuns(context: StoreContext, runIds: readonly string[], now = context.clock()): Array<WorkflowRunRecord | undefined> {
  if (runIds.length === 0) return [];
  const rows = context.database.all<RunRow>(`${RUN_ROW_SELECT} WHERE r.run_id IN (SELECT value FROM json_each(?))`, JSON.stringify(runIds));
  const records = new Map(toRunRecords(context, rows, now).map((record) => [record.runId, record]));
  return runIds.map((runId) => records.get(runId));
}

/**
 * Reads a slice of runs in a run order by keyset (docs/GRAPHQL-CONTRACT.md `workflowRuns`), so
 * cursors stay stable under concurrent writes, through the file's layout (`FileLayout.runSlice`):
 * our own files walk an index of the order (`runs_created_idx`, `run_queue_updated_idx`) with
 * no sort ({@link sqlRunSlice}); pi-workflows state files go through the in-process run index
 * (`layout/indexed-run-queries.ts`).
 *
 * @param request keys, limit (at most {@link MAX_PAGE_SIZE} + 1 rows) and order
 * @returns the runs with their keys in list order, or in reverse list order when `inverted`
 */
export function listWorkflowRunSlice(context: StoreContext, filter: WorkflowRunFilter | undefined, request: RunSliceRequest): RunSlice {
  return runSlice(context, filter, request, FULL_RUN_COLUMNS);
}

/**
 * {@link listWorkflowRunSlice} reading run ids only: the same filter, order,
 * keyset bounds and limit, so the same runs with the same keys in the same order, but no
 * column of the run record beyond the id (an unfiltered CREATED_AT page is read from the
 * covering `runs_created_idx` alone). For a page whose selection asks for nothing else.
 *
 * @param request keys, limit (at most {@link MAX_PAGE_SIZE} + 1 rows) and order
 * @returns `[{ run: { runId }, key: { at, runId } }]` in list order, or reverse list order when `inverted`
 */
export function listWorkflowRunIdSlice(context: StoreContext, filter: WorkflowRunFilter | undefined, request: RunSliceRequest): RunIdSlice {
  return runSlice(context, filter, request, RUN_ID_COLUMNS);
}

/** A run-list slice in the given columns (see {@link listWorkflowRunSlice}). */
function runSlice<Run>(
  context: StoreContext,
  filter: WorkflowRunFilter | undefined,
  request: RunSliceRequest,
  columns: RunColumns<Run>,
): Array<KeyedRun<RunKey, Run>> {
  const limit = Math.max(0, Math.min(Math.trunc(request.limit), MAX_PAGE_SIZE + 1));
  return context.layout.runSlice(context, filter, { ...request, limit }, columns);
}

/**
 * {@link listWorkflowRunSlice} in SQL alone, on either kind of file. The keyset bounds are
 * row-value comparisons on (order column, run id), which SQLite turns into a range of the
 * order's index.
 *
 * @param request its `limit` is clamped to 0 … {@link MAX_PAGE_SIZE} + 1
 * @returns the runs with their keys in list order, or in reverse list order when `inverted`
 */
export function sqlRunSlice<Run>(
  context: StoreContext,
  filter: WorkflowRunFilter | undefined,
  request: RunSliceRequest,
  runColumns: RunColumns<Run>,
): Array<KeyedRun<RunKey, Run>> {
  const limit = Math.max(0, Math.min(Math.trunc(request.limit), MAX_PAGE_SIZE + 1));
  const order = request.order ?? DEFAULT_RUN_ORDER;
  const columns = ORDER_COLUMNS[order.field];
  const { sql, params, joins } = filterClause(filter, true, { walkOrder: order.field });
  // The UPDATED_AT order reads the queue row (first, as the table its index walks).
  const selectJoins = order.field === 'updated_at' ? [FILTER_JOINS.q, ...joins.filter((join) => join !== FILTER_JOINS.q)] : joins;
  // In list order, `after` comes first: below it when descending, above it when ascending.
  const descending = order.direction === 'desc';
  if (request.after !== undefined) {
    sql.push(`(${columns.at}, ${columns.runId}) ${descending ? '<' : '>'} (?, ?)`);
    params.push(request.after.at, request.after.runId);
  }
  if (request.before !== undefined) {
    sql.push(`(${columns.at}, ${columns.runId}) ${descending ? '>' : '<'} (?, ?)`);
    params.push(request.before.at, request.before.runId);
  }
  const whereSql = sql.length === 0 ? '' : `WHERE ${sql.join(' AND ')}`;
  const direction = descending !== request.inverted ? 'DESC' : 'ASC';
  const rows = context.database.all<KeyColumns>(
    `${runColumns.select(selectJoins)} ${whereSql} ORDER BY ${columns.at} ${direction}, ${columns.runId} ${direction} LIMIT ?`,
    ...params,
    limit,
  );
  return keyed(context, rows, runColumns, (row) => runKeyOf(row, order.field));
}

/** Runs of `rows` (one batch) in the given columns, paired with their keys, in the rows' order. */
export function keyed<Key, Run>(
  context: StoreContext,
  rows: KeyColumns[],
  columns: RunColumns<Run>,
  keyOfRow: (row: KeyColumns) => Key,
): Array<KeyedRun<Key, Run>> {
  return columns.toRuns(context, rows).map((run, index) => ({ run, key: keyOfRow(rows[index] as KeyColumns) }));
}

/** Number of runs matching `filter` (docs/GRAPHQL-CONTRACT.md `totalCount`: the whole filtered list, any order). */
export function countWorkflowRuns(context: StoreContext, filter: WorkflowRunFilter | undefined): number {
  return context.layout.runCount(context, filter);
}

/**
 * Direct children of many runs in one statement, oldest first (docs/GRAPHQL-CONTRACT.md `children`).
 *
 * @param kind only children of this lineage kind
 * @returns per parent id, its children in creation order (empty when none)
 */
export function childrenOfRuns(context: StoreContext, parentRunIds: readonly string[], kind?: LineageKind): Array<WorkflowRunRecord[]> {
  return childrenIn(context, parentRunIds, kind, FULL_RUN_COLUMNS);
}

/**
 * {@link childrenOfRuns} reading ids only, from `runs` alone.
 *
 * @returns per parent id, its children as `{ runId, rootRunId, parentRunId }` in creation order
 */
export function childIdsOfRuns(context: StoreContext, parentRunIds: readonly string[], kind?: LineageKind): Array<RunIdOnly[]> {
  return childrenIn(context, parentRunIds, kind, RUN_ID_COLUMNS);
}

/**
 * {@link childrenOfRuns} reading child and parent run ids only, from
 * `runs_parent_kind_idx` alone (no table row): for a caller that knows each parent's root run
 * id, which is each child's too (docs/STORE-RULES.md §6.1). The statement answers one row, every child as
 * JSON `[parent, run id, created_at]`: better-sqlite3 builds a JS object per result row (about
 * 1 µs each), which cost more than the index searches themselves (a page of 100 parents:
 * 31 µs of search, 118 µs with a row per child, 69 µs as one JSON row).
 *
 * @returns per parent id, its children as `{ runId, parentRunId }` in creation order
 */
export function childKeysOfRuns(context: StoreContext, parentRunIds: readonly string[], kind?: LineageKind): Array<ChildRunKey[]> {
  if (parentRunIds.length === 0) return [];
  const row = context.database.get<{ children: string }>(
    `SELECT json_group_array(json_array(r.parent_run_id, r.run_id, r.created_at)) AS children FROM runs r
     WHERE r.parent_run_id IN (SELECT value FROM json_each(?))${kind === undefined ? '' : ' AND r.lineage_kind = ?'}`,
    JSON.stringify(parentRunIds),
    ...(kind === undefined ? [] : [kind]),
  );
  const byParent = new Map<string, Array<[string, string, number]>>();
  for (const child of JSON.parse(row?.children ?? '[]') as Array<[string, string, number]>) {
    const list = byParent.get(child[0]);
    if (list === undefined) byParent.set(child[0], [child]);
    else list.push(child);
  }
  return parentRunIds.map((id) => {
    const list = byParent.get(id);
    if (list === undefined) return [];
    // Oldest first: created_at, then run id (as childrenIn orders them).
    if (list.length > 1) list.sort((a, b) => a[2] - b[2] || compareCodeUnits(a[1], b[1]));
    return list.map(([parentRunId, runId]) => ({ runId, parentRunId }));
  });
}

/**
 * Children of many runs in the given columns (see {@link childrenOfRuns}). The statement does
 * not sort: a parent has few children, and sorting each parent's few here costs less than the
 * temporary B-tree an ORDER BY over the whole batch takes (a quarter of the statement's time
 * for a page of 100 parents).
 */
function childrenIn<Run extends { parentRunId: string | null }>(
  context: StoreContext,
  parentRunIds: readonly string[],
  kind: LineageKind | undefined,
  columns: RunColumns<Run>,
): Array<Run[]> {
  if (parentRunIds.length === 0) return [];
  const rows = context.database.all<KeyColumns>(
    `${columns.select([])} WHERE r.parent_run_id IN (SELECT value FROM json_each(?))${kind === undefined ? '' : ' AND r.lineage_kind = ?'}`,
    JSON.stringify(parentRunIds),
    ...(kind === undefined ? [] : [kind]),
  );
  const runs = columns.toRuns(context, rows);
  // Row indexes by parent, then each parent's children oldest first (created_at, then run id).
  const byParent = new Map<string, number[]>();
  runs.forEach((run, index) => {
    const list = byParent.get(run.parentRunId as string);
    if (list === undefined) byParent.set(run.parentRunId as string, [index]);
    else list.push(index);
  });
  const byCreation = (a: number, b: number): number => {
    const left = rows[a] as KeyColumns;
    const right = rows[b] as KeyColumns;
    return left.run_created_at - right.run_created_at || compareCodeUnits(left.run_id, right.run_id);
  };
  return parentRunIds.map((id) => {
    const indexes = byParent.get(id);
    if (indexes === undefined) return [];
    if (indexes.length > 1) indexes.sort(byCreation);
    return indexes.map((index) => runs[index] as Run);
  });
}

/**
 * The newest run (created_at, then run id) of each chain (docs/GRAPHQL-CONTRACT.md
 * `latestRun`), in one statement with an index seek per chain on our own file
 * (`FileLayout.latestRunIds`).
 *
 * @returns per root run id, the newest run id of its chain (the root itself when alone)
 */
export function latestRunIdsOfChains(context: StoreContext, rootRunIds: readonly string[]): string[] {
  if (rootRunIds.length === 0) return [];
  return context.layout.latestRunIds(context, rootRunIds);
}

/**
 * Number of runs in each chain (docs/GRAPHQL-CONTRACT.md `lineage { totalCount }`), at a cost
 * that does not grow with the chain (`FileLayout.chainSizes`).
 *
 * @param rootRunIds root run ids (any id that is no chain's root counts 0)
 * @returns per root run id, in the given order, the number of runs with that root_run_id
 */
export function chainSizes(context: StoreContext, rootRunIds: readonly string[]): number[] {
  if (rootRunIds.length === 0) return [];
  return context.layout.chainSizes(context, rootRunIds);
}

/**
 * Reads a slice of a chain in lineage order by keyset (docs/GRAPHQL-CONTRACT.md `lineage`, both directions): the
 * root, then every other run of the chain by (created_at, run id). Index-ordered (the root by
 * its key, the others by `runs_root_created_idx`): no recursion, no sort of the whole chain.
 *
 * @param rootRunId the chain's root run id
 * @param request keys and limit (at most {@link MAX_PAGE_SIZE} + 1 rows)
 * @returns the runs with their keys in lineage order, or in reverse lineage order when `inverted`
 */
export function lineageSlice(context: StoreContext, rootRunId: string, request: LineageSliceRequest): Array<KeyedRun<LineageKey>> {
  return chainSlice(context, rootRunId, request, FULL_RUN_COLUMNS);
}

/**
 * {@link lineageSlice} reading run ids only: the same runs with the same
 * keys in the same order, read from `runs_root_created_idx` without the run record's joins.
 *
 * @returns `[{ run: { runId }, key }]` in lineage order, or reverse lineage order when `inverted`
 */
export function lineageIdSlice(context: StoreContext, rootRunId: string, request: LineageSliceRequest): Array<KeyedRun<LineageKey, RunIdOnly>> {
  return chainSlice(context, rootRunId, request, RUN_ID_COLUMNS);
}

/** A lineage slice in the given columns (see {@link lineageSlice}). */
function chainSlice<Run>(context: StoreContext, rootRunId: string, request: LineageSliceRequest, columns: RunColumns<Run>): Array<KeyedRun<LineageKey, Run>> {
  const limit = Math.max(0, Math.min(Math.trunc(request.limit), MAX_PAGE_SIZE + 1));
  return context.layout.lineageSlice(context, rootRunId, request, limit, columns);
}
