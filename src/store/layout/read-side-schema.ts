import type { Database as SqliteDatabase } from 'better-sqlite3';
import { StoreError } from '../errors.js';
import { describeLayout, PI_WORKFLOWS_WRITTEN_LAYOUTS_TEXT, type PiWorkflowsStateFile } from './state-file.js';

/**
 * Every table and column the read side uses (run records, lists, lineage, the viewer-delta log,
 * the project lookup at open): checked with `PRAGMA table_info` before a pi-workflows state file
 * is served, so a missing one is a clear refusal at open and never a SQL error
 * at query time. Add a column here when a read query starts using it: the test
 * `test/store/pi-workflows-file.test.ts` serves a file holding exactly these columns.
 */
export const READ_SIDE_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  projects: ['project_id', 'canonical_path'],
  blobs: ['blob_hash', 'media_type', 'byte_length', 'content'],
  resources: ['resource_id', 'revision'],
  leases: ['resource_id', 'generation', 'owner_type', 'owner_id', 'token_hash', 'expires_at'],
  workflow_definitions: ['definition_digest', 'workflow_name'],
  runs: [
    'run_id',
    'resource_id',
    'project_id',
    'parent_run_id',
    'root_run_id',
    'lineage_kind',
    'restart_number',
    'parent_terminal_fingerprint',
    'definition_digest',
    'workflow_ref',
    'title',
    'status',
    'paused',
    'status_detail',
    'input_hash',
    'launch_options_hash',
    'final_output_hash',
    'error_hash',
    'created_at',
    'finished_at',
  ],
  run_queue: ['run_id', 'status', 'available_at', 'affinity_runner_id', 'error_code', 'error_hash', 'created_at', 'updated_at', 'started_at', 'finished_at'],
  run_bindings: ['run_id', 'origin_session_id', 'execution_mode'],
  run_sources: ['run_id', 'mount_path', 'source_type', 'source_ref', 'source_revision'],
  events: ['event_seq', 'resource_id'],
  viewer_runs: ['run_id', 'presentation_revision', 'retained_from_revision'],
  viewer_deltas: ['run_id', 'presentation_revision', 'delta_index', 'target_type', 'target_key', 'patch_hash', 'recorded_at'],
};

/**
 * The tables and columns only the write path reads or writes on a pi-workflows state file
 * (docs/PI-WORKFLOWS-FILES.md §2), beyond {@link READ_SIDE_COLUMNS}. Add a column here when a
 * write starts using it: the test `test/store/pi-workflows-read-write.test.ts` runs every write on
 * a file holding exactly the read side's and these columns. Not listed on purpose:
 * `workflow_messages.trigger_turn` (0.16 keeps that flag inside the message content).
 */
const WRITE_ONLY_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  projects: ['created_at'],
  blobs: ['created_at'],
  resources: ['resource_type', 'aggregate_key', 'created_at', 'updated_at'],
  leases: ['acquired_at', 'heartbeat_at'],
  workflow_definitions: ['definition_hash', 'created_at'],
  runs: ['updated_at'],
  run_bindings: ['created_at'],
  run_queue: ['origin_session_id'],
  events: ['event_id', 'resource_revision', 'event_type', 'actor_type', 'actor_id', 'lease_generation', 'payload_hash', 'recorded_at'],
  viewer_runs: ['updated_at'],
  node_attempts: [
    'attempt_id',
    'run_id',
    'node_id',
    'attempt_number',
    'node_type',
    'status',
    'error_hash',
    'started_at',
    'deadline_at',
    'finished_at',
    'created_at',
    'updated_at',
  ],
  effects: [
    'effect_id',
    'resource_id',
    'source_resource_id',
    'owner_scope',
    'status',
    'attempt_count',
    'next_attempt_at',
    'error_hash',
    'updated_at',
    'settled_at',
  ],
  effect_attempts: ['effect_id', 'attempt_number', 'finished_at', 'outcome', 'error_hash'],
  human_decisions: ['decision_id', 'run_id', 'request_digest'],
  human_decision_resolutions: ['decision_id', 'outcome', 'provenance', 'response_hash', 'reason', 'channel', 'actor_id', 'request_digest', 'resolved_at'],
  interactive_requests: ['request_id', 'run_id', 'attempt_id', 'target_session_id', 'kind', 'contract_hash', 'revision', 'status', 'created_at', 'updated_at'],
  interactive_submissions: ['submission_id', 'request_id', 'idempotency_key', 'request_revision', 'payload_hash', 'outcome', 'receipt_hash', 'submitted_at'],
  workflow_messages: [
    'workflow_message_id',
    'run_id',
    'target_session_id',
    'kind',
    'source_id',
    'content_hash',
    'order_number',
    'status',
    'pi_session_entry_id',
    'created_at',
    'updated_at',
  ],
  workflow_turns: [
    'workflow_turn_id',
    'workflow_message_id',
    'run_id',
    'target_session_id',
    'state',
    'stop_reason',
    'response_session_entry_id',
    'started_at',
    'ended_at',
  ],
};

/**
 * Every table and column the write path reads or writes on a pi-workflows state file
 * (docs/PI-WORKFLOWS-FILES.md §2): {@link READ_SIDE_COLUMNS} plus {@link WRITE_ONLY_COLUMNS};
 * checked at a read-write open, so a file lacking one is served read-only (saying which), never
 * half-written.
 */
export const WRITE_SIDE_COLUMNS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  [...new Set([...Object.keys(READ_SIDE_COLUMNS), ...Object.keys(WRITE_ONLY_COLUMNS)])].map((table) => [
    table,
    [...(READ_SIDE_COLUMNS[table] ?? []), ...(WRITE_ONLY_COLUMNS[table] ?? [])],
  ]),
);

/**
 * Columns that differ between pi-workflows releases of the same schema version, detected per
 * file and reported (banner, `/health`), never assumed: `table.column` → what its presence means.
 * None today: 0.14 and 0.16 have the same columns (0.16 keeps a message's turn flag inside its
 * content JSON, not in a `workflow_messages.trigger_turn` column; docs/PI-WORKFLOWS-FILES.md §8).
 */
export const VERSION_DEPENDENT_COLUMNS: Readonly<Record<string, string>> = {};

function columnsOf(connection: SqliteDatabase, table: string): Set<string> {
  const rows = connection.prepare('SELECT name FROM pragma_table_info(?)').all(table) as Array<{ name: string }>;
  return new Set(rows.map((row) => row.name));
}

/**
 * The tables and columns of {@link READ_SIDE_COLUMNS} the file lacks.
 *
 * @returns `table <name>` for a missing table, `<table>.<column>` for a missing column; empty
 *   when everything is there
 */
function missingReadSideColumns(connection: SqliteDatabase): string[] {
  return missingColumns(connection, READ_SIDE_COLUMNS);
}

/**
 * The tables and columns of {@link WRITE_SIDE_COLUMNS} the file lacks, named as
 * {@link missingReadSideColumns} names them.
 */
function missingWriteSideColumns(connection: SqliteDatabase): string[] {
  return missingColumns(connection, WRITE_SIDE_COLUMNS);
}

function missingColumns(connection: SqliteDatabase, wanted: Readonly<Record<string, readonly string[]>>): string[] {
  const missing: string[] = [];
  for (const [table, columns] of Object.entries(wanted)) {
    const present = columnsOf(connection, table);
    if (present.size === 0) {
      missing.push(`table ${table}`);
      continue;
    }
    for (const column of columns) if (!present.has(column)) missing.push(`${table}.${column}`);
  }
  return missing;
}

/**
 * Checks a pi-workflows state file before it is served, detects its
 * version-dependent columns and decides whether this server writes it.
 *
 * @returns the file description with `optionalColumns` and `writeRefusal` filled in
 * @throws StoreError(integrity) `pi-workflows state file <path> (schema version <v>, <layout as
 *   describeLayout names it>) lacks what this server reads: <names>; it was not changed`
 */
export function checkPiWorkflowsReadSide(connection: SqliteDatabase, path: string, file: PiWorkflowsStateFile): PiWorkflowsStateFile {
  const missing = missingReadSideColumns(connection);
  if (missing.length > 0) {
    throw new StoreError(
      'integrity',
      `pi-workflows state file ${path} (schema version ${file.schemaVersion}, ${describeLayout(file)}) lacks what this server reads: ${missing.join(', ')}; it was not changed`,
    );
  }
  const optionalColumns: Record<string, boolean> = {};
  for (const name of Object.keys(VERSION_DEPENDENT_COLUMNS)) {
    const [table, column] = name.split('.') as [string, string];
    optionalColumns[name] = columnsOf(connection, table).has(column);
  }
  return { ...file, optionalColumns, writeRefusal: writeRefusalOf(connection, file) };
}

/**
 * Why this server does not write a pi-workflows file (docs/PI-WORKFLOWS-FILES.md §2), or null
 * when it does: its `schema_digest` must name one of `PI_WORKFLOWS_WRITTEN_LAYOUTS` (whatever
 * its `app_version` says) and it must hold every table and column of {@link WRITE_SIDE_COLUMNS}.
 *
 * @returns `its unlisted layout (schema digest <12 hex>…, app version <v>) is not one this server
 *   writes (it writes the layout of pi-workflows 0.16.1, 0.16.2: schema digest 0469f429aad9…)`, or
 *   `its layout of pi-workflows 0.16.1, 0.16.2 (…) lacks what this server writes: <names> (it
 *   writes …)`, or null
 */
function writeRefusalOf(connection: SqliteDatabase, file: PiWorkflowsStateFile): string | null {
  if (file.layout === null) {
    return `its ${describeLayout(file)} is not one this server writes (it writes ${PI_WORKFLOWS_WRITTEN_LAYOUTS_TEXT})`;
  }
  const missing = missingWriteSideColumns(connection);
  if (missing.length > 0) {
    return `its ${describeLayout(file)} lacks what this server writes: ${missing.join(', ')} (it writes ${PI_WORKFLOWS_WRITTEN_LAYOUTS_TEXT})`;
  }
  return null;
}
