import type { Database as SqliteDatabase } from 'better-sqlite3';
import { StoreError } from './errors.js';
import type { PiWorkflowsStateFile } from './state-file.js';

/**
 * Every table and column the read side uses (run records, lists, lineage, the viewer-delta log,
 * the project lookup at open): checked with `PRAGMA table_info` before a pi-workflows state file
 * is served (issue 12 item 3), so a missing one is a clear refusal at open and never a SQL error
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
 * Columns that differ between pi-workflows releases of the same schema version, detected per
 * file and reported (banner, `/health`), never assumed: `table.column` → what its presence means.
 */
export const VERSION_DEPENDENT_COLUMNS: Readonly<Record<string, string>> = {
  'workflow_messages.trigger_turn': 'the 0.16 line mirrors a message turn flag in its own column (absent in 0.14.0)',
};

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
export function missingReadSideColumns(connection: SqliteDatabase): string[] {
  const missing: string[] = [];
  for (const [table, columns] of Object.entries(READ_SIDE_COLUMNS)) {
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
 * Checks a pi-workflows state file before it is served (issue 12 item 3) and detects its
 * version-dependent columns.
 *
 * @returns the file description with `optionalColumns` filled in
 * @throws StoreError(integrity) `pi-workflows state file <path> (schema version <v>, pi-workflows
 *   <app>) lacks what this server reads: <names>; it was not changed`
 */
export function checkPiWorkflowsReadSide(connection: SqliteDatabase, path: string, file: PiWorkflowsStateFile): PiWorkflowsStateFile {
  const missing = missingReadSideColumns(connection);
  if (missing.length > 0) {
    throw new StoreError(
      'integrity',
      `pi-workflows state file ${path} (schema version ${file.schemaVersion}, pi-workflows ${file.appVersion}) lacks what this server reads: ${missing.join(', ')}; it was not changed`,
    );
  }
  const optionalColumns: Record<string, boolean> = {};
  for (const name of Object.keys(VERSION_DEPENDENT_COLUMNS)) {
    const [table, column] = name.split('.') as [string, string];
    optionalColumns[name] = columnsOf(connection, table).has(column);
  }
  return { ...file, optionalColumns };
}
