/**
 * Builds pi-workflows state files for the tests, the way pi-workflows builds
 * them (facts from its `src/state/database.ts`): WAL, `synchronous=FULL`, foreign keys on,
 * busy timeout 5 s, `journal_size_limit` 64 MiB, the schema of `pi-workflows-schema.ts`,
 * `PRAGMA application_id` 0x50495746 and `user_version` 1, and the one `schema_meta` row with
 * the SHA-256 of the DDL text as `schema_digest`.
 *
 * {@link PiWorkflowsWriter} writes rows with plain SQL as pi-workflows' host does: runs with
 * their resource, lease, binding, sources, queue row, viewer row and `run.queued` event;
 * resource bumps with events; viewer revisions (deltas with their patch blobs, 256 retained);
 * node attempts, effects, host commands and workers whose blobs only those tables reference.
 * {@link seedPiWorkflowsRuns} fills a file with a realistic set of runs.
 *
 * {@link piWorkflowsOpenCheck} checks a file the way pi-workflows checks its own at open.
 */
import { createHash, randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { canonicalJson, terminalFingerprint, type JsonValue, type LineageKind, type RunStatus } from '../../src/store/index.js';
import { columnsOf, schemaModel, schemaSql, type SchemaModel, type SchemaVariant } from './pi-workflows-schema.js';

/** `PRAGMA application_id` of a pi-workflows state file. */
export const PIWF_APPLICATION_ID = 0x50495746;

/** Options of {@link createPiWorkflowsFile}. */
export interface PiWorkflowsFileOptions extends SchemaVariant {
  /** `schema_meta.app_version`; default `0.16.2` (`0.14.0` for line `0.14`). */
  appVersion?: string;
  /** `schema_meta.schema_version`; default 1. */
  schemaVersion?: number;
  /** `PRAGMA user_version`; default the schema version. */
  userVersion?: number;
  /** `PRAGMA application_id`; default 0x50495746. */
  applicationId?: number;
  /** `schema_meta.schema_name`; default `pi-workflows-state`. */
  schemaName?: string;
  /** Epoch ms of `schema_meta.created_at`. */
  now?: number;
}

/** What a built file is made of (to check it later as pi-workflows does). */
export interface PiWorkflowsFileFacts {
  path: string;
  model: SchemaModel;
  /** The DDL the file was built with. */
  ddl: string;
  /** SHA-256 of the DDL text (the file's `schema_digest`). */
  digest: Buffer;
  appVersion: string;
  schemaVersion: number;
}

/** The connection settings pi-workflows uses for a read-write open. */
export function openLikePiWorkflows(path: string): Database.Database {
  const connection = new Database(path, { timeout: 5_000 });
  connection.pragma('foreign_keys = ON');
  connection.pragma('busy_timeout = 5000');
  connection.pragma('journal_mode = WAL');
  connection.pragma('synchronous = FULL');
  connection.pragma('wal_autocheckpoint = 1000');
  connection.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
  return connection;
}

/**
 * Creates a pi-workflows state file (schema, pragmas, `schema_meta`) and returns a writer on
 * it; close the writer to get a file as pi-workflows leaves it (WAL checkpointed).
 */
export function createPiWorkflowsFile(path: string, options: PiWorkflowsFileOptions = {}): PiWorkflowsWriter {
  const model = schemaModel(options);
  const ddl = schemaSql(model);
  const digest = createHash('sha256').update(ddl).digest();
  const schemaVersion = options.schemaVersion ?? 1;
  const appVersion = options.appVersion ?? ((options.line ?? '0.16') === '0.14' ? '0.14.0' : '0.16.2');
  const connection = openLikePiWorkflows(path);
  const now = options.now ?? Date.parse('2026-01-01T00:00:00.000Z');
  connection.exec('BEGIN EXCLUSIVE');
  connection.exec(ddl);
  connection.pragma(`application_id = ${options.applicationId ?? PIWF_APPLICATION_ID}`);
  connection.pragma(`user_version = ${options.userVersion ?? schemaVersion}`);
  if (model.tables.some((entry) => entry.name === 'schema_meta')) {
    connection
      .prepare('INSERT INTO schema_meta(id, schema_name, schema_version, schema_digest, app_version, created_at, updated_at) VALUES (1, ?, ?, ?, ?, ?, ?)')
      .run(options.schemaName ?? 'pi-workflows-state', schemaVersion, digest, appVersion, now, now);
  }
  connection.exec('COMMIT');
  return new PiWorkflowsWriter(connection, { path, model, ddl, digest, appVersion, schemaVersion });
}

/**
 * Opens an existing pi-workflows file the way pi-workflows' host does (read-write, WAL) and
 * returns a writer on it; `options` must be the ones the file was created with.
 */
export function attachPiWorkflowsWriter(path: string, options: PiWorkflowsFileOptions = {}): PiWorkflowsWriter {
  const model = schemaModel(options);
  const ddl = schemaSql(model);
  const appVersion = options.appVersion ?? ((options.line ?? '0.16') === '0.14' ? '0.14.0' : '0.16.2');
  const facts = { path, model, ddl, digest: createHash('sha256').update(ddl).digest(), appVersion, schemaVersion: options.schemaVersion ?? 1 };
  return new PiWorkflowsWriter(openLikePiWorkflows(path), facts);
}

/** A run as {@link PiWorkflowsWriter.reserveRun} writes it. */
export interface RunSpec {
  runId: string;
  originSessionId: string;
  /** Epoch ms (runs and queue `created_at`). */
  at: number;
  executionMode?: 'interactive' | 'headless';
  workflowName?: string;
  workflowRef?: string;
  definition?: JsonValue;
  input?: JsonValue;
  launchOptions?: JsonValue;
  parentRunId?: string;
  lineageKind?: LineageKind;
  /** Default 0 for a root; the parent's (+1 for a restart) otherwise. */
  restartNumber?: number;
  /** 64 hex (restarts only). */
  parentTerminalFingerprint?: string;
  title?: string;
  projectId?: string | null;
  /** The reserving runner (`run_queue.affinity_runner_id`); default none (NULL). */
  runnerId?: string;
}

/** A viewer delta draft (target, key, own ops). */
export interface DeltaDraft {
  targetType: 'summary' | 'graph' | 'replay' | 'timeline' | 'conversation' | 'inspector';
  targetKey?: string;
  ops?: JsonValue[];
}

/** The four targets of a run bump. */
export const BUMP: DeltaDraft[] = [{ targetType: 'summary' }, { targetType: 'graph' }, { targetType: 'replay' }, { targetType: 'inspector', targetKey: 'run' }];

/** The two targets a release, a settle or a heartbeat records (after the bump's four, for the first two). */
export const SUMMARY_REPLAY: DeltaDraft[] = [{ targetType: 'summary' }, { targetType: 'replay' }];

/** A claim as pi-workflows' claim calls take it (`claimWorkflowRun`, `claimNextWorkflowRun`). */
export interface PiClaimInput {
  runnerId: string;
  /** Only its SHA-256 is stored. */
  claimToken: string;
  /** Lease duration, ms. */
  leaseMs: number;
  /** The call's one clock reading, epoch ms; default `Date.now()`. */
  now?: number;
}

/** A claim pi-workflows' claim next takes: {@link PiClaimInput} and the candidate filters. */
export interface PiClaimNextInput extends PiClaimInput {
  /** Only runs bound to this origin session; without: headless runs or runs not `queued`. */
  sessionId?: string;
  excludeRunIds?: readonly string[];
  /** The store's project (`runs.project_id`); default any. */
  projectId?: string;
}

/** What a claim took. */
export interface PiClaimed {
  runId: string;
  /** The lease generation after the claim. */
  generation: number;
  /** Epoch ms. */
  expiresAt: number;
  /** The resource revision after the claim's bump. */
  revision: number;
  /** The presentation revision of the claim's four deltas. */
  presentationRevision: number;
}

/** A `leases` row (times in epoch ms). */
export interface LeaseRow {
  resource_id: string;
  generation: number;
  owner_type: string | null;
  owner_id: string | null;
  token_hash: Buffer | null;
  acquired_at: number | null;
  heartbeat_at: number | null;
  expires_at: number | null;
}

/** A claim holder's call: the run, its token, the call's clock reading (epoch ms, default now). */
export interface PiHolderInput {
  runId: string;
  claimToken: string;
  now?: number;
}

/** A terminal or intermediate run state, as the host records it. */
export interface RunStateChange {
  status: RunStatus;
  queueStatus: 'queued' | 'starting' | 'running' | 'parked' | 'done' | 'failed' | 'cancelled';
  finalOutput?: JsonValue;
  /** Error text (stored as a text/plain blob on the run and the queue). */
  error?: string;
  errorCode?: string;
  statusDetail?: string;
}

const DEFINITION = {
  name: 'review',
  steps: [
    { id: 'plan', type: 'agent' },
    { id: 'apply', type: 'agent' },
  ],
};

function sha256(bytes: Buffer | string): Buffer {
  return createHash('sha256').update(bytes).digest();
}

/** `run-` + first 40 hex of SHA-256(`run` NUL run id) (docs/STORE-RULES.md §3.3). */
export function runResourceId(runId: string): string {
  return `run-${sha256(`run\u0000${runId}`).toString('hex').slice(0, 40)}`;
}

/** Writes rows into a pi-workflows state file with plain SQL, as its host does. */
export class PiWorkflowsWriter {
  constructor(
    readonly connection: Database.Database,
    readonly facts: PiWorkflowsFileFacts,
  ) {}

  /** Runs `fn` in one `BEGIN IMMEDIATE` transaction. */
  transaction<T>(fn: () => T): T {
    return this.connection.transaction(fn).immediate();
  }

  /** Inserts a row (`INSERT OR IGNORE` with `orIgnore`), leaving out columns this file's layout does not have. */
  insert(tableName: string, row: Record<string, unknown>, orIgnore = false): void {
    const columns = columnsOf(this.facts.model, tableName);
    if (columns.size === 0) return;
    const names = Object.keys(row).filter((name) => columns.has(name));
    this.connection
      .prepare(`INSERT${orIgnore ? ' OR IGNORE' : ''} INTO ${tableName}(${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`)
      .run(...names.map((name) => row[name]));
  }

  /** Updates rows matching `where` (SQL with `?` for `params`), leaving out columns this file's layout does not have. */
  update(tableName: string, values: Record<string, unknown>, where: string, ...params: unknown[]): void {
    const columns = columnsOf(this.facts.model, tableName);
    const names = Object.keys(values).filter((name) => columns.has(name));
    if (names.length === 0) return;
    this.connection
      .prepare(`UPDATE ${tableName} SET ${names.map((name) => `${name} = ?`).join(', ')} WHERE ${where}`)
      .run(...names.map((name) => values[name]), ...params);
  }

  /** Runs a statement with parameters. */
  run(sql: string, ...params: unknown[]): void {
    this.connection.prepare(sql).run(...params);
  }

  /** Stores bytes once under their SHA-256. */
  putBlob(bytes: Buffer, mediaType: string, now: number): Buffer {
    const hash = sha256(bytes);
    this.insert('blobs', { blob_hash: hash, media_type: mediaType, byte_length: bytes.length, content: bytes, created_at: now }, true);
    return hash;
  }

  /** Stores canonical JSON (`application/json`). */
  putJson(value: unknown, now: number): Buffer {
    return this.putBlob(Buffer.from(canonicalJson(value), 'utf8'), 'application/json', now);
  }

  /** Stores text (`text/plain`). */
  putText(text: string, now: number): Buffer {
    return this.putBlob(Buffer.from(text, 'utf8'), 'text/plain', now);
  }

  /** A run's current resource revision. */
  revision(runId: string): number {
    return (this.connection.prepare('SELECT revision FROM resources WHERE resource_id = ?').get(runResourceId(runId)) as { revision: number }).revision;
  }

  /** Inserts a resource event at `revision` with a JSON payload; `generation` 0 or absent is stored as NULL. */
  private event(
    resourceId: string,
    revision: number,
    type: string,
    actorType: string,
    actorId: string | null,
    payload: JsonValue,
    now: number,
    generation?: number,
  ): void {
    this.insert('events', {
      event_id: `event-${randomUUID()}`,
      resource_id: resourceId,
      resource_revision: revision,
      event_type: type,
      actor_type: actorType,
      actor_id: actorId,
      lease_generation: generation === undefined || generation === 0 ? null : generation,
      payload_hash: this.putJson(payload, now),
      recorded_at: now,
    });
  }

  /**
   * Reserves a run: definition, blobs, resource (revision 1), lease (generation 0), runs row
   * (`queued`), sources, binding, queue row (`queued`), viewer row (revision 1) and the
   * `run.queued` event. Lineage (root, restart number) follows the parent.
   */
  reserveRun(spec: RunSpec): void {
    const now = spec.at;
    const definition = spec.definition ?? DEFINITION;
    const digest = sha256(canonicalJson(definition));
    const workflowRef = spec.workflowRef ?? 'workflows/review.ts';
    const parent =
      spec.parentRunId === undefined
        ? undefined
        : (this.connection.prepare('SELECT root_run_id, restart_number FROM runs WHERE run_id = ?').get(spec.parentRunId) as {
            root_run_id: string;
            restart_number: number;
          });
    const lineageKind = spec.parentRunId === undefined ? null : (spec.lineageKind ?? 'continuation');
    const restartNumber = spec.restartNumber ?? (parent === undefined ? 0 : parent.restart_number + (lineageKind === 'restart' ? 1 : 0));
    const resourceId = runResourceId(spec.runId);
    this.insert(
      'workflow_definitions',
      { definition_digest: digest, workflow_name: spec.workflowName ?? 'review', definition_hash: this.putJson(definition, now), created_at: now },
      true,
    );
    this.insert('resources', { resource_id: resourceId, resource_type: 'run', aggregate_key: spec.runId, revision: 1, created_at: now, updated_at: now });
    this.insert('leases', { resource_id: resourceId, generation: 0 });
    this.insert('runs', {
      run_id: spec.runId,
      resource_id: resourceId,
      project_id: spec.projectId ?? null,
      parent_run_id: spec.parentRunId ?? null,
      root_run_id: parent?.root_run_id ?? spec.runId,
      lineage_kind: lineageKind,
      restart_number: restartNumber,
      parent_terminal_fingerprint: spec.parentTerminalFingerprint === undefined ? null : Buffer.from(spec.parentTerminalFingerprint, 'hex'),
      definition_digest: digest,
      workflow_ref: workflowRef,
      launch_options_hash: this.putJson(spec.launchOptions ?? {}, now),
      title: spec.title ?? null,
      status: 'queued',
      paused: 0,
      input_hash: this.putJson(spec.input ?? null, now),
      created_at: now,
      updated_at: now,
    });
    this.insert('run_sources', { run_id: spec.runId, mount_path: '', source_type: 'file', source_ref: workflowRef, source_revision: digest.toString('hex') });
    this.insert('run_bindings', {
      run_id: spec.runId,
      origin_session_id: spec.originSessionId,
      execution_mode: spec.executionMode ?? 'interactive',
      created_at: now,
    });
    this.insert('run_queue', {
      run_id: spec.runId,
      status: 'queued',
      available_at: now,
      affinity_runner_id: spec.runnerId ?? null,
      origin_session_id: spec.originSessionId,
      created_at: now,
      updated_at: now,
    });
    this.insert('viewer_runs', { run_id: spec.runId, presentation_revision: 1, retained_from_revision: 1, updated_at: now });
    this.event(resourceId, 1, 'run.queued', 'session', spec.originSessionId, {}, now);
  }

  /**
   * Bumps a run's resource revision by one and records the event (docs/STORE-RULES.md §5); the actor's
   * `generation` is the event's `lease_generation` (0 or absent: NULL).
   */
  bump(
    runId: string,
    eventType: string,
    payload: JsonValue,
    now: number,
    actor: { type: string; id: string | null; generation?: number } = { type: 'host', id: 'host-1' },
  ): number {
    const resourceId = runResourceId(runId);
    const revision = this.revision(runId) + 1;
    this.update('resources', { revision, updated_at: now }, 'resource_id = ?', resourceId);
    this.event(resourceId, revision, eventType, actor.type, actor.id, payload, now, actor.generation);
    return revision;
  }

  /**
   * Records one viewer revision R = current + 1: one delta per draft with the patch
   * `[replace /presentationRevision R]` and the draft's ops (graph deltas too: pi-workflows writes no
   * `/graphRevision`);
   * keeps 256 revisions.
   *
   * @returns R
   */
  recordViewerRevision(runId: string, drafts: readonly DeltaDraft[], now: number): number {
    const current = this.connection.prepare('SELECT presentation_revision FROM viewer_runs WHERE run_id = ?').get(runId) as { presentation_revision: number };
    const revision = current.presentation_revision + 1;
    drafts.forEach((draft, index) => {
      const patch: JsonValue[] = [{ op: 'replace', path: '/presentationRevision', value: revision }, ...(draft.ops ?? [])];
      this.insert('viewer_deltas', {
        run_id: runId,
        presentation_revision: revision,
        delta_index: index,
        target_type: draft.targetType,
        target_key: draft.targetKey ?? '',
        patch_hash: this.putJson(patch, now),
        recorded_at: now,
      });
    });
    const retainedFrom = Math.max(1, revision - 256 + 1);
    this.update('viewer_runs', { presentation_revision: revision, retained_from_revision: retainedFrom, updated_at: now }, 'run_id = ?', runId);
    this.run('DELETE FROM viewer_deltas WHERE run_id = ? AND presentation_revision < ?', runId, retainedFrom);
    return revision;
  }

  /** Claims a run for `ownerId` until `expiresAt` (lease generation +1, queue `starting`), with its bump. */
  claim(runId: string, ownerId: string, token: string, expiresAt: number, now: number): void {
    const resourceId = runResourceId(runId);
    const { generation } = this.connection.prepare('SELECT generation FROM leases WHERE resource_id = ?').get(resourceId) as { generation: number };
    this.update(
      'leases',
      {
        generation: generation + 1,
        owner_type: ownerId.startsWith('host-') ? 'host' : 'session',
        owner_id: ownerId,
        token_hash: sha256(token),
        acquired_at: now,
        heartbeat_at: now,
        expires_at: expiresAt,
      },
      'resource_id = ?',
      resourceId,
    );
    this.update('run_queue', { status: 'starting', updated_at: now }, 'run_id = ?', runId);
    this.bump(runId, 'lease.claimed', { expiresAt }, now);
    this.recordViewerRevision(runId, BUMP, now);
  }

  /** Releases a run's lease (all owner fields cleared, generation kept). */
  release(runId: string): void {
    this.update(
      'leases',
      { owner_type: null, owner_id: null, token_hash: null, acquired_at: null, heartbeat_at: null, expires_at: null },
      'resource_id = ?',
      runResourceId(runId),
    );
  }

  /** Moves a run to a new state (runs and queue rows), with its bump and a summary revision. */
  setState(runId: string, change: RunStateChange, now: number): void {
    const finished = change.status === 'queued' || change.status === 'running' ? null : now;
    const errorHash = change.error === undefined ? null : this.putText(change.error, now);
    this.update(
      'runs',
      {
        status: change.status,
        status_detail: change.statusDetail ?? null,
        final_output_hash: change.finalOutput === undefined ? null : this.putJson(change.finalOutput, now),
        error_hash: errorHash,
        updated_at: now,
        finished_at: finished,
      },
      'run_id = ?',
      runId,
    );
    const queue = this.connection.prepare('SELECT started_at FROM run_queue WHERE run_id = ?').get(runId) as { started_at: number | null };
    const started = queue.started_at ?? (['running', 'parked', 'done', 'failed'].includes(change.queueStatus) ? now : null);
    this.update(
      'run_queue',
      {
        status: change.queueStatus,
        error_code: change.errorCode ?? null,
        error_hash: errorHash,
        updated_at: now,
        finished_at: ['done', 'failed', 'cancelled'].includes(change.queueStatus) ? now : null,
        started_at: started,
      },
      'run_id = ?',
      runId,
    );
    this.bump(runId, `run.queue_${change.queueStatus}`, { status: change.queueStatus }, now);
    this.recordViewerRevision(runId, BUMP, now);
    this.recordViewerRevision(
      runId,
      [{ targetType: 'summary', ops: [{ op: 'replace', path: '/status', value: change.status }] }, { targetType: 'replay' }],
      now,
    );
  }

  /** The terminal fingerprint of a run as stored (docs/STORE-RULES.md §7.1, §13.2), 64 hex. */
  fingerprintOf(runId: string): string {
    const row = this.connection
      .prepare(
        `SELECT r.workflow_ref, r.status, r.status_detail, bi.content AS input, bo.content AS output, be.content AS error
         FROM runs r JOIN blobs bi ON bi.blob_hash = r.input_hash
         LEFT JOIN blobs bo ON bo.blob_hash = r.final_output_hash LEFT JOIN blobs be ON be.blob_hash = r.error_hash
         WHERE r.run_id = ?`,
      )
      .get(runId) as { workflow_ref: string; status: RunStatus; status_detail: string | null; input: Buffer; output: Buffer | null; error: Buffer | null };
    return terminalFingerprint({
      workflowRef: row.workflow_ref,
      input: JSON.parse(row.input.toString('utf8')) as JsonValue,
      status: row.status,
      finalOutput: row.output === null ? null : (JSON.parse(row.output.toString('utf8')) as JsonValue),
      error: row.error === null ? null : row.error.toString('utf8'),
      reason: row.status_detail,
    });
  }

  /** A node attempt whose prompt and output blobs only `node_attempts` references. */
  addNodeAttempt(runId: string, nodeId: string, attemptNumber: number, prompt: string, output: JsonValue, now: number): string {
    const attemptId = `attempt-${runId}-${nodeId}-${attemptNumber}`;
    this.insert('node_attempts', {
      attempt_id: attemptId,
      run_id: runId,
      node_id: nodeId,
      attempt_number: attemptNumber,
      node_type: 'agent',
      status: 'completed',
      prompt_hash: this.putText(prompt, now),
      output_hash: this.putJson(output, now),
      started_at: now,
      finished_at: now,
      created_at: now,
      updated_at: now,
    });
    return attemptId;
  }

  /** An effect of the run (its own resource) with a payload blob only `effects` references. */
  addEffect(runId: string, effectId: string, payload: JsonValue, now: number): void {
    const resourceId = `effect-${sha256(`effect\u0000${effectId}`).toString('hex').slice(0, 40)}`;
    this.insert('resources', { resource_id: resourceId, resource_type: 'effect', aggregate_key: effectId, revision: 1, created_at: now, updated_at: now });
    this.insert('effects', {
      effect_id: effectId,
      resource_id: resourceId,
      source_resource_id: runResourceId(runId),
      source_revision: 1,
      effect_type: 'http.post',
      idempotency_key: effectId,
      payload_hash: this.putJson(payload, now),
      owner_scope: 'run',
      status: 'applied',
      attempt_count: 1,
      created_at: now,
      updated_at: now,
      settled_at: now,
    });
  }

  /** A host command about the run with a receipt blob only `host_commands` references. */
  addHostCommand(runId: string, requestId: string, receipt: JsonValue, now: number): void {
    this.insert('host_commands', {
      request_id: requestId,
      client_id: 'pi-session-1',
      operation: 'run.start',
      idempotency_key: requestId,
      request_fingerprint: sha256(requestId),
      run_id: runId,
      accepted_revision: 1,
      outcome: 'accepted',
      receipt_hash: this.putJson(receipt, now),
      host_epoch: 1,
      created_at: now,
      completed_at: now,
    });
  }

  /** A worker process of the run with a launch envelope blob only `run_workers` references. */
  addWorker(runId: string, workerEpoch: string, envelope: JsonValue, now: number): void {
    this.insert('run_workers', {
      worker_epoch: workerEpoch,
      run_id: runId,
      generation: 1,
      host_epoch: 1,
      launch_envelope_hash: this.putJson(envelope, now),
      pid: 4242,
      process_start_identity: 'boot-1:4242',
      status: 'exited',
      started_at: now,
      ready_at: now,
      finished_at: now,
      exit_code: 0,
    });
  }

  /** The lease row of a run (generation, owner, token hash, times in epoch ms). */
  leaseOf(runId: string): LeaseRow {
    return this.connection.prepare('SELECT * FROM leases WHERE resource_id = ?').get(runResourceId(runId)) as LeaseRow;
  }

  /** True while `claimToken` is the run's live claim at `now`: owned, token hash equal, not expired, queue not settled. */
  private liveClaim(runId: string, claimToken: string, now: number): LeaseRow | undefined {
    const lease = this.leaseOf(runId);
    const queue = this.connection.prepare('SELECT status FROM run_queue WHERE run_id = ?').get(runId) as { status: string } | undefined;
    if (queue === undefined || ['done', 'failed', 'cancelled'].includes(queue.status)) return undefined;
    if (lease.owner_id === null || lease.token_hash === null || lease.expires_at === null || lease.expires_at <= now) return undefined;
    return lease.token_hash.equals(sha256(claimToken)) ? lease : undefined;
  }

  /**
   * The claim core of pi-workflows' `claimWorkflowRun`, inside the caller's transaction:
   * refused (nothing written) for a missing or settled run, a pending interaction, or another
   * runner's live lease; else lease generation + 1 with owner type (`host` for a `host-`
   * runner id, else `session`), owner id, token hash, `acquired_at = heartbeat_at = now`,
   * `expires_at = now + leaseMs`; queue `starting` with the error cleared; bump with
   * `lease.claimed` `{expiresAt: epoch ms}`; four deltas.
   */
  private claimCore(runId: string, input: PiClaimInput, now: number): PiClaimed | undefined {
    const queue = this.connection.prepare('SELECT status FROM run_queue WHERE run_id = ?').get(runId) as { status: string } | undefined;
    if (queue === undefined || ['done', 'failed', 'cancelled'].includes(queue.status)) return undefined;
    if (this.connection.prepare("SELECT 1 FROM interactive_requests WHERE run_id = ? AND status = 'pending' LIMIT 1").get(runId) !== undefined)
      return undefined;
    const lease = this.leaseOf(runId);
    if (lease.owner_id !== null && lease.expires_at !== null && lease.expires_at > now && lease.owner_id !== input.runnerId) return undefined;
    const generation = lease.generation + 1;
    const expiresAt = now + input.leaseMs;
    const ownerType = input.runnerId.startsWith('host-') ? 'host' : 'session';
    this.update(
      'leases',
      {
        generation,
        owner_type: ownerType,
        owner_id: input.runnerId,
        token_hash: sha256(input.claimToken),
        acquired_at: now,
        heartbeat_at: now,
        expires_at: expiresAt,
      },
      'resource_id = ? AND generation = ?',
      runResourceId(runId),
      lease.generation,
    );
    this.update('run_queue', { status: 'starting', error_code: null, error_hash: null, updated_at: now }, 'run_id = ?', runId);
    const revision = this.bump(runId, 'lease.claimed', { expiresAt }, now, { type: ownerType, id: input.runnerId, generation });
    const presentationRevision = this.recordViewerRevision(runId, BUMP, now);
    return { runId, generation, expiresAt, revision, presentationRevision };
  }

  /**
   * Claims a run by id as pi-workflows' `claimWorkflowRun` does, in one `BEGIN IMMEDIATE`
   * transaction (docs/PI-WORKFLOWS-FILES.md §6).
   *
   * @returns what the claim took, or undefined when the run is not claimable (nothing written)
   */
  claimRun(runId: string, input: PiClaimInput): PiClaimed | undefined {
    const now = input.now ?? Date.now();
    return this.transaction(() => this.claimCore(runId, input, now));
  }

  /**
   * Claims the oldest eligible run (`available_at`, then queue `created_at`, then run id) as
   * pi-workflows' `claimNextWorkflowRun` does, in one transaction: queue
   * queued/parked/starting/running and available, lease free, expired or this runner's,
   * affinity none or this runner (or not `queued`), not parked while waiting or paused, no
   * pending interaction, no `workflowSourceChanged`/`workerNoProgress` error, the project, the
   * session (or headless / not queued without one).
   *
   * @returns what the claim took, or undefined when nothing is eligible
   */
  claimNextRun(input: PiClaimNextInput): PiClaimed | undefined {
    const now = input.now ?? Date.now();
    const conditions = [
      "q.status IN ('queued', 'parked', 'starting', 'running')",
      'q.available_at <= ?',
      '(l.owner_id IS NULL OR l.expires_at <= ? OR l.owner_id = ?)',
      "(q.affinity_runner_id IS NULL OR q.affinity_runner_id = ? OR q.status <> 'queued')",
      "NOT (q.status = 'parked' AND (r.status = 'waiting' OR r.paused = 1))",
      "NOT EXISTS (SELECT 1 FROM interactive_requests i WHERE i.run_id = r.run_id AND i.status = 'pending')",
      "(q.error_code IS NULL OR q.error_code NOT IN ('workflowSourceChanged', 'workerNoProgress'))",
    ];
    const params: unknown[] = [now, now, input.runnerId, input.runnerId];
    if (input.projectId !== undefined) {
      conditions.push('r.project_id = ?');
      params.push(input.projectId);
    }
    if (input.sessionId !== undefined) {
      conditions.push('b.origin_session_id = ?');
      params.push(input.sessionId);
    } else {
      conditions.push("(b.execution_mode = 'headless' OR q.status <> 'queued')");
    }
    if (input.excludeRunIds !== undefined && input.excludeRunIds.length > 0) {
      conditions.push('r.run_id NOT IN (SELECT value FROM json_each(?))');
      params.push(JSON.stringify(input.excludeRunIds));
    }
    return this.transaction(() => {
      const found = this.connection
        .prepare(
          `SELECT r.run_id FROM run_queue q JOIN runs r ON r.run_id = q.run_id JOIN run_bindings b ON b.run_id = r.run_id
           JOIN leases l ON l.resource_id = r.resource_id WHERE ${conditions.join(' AND ')}
           ORDER BY q.available_at, q.created_at, r.run_id LIMIT 1`,
        )
        .get(...params) as { run_id: string } | undefined;
      return found === undefined ? undefined : this.claimCore(found.run_id, input, now);
    });
  }

  /**
   * Heartbeat as pi-workflows' `renewWorkflowRunClaim`: with a live lease of the same owner,
   * token and generation, `heartbeat_at = now` and `expires_at = now + leaseMs` only, then two
   * deltas (summary, replay); no event, no resource bump.
   *
   * @returns the new presentation revision, or undefined when the claim is not live (nothing written)
   */
  renewClaim(input: PiHolderInput & { runnerId: string; generation: number; leaseMs: number }): number | undefined {
    const now = input.now ?? Date.now();
    return this.transaction(() => {
      const lease = this.liveClaim(input.runId, input.claimToken, now);
      if (lease === undefined || lease.owner_id !== input.runnerId || lease.generation !== input.generation) return undefined;
      this.update('leases', { heartbeat_at: now, expires_at: now + input.leaseMs }, 'resource_id = ?', runResourceId(input.runId));
      return this.recordViewerRevision(input.runId, SUMMARY_REPLAY, now);
    });
  }

  /**
   * Parks a claimed run as pi-workflows' `parkWorkflowRun`: queue `parked`, lease released
   * (generation kept), bump with `run.queue_parked` `{status:"parked"}` by the lease owner,
   * 4 + 2 deltas.
   *
   * @returns false when the claim is not live (nothing written)
   */
  parkRun(input: PiHolderInput): boolean {
    const now = input.now ?? Date.now();
    return this.transaction(() => {
      const lease = this.liveClaim(input.runId, input.claimToken, now);
      if (lease === undefined) return false;
      this.update('run_queue', { status: 'parked', updated_at: now }, 'run_id = ?', input.runId);
      this.release(input.runId);
      this.settleBump(input.runId, lease, 'run.queue_parked', { status: 'parked' }, now);
      return true;
    });
  }

  /**
   * Completes a claimed run: the engine's run-state write (runs `completed`, final output,
   * status detail NULL, `finished_at`), then pi-workflows' `completeWorkflowRun` (queue `done`,
   * lease released, bump with `run.queue_done` `{status:"done"}`, 4 + 2 deltas), in one transaction.
   *
   * @returns false when the claim is not live (nothing written)
   */
  completeRun(input: PiHolderInput & { output?: JsonValue }): boolean {
    const now = input.now ?? Date.now();
    return this.transaction(() => {
      const lease = this.liveClaim(input.runId, input.claimToken, now);
      if (lease === undefined) return false;
      const outputHash = input.output === undefined ? null : this.putJson(input.output, now);
      this.update(
        'runs',
        { status: 'completed', paused: 0, final_output_hash: outputHash, status_detail: null, updated_at: now, finished_at: now },
        'run_id = ?',
        input.runId,
      );
      this.update('run_queue', { status: 'done', finished_at: now, updated_at: now }, 'run_id = ?', input.runId);
      this.release(input.runId);
      this.settleBump(input.runId, lease, 'run.queue_done', { status: 'done' }, now);
      return true;
    });
  }

  /**
   * Fails a claimed run as pi-workflows' `failWorkflowRun`: error text blob; queue `failed`
   * with the code (default `failed`) and error; lease released; runs `failed`, not paused, no
   * status detail, the error, `finished_at`; open turns ended `lost`, pending messages
   * cancelled; bump with `run.queue_failed` `{status, code, error}`; 4 + 2 deltas.
   *
   * @returns false when the claim is not live (nothing written)
   */
  failRun(input: PiHolderInput & { error: string; errorCode?: string }): boolean {
    const now = input.now ?? Date.now();
    const code = input.errorCode ?? 'failed';
    return this.transaction(() => {
      const lease = this.liveClaim(input.runId, input.claimToken, now);
      if (lease === undefined) return false;
      const errorHash = this.putText(input.error, now);
      this.update('run_queue', { status: 'failed', error_code: code, error_hash: errorHash, finished_at: now, updated_at: now }, 'run_id = ?', input.runId);
      this.release(input.runId);
      this.update(
        'runs',
        { status: 'failed', paused: 0, status_detail: null, error_hash: errorHash, updated_at: now, finished_at: now },
        'run_id = ?',
        input.runId,
      );
      this.run("UPDATE workflow_turns SET state = 'ended', stop_reason = 'lost', ended_at = ? WHERE run_id = ? AND state = 'started'", now, input.runId);
      this.run(
        "UPDATE workflow_messages SET status = 'cancelled', updated_at = ? WHERE run_id = ? AND status = 'pending' AND kind IN ('step', 'decision', 'followUp')",
        now,
        input.runId,
      );
      this.settleBump(input.runId, lease, 'run.queue_failed', { status: 'failed', code, error: input.error }, now);
      return true;
    });
  }

  /** The bump of a release or settle: event by the (former) lease owner, then 4 + 2 deltas. */
  private settleBump(runId: string, lease: LeaseRow, eventType: string, payload: JsonValue, now: number): void {
    this.bump(runId, eventType, payload, now, { type: lease.owner_type ?? 'system', id: lease.owner_id, generation: lease.generation });
    this.recordViewerRevision(runId, BUMP, now);
    this.recordViewerRevision(runId, SUMMARY_REPLAY, now);
  }

  /** Closes the connection (the last one checkpoints the WAL into the file, as pi-workflows leaves it). */
  close(): void {
    this.connection.close();
  }
}

/** What {@link seedPiWorkflowsRuns} wrote, for assertions. */
export interface SeededRuns {
  /** Root with two continuations (the last one claimed by `host-1`, with viewer deltas). */
  chainA: string[];
  /** Failed root, its failed restart, and that one's completed restart. */
  chainB: string[];
  /** Terminal fingerprints of the failed runs of chain B (64 hex), in order. */
  fingerprintsB: string[];
  /** A headless root, still queued. */
  headless: string;
  /** A cancelled root. */
  cancelled: string;
  /** Blob hashes (hex) referenced only from tables this server's schema does not have. */
  foreignOnlyBlobs: string[];
  /** Epoch ms after the last write. */
  end: number;
}

/**
 * Fills a pi-workflows file with a realistic set of runs: roots,
 * continuations, failed runs and their restarts with fingerprints, a headless run, a
 * cancelled run, viewer deltas, events, node attempts, and blobs referenced only from tables
 * this server's schema lacks (node attempt prompts and outputs, an effect, a host command, a
 * worker). One minute between writes, from `t0`.
 */
export function seedPiWorkflowsRuns(writer: PiWorkflowsWriter, t0: number): SeededRuns {
  let t = t0;
  const tick = (): number => (t += 60_000);
  const foreign: Buffer[] = [];
  const hex = (buffer: Buffer): string => buffer.toString('hex');
  writer.transaction(() => {
    // Chain A: root, continuation, continuation (claimed and running).
    writer.reserveRun({ runId: 'run-a', originSessionId: 'session-1', at: tick(), input: { topic: 'alpha' }, title: 'Alpha' });
    writer.claim('run-a', 'host-1', 'token-a', t + 3_600_000, tick());
    writer.setState('run-a', { status: 'waiting', queueStatus: 'parked' }, tick());
    writer.release('run-a');
    writer.reserveRun({ runId: 'run-a2', originSessionId: 'session-1', at: tick(), parentRunId: 'run-a', input: { topic: 'alpha', step: 2 } });
    writer.update('run_queue', { status: 'done', finished_at: t, updated_at: t }, 'run_id = ?', 'run-a');
    writer.bump('run-a', 'run.queue_done_for_continuation', { continuationRunId: 'run-a2' }, t, { type: 'session', id: 'session-1' });
    writer.recordViewerRevision('run-a', BUMP, t);
    writer.claim('run-a2', 'host-1', 'token-a2', t + 3_600_000, tick());
    writer.setState('run-a2', { status: 'waiting', queueStatus: 'parked' }, tick());
    writer.release('run-a2');
    writer.reserveRun({ runId: 'run-a3', originSessionId: 'session-1', at: tick(), parentRunId: 'run-a2', input: { topic: 'alpha', step: 3 } });
    writer.update('run_queue', { status: 'done', finished_at: t, updated_at: t }, 'run_id = ?', 'run-a2');
    writer.bump('run-a2', 'run.queue_done_for_continuation', { continuationRunId: 'run-a3' }, t, { type: 'session', id: 'session-1' });
    writer.recordViewerRevision('run-a2', BUMP, t);
    writer.claim('run-a3', 'host-1', 'token-a3', t0 + 400 * 86_400_000, tick());
    writer.setState('run-a3', { status: 'running', queueStatus: 'running' }, tick());
    for (let step = 1; step <= 3; step += 1) {
      writer.recordViewerRevision(
        'run-a3',
        [{ targetType: 'timeline', targetKey: `step-${step}`, ops: [{ op: 'append', path: '/items', value: [{ step }] }] }],
        tick(),
      );
    }
    const attempt = writer.addNodeAttempt('run-a3', 'plan', 1, 'Plan the alpha change', { plan: ['one', 'two'] }, tick());
    void attempt;

    // Chain B: failed root, failed restart, completed restart.
    writer.reserveRun({ runId: 'run-b', originSessionId: 'session-2', at: tick(), input: { topic: 'beta' } });
    writer.claim('run-b', 'host-1', 'token-b', t + 3_600_000, tick());
    writer.setState('run-b', { status: 'failed', queueStatus: 'failed', error: 'beta broke', errorCode: 'failed' }, tick());
    writer.release('run-b');
    const fpB = writer.fingerprintOf('run-b');
    writer.reserveRun({
      runId: 'restart-b1',
      originSessionId: 'session-2',
      at: tick(),
      parentRunId: 'run-b',
      lineageKind: 'restart',
      parentTerminalFingerprint: fpB,
      input: { topic: 'beta' },
    });
    writer.claim('restart-b1', 'host-1', 'token-b1', t + 3_600_000, tick());
    writer.setState('restart-b1', { status: 'failed', queueStatus: 'failed', error: 'beta broke again', errorCode: 'failed' }, tick());
    writer.release('restart-b1');
    const fpB1 = writer.fingerprintOf('restart-b1');
    writer.reserveRun({
      runId: 'restart-b2',
      originSessionId: 'session-2',
      at: tick(),
      parentRunId: 'restart-b1',
      lineageKind: 'restart',
      parentTerminalFingerprint: fpB1,
      input: { topic: 'beta' },
    });
    writer.claim('restart-b2', 'host-1', 'token-b2', t + 3_600_000, tick());
    writer.setState('restart-b2', { status: 'completed', queueStatus: 'done', finalOutput: { merged: true } }, tick());
    writer.release('restart-b2');

    // A headless run (queued) and a cancelled run.
    writer.reserveRun({ runId: 'run-h', originSessionId: 'session-h', at: tick(), executionMode: 'headless', input: { topic: 'nightly' } });
    writer.reserveRun({ runId: 'run-c', originSessionId: 'session-3', at: tick(), input: { topic: 'gamma' } });
    writer.setState('run-c', { status: 'cancelled', queueStatus: 'cancelled', errorCode: 'cancelled', error: 'Workflow run cancelled' }, tick());

    // Blobs only tables of pi-workflows (not of this server) reference.
    const now = tick();
    const before = new Set((writer.connection.prepare('SELECT blob_hash FROM blobs').all() as Array<{ blob_hash: Buffer }>).map((row) => hex(row.blob_hash)));
    writer.addNodeAttempt('run-b', 'plan', 1, 'Plan the beta change (only node_attempts references this prompt)', { onlyIn: 'node_attempts.output_hash' }, now);
    writer.addEffect('restart-b2', 'effect-1', { url: 'https://example.test/hook', onlyIn: 'effects' }, now);
    writer.addHostCommand('run-a', 'request-1', { accepted: 'run-a', onlyIn: 'host_commands' }, now);
    writer.addWorker('run-a3', 'worker-1', { argv: ['pi', 'worker'], onlyIn: 'run_workers' }, now);
    for (const row of writer.connection.prepare('SELECT blob_hash FROM blobs').all() as Array<{ blob_hash: Buffer }>) {
      if (!before.has(hex(row.blob_hash))) foreign.push(row.blob_hash);
    }
  });
  return {
    chainA: ['run-a', 'run-a2', 'run-a3'],
    chainB: ['run-b', 'restart-b1', 'restart-b2'],
    fingerprintsB: [writer.fingerprintOf('run-b'), writer.fingerprintOf('restart-b1')],
    headless: 'run-h',
    cancelled: 'run-c',
    foreignOnlyBlobs: foreign.map(hex).sort(),
    end: t,
  };
}

/**
 * Copies every row of a file of this server into a new pi-workflows state file at `target`
 * (the columns both layouts have; pi-workflows-only columns stay NULL or default), so the same
 * runs can be served from both formats (the equivalence tests and the benchmark).
 *
 * @returns the facts of the new file, closed as pi-workflows leaves it
 */
export function copyIntoPiWorkflowsFile(source: string, target: string, options: PiWorkflowsFileOptions = {}): PiWorkflowsFileFacts {
  const writer = createPiWorkflowsFile(target, options);
  const connection = writer.connection;
  try {
    connection.pragma('foreign_keys = OFF');
    connection.prepare('ATTACH DATABASE ? AS source').run(source);
    const sourceTables = new Set(
      (connection.prepare("SELECT name FROM source.sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map((row) => row.name),
    );
    writer.transaction(() => {
      for (const entry of writer.facts.model.tables) {
        if (!sourceTables.has(entry.name) || entry.name === 'schema_meta') continue;
        const theirs = columnsOf(writer.facts.model, entry.name);
        const ours = (connection.prepare('SELECT name FROM pragma_table_info(?, ?)').all(entry.name, 'source') as Array<{ name: string }>).map(
          (row) => row.name,
        );
        const common = ours.filter((name) => theirs.has(name)).join(', ');
        connection.exec(`INSERT INTO main.${entry.name}(${common}) SELECT ${common} FROM source.${entry.name}`);
      }
    });
    connection.exec('DETACH DATABASE source');
    connection.pragma('foreign_keys = ON');
  } finally {
    writer.close();
  }
  return writer.facts;
}

/** What {@link piWorkflowsOpenCheck} found wrong (empty: the file passes). */
export type OpenCheckProblems = string[];

function schemaShape(connection: Database.Database): string {
  const rows = connection.prepare("SELECT type, name, tbl_name AS tableName, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").all();
  return createHash('sha256').update(canonicalJson(rows)).digest('hex');
}

/**
 * What pi-workflows' open compares of a file, as one value (docs/PI-WORKFLOWS-FILES.md §3):
 * SHA-256 of the canonical JSON of its `sqlite_schema` rows (type, name, table name as
 * `tableName`, sql; names not starting `sqlite_`; ordered by type, name), `application_id`,
 * `user_version` and the `schema_meta` row (every column; the digest as hex). Opens read-only.
 */
export interface PiWorkflowsIdentity {
  schemaHash: string;
  applicationId: number;
  userVersion: number;
  schemaMeta: Record<string, unknown> | undefined;
}

/** Reads {@link PiWorkflowsIdentity} of a file (read-only; nothing written). */
export function piWorkflowsIdentity(path: string): PiWorkflowsIdentity {
  const connection = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const meta = connection.prepare('SELECT * FROM schema_meta WHERE id = 1').get() as Record<string, unknown> | undefined;
    return {
      schemaHash: schemaShape(connection),
      applicationId: connection.pragma('application_id', { simple: true }) as number,
      userVersion: connection.pragma('user_version', { simple: true }) as number,
      schemaMeta:
        meta === undefined
          ? undefined
          : Object.fromEntries(Object.entries(meta).map(([key, value]) => [key, Buffer.isBuffer(value) ? value.toString('hex') : value])),
    };
  } finally {
    connection.close();
  }
}

/**
 * Checks a file the way pi-workflows checks its own at open (its `verifySchema`): application id
 * and user version, the `schema_meta` row (name, version, digest, app version as built), and the
 * shape of every schema object (type, name, table, SQL) against the same DDL applied to an
 * empty database; then the file's health: `PRAGMA integrity_check` answers `ok` and
 * `PRAGMA foreign_key_check` finds nothing. With `before` (the {@link piWorkflowsIdentity} read
 * before a server wrote to the file), also that the identity is unchanged. Opens read-only.
 *
 * @returns the problems found; empty when pi-workflows would accept the file
 */
export function piWorkflowsOpenCheck(facts: PiWorkflowsFileFacts, before?: PiWorkflowsIdentity): OpenCheckProblems {
  const problems: string[] = [];
  const connection = new Database(facts.path, { readonly: true, fileMustExist: true });
  const expected = new Database(':memory:');
  try {
    if (connection.pragma('application_id', { simple: true }) !== PIWF_APPLICATION_ID) problems.push('application_id');
    if (connection.pragma('user_version', { simple: true }) !== facts.schemaVersion) problems.push('user_version');
    const meta = connection.prepare('SELECT schema_name, schema_version, schema_digest, app_version FROM schema_meta WHERE id = 1').get() as
      { schema_name: string; schema_version: number; schema_digest: Buffer; app_version: string } | undefined;
    if (meta === undefined) problems.push('schema_meta row');
    else {
      if (meta.schema_name !== 'pi-workflows-state') problems.push('schema_name');
      if (meta.schema_version !== facts.schemaVersion) problems.push('schema_version');
      if (!Buffer.isBuffer(meta.schema_digest) || !meta.schema_digest.equals(facts.digest)) problems.push('schema_digest');
      if (meta.app_version !== facts.appVersion) problems.push('app_version');
    }
    expected.pragma('foreign_keys = ON');
    expected.exec(facts.ddl);
    if (schemaShape(connection) !== schemaShape(expected)) problems.push('schema shape');
    const integrity = (connection.prepare('PRAGMA integrity_check').all() as Array<{ integrity_check: string }>).map((row) => row.integrity_check);
    if (integrity.join('\n') !== 'ok') problems.push(`integrity_check: ${integrity.join('; ')}`);
    const foreign = connection.prepare('PRAGMA foreign_key_check').all() as Array<{ table: string; parent: string }>;
    if (foreign.length > 0) problems.push(`foreign_key_check: ${foreign.map((row) => `${row.table} -> ${row.parent}`).join(', ')}`);
  } finally {
    connection.close();
    expected.close();
  }
  if (before !== undefined) {
    const after = piWorkflowsIdentity(facts.path);
    for (const key of ['schemaHash', 'applicationId', 'userVersion', 'schemaMeta'] as const) {
      if (JSON.stringify(after[key]) !== JSON.stringify(before[key])) problems.push(`${key} changed`);
    }
  }
  return problems;
}
