import type { LineageKind, QueueStatus, RunStatus, WorkflowRunRecord } from './run-records.js';
import type { StoreContext } from './store-context.js';

/**
 * Filter of `listWorkflowRunSlice` and `countWorkflowRuns`; all parts optional, combined with AND
 * (docs/GRAPHQL-CONTRACT.md `WorkflowRunFilter`; the time ranges and `search`: docs/GRAPHQL-CONTRACT.md "Run-list search and order").
 * This file is the one home of what each part means: the SQL of
 * {@link filterClause} and the record predicate {@link matchesFilter} say the same.
 */
export interface WorkflowRunFilter {
  status?: readonly RunStatus[];
  queueStatus?: readonly QueueStatus[];
  rootRunId?: string;
  parentRunId?: string;
  lineageKind?: LineageKind;
  /** Matches interactive runs bound to this session (headless runs show no origin session). */
  originSessionId?: string;
  workflowName?: string;
  /** Runs created strictly after this instant (epoch ms; exclusive). */
  createdAfter?: number;
  /** Runs created strictly before this instant (epoch ms; exclusive). */
  createdBefore?: number;
  /** Runs whose `updatedAt` is strictly after this instant (epoch ms; exclusive). */
  updatedAfter?: number;
  /** Runs whose `updatedAt` is strictly before this instant (epoch ms; exclusive). */
  updatedBefore?: number;
  /**
   * Runs whose run id or workflow name contains this text, ASCII case-insensitively (A–Z equal
   * a–z; other characters, `%` and `_` included, match only themselves). The empty text matches
   * every run.
   */
  search?: string;
}

/** Longest accepted `search` text, in characters (docs/GRAPHQL-CONTRACT.md "Run-list search and order"). */
export const MAX_SEARCH_LENGTH = 256;

/** The rows a filter condition may read besides `runs r`, as joins of `runs r`. */
export const FILTER_JOINS = {
  q: 'JOIN run_queue q ON q.run_id = r.run_id',
  b: 'JOIN run_bindings b ON b.run_id = r.run_id',
  d: 'JOIN workflow_definitions d ON d.definition_digest = r.definition_digest',
} as const;

/**
 * SQL conditions on the run alias `r` and the rows joined to it (`q` its queue row, `b` its
 * binding, `d` its definition: `RUN_ROW_SELECT` joins them all) and their parameters.
 */
export interface FilterSql {
  sql: string[];
  params: unknown[];
  /** The joins of {@link FILTER_JOINS} the conditions need in a query over `runs r` alone. */
  joins: string[];
}

/** How {@link filterClause} writes the conditions. */
export interface FilterClauseOptions {
  /** Leave out `createdAfter`, `createdBefore`: an in-process run index answers them. */
  createdRangeAnswered?: boolean;
  /** Leave out `updatedAfter`, `updatedBefore`: an in-process run index answers them. */
  updatedRangeAnswered?: boolean;
  /**
   * The order a page walks (by its index): conditions on other columns are written
   * `+column` so that SQLite never prefers their index and sorts (`USE TEMP B-TREE`); the page
   * stays a walk of the order's index that stops when it is full. Root and parent stay
   * indexable (a chain, or the one or two children of a run, is found by its index).
   */
  walkOrder?: 'created_at' | 'updated_at';
}

/**
 * The lower-case form `search` compares: ASCII letters folded, everything else kept, exactly
 * as SQLite's built-in `lower()` does (better-sqlite3 is built without ICU).
 */
export function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/**
 * The conditions of a filter as SQL (see {@link FilterSql}).
 *
 * Times compare `runs.created_at` (written with the queue row's `created_at`, the `createdAt`
 * a client sees) and `run_queue.updated_at` (`updatedAt`), epoch ms, both bounds exclusive.
 * `search` uses `instr` on `lower()` forms, so `%` and `_` are plain characters.
 *
 * @param lineage false to leave out the lineage parts (root, parent, lineage kind), which an
 *   in-process run index answers itself (see {@link matchesLineage})
 */
export function filterClause(filter: WorkflowRunFilter | undefined, lineage = true, options: FilterClauseOptions = {}): FilterSql {
  const sql: string[] = [];
  const params: unknown[] = [];
  const joins = new Set<string>();
  if (filter === undefined) return { sql, params, joins: [] };
  const walk = options.walkOrder;
  // `+column` keeps SQLite from choosing that column's index over the walked order's.
  const c = (column: string, ownOrder?: 'created_at' | 'updated_at'): string => (walk !== undefined && walk !== ownOrder ? `+${column}` : column);
  if (filter.status !== undefined) {
    sql.push(`${c('r.status')} IN (SELECT value FROM json_each(?))`);
    params.push(JSON.stringify(filter.status));
  }
  if (filter.queueStatus !== undefined) {
    sql.push(`${c('q.status')} IN (SELECT value FROM json_each(?))`);
    params.push(JSON.stringify(filter.queueStatus));
    joins.add(FILTER_JOINS.q);
  }
  if (lineage && filter.rootRunId !== undefined) {
    sql.push('r.root_run_id = ?');
    params.push(filter.rootRunId);
  }
  if (lineage && filter.parentRunId !== undefined) {
    sql.push('r.parent_run_id = ?');
    params.push(filter.parentRunId);
  }
  if (lineage && filter.lineageKind !== undefined) {
    sql.push('r.lineage_kind = ?');
    params.push(filter.lineageKind);
  }
  if (filter.originSessionId !== undefined) {
    sql.push(`${c('b.origin_session_id')} = ? AND b.execution_mode = 'interactive'`);
    params.push(filter.originSessionId);
    joins.add(FILTER_JOINS.b);
  }
  if (filter.workflowName !== undefined) {
    sql.push(`${c('d.workflow_name')} = ?`);
    params.push(filter.workflowName);
    joins.add(FILTER_JOINS.d);
  }
  if (options.createdRangeAnswered !== true && filter.createdAfter !== undefined) {
    sql.push(`${c('r.created_at', 'created_at')} > ?`);
    params.push(filter.createdAfter);
  }
  if (options.createdRangeAnswered !== true && filter.createdBefore !== undefined) {
    sql.push(`${c('r.created_at', 'created_at')} < ?`);
    params.push(filter.createdBefore);
  }
  if (options.updatedRangeAnswered !== true && filter.updatedAfter !== undefined) {
    sql.push(`${c('q.updated_at', 'updated_at')} > ?`);
    params.push(filter.updatedAfter);
    joins.add(FILTER_JOINS.q);
  }
  if (options.updatedRangeAnswered !== true && filter.updatedBefore !== undefined) {
    sql.push(`${c('q.updated_at', 'updated_at')} < ?`);
    params.push(filter.updatedBefore);
    joins.add(FILTER_JOINS.q);
  }
  if (filter.search !== undefined) {
    // No index can answer a substring: checked on each run the page walks.
    sql.push('(instr(lower(r.run_id), ?) > 0 OR instr(lower(d.workflow_name), ?) > 0)');
    const needle = asciiLower(filter.search);
    params.push(needle, needle);
    joins.add(FILTER_JOINS.d);
  }
  return { sql, params, joins: [...joins] };
}

/** Whether a run's `updatedAt` (ISO) is within the filter's updated range now (exclusive bounds). */
function inUpdatedRange(run: Pick<WorkflowRunRecord, 'updatedAt'>, filter: WorkflowRunFilter): boolean {
  const updatedAt = Date.parse(run.updatedAt);
  return (filter.updatedAfter === undefined || updatedAt > filter.updatedAfter) && (filter.updatedBefore === undefined || updatedAt < filter.updatedBefore);
}

/**
 * Whether a run's lineage (which never changes once it is inserted) passes the filter's
 * lineage parts: root, parent, lineage kind.
 */
export function matchesLineage(
  run: { rootRunId: string; parentRunId: string | null; lineageKind: LineageKind | null },
  filter: WorkflowRunFilter | undefined,
): boolean {
  if (filter === undefined) return true;
  return (
    (filter.rootRunId === undefined || run.rootRunId === filter.rootRunId) &&
    (filter.parentRunId === undefined || run.parentRunId === filter.parentRunId) &&
    (filter.lineageKind === undefined || run.lineageKind === filter.lineageKind)
  );
}

/** The fields of a run record a filter reads (see {@link matchesFilter}). */
export type FilterableRun = Pick<
  WorkflowRunRecord,
  'runId' | 'runStateStatus' | 'status' | 'rootRunId' | 'parentRunId' | 'lineageKind' | 'originSessionId' | 'workflowName' | 'createdAt' | 'updatedAt'
>;

/**
 * Whether a run record passes a filter: the same definition as {@link filterClause}, for a
 * record already read (the run-list change feed's live matching). `status` is the
 * durable status (`runs.status` = the record's `runStateStatus`), `queueStatus` the scheduling
 * status (`run_queue.status` = the record's `status`); `originSessionId` matches interactive
 * runs only (a headless record shows a null origin session). Times compare the record's
 * `createdAt` and `updatedAt` (ISO, ms), bounds exclusive; `search` folds ASCII case only, as
 * {@link asciiLower}.
 */
export function matchesFilter(run: FilterableRun, filter: WorkflowRunFilter | undefined): boolean {
  if (filter === undefined) return true;
  return matchesFixedParts(run, filter) && inUpdatedRange(run, filter) && mayHaveMatched(filter, [run.runStateStatus], [run.status]);
}

/**
 * Whether a run passes the parts of a filter that never change once the run is inserted
 * (lineage, origin session, workflow name, created range, search), and could have passed its
 * updated range at some point of its life so far: `updatedAt` only grows, from `createdAt`, so
 * `updatedAfter` was passed at some time exactly when it is passed now, and `updatedBefore`
 * exactly when the run was created before it. A run failing them has never matched.
 */
export function matchesFixedParts(run: FilterableRun, filter: WorkflowRunFilter | undefined): boolean {
  if (filter === undefined) return true;
  const createdAt = Date.parse(run.createdAt);
  const needle = filter.search === undefined ? undefined : asciiLower(filter.search);
  return (
    matchesLineage(run, filter) &&
    (filter.originSessionId === undefined || run.originSessionId === filter.originSessionId) &&
    (filter.workflowName === undefined || run.workflowName === filter.workflowName) &&
    (filter.createdAfter === undefined || createdAt > filter.createdAfter) &&
    (filter.createdBefore === undefined || createdAt < filter.createdBefore) &&
    (filter.updatedAfter === undefined || Date.parse(run.updatedAt) > filter.updatedAfter) &&
    (filter.updatedBefore === undefined || createdAt < filter.updatedBefore) &&
    (needle === undefined || asciiLower(run.runId).includes(needle) || asciiLower(run.workflowName).includes(needle))
  );
}

/**
 * Whether the parts of a filter that change over a run's life (`status`, `queueStatus`) pass
 * for some durable status and some scheduling status among those given (the states a run has
 * held, or its current ones).
 */
export function mayHaveMatched(filter: WorkflowRunFilter | undefined, statuses: readonly string[], queueStatuses: readonly string[]): boolean {
  if (filter === undefined) return true;
  return (
    (filter.status === undefined || filter.status.some((status) => statuses.includes(status))) &&
    (filter.queueStatus === undefined || filter.queueStatus.some((status) => queueStatuses.includes(status)))
  );
}

/** `SELECT count(*)` of runs under the conditions of `where` (joining the queue rows when they need it). */
export function sqlRunCount(context: StoreContext, where: FilterSql): number {
  const join = where.joins.join(' ');
  const whereSql = where.sql.length === 0 ? '' : `WHERE ${where.sql.join(' AND ')}`;
  return (context.database.get<{ n: number }>(`SELECT count(*) AS n FROM runs r ${join} ${whereSql}`, ...where.params) as { n: number }).n;
}
