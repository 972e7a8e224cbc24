import type { Database as SqliteDatabase } from 'better-sqlite3';
import type { JsonValue } from '../canonical-json.js';
import { StoreError } from '../errors.js';
import { allRows, hasTables } from './connection.js';
import { decodeBlob } from './run-blobs.js';
import { readRunRow, type RunRow } from './run-row.js';

/** A node of a run's definition snapshot: its id, type and every other field pi stored for it. */
export interface RunDefinitionNode {
  nodeId: string;
  nodeType: string;
  /** The node's whole snapshot object (`nodeType`, `statusDetail`, `timeoutMs`, `expectedOutput`, …). */
  fields: { [key: string]: JsonValue };
}

/**
 * A run's workflow definition as pi recorded it when the run was initialised
 * (`pi-workflows.definition-snapshot.v1`, blob `workflow_definitions.definition_hash`).
 */
export interface RunDefinition {
  schema: string;
  name: string;
  startAt: string;
  /** Nodes by id, in id order. */
  nodes: RunDefinitionNode[];
  edges: Array<{ from: string; to: string }>;
  /** `sha256:` + hex of `runs.definition_digest`. */
  digest: string;
  /** SHA-256 (hex) of the snapshot blob. */
  hash: string;
  /** The snapshot's other top-level fields (`composition`, `settings`, `contractId`, …). */
  extra: { [key: string]: JsonValue };
}

/** The snapshot schema pi writes. */
export const DEFINITION_SNAPSHOT_SCHEMA = 'pi-workflows.definition-snapshot.v1';

function isObject(value: unknown): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The definition of a run's row (the snapshot blob parsed).
 *
 * @throws StoreError(integrity) `Workflow definition snapshot has an incompatible schema`
 *   (as pi) when the blob is not a `pi-workflows.definition-snapshot.v1` object
 */
export function definitionOfRow(connection: SqliteDatabase, run: RunRow): RunDefinition {
  const blob = allRows<{ mediaType: string; content: Buffer }>(connection, 'SELECT media_type AS mediaType, content FROM blobs WHERE blob_hash = ?', [
    run.definitionHash,
  ])[0];
  const value = blob === undefined ? null : decodeBlob(blob.mediaType, blob.content);
  if (!isObject(value) || value.schema !== DEFINITION_SNAPSHOT_SCHEMA || !isObject(value.nodes)) {
    throw new StoreError('integrity', 'Workflow definition snapshot has an incompatible schema');
  }
  const { schema, name, startAt, nodes, edges, ...extra } = value;
  return {
    schema: String(schema),
    name: typeof name === 'string' ? name : run.workflowName,
    startAt: typeof startAt === 'string' ? startAt : '',
    nodes: Object.keys(nodes)
      .sort()
      .map((nodeId) => {
        const fields = isObject(nodes[nodeId]) ? nodes[nodeId] : {};
        return { nodeId, nodeType: typeof fields.nodeType === 'string' ? fields.nodeType : 'agent', fields };
      }),
    edges: (Array.isArray(edges) ? edges : []).filter(isObject).map((edge) => ({ from: String(edge.from), to: String(edge.to) })),
    digest: `sha256:${run.definitionDigest.toString('hex')}`,
    hash: run.definitionHash.toString('hex'),
    extra,
  };
}

/**
 * A run's workflow definition snapshot (docs/PI-WORKFLOWS-FILES.md §9), or null when there is
 * no such run.
 *
 * @throws StoreError(integrity) as {@link definitionOfRow}
 */
export function readRunDefinition(connection: SqliteDatabase, runId: string): RunDefinition | null {
  if (!hasTables(connection, 'runs', 'workflow_definitions')) return null;
  const run = readRunRow(connection, runId);
  return run === undefined ? null : definitionOfRow(connection, run);
}
