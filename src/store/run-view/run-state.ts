import type { Database as SqliteDatabase } from 'better-sqlite3';
import { allRows, columnOrNull, getRow, hasTables } from './connection.js';
import { refColumns, refOf, type BlobRef } from './run-blobs.js';
import { readRunDecisionReceipt, type HumanDecisionReceipt } from './run-questions.js';
import { readRunRow, type RunRow } from './run-row.js';

/** A workflow source as pi names it (`builtin` id and revision, or `file` path and hash). */
export type RunSourceIdentity = { kind: 'builtin'; id: string; revision: string } | { kind: 'file'; path: string; hash: string };

/** A row of `run_sources`: the root (`mountPath` `''`) or a mounted workflow's source. */
export interface RunSourceRow {
  mountPath: string;
  source: RunSourceIdentity;
}

/** The attempt a running or waiting run is on (pi's `currentAttemptId`, `currentNodeStartedAt`, `currentNodeDeadlineAt`). */
export interface RunActiveAttempt {
  attemptId: string;
  nodeId: string;
  status: string;
  /** Epoch ms. */
  startedAt: number | null;
  deadlineAt: number | null;
  settings: { scopeId: string; changeNumber: number; hash: string } | null;
}

/** The controller's record of a run (`run_queue` and `run_bindings`); times epoch ms. */
export interface RunQueueState {
  status: string;
  errorCode: string | null;
  /** Queue error text. */
  error: BlobRef | null;
  originSessionId: string | null;
  executionMode: string | null;
  availableAt: number;
  createdAt: number;
  updatedAt: number;
  startedAt: number | null;
  finishedAt: number | null;
}

/**
 * A run's state, from its rows as pi's `buildRunState` reads them (docs/PI-WORKFLOWS-FILES.md
 * §9): `runs` (title, status, paused, detail, input, final output, error, times), the lineage,
 * `run_sources`, the active attempt, the carried steps, the decision receipt and the queue.
 * Times are epoch ms (pi shows them as ISO text: `startedAt` = `createdAt` here). Large values
 * are references (read with `readRunBlob`).
 */
export interface RunState {
  runId: string;
  /** `viewer_runs.presentation_revision` (0 without a row): the view's revision. */
  revision: number;
  /** The run resource's revision: the last trace `seq` (pi's `traceSeq`). */
  traceSeq: number;
  workflowName: string;
  workflowRef: string;
  title: string | null;
  /** `runs.status`: `queued`, `running`, `waiting`, `completed`, `failed`, `timed_out`, `cancelled`. */
  status: string;
  paused: boolean;
  statusDetail: string | null;
  parentRunId: string | null;
  rootRunId: string;
  lineageKind: string | null;
  restartNumber: number;
  /** `sha256:` + hex. */
  definitionDigest: string;
  input: BlobRef;
  finalOutput: BlobRef | null;
  /** Error text. */
  error: BlobRef | null;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
  /** The root source as pi shows it (`workflowSource`): none for an inline definition (`file` `inline:…`). */
  workflowSource: RunSourceIdentity | null;
  /** Every `run_sources` row, by mount path. */
  sources: RunSourceRow[];
  /** Steps carried over from the parent run (a continuation's). */
  carriedStepCount: number;
  /** The open attempt of a running or waiting run. */
  activeAttempt: RunActiveAttempt | null;
  /** The node a running run is on. */
  currentNode: string | null;
  /** The node a waiting run waits on: the open attempt's, else the last step's. */
  waitingOn: string | null;
  humanDecision: HumanDecisionReceipt | null;
  queue: RunQueueState | null;
}

function sourceOf(type: string, ref: string, revision: string): RunSourceIdentity {
  return type === 'builtin' ? { kind: 'builtin', id: ref, revision } : { kind: 'file', path: ref, hash: revision };
}

function readSources(connection: SqliteDatabase, runId: string): RunSourceRow[] {
  if (!hasTables(connection, 'run_sources')) return [];
  return allRows<{ mountPath: string; sourceType: string; sourceRef: string; sourceRevision: string }>(
    connection,
    `SELECT mount_path AS mountPath, source_type AS sourceType, source_ref AS sourceRef, source_revision AS sourceRevision
     FROM run_sources WHERE run_id = ? ORDER BY mount_path`,
    [runId],
  ).map((row) => ({ mountPath: row.mountPath, source: sourceOf(row.sourceType, row.sourceRef, row.sourceRevision) }));
}

function readActiveAttempt(connection: SqliteDatabase, runId: string): RunActiveAttempt | null {
  if (!hasTables(connection, 'node_attempts')) return null;
  const column = (name: string): string => columnOrNull(connection, 'node_attempts', name);
  const row = getRow<{
    attemptId: string;
    nodeId: string;
    status: string;
    startedAt: number | null;
    deadlineAt: number | null;
    scopeId: string | null;
    changeNumber: number | null;
    settingsHash: Buffer | null;
  }>(
    connection,
    `SELECT attempt_id AS attemptId, node_id AS nodeId, status, started_at AS startedAt, ${column('deadline_at')} AS deadlineAt,
            ${column('settings_scope_id')} AS scopeId, ${column('settings_change_number')} AS changeNumber, ${column('settings_hash')} AS settingsHash
     FROM node_attempts WHERE run_id = ? AND status IN ('pending', 'running', 'waiting', 'interrupted')`,
    [runId],
  );
  if (row === undefined) return null;
  return {
    attemptId: row.attemptId,
    nodeId: row.nodeId,
    status: row.status,
    startedAt: row.startedAt,
    deadlineAt: row.deadlineAt,
    settings:
      row.scopeId !== null && row.changeNumber !== null && row.settingsHash !== null
        ? { scopeId: row.scopeId, changeNumber: row.changeNumber, hash: row.settingsHash.toString('hex') }
        : null,
  };
}

function readQueue(connection: SqliteDatabase, runId: string): RunQueueState | null {
  if (!hasTables(connection, 'run_queue')) return null;
  const binding = hasTables(connection, 'run_bindings');
  const row = getRow(
    connection,
    `SELECT q.status, q.error_code AS errorCode, q.available_at AS availableAt, q.created_at AS createdAt, q.updated_at AS updatedAt,
            q.started_at AS startedAt, q.finished_at AS finishedAt, ${refColumns('q.error_hash', 'error')},
            ${binding ? 'b.origin_session_id' : 'q.origin_session_id'} AS originSessionId, ${binding ? 'b.execution_mode' : 'NULL'} AS executionMode
     FROM run_queue q ${binding ? 'LEFT JOIN run_bindings b ON b.run_id = q.run_id' : ''}
     WHERE q.run_id = ?`,
    [runId],
  );
  if (row === undefined) return null;
  return {
    status: String(row.status),
    errorCode: (row.errorCode as string | null) ?? null,
    error: refOf(row, 'error'),
    originSessionId: (row.originSessionId as string | null) ?? null,
    executionMode: (row.executionMode as string | null) ?? null,
    availableAt: Number(row.availableAt),
    createdAt: Number(row.createdAt),
    updatedAt: Number(row.updatedAt),
    startedAt: (row.startedAt as number | null) ?? null,
    finishedAt: (row.finishedAt as number | null) ?? null,
  };
}

function blobRef(connection: SqliteDatabase, hash: Buffer | null): BlobRef | null {
  if (hash === null) return null;
  const row = getRow(connection, `SELECT ${refColumns('?', 'value')}`, [hash, hash, hash]);
  return row === undefined ? null : refOf(row, 'value');
}

/** `viewer_runs.presentation_revision` of the run; 0 when it has no row (or the file no table), as pi. */
export function readRunRevision(connection: SqliteDatabase, runId: string): number {
  if (!hasTables(connection, 'viewer_runs')) return 0;
  return getRow<{ revision: number }>(connection, 'SELECT presentation_revision AS revision FROM viewer_runs WHERE run_id = ?', [runId])?.revision ?? 0;
}

/** The state of a run row (see {@link RunState}). */
export function stateOfRow(connection: SqliteDatabase, run: RunRow): RunState {
  const sources = readSources(connection, run.runId);
  const rootRow = sources.find((row) => row.mountPath === '');
  const inline = rootRow?.source.kind === 'file' && rootRow.source.path.startsWith('inline:');
  const live = run.status === 'running' || run.status === 'waiting';
  const activeAttempt = live ? readActiveAttempt(connection, run.runId) : null;
  const carried = hasTables(connection, 'run_steps', 'node_attempts')
    ? (getRow<{ n: number }>(
        connection,
        'SELECT count(*) AS n FROM run_steps s JOIN node_attempts a ON a.attempt_id = s.attempt_id WHERE s.run_id = ? AND a.run_id <> s.run_id',
        [run.runId],
      )?.n ?? 0)
    : 0;
  const lastStepNode =
    run.status === 'waiting' && activeAttempt === null && hasTables(connection, 'run_steps', 'node_attempts')
      ? (getRow<{ nodeId: string }>(
          connection,
          'SELECT a.node_id AS nodeId FROM run_steps s JOIN node_attempts a ON a.attempt_id = s.attempt_id WHERE s.run_id = ? ORDER BY s.step_index DESC LIMIT 1',
          [run.runId],
        )?.nodeId ?? null)
      : null;
  const traceSeq = hasTables(connection, 'resources')
    ? (getRow<{ revision: number }>(connection, 'SELECT revision FROM resources WHERE resource_id = ?', [run.resourceId])?.revision ?? 0)
    : 0;
  return {
    runId: run.runId,
    revision: readRunRevision(connection, run.runId),
    traceSeq,
    workflowName: run.workflowName,
    workflowRef: run.workflowRef,
    title: run.title,
    status: run.status,
    paused: run.paused === 1,
    statusDetail: run.statusDetail,
    parentRunId: run.parentRunId,
    rootRunId: run.rootRunId,
    lineageKind: run.lineageKind,
    restartNumber: run.restartNumber,
    definitionDigest: `sha256:${run.definitionDigest.toString('hex')}`,
    input: blobRef(connection, run.inputHash) as BlobRef,
    finalOutput: blobRef(connection, run.finalOutputHash),
    error: blobRef(connection, run.errorHash),
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
    finishedAt: run.finishedAt,
    workflowSource: rootRow === undefined || inline ? null : rootRow.source,
    sources,
    carriedStepCount: carried,
    activeAttempt,
    currentNode: run.status === 'running' ? (activeAttempt?.nodeId ?? null) : null,
    waitingOn: run.status === 'waiting' ? (activeAttempt?.nodeId ?? lastStepNode) : null,
    humanDecision: readRunDecisionReceipt(connection, run.runId),
    queue: readQueue(connection, run.runId),
  };
}

/**
 * A run's state (see {@link RunState}), or null when there is no such run.
 *
 * @throws StoreError(integrity) `Human decision receipt is invalid for run <runId>`
 */
export function readRunState(connection: SqliteDatabase, runId: string): RunState | null {
  const run = readRunRow(connection, runId);
  return run === undefined ? null : stateOfRow(connection, run);
}
