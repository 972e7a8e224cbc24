import type { Database as SqliteDatabase } from 'better-sqlite3';
import { StoreError } from '../errors.js';
import { getRow, hasTables } from './connection.js';

/** A run's own row (`runs` joined with its `workflow_definitions` row); times epoch ms. */
export interface RunRow {
  runId: string;
  resourceId: string;
  parentRunId: string | null;
  rootRunId: string;
  lineageKind: string | null;
  restartNumber: number;
  /** `workflow_definitions.workflow_name`: the name pi's run state shows as `workflowName`. */
  workflowName: string;
  /** `runs.workflow_ref`, e.g. `builtin:<name>`. */
  workflowRef: string;
  definitionDigest: Buffer;
  definitionHash: Buffer;
  title: string | null;
  status: string;
  paused: number;
  statusDetail: string | null;
  inputHash: Buffer;
  finalOutputHash: Buffer | null;
  errorHash: Buffer | null;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
}

const RUN_ROW_SQL = `SELECT r.run_id AS runId, r.resource_id AS resourceId, r.parent_run_id AS parentRunId,
       r.root_run_id AS rootRunId, r.lineage_kind AS lineageKind, r.restart_number AS restartNumber,
       d.workflow_name AS workflowName, r.workflow_ref AS workflowRef,
       r.definition_digest AS definitionDigest, d.definition_hash AS definitionHash,
       r.title, r.status, r.paused, r.status_detail AS statusDetail,
       r.input_hash AS inputHash, r.final_output_hash AS finalOutputHash, r.error_hash AS errorHash,
       r.created_at AS createdAt, r.updated_at AS updatedAt, r.finished_at AS finishedAt
FROM runs r JOIN workflow_definitions d ON d.definition_digest = r.definition_digest
WHERE r.run_id = ?`;

/** The run's row, or undefined when there is no such run. */
export function readRunRow(connection: SqliteDatabase, runId: string): RunRow | undefined {
  if (!hasTables(connection, 'runs', 'workflow_definitions')) return undefined;
  return getRow<RunRow & Record<string, unknown>>(connection, RUN_ROW_SQL, [runId]);
}

/**
 * The run's row.
 *
 * @throws StoreError(not_found) `Workflow run not found: <runId>`
 */
export function requireRunRow(connection: SqliteDatabase, runId: string): RunRow {
  const row = readRunRow(connection, runId);
  if (row === undefined) throw new StoreError('not_found', `Workflow run not found: ${runId}`);
  return row;
}

/**
 * The first run of the run's parent chain (pi's `logicalOriginRunId`): settings scopes belong
 * to it and move on to each continuation. At most 100 steps up, as pi.
 *
 * @throws StoreError(integrity) `Workflow continuation chain is too deep for run <runId>`
 */
export function logicalOriginRunId(connection: SqliteDatabase, runId: string): string {
  let current = runId;
  for (let depth = 0; depth < 100; depth += 1) {
    const row = getRow<{ parentRunId: string | null }>(connection, 'SELECT parent_run_id AS parentRunId FROM runs WHERE run_id = ?', [current]);
    if (row === undefined || row.parentRunId === null) return current;
    current = row.parentRunId;
  }
  throw new StoreError('integrity', `Workflow continuation chain is too deep for run ${runId}`);
}
