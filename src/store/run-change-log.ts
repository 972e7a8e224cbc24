import type { StateDatabase } from './database.js';
import type { QueueStatus, RunStatus } from './run-records.js';

/**
 * The durable order behind the run-list change feed (docs/PROTOCOL.md
 * "workflowRunChanges"): positions in commit order that the database itself keeps, never memory,
 * so a position survives restarts and covers commits of every process. Each file's layout
 * holds its log (`FileLayout.runChanges`).
 *
 * - Our own files: `run_changes` of migration 0003, one row per run at the position of its latest
 *   change, written by triggers in the changing transaction (see the migration's comment).
 * - pi-workflows state files, which are never changed (not even by a trigger): the order that file
 *   already keeps, `events.event_seq` (AUTOINCREMENT), restricted to run resources. A run's
 *   position is its latest event's. Every run write of pi-workflows that bumps the run records an
 *   event (its reservation `run.queued` too); a viewer revision without an event (a timeline entry,
 *   a claim renewal) is not a position there, so it is not delivered (the documented caveat).
 *   Positions older than the oldest event still held cannot be replayed (pi-workflows may prune).
 */

/** Where the log stands. */
export interface RunChangeHead {
  /**
   * Identity of the database file every cursor carries: `run_change_head.database_id` (random,
   * set by migration 0003), or `piwf-<schema_meta.created_at>` for a pi-workflows state file.
   */
  databaseId: string;
  /** Position of the newest change; 0 when nothing changed yet. */
  head: number;
  /** Cursors below this position cannot be replayed completely (0 when every one can). */
  floor: number;
}

/** One run's latest change after a position. */
export interface RunChangeRow {
  /** Its position. */
  seq: number;
  runId: string;
  /**
   * Every durable status the run has held since the log began (our files), or undefined when the
   * file does not keep them (pi-workflows).
   */
  heldStatuses: RunStatus[] | undefined;
  /** Every scheduling status it has held, like {@link heldStatuses}. */
  heldQueueStatuses: QueueStatus[] | undefined;
}

/** See the module comment. */
export interface RunChangeLog {
  /** Where the log stands now. */
  head(): RunChangeHead;
  /**
   * The runs whose latest change is after `afterSeq`, oldest position first.
   *
   * @param afterSeq a position (≥ 0)
   * @param limit at most this many runs
   */
  readAfter(afterSeq: number, limit: number): RunChangeRow[];
}

function heldSet<T extends string>(text: string): T[] {
  return text.split(',').filter((part) => part !== '') as T[];
}

/** The log of our own files (migration 0003). */
export class OwnRunChangeLog implements RunChangeLog {
  constructor(private readonly database: StateDatabase) {}

  head(): RunChangeHead {
    const row = this.database.get<{ database_id: string; change_seq: number }>('SELECT database_id, change_seq FROM run_change_head WHERE id = 1');
    return { databaseId: row?.database_id ?? '', head: row?.change_seq ?? 0, floor: 0 };
  }

  readAfter(afterSeq: number, limit: number): RunChangeRow[] {
    const rows = this.database.all<{ change_seq: number; run_id: string; statuses: string; queue_statuses: string }>(
      'SELECT change_seq, run_id, statuses, queue_statuses FROM run_changes WHERE change_seq > ? ORDER BY change_seq LIMIT ?',
      afterSeq,
      limit,
    );
    return rows.map((row) => ({
      seq: row.change_seq,
      runId: row.run_id,
      heldStatuses: heldSet<RunStatus>(row.statuses),
      heldQueueStatuses: heldSet<QueueStatus>(row.queue_statuses),
    }));
  }
}

/** The log of a pi-workflows state file: its run events' sequence (read only). */
export class PiWorkflowsRunChangeLog implements RunChangeLog {
  private databaseId: string | undefined;

  constructor(private readonly database: StateDatabase) {}

  head(): RunChangeHead {
    if (this.databaseId === undefined) {
      let createdAt: unknown;
      try {
        createdAt = this.database.get<{ created_at: unknown }>('SELECT created_at FROM schema_meta WHERE id = 1')?.created_at;
      } catch {
        createdAt = undefined; // a schema_meta without created_at: one identity for every such file
      }
      this.databaseId = `piwf-${typeof createdAt === 'number' ? createdAt : 0}`;
    }
    const row = this.database.get<{ head: number | null; oldest: number | null }>(
      'SELECT (SELECT max(event_seq) FROM events) AS head, (SELECT min(event_seq) FROM events) AS oldest',
    );
    const head = row?.head ?? 0;
    return { databaseId: this.databaseId, head, floor: row?.oldest === null || row?.oldest === undefined ? head : row.oldest - 1 };
  }

  readAfter(afterSeq: number, limit: number): RunChangeRow[] {
    // Each event of a run resource after the position that is the run's latest (events_resource_idx).
    const rows = this.database.all<{ event_seq: number; run_id: string }>(
      `SELECT e.event_seq, r.run_id FROM events e JOIN runs r ON r.resource_id = e.resource_id
       WHERE e.event_seq > ?
         AND NOT EXISTS (SELECT 1 FROM events l WHERE l.resource_id = e.resource_id AND l.event_seq > e.event_seq)
       ORDER BY e.event_seq LIMIT ?`,
      afterSeq,
      limit,
    );
    return rows.map((row) => ({ seq: row.event_seq, runId: row.run_id, heldStatuses: undefined, heldQueueStatuses: undefined }));
  }
}
