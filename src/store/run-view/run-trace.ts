import type { Database as SqliteDatabase } from 'better-sqlite3';
import { columnOrNull, type Row } from './connection.js';
import { countList, readPage, type ListQuery, type Page, type PageRequest } from './pages.js';
import { refColumns, valueRefOf, type ValueRef } from './run-blobs.js';
import { requireRunRow } from './run-row.js';

/** Where a trace event happened, as pi names it (any other stored scope reads as `run`). */
export type TraceScope = 'run' | 'node' | 'agent' | 'action' | 'session';

/**
 * One event of a run's trace: an `events` row of the run's resource (docs/PI-WORKFLOWS-FILES.md
 * §9) — the queue's own events (`run.queued`, `lease.claimed`, `run.queue_running`, …) and the
 * engine's (`run_started`, `node_started`, `node_finished`, `run_completed`, …).
 *
 * The engine stores an envelope `{scope, nodeId?, attemptId?, payload}` as the event's payload
 * blob; `scope`, `nodeId` and `attemptId` are read out of it, and `payload` refers to it with
 * decoding `trace-payload` (its inner `payload` object; `{}` for the queue's events, whose blob
 * is no envelope — as pi shows them). `payload` is null when the event has no blob (read as `{}`).
 */
export interface TraceEvent {
  /** `events.resource_revision`: the event's position in the run's trace (pi's `seq`). */
  seq: number;
  /** `events.event_seq`: the file-wide event order. */
  eventSeq: number;
  eventId: string;
  /** Epoch ms (`recorded_at`). */
  at: number;
  scope: TraceScope;
  type: string;
  nodeId: string | null;
  attemptId: string | null;
  actorType: string;
  actorId: string | null;
  leaseGeneration: number | null;
  payload: ValueRef | null;
}

const SCOPES: ReadonlySet<string> = new Set(['node', 'agent', 'action', 'session']);

function traceQuery(connection: SqliteDatabase, resourceId: string): ListQuery<TraceEvent> {
  const text = 'CAST(b.content AS TEXT)';
  const envelope = `b.media_type = 'application/json' AND json_valid(${text})`;
  const field = (name: string): string => `CASE WHEN ${envelope} AND json_type(${text}, '$.${name}') = 'text' THEN json_extract(${text}, '$.${name}') END`;
  return {
    tables: ['events'],
    sql: `SELECT e.resource_revision AS pos, e.event_seq AS eventSeq, e.event_id AS eventId, e.recorded_at AS at,
        e.event_type AS type, e.actor_type AS actorType, e.actor_id AS actorId,
        ${columnOrNull(connection, 'events', 'lease_generation', 'e.')} AS leaseGeneration,
        ${field('scope')} AS scope, ${field('nodeId')} AS nodeId, ${field('attemptId')} AS attemptId,
        ${refColumns('e.payload_hash', 'payload')}
      FROM events e LEFT JOIN blobs b ON b.blob_hash = e.payload_hash
      WHERE e.resource_id = @resourceId`,
    positions: 'SELECT resource_revision AS pos FROM events WHERE resource_id = @resourceId',
    // Appended only; `event_seq` is AUTOINCREMENT: never used again, even by a run written anew.
    firstRowId: 'SELECT event_seq FROM events WHERE resource_id = @resourceId ORDER BY resource_revision ASC LIMIT 1',
    params: { resourceId },
    map: (row: Row) => ({
      seq: Number(row.pos),
      eventSeq: Number(row.eventSeq),
      eventId: String(row.eventId),
      at: Number(row.at),
      scope: typeof row.scope === 'string' && SCOPES.has(row.scope) ? (row.scope as TraceScope) : 'run',
      type: String(row.type),
      nodeId: typeof row.nodeId === 'string' ? row.nodeId : null,
      attemptId: typeof row.attemptId === 'string' ? row.attemptId : null,
      actorType: String(row.actorType),
      actorId: typeof row.actorId === 'string' ? row.actorId : null,
      leaseGeneration: typeof row.leaseGeneration === 'number' ? row.leaseGeneration : null,
      payload: valueRefOf(row, 'payload', 'trace-payload'),
    }),
  };
}

/**
 * A page of the run's trace (position `seq`, the resource revision). Empty when the file has
 * no `events` table.
 *
 * @throws StoreError(not_found) `Workflow run not found: <runId>`; StoreError(validation) for a
 *   malformed request
 */
export function readRunTrace(connection: SqliteDatabase, runId: string, request: PageRequest = {}, counted = true): Page<TraceEvent> {
  return readPage(connection, traceQuery(connection, requireRunRow(connection, runId).resourceId), request, counted);
}

/**
 * The number of events in the run's trace.
 *
 * @throws StoreError(not_found) `Workflow run not found: <runId>`
 */
export function countRunTrace(connection: SqliteDatabase, runId: string): number {
  return countList(connection, traceQuery(connection, requireRunRow(connection, runId).resourceId));
}
