import { FILTER_JOINS, filterClause, type WorkflowRunFilter } from './run-filter.js';
import type { QueueStatus, RunStatus } from './run-states.js';
import type { StoreContext } from './store-context.js';

/** Every durable run status, in the order of docs/STORE-RULES.md §4 (and of the GraphQL enum). */
export const RUN_STATUSES: readonly RunStatus[] = ['queued', 'running', 'waiting', 'completed', 'failed', 'timed_out', 'cancelled'];
/** Every scheduling status, in the order of docs/STORE-RULES.md §4. */
export const QUEUE_STATUSES: readonly QueueStatus[] = ['queued', 'starting', 'running', 'parked', 'done', 'failed', 'cancelled'];

/**
 * The number of runs a run-list filter matches, per status (docs/GRAPHQL-CONTRACT.md
 * `workflowRunCounts`).
 */
export interface WorkflowRunCounts {
  /** Runs matching the filter (= `workflowRuns(filter:).totalCount`). */
  total: number;
  /** One entry per durable status (`runs.status`), every status in {@link RUN_STATUSES} order, zeros included. */
  byStatus: Array<{ status: RunStatus; count: number }>;
  /** One entry per scheduling status (`run_queue.status`), every status in {@link QUEUE_STATUSES} order, zeros included. */
  byQueueStatus: Array<{ status: QueueStatus; count: number }>;
}

/**
 * Counts the runs a filter matches per status and per queue status, in one snapshot, on both
 * kinds of file, over indexes both have; nothing is added to a pi-workflows file. Without a
 * filter: two `GROUP BY` walks of one index each (`runs(status, updated_at)`,
 * `run_queue(status, available_at, created_at)`), no table row. With one: a single `GROUP BY
 * r.status, q.status` over the filter's conditions as `workflowRuns` writes them
 * (`filterClause`: the indexes a page would use), one queue row per matching run.
 *
 * @returns the counts (see {@link WorkflowRunCounts})
 */
export function countWorkflowRunsByStatus(context: StoreContext, filter: WorkflowRunFilter | undefined): WorkflowRunCounts {
  const where = filterClause(filter);
  const byStatus = new Map<RunStatus, number>();
  const byQueueStatus = new Map<QueueStatus, number>();
  const add = <K>(counts: Map<K, number>, key: K, n: number): void => {
    counts.set(key, (counts.get(key) ?? 0) + n);
  };
  context.database.readSnapshot(() => {
    if (where.sql.length === 0) {
      for (const row of context.database.all<{ status: RunStatus; n: number }>('SELECT status, count(*) AS n FROM runs GROUP BY status')) {
        add(byStatus, row.status, row.n);
      }
      for (const row of context.database.all<{ status: QueueStatus; n: number }>('SELECT status, count(*) AS n FROM run_queue GROUP BY status')) {
        add(byQueueStatus, row.status, row.n);
      }
      return;
    }
    const joins = [FILTER_JOINS.q, ...where.joins.filter((join) => join !== FILTER_JOINS.q)].join(' ');
    const rows = context.database.all<{ status: RunStatus; queue_status: QueueStatus; n: number }>(
      `SELECT r.status AS status, q.status AS queue_status, count(*) AS n FROM runs r ${joins}
       WHERE ${where.sql.join(' AND ')} GROUP BY r.status, q.status`,
      ...where.params,
    );
    for (const row of rows) {
      add(byStatus, row.status, row.n);
      add(byQueueStatus, row.queue_status, row.n);
    }
  });
  let total = 0;
  for (const n of byStatus.values()) total += n;
  return {
    total,
    byStatus: RUN_STATUSES.map((status) => ({ status, count: byStatus.get(status) ?? 0 })),
    byQueueStatus: QUEUE_STATUSES.map((status) => ({ status, count: byQueueStatus.get(status) ?? 0 })),
  };
}
