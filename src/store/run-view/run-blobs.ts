import type { Database as SqliteDatabase } from 'better-sqlite3';
import { normalizeJson, type JsonValue } from '../canonical-json.js';
import { StoreError } from '../errors.js';
import { getRow, hasColumns, hasTables, type Row } from './connection.js';
import { logicalOriginRunId, requireRunRow } from './run-row.js';

/**
 * A large value left out of a list item: the blob's SHA-256 (lowercase hex), its length in
 * bytes and its media type (`application/json` or `text/plain`). Read it with
 * {@link readRunBlob} or {@link readRunValue}.
 */
export interface BlobRef {
  hash: string;
  byteLength: number;
  mediaType: string;
}

/**
 * How a value is made from its blob, as pi's run store makes it:
 * - `value`: the blob itself (JSON parsed, text as a string);
 * - `entry-prompt`: a step prompt taken from its captured Pi session entry (the entry's
 *   `content` string, or the non-empty `text` parts of its content joined by newlines);
 * - `entry-assistant-text`: a step output taken from its captured assistant response entry
 *   (the `text` parts of `message.content` joined by newlines);
 * - `trace-payload`: a trace event's payload: the `payload` object of the stored envelope
 *   (`{scope, nodeId?, attemptId?, payload}`), `{}` when the blob holds no such object (the
 *   queue's own events).
 */
export type ValueDecoding = 'value' | 'entry-prompt' | 'entry-assistant-text' | 'trace-payload';

/** A {@link BlobRef} with the way its value is made. */
export interface ValueRef extends BlobRef {
  decode: ValueDecoding;
}

/** A blob read through {@link readRunBlob}: JSON parsed, text as a string. */
export interface RunBlob extends BlobRef {
  value: JsonValue;
}

/**
 * SQL select-list items for a blob reference in column `expression`: `<alias>Hash`,
 * `<alias>Bytes`, `<alias>Media` (read back with {@link refOf}).
 */
export function refColumns(expression: string, alias: string): string {
  return `${expression} AS ${alias}Hash,
    (SELECT byte_length FROM blobs WHERE blob_hash = ${expression}) AS ${alias}Bytes,
    (SELECT media_type FROM blobs WHERE blob_hash = ${expression}) AS ${alias}Media`;
}

/** The {@link BlobRef} of `alias` in a row selected with {@link refColumns}; null when the column is NULL. */
export function refOf(row: Row, alias: string): BlobRef | null {
  const hash = row[`${alias}Hash`];
  if (!Buffer.isBuffer(hash)) return null;
  const byteLength = row[`${alias}Bytes`];
  const mediaType = row[`${alias}Media`];
  if (typeof byteLength !== 'number' || typeof mediaType !== 'string') {
    throw new StoreError('integrity', `Blob ${hash.toString('hex')} is missing`);
  }
  return { hash: hash.toString('hex'), byteLength, mediaType };
}

/** {@link refOf} with a decoding. */
export function valueRefOf(row: Row, alias: string, decode: ValueDecoding): ValueRef | null {
  const ref = refOf(row, alias);
  return ref === null ? null : { ...ref, decode };
}

/** One way a run's rows refer to a blob: the tables it needs and an SQL query over `@hash`, `@runId`, `@resourceId`, `@originRunId`. */
interface Reference {
  tables: string[];
  sql: string;
}

/** The decisions of a run: its own, and (with `continuations`) the one it continues after. */
function decisionsOf(connection: SqliteDatabase): string {
  return hasTables(connection, 'continuations')
    ? '(SELECT decision_id FROM human_decisions WHERE run_id = @runId UNION SELECT decision_id FROM continuations WHERE continuation_run_id = @runId)'
    : '(SELECT decision_id FROM human_decisions WHERE run_id = @runId)';
}

/** The attempts of a run: its own, and (with `run_steps`) the ones its steps carry over from a parent. */
function attemptsOf(connection: SqliteDatabase): string {
  return hasTables(connection, 'run_steps')
    ? '(SELECT attempt_id FROM node_attempts WHERE run_id = @runId UNION SELECT attempt_id FROM run_steps WHERE run_id = @runId)'
    : '(SELECT attempt_id FROM node_attempts WHERE run_id = @runId)';
}

function references(connection: SqliteDatabase): Reference[] {
  const attempts = attemptsOf(connection);
  const decisions = decisionsOf(connection);
  /** `@hash IN (<the columns of these the table has>)`, or `0` when it has none of them. */
  const anyOf = (table: string, names: string[], prefix = ''): string => {
    const present = names.filter((name) => hasColumns(connection, table, name));
    return present.length === 0 ? '0' : `@hash IN (${present.map((name) => `${prefix}${name}`).join(', ')})`;
  };
  return [
    {
      tables: ['runs'],
      sql: `SELECT 1 FROM runs WHERE run_id = @runId AND ${anyOf('runs', ['input_hash', 'final_output_hash', 'error_hash', 'launch_options_hash', 'presentation_prompt_hash'])}`,
    },
    {
      tables: ['runs', 'workflow_definitions'],
      sql: 'SELECT 1 FROM runs r JOIN workflow_definitions d ON d.definition_digest = r.definition_digest WHERE r.run_id = @runId AND d.definition_hash = @hash',
    },
    { tables: ['run_queue'], sql: 'SELECT 1 FROM run_queue WHERE run_id = @runId AND error_hash = @hash' },
    { tables: ['events'], sql: 'SELECT 1 FROM events WHERE resource_id = @resourceId AND payload_hash = @hash' },
    {
      tables: ['node_attempts'],
      sql: `SELECT 1 FROM node_attempts WHERE attempt_id IN ${attempts} AND ${anyOf('node_attempts', ['prompt_hash', 'output_hash', 'receipt_hash', 'error_hash'])}`,
    },
    { tables: ['run_steps'], sql: 'SELECT 1 FROM run_steps WHERE run_id = @runId AND output_override_hash = @hash' },
    { tables: ['workflow_updates', 'node_attempts'], sql: `SELECT 1 FROM workflow_updates WHERE attempt_id IN ${attempts} AND data_hash = @hash` },
    { tables: ['session_segments'], sql: 'SELECT 1 FROM session_segments WHERE run_id = @runId AND @hash IN (binding_hash, failure_hash)' },
    { tables: ['session_entries'], sql: 'SELECT 1 FROM session_entries WHERE run_id = @runId AND entry_hash = @hash' },
    { tables: ['session_events'], sql: 'SELECT 1 FROM session_events WHERE run_id = @runId AND payload_hash = @hash' },
    {
      tables: ['workflow_settings'],
      sql: 'SELECT 1 FROM workflow_settings WHERE (origin_run_id = @originRunId OR active_run_id = @runId) AND @hash IN (initial_hash, current_hash)',
    },
    {
      tables: ['workflow_settings', 'workflow_setting_changes'],
      sql: `SELECT 1 FROM workflow_setting_changes c JOIN workflow_settings s ON s.scope_id = c.scope_id
            WHERE (s.origin_run_id = @originRunId OR s.active_run_id = @runId) AND @hash IN (c.patch_hash, c.before_hash, c.after_hash)`,
    },
    { tables: ['workflow_follow_ups'], sql: 'SELECT 1 FROM workflow_follow_ups WHERE run_id = @runId AND @hash IN (prompt_hash, reason_hash)' },
    { tables: ['workflow_messages'], sql: 'SELECT 1 FROM workflow_messages WHERE run_id = @runId AND content_hash = @hash' },
    { tables: ['interactive_requests'], sql: 'SELECT 1 FROM interactive_requests WHERE run_id = @runId AND contract_hash = @hash' },
    {
      tables: ['interactive_requests', 'interactive_submissions'],
      sql: `SELECT 1 FROM interactive_submissions s JOIN interactive_requests r ON r.request_id = s.request_id
            WHERE r.run_id = @runId AND ${anyOf('interactive_submissions', ['payload_hash', 'receipt_hash'], 's.')}`,
    },
    {
      tables: ['human_decisions'],
      sql: `SELECT 1 FROM human_decisions WHERE decision_id IN ${decisions}
            AND @hash IN (subject_hash, presentation_hash, choices_hash, default_response_hash, request_hash)`,
    },
    {
      tables: ['human_decisions', 'human_decision_resolutions'],
      sql: `SELECT 1 FROM human_decision_resolutions WHERE decision_id IN ${decisions} AND response_hash = @hash`,
    },
    {
      tables: ['human_decisions', 'human_decision_submissions'],
      sql: `SELECT 1 FROM human_decision_submissions WHERE decision_id IN ${decisions} AND @hash IN (candidate_hash, result_hash)`,
    },
    { tables: ['effects'], sql: 'SELECT 1 FROM effects WHERE source_resource_id = @resourceId AND @hash IN (payload_hash, result_hash, error_hash)' },
  ];
}

/** The query "does a row of this run refer to @hash", built once per connection from the tables present. */
const referenceQueries = new WeakMap<SqliteDatabase, string>();

function referenceQuery(connection: SqliteDatabase): string {
  let sql = referenceQueries.get(connection);
  if (sql === undefined) {
    const parts = references(connection)
      .filter((reference) => hasTables(connection, ...reference.tables))
      .map((reference) => `EXISTS (${reference.sql})`);
    sql = `SELECT ${parts.length === 0 ? '0' : parts.join('\n  OR ')} AS hit`;
    referenceQueries.set(connection, sql);
  }
  return sql;
}

/** Parses a blob hash given as 64 lowercase or uppercase hex digits. */
function parseHash(hash: string): Buffer {
  if (!/^[0-9a-fA-F]{64}$/.test(hash)) throw new StoreError('validation', 'A blob hash is 64 hex digits', 'hash');
  return Buffer.from(hash, 'hex');
}

/**
 * Reads a blob the run's rows refer to (docs/PI-WORKFLOWS-FILES.md §9): its bytes decoded —
 * `application/json` parsed and normalised as the store reads JSON (docs/STORE-RULES.md §2.1),
 * `text/plain` as a string. Only a blob some row of this run refers to can be read (the run,
 * its queue row, definition, events, node attempts and the attempts its steps carry, updates,
 * session capture, settings, follow-ups, workflow messages, interactive requests and their
 * submissions, human decisions, effects), so a caller cannot read any other blob by its hash.
 *
 * @param hash SHA-256 of the blob, 64 hex digits
 * @throws StoreError(validation) `A blob hash is 64 hex digits`;
 *   StoreError(not_found) `Workflow run not found: <runId>`,
 *   `Blob <hash> is not part of run <runId>`;
 *   StoreError(integrity) for a blob of another media type
 */
export function readRunBlob(connection: SqliteDatabase, runId: string, hash: string): RunBlob {
  const key = parseHash(hash);
  const run = requireRunRow(connection, runId);
  const needsOrigin = hasTables(connection, 'workflow_settings');
  const params = { hash: key, runId, resourceId: run.resourceId, originRunId: needsOrigin ? logicalOriginRunId(connection, runId) : runId };
  const referenced = getRow<{ hit: number }>(connection, referenceQuery(connection), params);
  const blob =
    referenced?.hit === 1
      ? getRow<{ mediaType: string; byteLength: number; content: Buffer }>(
          connection,
          'SELECT media_type AS mediaType, byte_length AS byteLength, content FROM blobs WHERE blob_hash = ?',
          [key],
        )
      : undefined;
  if (blob === undefined) throw new StoreError('not_found', `Blob ${key.toString('hex')} is not part of run ${runId}`);
  return { hash: key.toString('hex'), byteLength: blob.byteLength, mediaType: blob.mediaType, value: decodeBlob(blob.mediaType, blob.content) };
}

/**
 * The value a {@link ValueRef} stands for, made as pi's run store makes it (see
 * {@link ValueDecoding}), from a blob of this run ({@link readRunBlob}).
 *
 * @throws as {@link readRunBlob}; StoreError(integrity) when a session entry holds no prompt
 *   or no assistant text
 */
export function readRunValue(connection: SqliteDatabase, runId: string, ref: Pick<ValueRef, 'hash' | 'decode'>): JsonValue {
  return decodeValue(readRunBlob(connection, runId, ref.hash).value, ref.decode);
}

/**
 * The value behind a reference that one of this module's readers returned (a view's item, its
 * head): the blob read by its hash without {@link readRunBlob}'s run-scope check, which a hash the
 * store itself read from the run's rows needs no more (that check costs a scan of the run's rows
 * per blob). Never call it with a hash a caller gave.
 *
 * @throws StoreError(integrity) `Blob <hash> is missing`, or as {@link readRunValue}'s decodings
 */
export function readReferencedValue(connection: SqliteDatabase, ref: Pick<ValueRef, 'hash' | 'decode'>): JsonValue {
  const key = parseHash(ref.hash);
  const blob = getRow<{ mediaType: string; content: Buffer }>(connection, 'SELECT media_type AS mediaType, content FROM blobs WHERE blob_hash = ?', [key]);
  if (blob === undefined) throw new StoreError('integrity', `Blob ${ref.hash} is missing`);
  return decodeValue(decodeBlob(blob.mediaType, blob.content), ref.decode);
}

/** A blob's value made as {@link ValueDecoding} says. */
function decodeValue(value: JsonValue, decode: ValueDecoding): JsonValue {
  switch (decode) {
    case 'value':
      return value;
    case 'entry-prompt':
      return promptFromEntry(value);
    case 'entry-assistant-text':
      return assistantTextFromEntry(value);
    case 'trace-payload':
      return tracePayload(value);
  }
}

/** Decodes stored bytes: JSON parsed and normalised, text as a string. @throws StoreError(integrity) for other media types */
export function decodeBlob(mediaType: string, content: Buffer): JsonValue {
  if (mediaType === 'application/json') return normalizeJson(JSON.parse(content.toString('utf8')));
  if (mediaType === 'text/plain') return content.toString('utf8');
  throw new StoreError('integrity', `Blob has an unknown media type: ${mediaType}`);
}

function isObject(value: unknown): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A step prompt from its session entry (pi's `promptFromEntry`): null when the entry has none. */
export function promptFromEntry(entry: JsonValue): string | null {
  if (!isObject(entry)) return null;
  const content = entry.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  return content
    .filter(isObject)
    .map((part) => (typeof part.text === 'string' ? part.text : ''))
    .filter((text) => text.length !== 0)
    .join('\n');
}

/**
 * A step output from its assistant response entry (pi's `assistantOutputFromEntry`, without
 * the stored `maxChars` check).
 *
 * @throws StoreError(integrity) when the entry is not an assistant message with visible text
 */
export function assistantTextFromEntry(entry: JsonValue): string {
  const message = isObject(entry) ? entry.message : undefined;
  if (!isObject(message) || message.role !== 'assistant' || !Array.isArray(message.content)) {
    throw new StoreError('integrity', 'Assistant response entry does not contain an assistant message');
  }
  const text = message.content
    .filter(isObject)
    .filter((part) => part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('\n');
  if (text.trim().length === 0) throw new StoreError('integrity', 'Assistant response entry has no visible text');
  return text;
}

/** A trace event's payload from its stored envelope (pi's `traceEvents`): the inner `payload` object, else `{}`. */
export function tracePayload(envelope: JsonValue): { [key: string]: JsonValue } {
  return isObject(envelope) && isObject(envelope.payload) ? envelope.payload : {};
}
