/**
 * Runs as an older build of this server stored them: every JSON object's keys in plain code-unit
 * order ("10" before "2"), before canonical JSON ordered keys as pi-workflows does
 * (docs/PI-WORKFLOWS-FILES.md §8). For the tests of the rule that such runs still adopt.
 */
import type { ClaimRequest, WorkflowStore } from '../../src/store/index.js';
import { sha256Hex } from './store-fixtures.js';
import { connectionOf, unreferencedBlobs } from './store-internals.js';

/** The canonical JSON an older build wrote: keys in code-unit order at every depth, no whitespace. */
export function codeUnitOrderJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(codeUnitOrderJson).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const record = value as Record<string, unknown>;
  return `{${Object.keys(record)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${codeUnitOrderJson(record[key])}`)
    .join(',')}}`;
}

/** What an older build was asked to reserve (its default file source identity). */
export interface OlderReservation {
  runId: string;
  workflowName: string;
  workflowSourceRef: string;
  definition: unknown;
  input: unknown;
  launchOptions: unknown;
  originSessionId: string;
}

/**
 * Reserves and claims a run exactly as the older build stored it: definition digest and source
 * hash of the code-unit-order JSON, and the definition, input and launch-options blobs in that
 * form (the canonical-form blobs this build wrote removed again).
 *
 * @param now epoch ms, the blobs' created_at
 * @returns the older form's definition digest, 64 hex
 */
export function reserveAsOlderBuild(store: WorkflowStore, run: OlderReservation, claim: ClaimRequest, now: number): string {
  const digest = sha256Hex(codeUnitOrderJson(run.definition));
  store.reserveWorkflowRun(
    {
      runId: run.runId,
      workflowName: run.workflowName,
      workflowSourceRef: run.workflowSourceRef,
      workflowSource: { kind: 'file', path: run.workflowSourceRef, hash: digest },
      definitionDigest: digest,
      definitionSnapshot: run.definition,
      input: run.input,
      launchOptions: run.launchOptions,
      originSessionId: run.originSessionId,
    },
    claim,
  );
  const connection = connectionOf(store);
  const olderBlob = (value: unknown): Buffer => {
    const text = codeUnitOrderJson(value);
    const hash = Buffer.from(sha256Hex(text), 'hex');
    connection
      .prepare("INSERT OR IGNORE INTO blobs(blob_hash, media_type, byte_length, content, created_at) VALUES (?, 'application/json', ?, ?, ?)")
      .run(hash, Buffer.byteLength(text), Buffer.from(text), now);
    return hash;
  };
  connection
    .prepare('UPDATE runs SET input_hash = ?, launch_options_hash = ? WHERE run_id = ?')
    .run(olderBlob(run.input), olderBlob(run.launchOptions), run.runId);
  connection
    .prepare('UPDATE workflow_definitions SET definition_hash = ? WHERE definition_digest = ?')
    .run(olderBlob(run.definition), Buffer.from(digest, 'hex'));
  for (const hash of unreferencedBlobs(store)) connection.prepare('DELETE FROM blobs WHERE blob_hash = ?').run(Buffer.from(hash, 'hex'));
  return digest;
}
