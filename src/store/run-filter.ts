import type { LineageKind, QueueStatus, RunStatus, WorkflowRunRecord } from './run-records.js';

/** Filter of `listWorkflowRunSlice` and `countWorkflowRuns`; all parts optional, combined with AND (API.md). */
export interface WorkflowRunFilter {
  status?: readonly RunStatus[];
  queueStatus?: readonly QueueStatus[];
  rootRunId?: string;
  parentRunId?: string;
  lineageKind?: LineageKind;
  /** Matches interactive runs bound to this session (headless runs show no origin session). */
  originSessionId?: string;
  workflowName?: string;
}

/** SQL conditions on the run alias `r` and their parameters. */
export interface FilterSql {
  sql: string[];
  params: unknown[];
}

/**
 * The conditions of a filter as SQL on `runs r`.
 *
 * @param lineage false to leave out the lineage parts (root, parent, lineage kind), which an
 *   in-process run index answers itself (see {@link matchesLineage})
 */
export function filterClause(filter: WorkflowRunFilter | undefined, lineage = true): FilterSql {
  const sql: string[] = [];
  const params: unknown[] = [];
  if (filter === undefined) return { sql, params };
  if (filter.status !== undefined) {
    sql.push('r.status IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(filter.status));
  }
  if (filter.queueStatus !== undefined) {
    sql.push('r.run_id IN (SELECT run_id FROM run_queue WHERE status IN (SELECT value FROM json_each(?)))');
    params.push(JSON.stringify(filter.queueStatus));
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
    sql.push(
      "r.run_id IN (SELECT run_id FROM run_bindings WHERE origin_session_id = ? AND execution_mode = 'interactive')",
    );
    params.push(filter.originSessionId);
  }
  if (filter.workflowName !== undefined) {
    sql.push('r.definition_digest IN (SELECT definition_digest FROM workflow_definitions WHERE workflow_name = ?)');
    params.push(filter.workflowName);
  }
  return { sql, params };
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
  'runStateStatus' | 'status' | 'rootRunId' | 'parentRunId' | 'lineageKind' | 'originSessionId' | 'workflowName'
>;

/**
 * Whether a run record passes a filter: the same definition as {@link filterClause}, for a
 * record already read (the run-list change feed's live matching, issue 13 §1). `status` is the
 * durable status (`runs.status` = the record's `runStateStatus`), `queueStatus` the scheduling
 * status (`run_queue.status` = the record's `status`); `originSessionId` matches interactive
 * runs only (a headless record shows a null origin session).
 */
export function matchesFilter(run: FilterableRun, filter: WorkflowRunFilter | undefined): boolean {
  return matchesFixedParts(run, filter) && mayHaveMatched(filter, [run.runStateStatus], [run.status]);
}

/**
 * Whether a run passes the parts of a filter that never change once the run is inserted
 * (lineage, origin session, workflow name): a run failing them never matched and never will.
 */
export function matchesFixedParts(run: FilterableRun, filter: WorkflowRunFilter | undefined): boolean {
  if (filter === undefined) return true;
  return (
    matchesLineage(run, filter) &&
    (filter.originSessionId === undefined || run.originSessionId === filter.originSessionId) &&
    (filter.workflowName === undefined || run.workflowName === filter.workflowName)
  );
}

/**
 * Whether the parts of a filter that change over a run's life (`status`, `queueStatus`) pass
 * for some durable status and some scheduling status among those given (the states a run has
 * held, or its current ones).
 */
export function mayHaveMatched(
  filter: WorkflowRunFilter | undefined,
  statuses: readonly string[],
  queueStatuses: readonly string[],
): boolean {
  if (filter === undefined) return true;
  return (
    (filter.status === undefined || filter.status.some((status) => statuses.includes(status))) &&
    (filter.queueStatus === undefined || filter.queueStatus.some((status) => queueStatuses.includes(status)))
  );
}
