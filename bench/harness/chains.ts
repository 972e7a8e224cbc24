/**
 * Builds lineage chains through the store's public API, the way a workflow host grows them:
 * a continuation is reserved (and claimed) once its parent is parked with no lease owner;
 * a restart follows a parent settled `failed` (restartWorkflowRun with a claim).
 */
import type { WorkflowStore } from '../../src/store/index.js';
import { claim, reservation } from './store-inputs.js';

/** Long enough that no lease expires while a chain is built on a stepping clock. */
const LEASE_MS = 86_400_000;

/** A built chain. */
export interface Chain {
  rootRunId: string;
  /** The newest run (the last one reserved). */
  deepestRunId: string;
  /** Every run id, in creation order. */
  runIds: string[];
}

/**
 * Reserves a chain of `depth` runs under one origin session. Run i > 0 continues run i − 1,
 * except at the positions in `restartAt`, where run i − 1 is settled `failed` (with its own
 * error text, so every terminal fingerprint differs) and run i is its restart. Every run but
 * the parent of a restart is parked after its claim; the last run is parked too.
 *
 * @param restartAt positions 1 … depth − 1 (at most 3, the store's restart limit)
 */
export function buildChain(store: WorkflowStore, prefix: string, depth: number, restartAt: readonly number[] = []): Chain {
  const session = `${prefix}-session`;
  const restarts = new Set(restartAt);
  const runIds: string[] = [];
  let parentId: string | undefined;
  let parentToken = '';
  for (let index = 0; index < depth; index += 1) {
    const token = `${prefix}-token-${index}`;
    let runId: string;
    if (parentId === undefined) {
      runId = `${prefix}-0`;
      store.reserveWorkflowRun(reservation(runId, session), claim(token, LEASE_MS));
    } else if (restarts.has(index)) {
      store.settleWorkflowRun({ runId: parentId, claimToken: parentToken, status: 'failed', error: `${prefix} failure ${index}` });
      runId = store.restartWorkflowRun({ runId: parentId, originSessionId: session, claim: claim(token, LEASE_MS) }).run.runId;
    } else {
      runId = `${prefix}-${index}`;
      store.reserveWorkflowRun(reservation(runId, session, { parentRunId: parentId }), claim(token, LEASE_MS));
    }
    if (!restarts.has(index + 1) || index === depth - 1) store.parkWorkflowRun({ runId, claimToken: token });
    runIds.push(runId);
    parentId = runId;
    parentToken = token;
  }
  return { rootRunId: runIds[0] as string, deepestRunId: runIds[runIds.length - 1] as string, runIds };
}

/** Three restart positions spread over a chain (a quarter, half, three quarters in). */
export function spreadRestarts(depth: number): number[] {
  if (depth < 4) return [];
  return [...new Set([Math.floor(depth / 4), Math.floor(depth / 2), Math.floor((3 * depth) / 4)])].filter((at) => at >= 1);
}
