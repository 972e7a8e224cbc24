/**
 * Inputs shared by the benchmarks: one workflow definition, the reservation input the store
 * takes for it (the same shape the GraphQL `reserveWorkflowRun` mutation builds), the same
 * reservation as GraphQL variables, a stepping clock, and temporary directories.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalJson, type ClaimRequest, type ReserveWorkflowRunInput } from '../../src/store/index.js';

/** The definition snapshot every benchmark run uses. */
export const DEFINITION = {
  name: 'bench',
  version: 1,
  nodes: [
    { id: 'plan', type: 'agent', prompt: 'Plan the change' },
    { id: 'apply', type: 'agent', prompt: 'Apply it' },
    { id: 'done', type: 'end' },
  ],
};

/** The workflow ref (also the file source path). */
export const WORKFLOW_REF = 'workflows/bench.json';

/** SHA-256 of the definition's canonical JSON (what the mutation computes). */
export const DEFINITION_DIGEST = createHash('sha256').update(canonicalJson(DEFINITION)).digest('hex');

/** A small run input. */
export const RUN_INPUT = { task: 'benchmark', size: 3 };

/**
 * The store input of a root reservation, as the GraphQL mutation maps it (file source with the
 * definition digest as hash, interactive mode).
 */
export function reservation(runId: string, originSessionId: string, extra: Partial<ReserveWorkflowRunInput> = {}): ReserveWorkflowRunInput {
  return {
    runId,
    workflowName: 'bench',
    workflowSourceRef: WORKFLOW_REF,
    workflowSource: { kind: 'file', path: WORKFLOW_REF, hash: DEFINITION_DIGEST },
    definitionDigest: DEFINITION_DIGEST,
    definitionSnapshot: DEFINITION,
    input: RUN_INPUT,
    runnerId: null,
    originSessionId,
    executionMode: 'interactive',
    ...extra,
  };
}

/** A claim request of `runner-1` with the given token. */
export function claim(claimToken: string, leaseMs = 60_000): ClaimRequest {
  return { runnerId: 'runner-1', claimToken, leaseMs };
}

/** The `reserveWorkflowRun` document the mutation benchmark sends. */
export const RESERVE_MUTATION = `mutation Reserve($input: ReserveWorkflowRunInput!) {
  reserveWorkflowRun(input: $input) {
    __typename
    ... on ReserveWorkflowRunSuccess { adopted run { runId status queueStatus claim { ownerId leaseGeneration expiresAt } } }
    ... on Error { code message }
  }
}`;

/** Variables of {@link RESERVE_MUTATION} for one run (with a claim, like the raw store call). */
export function reserveVariables(runId: string, originSessionId: string, claimToken: string): Record<string, unknown> {
  return {
    input: {
      runId,
      workflowName: 'bench',
      workflowRef: WORKFLOW_REF,
      definition: DEFINITION,
      input: RUN_INPUT,
      originSessionId,
      claim: { runnerId: 'runner-1', claimToken, leaseMs: 60_000 },
    },
  };
}

/**
 * A clock that advances 1 ms on every read, so rows created one after another have
 * increasing `created_at`.
 */
export function steppingClock(start: number): () => number {
  let t = start;
  return () => {
    t += 1;
    return t;
  };
}

/** A fresh temporary directory and its remover. */
export function tempDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
