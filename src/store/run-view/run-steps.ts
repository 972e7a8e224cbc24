import type { Database as SqliteDatabase } from 'better-sqlite3';
import { StoreError } from '../errors.js';
import { allRows, columnOrNull, hasTables, type Row } from './connection.js';
import { countList, readPage, type ListQuery, type Page, type PageRequest } from './pages.js';
import { refColumns, refOf, valueRefOf, type BlobRef, type ValueRef } from './run-blobs.js';

/** How a finished attempt ended, as pi names it in a step (`node_attempts.status` `completed` is `ok`). */
export type StepOutcome = 'ok' | 'failed' | 'timed_out' | 'cancelled';

/**
 * One step of a run (a row of `run_steps` and its `node_attempts` row), in run order. Times are
 * epoch ms. `prompt` and `output` are references, read with `readRunValue`: the prompt is the
 * attempt's `prompt_hash` text or, when the attempt is linked to its captured step prompt
 * (`attempt_entries` role `prompt`), made from that session entry; the output is the step's
 * `output_override_hash` (a continuation's carried step), else the attempt's `output_hash`,
 * else made from the linked assistant response entry (role `response`) — pi's rules.
 */
export interface RunStep {
  /** `run_steps.step_index` (0-based): the step's position. */
  stepIndex: number;
  attemptId: string;
  /** The run the attempt belongs to: another run for a step a continuation carries over. */
  attemptRunId: string;
  nodeId: string;
  nodeType: string;
  attemptNumber: number;
  outcome: StepOutcome;
  startedAt: number | null;
  finishedAt: number | null;
  deadlineAt: number | null;
  prompt: ValueRef | null;
  output: ValueRef | null;
  /** Error text (`text/plain`). */
  error: BlobRef | null;
  /** The attempt's receipt (`action`, `assistantMessage`), JSON. */
  receipt: BlobRef | null;
  /** The session entries the attempt's conversation spans, when linked. */
  conversation: { firstEntryId: string; lastEntryId: string } | null;
  /** The settings the attempt ran with (scope, change number, SHA-256 hex), when bound. */
  settings: { scopeId: string; changeNumber: number; hash: string } | null;
}

/** A transition taken between two consecutive steps, `from` → `to` (pi shows it as `"from->to"`). */
export interface TakenTransition {
  from: string;
  to: string;
}

function outcomeOf(status: unknown, attemptId: string): StepOutcome {
  switch (status) {
    case 'completed':
      return 'ok';
    case 'failed':
    case 'timed_out':
    case 'cancelled':
      return status;
    default:
      throw new StoreError('integrity', `Workflow step has nonterminal status: ${String(status)} (attempt ${attemptId})`);
  }
}

function stepSelect(connection: SqliteDatabase): string {
  const linked = hasTables(connection, 'attempt_entries', 'session_entries');
  const entryHash = (role: string): string =>
    linked
      ? `(SELECT e.entry_hash FROM attempt_entries l JOIN session_entries e ON e.segment_id = l.segment_id AND e.entry_id = l.entry_id
          WHERE l.attempt_id = a.attempt_id AND l.role = '${role}')`
      : 'NULL';
  const entryId = (role: string): string =>
    linked ? `(SELECT l.entry_id FROM attempt_entries l WHERE l.attempt_id = a.attempt_id AND l.role = '${role}')` : 'NULL';
  const column = (name: string): string => columnOrNull(connection, 'node_attempts', name, 'a.');
  return `SELECT s.step_index AS pos, a.attempt_id AS attemptId, a.run_id AS attemptRunId, a.node_id AS nodeId,
      a.node_type AS nodeType, a.attempt_number AS attemptNumber, a.status,
      a.started_at AS startedAt, a.finished_at AS finishedAt, ${column('deadline_at')} AS deadlineAt,
      ${refColumns(column('prompt_hash'), 'prompt')},
      ${refColumns(column('output_hash'), 'output')},
      ${refColumns('s.output_override_hash', 'override')},
      ${refColumns('a.error_hash', 'error')},
      ${refColumns(column('receipt_hash'), 'receipt')},
      ${refColumns(entryHash('prompt'), 'promptEntry')},
      ${refColumns(entryHash('response'), 'responseEntry')},
      ${entryId('first')} AS firstEntryId, ${entryId('last')} AS lastEntryId,
      ${column('settings_scope_id')} AS settingsScopeId, ${column('settings_change_number')} AS settingsChangeNumber,
      ${column('settings_hash')} AS settingsHash
    FROM run_steps s JOIN node_attempts a ON a.attempt_id = s.attempt_id`;
}

function stepOf(row: Row): RunStep {
  const attemptId = String(row.attemptId);
  const settingsHash = row.settingsHash;
  return {
    stepIndex: Number(row.pos),
    attemptId,
    attemptRunId: String(row.attemptRunId),
    nodeId: String(row.nodeId),
    nodeType: String(row.nodeType),
    attemptNumber: Number(row.attemptNumber),
    outcome: outcomeOf(row.status, attemptId),
    startedAt: row.startedAt as number | null,
    finishedAt: row.finishedAt as number | null,
    deadlineAt: row.deadlineAt as number | null,
    prompt: valueRefOf(row, 'promptEntry', 'entry-prompt') ?? valueRefOf(row, 'prompt', 'value'),
    output: valueRefOf(row, 'override', 'value') ?? valueRefOf(row, 'output', 'value') ?? valueRefOf(row, 'responseEntry', 'entry-assistant-text'),
    error: refOf(row, 'error'),
    receipt: refOf(row, 'receipt'),
    conversation:
      typeof row.firstEntryId === 'string' && typeof row.lastEntryId === 'string' ? { firstEntryId: row.firstEntryId, lastEntryId: row.lastEntryId } : null,
    settings:
      typeof row.settingsScopeId === 'string' && typeof row.settingsChangeNumber === 'number' && Buffer.isBuffer(settingsHash)
        ? { scopeId: row.settingsScopeId, changeNumber: row.settingsChangeNumber, hash: settingsHash.toString('hex') }
        : null,
  };
}

function stepsQuery(connection: SqliteDatabase, runId: string): ListQuery<RunStep> {
  return { tables: ['run_steps', 'node_attempts'], sql: `${stepSelect(connection)} WHERE s.run_id = @runId`, params: { runId }, map: stepOf };
}

/**
 * A page of the run's steps (position `stepIndex`), from `run_steps` and `node_attempts`
 * (docs/PI-WORKFLOWS-FILES.md §9). Empty when the file has no `run_steps`.
 *
 * @throws StoreError(validation) for a malformed request; StoreError(integrity) for a step
 *   whose attempt has not finished
 */
export function readRunSteps(connection: SqliteDatabase, runId: string, request: PageRequest = {}, counted = true): Page<RunStep> {
  return readPage(connection, stepsQuery(connection, runId), request, counted);
}

/** The number of the run's steps. */
export function countRunSteps(connection: SqliteDatabase, runId: string): number {
  return countList(connection, stepsQuery(connection, runId));
}

/**
 * The graph's steps: the latest step of each node among the steps up to `throughStep`
 * (default: all), in run order — pi's `graphSteps` (which leaves prompt and output out; here
 * they stay references).
 */
export function readRunGraphSteps(connection: SqliteDatabase, runId: string, throughStep?: number): RunStep[] {
  if (!hasTables(connection, 'run_steps', 'node_attempts')) return [];
  const through = throughStep ?? Number.MAX_SAFE_INTEGER;
  return allRows(
    connection,
    `${stepSelect(connection)}
     WHERE s.run_id = @runId AND s.step_index IN (
       SELECT max(s2.step_index) FROM run_steps s2 JOIN node_attempts a2 ON a2.attempt_id = s2.attempt_id
       WHERE s2.run_id = @runId AND s2.step_index <= @through GROUP BY a2.node_id)
     ORDER BY s.step_index`,
    { runId, through },
  ).map(stepOf);
}

/**
 * The transitions taken: each distinct pair of consecutive steps' nodes among the steps up to
 * `throughStep` (default: all), ordered by `from` then `to` — pi's `takenTransitions`.
 */
export function readRunTakenTransitions(connection: SqliteDatabase, runId: string, throughStep?: number): TakenTransition[] {
  if (!hasTables(connection, 'run_steps', 'node_attempts')) return [];
  return allRows<{ fromNode: string; toNode: string }>(
    connection,
    `WITH ordered AS (
       SELECT a.node_id AS nodeId, lag(a.node_id) OVER (ORDER BY s.step_index) AS previousNodeId
       FROM run_steps s JOIN node_attempts a ON a.attempt_id = s.attempt_id
       WHERE s.run_id = @runId AND s.step_index <= @through)
     SELECT DISTINCT previousNodeId AS fromNode, nodeId AS toNode FROM ordered
     WHERE previousNodeId IS NOT NULL ORDER BY previousNodeId, nodeId`,
    { runId, through: throughStep ?? Number.MAX_SAFE_INTEGER },
  ).map((row) => ({ from: row.fromNode, to: row.toNode }));
}
