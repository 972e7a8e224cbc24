import type { Database as SqliteDatabase } from 'better-sqlite3';
import { columnOrNull, type Row } from './connection.js';
import { countList, readPage, type ListQuery, type Page, type PageRequest } from './pages.js';
import { refColumns, refOf, type BlobRef } from './run-blobs.js';

/** A message a run sends its origin Pi session (`workflow_messages`; position `order`, the session's order number). */
export interface RunWorkflowMessage {
  order: number;
  workflowMessageId: string;
  targetSessionId: string;
  /** `step`, `decision`, `notification`, `terminal` or `followUp`. */
  kind: string;
  /** The request, decision or follow-up it is about. */
  sourceId: string;
  /** The message content (JSON; 0.16 keeps `triggerTurn` inside it). */
  content: BlobRef;
  /** `pending`, `sent` or `cancelled`. */
  status: string;
  piSessionEntryId: string | null;
  /** Epoch ms. */
  createdAt: number;
  updatedAt: number;
}

/** A model turn a workflow message started (`workflow_turns`; position = index by start). */
export interface RunWorkflowTurn {
  position: number;
  workflowTurnId: string;
  workflowMessageId: string;
  targetSessionId: string;
  /** `started` or `ended`. */
  state: string;
  stopReason: string | null;
  responseSessionEntryId: string | null;
  /** Epoch ms. */
  startedAt: number;
  endedAt: number | null;
}

function messagesQuery(runId: string): ListQuery<RunWorkflowMessage> {
  return {
    tables: ['workflow_messages'],
    sql: `SELECT order_number AS pos, workflow_message_id AS workflowMessageId, target_session_id AS targetSessionId, kind,
        source_id AS sourceId, status, pi_session_entry_id AS piSessionEntryId, created_at AS createdAt, updated_at AS updatedAt,
        ${refColumns('content_hash', 'content')}
      FROM workflow_messages WHERE run_id = @runId`,
    params: { runId },
    map: (row: Row) => ({
      order: Number(row.pos),
      workflowMessageId: String(row.workflowMessageId),
      targetSessionId: String(row.targetSessionId),
      kind: String(row.kind),
      sourceId: String(row.sourceId),
      content: refOf(row, 'content') as BlobRef,
      status: String(row.status),
      piSessionEntryId: (row.piSessionEntryId as string | null) ?? null,
      createdAt: Number(row.createdAt),
      updatedAt: Number(row.updatedAt),
    }),
  };
}

/**
 * A page of the run's workflow messages (position `order`).
 *
 * @throws StoreError(validation) for a malformed request
 */
export function readRunWorkflowMessages(connection: SqliteDatabase, runId: string, request: PageRequest = {}): Page<RunWorkflowMessage> {
  return readPage(connection, messagesQuery(runId), request);
}

/** The number of the run's workflow messages. */
export function countRunWorkflowMessages(connection: SqliteDatabase, runId: string): number {
  return countList(connection, messagesQuery(runId));
}

function turnsQuery(connection: SqliteDatabase, runId: string): ListQuery<RunWorkflowTurn> {
  return {
    tables: ['workflow_turns'],
    sql: `SELECT row_number() OVER (ORDER BY started_at, workflow_turn_id) - 1 AS pos, workflow_turn_id AS workflowTurnId,
        workflow_message_id AS workflowMessageId, target_session_id AS targetSessionId, state,
        ${columnOrNull(connection, 'workflow_turns', 'stop_reason')} AS stopReason,
        ${columnOrNull(connection, 'workflow_turns', 'response_session_entry_id')} AS responseSessionEntryId,
        started_at AS startedAt, ended_at AS endedAt
      FROM workflow_turns WHERE run_id = @runId`,
    params: { runId },
    map: (row: Row) => ({
      position: Number(row.pos),
      workflowTurnId: String(row.workflowTurnId),
      workflowMessageId: String(row.workflowMessageId),
      targetSessionId: String(row.targetSessionId),
      state: String(row.state),
      stopReason: (row.stopReason as string | null) ?? null,
      responseSessionEntryId: (row.responseSessionEntryId as string | null) ?? null,
      startedAt: Number(row.startedAt),
      endedAt: (row.endedAt as number | null) ?? null,
    }),
  };
}

/**
 * A page of the run's workflow turns (position = index by start time).
 *
 * @throws StoreError(validation) for a malformed request
 */
export function readRunWorkflowTurns(connection: SqliteDatabase, runId: string, request: PageRequest = {}): Page<RunWorkflowTurn> {
  return readPage(connection, turnsQuery(connection, runId), request);
}

/** The number of the run's workflow turns. */
export function countRunWorkflowTurns(connection: SqliteDatabase, runId: string): number {
  return countList(connection, turnsQuery(connection, runId));
}
