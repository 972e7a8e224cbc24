import type { Database as SqliteDatabase } from 'better-sqlite3';
import { getRow, hasTables, type Row } from './connection.js';
import { countList, readPage, type ListQuery, type Page, type PageRequest } from './pages.js';
import { refColumns, refOf, type BlobRef } from './run-blobs.js';
import { logicalOriginRunId } from './run-row.js';

/** A current update of a run: the latest `workflow_updates` row of each (type, key) among the run's attempts. */
export interface RunUpdate {
  /** `run_revision`: the run revision the update was published at (pi's `seq`), its position. */
  seq: number;
  updateId: string;
  /** Epoch ms (`recorded_at`). */
  at: number;
  nodeId: string;
  attemptId: string;
  /** `progress`, `metric`, … */
  type: string;
  key: string;
  /** The update's data (JSON object). */
  data: BlobRef;
}

/** A settings scope in force for a run (its own, or one a continuation took over from its origin run). */
export interface RunSettingsScope {
  /** Index in pi's order (mount path, invocation): the scope's position. */
  position: number;
  scopeId: string;
  originRunId: string;
  activeRunId: string;
  mountPath: string;
  invocation: number;
  /** The scope resource's revision: the number of accepted changes. */
  changeNumber: number;
  /** The settings now (JSON). */
  settings: BlobRef;
  /** The settings the scope started with (JSON). */
  initialSettings: BlobRef;
  /** Epoch ms. */
  createdAt: number;
  updatedAt: number;
}

/** One accepted change of a settings scope (position `changeNumber`). */
export interface RunSettingChange {
  changeNumber: number;
  changeId: string;
  requestId: string;
  actorType: string;
  actorId: string | null;
  source: string;
  /** The JSON patch applied. */
  patch: BlobRef;
  before: BlobRef;
  after: BlobRef;
  /** Epoch ms. */
  acceptedAt: number;
}

/** A follow-up prompt queued for a run (position `order`). */
export interface RunFollowUp {
  order: number;
  followUpId: string;
  requestId: string;
  targetSessionId: string;
  actorType: string;
  actorId: string | null;
  source: string;
  /** The prompt text. */
  prompt: BlobRef;
  /** `queued`, `removed` or `cancelled`. */
  state: string;
  /** Why it was removed or cancelled (text). */
  reason: BlobRef | null;
  /** The follow-up resource's revision. */
  revision: number;
  /** Epoch ms. */
  createdAt: number;
  updatedAt: number;
}

function updatesQuery(runId: string): ListQuery<RunUpdate> {
  return {
    tables: ['workflow_updates', 'node_attempts'],
    sql: `SELECT runRevision AS pos, updateId, recordedAt AS at, nodeId, attemptId, updateType AS type, updateKey AS key,
        ${refColumns('dataHash', 'data')}
      FROM (
        SELECT u.update_id AS updateId, u.run_revision AS runRevision, a.node_id AS nodeId, u.attempt_id AS attemptId,
               u.update_type AS updateType, u.update_key AS updateKey, u.data_hash AS dataHash, u.recorded_at AS recordedAt,
               row_number() OVER (PARTITION BY u.update_type, u.update_key ORDER BY u.run_revision DESC) AS rank
        FROM workflow_updates u JOIN node_attempts a ON a.attempt_id = u.attempt_id
        WHERE a.run_id = @runId)
      WHERE rank = 1`,
    params: { runId },
    map: (row: Row) => ({
      seq: Number(row.pos),
      updateId: String(row.updateId),
      at: Number(row.at),
      nodeId: String(row.nodeId),
      attemptId: String(row.attemptId),
      type: String(row.type),
      key: String(row.key),
      data: refOf(row, 'data') as BlobRef,
    }),
  };
}

/**
 * A page of the run's current updates (pi's `updates`: per type and key only the latest, in
 * the order they were published; position `seq`).
 *
 * @throws StoreError(validation) for a malformed request
 */
export function readRunUpdates(connection: SqliteDatabase, runId: string, request: PageRequest = {}, counted = true): Page<RunUpdate> {
  return readPage(connection, updatesQuery(runId), request, counted);
}

/** The number of the run's current updates (distinct type and key). */
export function countRunUpdates(connection: SqliteDatabase, runId: string): number {
  return countList(connection, updatesQuery(runId));
}

function settingsQuery(connection: SqliteDatabase, runId: string): ListQuery<RunSettingsScope> {
  const originRunId = hasTables(connection, 'workflow_settings') ? logicalOriginRunId(connection, runId) : runId;
  return {
    tables: ['workflow_settings', 'resources'],
    sql: `SELECT row_number() OVER (ORDER BY s.mount_path, s.invocation, s.scope_id) - 1 AS pos,
        s.scope_id AS scopeId, s.origin_run_id AS originRunId, s.active_run_id AS activeRunId, s.mount_path AS mountPath,
        s.invocation, r.revision AS changeNumber, s.created_at AS createdAt, s.updated_at AS updatedAt,
        ${refColumns('s.current_hash', 'current')}, ${refColumns('s.initial_hash', 'initial')}
      FROM workflow_settings s JOIN resources r ON r.resource_id = s.resource_id
      WHERE s.origin_run_id = @originRunId OR s.active_run_id = @runId`,
    params: { runId, originRunId },
    map: (row: Row) => ({
      position: Number(row.pos),
      scopeId: String(row.scopeId),
      originRunId: String(row.originRunId),
      activeRunId: String(row.activeRunId),
      mountPath: String(row.mountPath),
      invocation: Number(row.invocation),
      changeNumber: Number(row.changeNumber),
      settings: refOf(row, 'current') as BlobRef,
      initialSettings: refOf(row, 'initial') as BlobRef,
      createdAt: Number(row.createdAt),
      updatedAt: Number(row.updatedAt),
    }),
  };
}

/**
 * A page of the settings scopes in force for the run (pi's `settingsScopes`: scopes of the
 * run's origin run or active in this run, by mount path and invocation; position = index in
 * that order).
 *
 * @throws StoreError(validation) for a malformed request
 */
export function readRunSettings(connection: SqliteDatabase, runId: string, request: PageRequest = {}): Page<RunSettingsScope> {
  return readPage(connection, settingsQuery(connection, runId), request);
}

/** The number of settings scopes in force for the run. */
export function countRunSettings(connection: SqliteDatabase, runId: string): number {
  return countList(connection, settingsQuery(connection, runId));
}

/**
 * A page of the accepted changes of one of the run's settings scopes (position
 * `changeNumber`); empty when the scope is not one of the run's.
 *
 * @throws StoreError(validation) for a malformed request
 */
export function readRunSettingChanges(connection: SqliteDatabase, runId: string, scopeId: string, request: PageRequest = {}): Page<RunSettingChange> {
  const originRunId = hasTables(connection, 'workflow_settings') ? logicalOriginRunId(connection, runId) : runId;
  return readPage(
    connection,
    {
      tables: ['workflow_settings', 'workflow_setting_changes'],
      sql: `SELECT c.change_number AS pos, c.change_id AS changeId, c.request_id AS requestId, c.actor_type AS actorType,
          c.actor_id AS actorId, c.source_type AS source, c.accepted_at AS acceptedAt,
          ${refColumns('c.patch_hash', 'patch')}, ${refColumns('c.before_hash', 'before')}, ${refColumns('c.after_hash', 'after')}
        FROM workflow_setting_changes c JOIN workflow_settings s ON s.scope_id = c.scope_id
        WHERE c.scope_id = @scopeId AND (s.origin_run_id = @originRunId OR s.active_run_id = @runId)`,
      params: { runId, originRunId, scopeId },
      map: (row: Row) => ({
        changeNumber: Number(row.pos),
        changeId: String(row.changeId),
        requestId: String(row.requestId),
        actorType: String(row.actorType),
        actorId: (row.actorId as string | null) ?? null,
        source: String(row.source),
        patch: refOf(row, 'patch') as BlobRef,
        before: refOf(row, 'before') as BlobRef,
        after: refOf(row, 'after') as BlobRef,
        acceptedAt: Number(row.acceptedAt),
      }),
    },
    request,
  );
}

function followUpsQuery(runId: string): ListQuery<RunFollowUp> {
  return {
    tables: ['workflow_follow_ups', 'resources'],
    sql: `SELECT f.order_number AS pos, f.follow_up_id AS followUpId, f.request_id AS requestId, f.target_session_id AS targetSessionId,
        f.actor_type AS actorType, f.actor_id AS actorId, f.source_type AS source, f.status AS state, r.revision,
        f.created_at AS createdAt, f.updated_at AS updatedAt,
        ${refColumns('f.prompt_hash', 'prompt')}, ${refColumns('f.reason_hash', 'reason')}
      FROM workflow_follow_ups f JOIN resources r ON r.resource_id = f.resource_id
      WHERE f.run_id = @runId`,
    params: { runId },
    map: (row: Row) => ({
      order: Number(row.pos),
      followUpId: String(row.followUpId),
      requestId: String(row.requestId),
      targetSessionId: String(row.targetSessionId),
      actorType: String(row.actorType),
      actorId: (row.actorId as string | null) ?? null,
      source: String(row.source),
      prompt: refOf(row, 'prompt') as BlobRef,
      state: String(row.state),
      reason: refOf(row, 'reason'),
      revision: Number(row.revision),
      createdAt: Number(row.createdAt),
      updatedAt: Number(row.updatedAt),
    }),
  };
}

/**
 * A page of the follow-ups queued for the run (pi's `followUpQueue.items`; position `order`).
 *
 * @throws StoreError(validation) for a malformed request
 */
export function readRunFollowUps(connection: SqliteDatabase, runId: string, request: PageRequest = {}): Page<RunFollowUp> {
  return readPage(connection, followUpsQuery(runId), request);
}

/** The number of follow-ups queued for the run (any state). */
export function countRunFollowUps(connection: SqliteDatabase, runId: string): number {
  return countList(connection, followUpsQuery(runId));
}

/** The run's origin Pi session (`run_bindings.origin_session_id`), or null. */
export function readRunOriginSession(connection: SqliteDatabase, runId: string): string | null {
  if (!hasTables(connection, 'run_bindings')) return null;
  return getRow<{ id: string }>(connection, 'SELECT origin_session_id AS id FROM run_bindings WHERE run_id = ?', [runId])?.id ?? null;
}
