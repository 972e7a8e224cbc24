import type { Database as SqliteDatabase } from 'better-sqlite3';
import { createHash } from 'node:crypto';
import type { JsonValue } from '../canonical-json.js';
import { getRow, hasTables, type Row } from './connection.js';
import { countList, readPage, type ListQuery, type Page, type PageRequest } from './pages.js';
import { decodeBlob, readReferencedValue, readRunBlob, refColumns, refOf, type BlobRef } from './run-blobs.js';

/** A run's captured Pi session: the binding, the capture counters and their integrity (pi's `session` minus the pages). */
export interface RunSession {
  segmentId: string;
  /** The binding pi recorded (`pi-workflows.session-binding.v1`: `piSessionId`, `cwd`, `boundAt`, `runId`). */
  binding: { [key: string]: JsonValue } | null;
  capture: {
    status: string;
    entryCount: number;
    eventCount: number;
    lastEventSeq: number;
    failure: JsonValue | null;
  };
  /** pi's integrity check of the capture: status and diagnostics. */
  integrity: { status: 'unavailable' | 'recording' | 'complete' | 'failed' | 'invalid'; diagnostics: string[] };
  /** Epoch ms. */
  createdAt: number;
  finishedAt: number | null;
}

/** One captured Pi session entry (position `seq`); the entry itself is a reference, read with {@link readRunSessionEntry}. */
export interface SessionEntryItem {
  /** `session_entries.entry_seq`. */
  seq: number;
  /** Epoch ms. */
  at: number;
  entryId: string;
  /** The entry's `type` (`message`, `custom_message`, …). */
  entryType: string | null;
  /** `message.role` of a message entry (`user`, `assistant`, `toolResult`, …). */
  role: string | null;
  /** `customType` of a custom message (e.g. `pi-workflows-step`). */
  customType: string | null;
  entry: BlobRef;
}

/** One captured Pi session event (turn, message, tool execution), position `seq`. */
export interface SessionEventItem {
  /** `session_events.event_seq`. */
  seq: number;
  /** Epoch ms. */
  at: number;
  type: string;
  nodeId: string | null;
  attemptId: string | null;
  turnId: string | null;
  messageId: string | null;
  toolCallId: string | null;
  payload: BlobRef;
}

/** A session entry's content, read out of its blob. */
export interface SessionEntryContent {
  entryId: string | null;
  parentId: string | null;
  entryType: string | null;
  role: string | null;
  customType: string | null;
  /** The text: a string `content`, or the `text` parts of the (message) content joined by newlines. */
  text: string;
  /** The `toolCall` parts of an assistant message. */
  toolCalls: Array<{ id: string; name: string; arguments: JsonValue }>;
  /** A tool result's call id and tool name. */
  toolCallId: string | null;
  toolName: string | null;
  /** The whole entry. */
  raw: JsonValue;
}

/** The id of a run's own (not attempt-scoped) capture segment, as pi derives it. */
export function runSegmentId(runId: string): string {
  return `segment-${createHash('sha256').update(`${runId}\0`).digest('hex').slice(0, 40)}`;
}

interface SegmentRow extends Row {
  segmentId: string;
  status: string;
  entryCount: number;
  eventCount: number;
  bindingHash: Buffer | null;
  failureHash: Buffer | null;
  createdAt: number;
  finishedAt: number | null;
}

function blobValue(connection: SqliteDatabase, hash: Buffer | null): JsonValue | null {
  if (hash === null) return null;
  const blob = getRow<{ mediaType: string; content: Buffer }>(connection, 'SELECT media_type AS mediaType, content FROM blobs WHERE blob_hash = ?', [hash]);
  return blob === undefined ? null : decodeBlob(blob.mediaType, blob.content);
}

function isObject(value: unknown): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The run's captured Pi session (its own segment, as pi's view shows it), or null when the run
 * has none (pi: binding null, integrity `unavailable`). The integrity follows pi: `invalid`
 * when the segment's counters differ from its rows (`session capture counts do not match
 * durable rows`) or when a run that is not running still records (`terminal run still reports
 * recording capture`); `failed` with the failure message; else the segment's status.
 *
 * @param runStatus the run's `runs.status`
 */
export function readRunSession(connection: SqliteDatabase, runId: string, runStatus: string): RunSession | null {
  if (!hasTables(connection, 'session_segments')) return null;
  const segment = getRow<SegmentRow>(
    connection,
    `SELECT segment_id AS segmentId, status, entry_count AS entryCount, event_count AS eventCount, binding_hash AS bindingHash,
            failure_hash AS failureHash, created_at AS createdAt, finished_at AS finishedAt
     FROM session_segments WHERE segment_id = ? AND run_id = ?`,
    [runSegmentId(runId), runId],
  );
  if (segment === undefined) return null;
  const binding = blobValue(connection, segment.bindingHash);
  const failure = blobValue(connection, segment.failureHash);
  // The durable rows counted as the lists' pages count them (kept and extended: `countList`).
  const diagnostics: string[] = [];
  if (countRunSessionEntries(connection, runId) !== segment.entryCount || countRunSessionEvents(connection, runId) !== segment.eventCount) {
    diagnostics.push('session capture counts do not match durable rows');
  }
  if (runStatus !== 'running' && segment.status === 'recording') diagnostics.push('terminal run still reports recording capture');
  const failureMessage = isObject(failure) && typeof failure.message === 'string' ? failure.message : 'session capture failed';
  const integrity: RunSession['integrity'] =
    diagnostics.length > 0
      ? { status: 'invalid', diagnostics }
      : segment.status === 'failed'
        ? { status: 'failed', diagnostics: [failureMessage] }
        : { status: segment.status as RunSession['integrity']['status'], diagnostics: [] };
  return {
    segmentId: segment.segmentId,
    binding: isObject(binding) ? binding : null,
    capture: { status: segment.status, entryCount: segment.entryCount, eventCount: segment.eventCount, lastEventSeq: segment.eventCount, failure },
    integrity,
    createdAt: segment.createdAt,
    finishedAt: segment.finishedAt,
  };
}

/** The run's own segment's entries, as pi reads them (`WHERE segment_id = ?`: the segment id is derived from the run id). */
function entriesQuery(runId: string): ListQuery<SessionEntryItem> {
  const text = 'CAST(b.content AS TEXT)';
  const field = (path: string): string => `CASE WHEN json_valid(${text}) AND json_type(${text}, '${path}') = 'text' THEN json_extract(${text}, '${path}') END`;
  return {
    tables: ['session_entries'],
    sql: `SELECT e.entry_seq AS pos, e.recorded_at AS at, e.entry_id AS entryId,
        ${field('$.type')} AS entryType, ${field('$.message.role')} AS role, ${field('$.customType')} AS customType,
        ${refColumns('e.entry_hash', 'entry')}
      FROM session_entries e JOIN blobs b ON b.blob_hash = e.entry_hash
      WHERE e.segment_id = @segmentId`,
    // Every entry has its blob (a foreign key), so the positions need no join: a walk of the
    // primary key (segment_id, entry_seq) alone.
    positions: 'SELECT entry_seq AS pos FROM session_entries WHERE segment_id = @segmentId',
    // Appended only (pi's capture); the first entry's row id and entry id tell a capture written anew.
    firstRowId: "SELECT rowid || ':' || entry_id FROM session_entries WHERE segment_id = @segmentId ORDER BY entry_seq ASC LIMIT 1",
    params: { segmentId: runSegmentId(runId) },
    map: (row) => ({
      seq: Number(row.pos),
      at: Number(row.at),
      entryId: String(row.entryId),
      entryType: typeof row.entryType === 'string' ? row.entryType : null,
      role: typeof row.role === 'string' ? row.role : null,
      customType: typeof row.customType === 'string' ? row.customType : null,
      entry: refOf(row, 'entry') as BlobRef,
    }),
  };
}

/** The run's own segment's events, as pi reads them (`WHERE segment_id = ?`). */
function eventsQuery(runId: string): ListQuery<SessionEventItem> {
  return {
    tables: ['session_events'],
    sql: `SELECT event_seq AS pos, recorded_at AS at, event_type AS type, node_id AS nodeId, attempt_id AS attemptId,
        turn_id AS turnId, message_id AS messageId, tool_call_id AS toolCallId, ${refColumns('payload_hash', 'payload')}
      FROM session_events WHERE segment_id = @segmentId`,
    positions: 'SELECT event_seq AS pos FROM session_events WHERE segment_id = @segmentId',
    // Appended only (pi's capture); the first event's row id and time tell a capture written anew.
    firstRowId: "SELECT rowid || ':' || recorded_at FROM session_events WHERE segment_id = @segmentId ORDER BY event_seq ASC LIMIT 1",
    params: { segmentId: runSegmentId(runId) },
    map: (row) => ({
      seq: Number(row.pos),
      at: Number(row.at),
      type: String(row.type),
      nodeId: (row.nodeId as string | null) ?? null,
      attemptId: (row.attemptId as string | null) ?? null,
      turnId: (row.turnId as string | null) ?? null,
      messageId: (row.messageId as string | null) ?? null,
      toolCallId: (row.toolCallId as string | null) ?? null,
      payload: refOf(row, 'payload') as BlobRef,
    }),
  };
}

/**
 * A page of the run's captured session entries (position `seq`, `session_entries.entry_seq`).
 * Empty without a capture or without the table.
 *
 * @throws StoreError(validation) for a malformed request
 */
export function readRunSessionEntries(connection: SqliteDatabase, runId: string, request: PageRequest = {}, counted = true): Page<SessionEntryItem> {
  return readPage(connection, entriesQuery(runId), request, counted);
}

/** The number of the run's captured session entries. */
export function countRunSessionEntries(connection: SqliteDatabase, runId: string): number {
  return countList(connection, entriesQuery(runId));
}

/**
 * A page of the run's captured session events (position `seq`, `session_events.event_seq`):
 * turn, message and tool-execution events. Empty without a capture or without the table.
 *
 * @throws StoreError(validation) for a malformed request
 */
export function readRunSessionEvents(connection: SqliteDatabase, runId: string, request: PageRequest = {}, counted = true): Page<SessionEventItem> {
  return readPage(connection, eventsQuery(runId), request, counted);
}

/** The number of the run's captured session events. */
export function countRunSessionEvents(connection: SqliteDatabase, runId: string): number {
  return countList(connection, eventsQuery(runId));
}

function textOf(content: JsonValue | undefined): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(isObject)
    .filter((part) => typeof part.text === 'string' && (part.type === undefined || part.type === 'text'))
    .map((part) => part.text as string)
    .join('\n');
}

/**
 * A captured session entry's content: role, text, custom type and tool calls, read from a blob
 * of this run (`readRunBlob`: the hash must be one of the run's).
 *
 * @throws as `readRunBlob`
 */
export function readRunSessionEntry(connection: SqliteDatabase, runId: string, hash: string): SessionEntryContent {
  return sessionEntryOf(readRunBlob(connection, runId, hash).value);
}

/**
 * A captured session entry's content by the hash a view's entry carries (see `readReferencedValue`:
 * no run-scope check; never call it with a hash a caller gave).
 *
 * @throws StoreError(integrity) `Blob <hash> is missing`
 */
export function readReferencedSessionEntry(connection: SqliteDatabase, hash: string): SessionEntryContent {
  return sessionEntryOf(readReferencedValue(connection, { hash, decode: 'value' }));
}

/** The parts of a session entry's JSON. */
function sessionEntryOf(raw: JsonValue): SessionEntryContent {
  const entry = isObject(raw) ? raw : {};
  const message = isObject(entry.message) ? entry.message : undefined;
  const content = message === undefined ? entry.content : message.content;
  const toolCalls = (Array.isArray(content) ? content : [])
    .filter(isObject)
    .filter((part) => part.type === 'toolCall')
    .map((part) => ({ id: String(part.id), name: String(part.name), arguments: part.arguments ?? null }));
  const text = (value: JsonValue | undefined): string | null => (typeof value === 'string' ? value : null);
  return {
    entryId: text(entry.id),
    parentId: text(entry.parentId),
    entryType: text(entry.type),
    role: text(message?.role),
    customType: text(entry.customType),
    text: textOf(content),
    toolCalls,
    toolCallId: text(message?.toolCallId),
    toolName: text(message?.toolName),
    raw,
  };
}
