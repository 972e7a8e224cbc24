import { canonicalJson, normalizeJson, type JsonValue } from './canonical-json.js';
import { StoreError } from './errors.js';
import type { ExecutionMode, LineageKind, QueueStatus, RunStatus } from './run-states.js';
import type { StoreContext } from './store-context.js';
import { iso, isoOrNull, sha256Hex } from './values.js';

export type { ExecutionMode, LineageKind, QueueStatus, RunStatus } from './run-states.js';

/** Terminal run statuses (docs/STORE-RULES.md §4). */
export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = ['completed', 'failed', 'timed_out', 'cancelled'];
/** Terminal queue statuses (docs/STORE-RULES.md §4). */
export const TERMINAL_QUEUE_STATUSES: readonly QueueStatus[] = ['done', 'failed', 'cancelled'];

/** A workflow source (docs/STORE-RULES.md §3.10). */
export type WorkflowSourceIdentity = { kind: 'builtin'; id: string; revision: string } | { kind: 'file'; path: string; hash: string };

/** A run's sources: the root and its mounts (docs/STORE-RULES.md §3.10). */
export interface WorkflowSource {
  root: WorkflowSourceIdentity;
  mounted: Array<{ mountPath: string[]; workflowName: string; source: WorkflowSourceIdentity }>;
}

/** The live claim on a run, without token or hash. */
export interface RunClaimRecord {
  /** Runner id holding the lease. */
  ownerId: string;
  ownerType: string;
  /** Lease generation (+1 per claim). */
  leaseGeneration: number;
  /** ISO-8601 expiry. */
  expiresAt: string;
}

/**
 * A run as read (docs/STORE-RULES.md §10 run record, plus the durable-state and viewer fields the API
 * needs). Timestamps are ISO-8601 UTC; `createdAt`…`finishedAt` come from run_queue.
 */
export interface WorkflowRunRecord {
  runId: string;
  workflowName: string;
  /** = workflow_ref. */
  workflowSourceRef: string;
  workflowSource: WorkflowSource;
  /** run status ≠ queued */
  initialized: boolean;
  /** `sha256:` + lowercase hex. */
  definitionDigest: string;
  input: JsonValue;
  launchOptions: JsonValue;
  /** Queue status (run_queue.status). */
  status: QueueStatus;
  /** Durable run status (runs.status). */
  runStateStatus: RunStatus;
  paused: boolean;
  statusDetail: string | null;
  title: string | null;
  /** Lease owner id, or null. */
  runnerId: string | null;
  /** Always null on reads; only a claim call echoes the caller's token. */
  claimToken: string | null;
  /** Lease generation when owned, else null. */
  claimGeneration: number | null;
  /** ISO lease expiry when owned, else null. */
  claimExpiresAt: string | null;
  /** The live (unexpired) claim at read time, or null. */
  claim: RunClaimRecord | null;
  /**
   * The claim whose lease expired at or before read time without being released (its owner is
   * still recorded), or null (docs/PROTOCOL.md "Lease expiry").
   */
  expiredClaim: RunClaimRecord | null;
  affinityRunnerId: string | null;
  /** Null for headless runs. */
  originSessionId: string | null;
  /** The binding's raw origin session (set for headless runs too). */
  boundSessionId: string;
  executionMode: ExecutionMode;
  parentRunId: string | null;
  rootRunId: string;
  lineageKind: LineageKind | null;
  restartNumber: number;
  /** 64 lowercase hex, or null. */
  parentTerminalFingerprint: string | null;
  /** docs/STORE-RULES.md §7.1 / §13.2: for a terminal run status, 64 lowercase hex; else null. */
  terminalFingerprint: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  /** Stored final output (runs.final_output_hash), or null. */
  finalOutput: JsonValue;
  /** Text of the run's error blob (runs.error_hash), or null. */
  runError: string | null;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** Current viewer presentation revision (1 at reservation). */
  presentationRevision: number;
  retainedFromRevision: number;
  /** Resource revision (optimistic version, docs/STORE-RULES.md §5). */
  revision: number;
}

/** Raw joined row behind a {@link WorkflowRunRecord}. Internal to the store. */
export interface RunRow {
  run_id: string;
  resource_id: string;
  project_id: string | null;
  parent_run_id: string | null;
  root_run_id: string;
  lineage_kind: LineageKind | null;
  restart_number: number;
  parent_terminal_fingerprint: Buffer | null;
  definition_digest: Buffer;
  workflow_name: string;
  workflow_ref: string;
  title: string | null;
  run_status: RunStatus;
  paused: number;
  status_detail: string | null;
  run_created_at: number;
  run_finished_at: number | null;
  queue_status: QueueStatus;
  available_at: number;
  affinity_runner_id: string | null;
  error_code: string | null;
  created_at: number;
  updated_at: number;
  started_at: number | null;
  finished_at: number | null;
  origin_session_id: string;
  execution_mode: ExecutionMode;
  generation: number;
  owner_type: string | null;
  owner_id: string | null;
  token_hash: Buffer | null;
  expires_at: number | null;
  revision: number;
  presentation_revision: number | null;
  retained_from_revision: number | null;
  input_content: Buffer;
  launch_content: Buffer;
  queue_error_content: Buffer | null;
  final_output_content: Buffer | null;
  run_error_content: Buffer | null;
  source_type: 'builtin' | 'file' | null;
  source_ref: string | null;
  source_revision: string | null;
  mount_count: number;
}

/** SELECT of {@link RunRow}; append a WHERE / ORDER clause. */
export const RUN_ROW_SELECT = `SELECT r.run_id, r.resource_id, r.project_id, r.parent_run_id, r.root_run_id,
  r.lineage_kind, r.restart_number, r.parent_terminal_fingerprint, r.definition_digest, d.workflow_name,
  r.workflow_ref, r.title, r.status AS run_status, r.paused, r.status_detail,
  r.created_at AS run_created_at, r.finished_at AS run_finished_at,
  q.status AS queue_status, q.available_at, q.affinity_runner_id, q.error_code,
  q.created_at, q.updated_at, q.started_at, q.finished_at,
  b.origin_session_id, b.execution_mode,
  l.generation, l.owner_type, l.owner_id, l.token_hash, l.expires_at,
  res.revision, v.presentation_revision, v.retained_from_revision,
  bi.content AS input_content, bl.content AS launch_content, bq.content AS queue_error_content,
  bo.content AS final_output_content, be.content AS run_error_content,
  s.source_type, s.source_ref, s.source_revision,
  (SELECT count(*) FROM run_sources m WHERE m.run_id = r.run_id AND m.mount_path <> '') AS mount_count
FROM runs r
JOIN run_queue q ON q.run_id = r.run_id
JOIN run_bindings b ON b.run_id = r.run_id
JOIN workflow_definitions d ON d.definition_digest = r.definition_digest
JOIN resources res ON res.resource_id = r.resource_id
JOIN leases l ON l.resource_id = r.resource_id
JOIN blobs bi ON bi.blob_hash = r.input_hash
JOIN blobs bl ON bl.blob_hash = r.launch_options_hash
LEFT JOIN viewer_runs v ON v.run_id = r.run_id
LEFT JOIN blobs bq ON bq.blob_hash = q.error_hash
LEFT JOIN blobs bo ON bo.blob_hash = r.final_output_hash
LEFT JOIN blobs be ON be.blob_hash = r.error_hash
LEFT JOIN run_sources s ON s.run_id = r.run_id AND s.mount_path = ''`;

/** Loads the joined row of one run; undefined when it does not exist. */
export function loadRunRow(context: StoreContext, runId: string): RunRow | undefined {
  return context.database.get<RunRow>(`${RUN_ROW_SELECT} WHERE r.run_id = ?`, runId);
}

/**
 * Loads one run's joined row.
 *
 * @throws StoreError(not_found) `Workflow run not found: <runId>`
 */
export function requireRunRow(context: StoreContext, runId: string): RunRow {
  const row = loadRunRow(context, runId);
  if (row === undefined) throw new StoreError('not_found', `Workflow run not found: ${runId}`);
  return row;
}

interface MountRow {
  run_id: string;
  mount_path: string;
  source_type: 'builtin' | 'file';
  source_ref: string;
  source_revision: string;
}

/**
 * Maps joined rows to records (docs/STORE-RULES.md §10), reading the mounted sources of all of them in
 * one statement (none when no row has mounts).
 *
 * @param now epoch ms used to decide whether a claim is live
 * @throws StoreError(integrity) `Workflow run source is missing: <runId>`
 */
export function toRunRecords(context: StoreContext, rows: RunRow[], now: number): WorkflowRunRecord[] {
  if (rows.length === 0) return [];
  const withMounts = rows.filter((row) => row.mount_count > 0);
  const mounts =
    withMounts.length === 0
      ? []
      : context.database.all<MountRow>(
          `SELECT run_id, mount_path, source_type, source_ref, source_revision FROM run_sources
     WHERE mount_path <> '' AND run_id IN (SELECT value FROM json_each(?)) ORDER BY run_id, mount_path`,
          JSON.stringify(withMounts.map((row) => row.run_id)),
        );
  const byRun = new Map<string, MountRow[]>();
  for (const mount of mounts) {
    const list = byRun.get(mount.run_id) ?? [];
    list.push(mount);
    byRun.set(mount.run_id, list);
  }
  return rows.map((row) => toRunRecord(row, byRun.get(row.run_id) ?? [], now));
}

/**
 * The record of one stored run (docs/STORE-RULES.md §10).
 *
 * @param now epoch ms used to decide whether a claim is live
 * @throws StoreError(not_found) `Workflow run not found: <runId>`; the errors of {@link toRunRecords}
 */
export function requireRunRecord(context: StoreContext, runId: string, now: number): WorkflowRunRecord {
  return toRunRecords(context, [requireRunRow(context, runId)], now)[0] as WorkflowRunRecord;
}

function sourceIdentity(type: 'builtin' | 'file', ref: string, revision: string): WorkflowSourceIdentity {
  return type === 'builtin' ? { kind: 'builtin', id: ref, revision } : { kind: 'file', path: ref, hash: revision };
}

function parseJsonContent(content: Buffer): JsonValue {
  return normalizeJson(JSON.parse(content.toString('utf8')));
}

function toRunRecord(row: RunRow, mounts: MountRow[], now: number): WorkflowRunRecord {
  if (row.source_type === null || row.source_ref === null || row.source_revision === null) {
    throw new StoreError('integrity', `Workflow run source is missing: ${row.run_id}`);
  }
  const owned = row.owner_id !== null && row.expires_at !== null;
  // The owned lease: `claim` while it runs, `expiredClaim` once its expiry has passed.
  const lease: RunClaimRecord | null = owned
    ? { ownerId: row.owner_id as string, ownerType: row.owner_type as string, leaseGeneration: row.generation, expiresAt: iso(row.expires_at as number) }
    : null;
  const input = parseJsonContent(row.input_content);
  const finalOutput = row.final_output_content === null ? null : parseJsonContent(row.final_output_content);
  const runError = row.run_error_content === null ? null : row.run_error_content.toString('utf8');
  return {
    runId: row.run_id,
    workflowName: row.workflow_name,
    workflowSourceRef: row.workflow_ref,
    workflowSource: {
      root: sourceIdentity(row.source_type, row.source_ref, row.source_revision),
      mounted: mounts.map((mount) => ({
        mountPath: mount.mount_path.split('/'),
        workflowName: mount.mount_path,
        source: sourceIdentity(mount.source_type, mount.source_ref, mount.source_revision),
      })),
    },
    initialized: row.run_status !== 'queued',
    definitionDigest: `sha256:${row.definition_digest.toString('hex')}`,
    input,
    launchOptions: parseJsonContent(row.launch_content),
    status: row.queue_status,
    runStateStatus: row.run_status,
    paused: row.paused === 1,
    statusDetail: row.status_detail,
    title: row.title,
    runnerId: row.owner_id,
    claimToken: null,
    claimGeneration: owned ? row.generation : null,
    claimExpiresAt: owned ? iso(row.expires_at as number) : null,
    claim: lease !== null && (row.expires_at as number) > now ? lease : null,
    expiredClaim: lease !== null && (row.expires_at as number) <= now ? lease : null,
    affinityRunnerId: row.affinity_runner_id,
    originSessionId: row.execution_mode === 'headless' ? null : row.origin_session_id,
    boundSessionId: row.origin_session_id,
    executionMode: row.execution_mode,
    parentRunId: row.parent_run_id,
    rootRunId: row.root_run_id,
    lineageKind: row.lineage_kind,
    restartNumber: row.restart_number,
    parentTerminalFingerprint: row.parent_terminal_fingerprint?.toString('hex') ?? null,
    terminalFingerprint: TERMINAL_RUN_STATUSES.includes(row.run_status)
      ? terminalFingerprint({
          workflowRef: row.workflow_ref,
          input,
          status: row.run_status,
          finalOutput,
          error: runError,
          reason: row.status_detail,
        })
      : null,
    errorCode: row.error_code,
    errorMessage: row.queue_error_content === null ? null : row.queue_error_content.toString('utf8'),
    finalOutput,
    runError,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    startedAt: isoOrNull(row.started_at),
    finishedAt: isoOrNull(row.finished_at),
    presentationRevision: row.presentation_revision ?? 1,
    retainedFromRevision: row.retained_from_revision ?? 1,
    revision: row.revision,
  };
}

/**
 * The terminal fingerprint of a run (docs/STORE-RULES.md §7.1, §13.2): SHA-256 (lowercase hex, no prefix)
 * of the canonical JSON of `{workflowRef, input, status, finalOutput, error, reason}`, with
 * `error` the stored error blob's text (never parsed) and `reason` the status detail.
 *
 * @returns 64 lowercase hex characters
 */
export function terminalFingerprint(facts: {
  workflowRef: string;
  input: JsonValue;
  status: RunStatus;
  finalOutput: JsonValue;
  error: string | null;
  reason: string | null;
}): string {
  return sha256Hex(canonicalJson(facts));
}
