import { claimNotLiveMessage, StoreError } from './errors.js';
import { bumpRun, ownerActor, ownerTypeFor, readLease, SUMMARY_REPLAY } from './run-events.js';
import { loadRunRow } from './run-records.js';
import { assertWritable, type StoreContext } from './store-context.js';
import { resolveNow } from './values.js';
import type { ViewerDeltaDraft } from './viewer-deltas.js';
import { verifiedClaim } from './worker-transitions.js';

/**
 * What the engine and its host report of a run (docs/STORE-RULES.md §4, §6.11): its durable
 * state (`running`, `waiting`) and host run events.
 */

/** Input of {@link reportWorkflowRunState}. */
export interface ReportWorkflowRunStateInput {
  runId: string;
  claimToken: string;
  /** `running`: the engine started or resumed the run; `waiting`: it waits for input. */
  status: 'running' | 'waiting';
  /** runs.status_detail; default null (`waiting for origin-session input` for waiting). */
  detail?: string | null;
  /** Viewer targets recorded after the bump (default summary, replay). */
  drafts?: readonly ViewerDeltaDraft[];
  now?: string;
}

/**
 * The engine reports a run's durable state (docs/STORE-RULES.md §4 "engine reports run started/resumed",
 * "engine waits for input"): with a verified claim, runs.status `running` (finished_at NULL)
 * or `waiting` (finished_at now, as the CHECK of §3.7 wants), status detail, bump with
 * `run.running` / `run.waiting` `{status}`, then the given viewer drafts. The queue is not
 * touched: the host moves it with mark running / park.
 *
 * @returns the new presentation revision
 * @throws StoreError(not_found) `Workflow run not found: <runId>`;
 *   StoreError(claim_lost) `Claim token is not the live claim of workflow run: <runId>`;
 *   StoreError(conflict) `Workflow run <runId> is terminal`
 */
export function reportWorkflowRunState(context: StoreContext, input: ReportWorkflowRunStateInput): number {
  assertWritable(context);
  if (input.status !== 'running' && input.status !== 'waiting') {
    throw new StoreError('validation', 'status must be running or waiting', 'status');
  }
  const now = resolveNow(input.now, context.clock);
  return context.database.transaction(() => {
    if (loadRunRow(context, input.runId) === undefined) {
      throw new StoreError('not_found', `Workflow run not found: ${input.runId}`);
    }
    const claimed = verifiedClaim(context, input.runId, input.claimToken, now);
    if (claimed === undefined) {
      throw new StoreError('claim_lost', claimNotLiveMessage(input.runId));
    }
    const { row, lease } = claimed;
    const detail = input.detail !== undefined ? input.detail : input.status === 'waiting' ? 'waiting for origin-session input' : null;
    const updated = context.database.run(
      `UPDATE runs SET status = ?, status_detail = ?, finished_at = ?, updated_at = ?
       WHERE run_id = ? AND status NOT IN ('completed', 'failed', 'timed_out', 'cancelled')`,
      input.status,
      detail,
      input.status === 'waiting' ? now : null,
      now,
      input.runId,
    );
    if (updated.changes !== 1) throw new StoreError('conflict', `Workflow run ${input.runId} is terminal`);
    bumpRun(context, row, `run.${input.status}`, ownerActor(lease), { status: input.status }, now, input.drafts ?? SUMMARY_REPLAY);
    return context.viewer.head(input.runId)?.currentRevision ?? 1;
  });
}

/** A run event as returned by {@link recordRunEvent} (docs/STORE-RULES.md §6.11). */
export interface RunEventRecord {
  seq: number;
  /** ISO-8601. */
  recordedAt: string;
  runId: string;
  workflowRef: string;
  type: string;
  runnerId: string | null;
  payload: unknown;
}

/**
 * Records a host run event (docs/STORE-RULES.md §6.11): bump with the event (actor `host` for runner ids
 * starting with `host-`, else `session`), generation of the lease.
 *
 * @throws StoreError(not_found) `Workflow run not found: <runId>`
 */
export function recordRunEvent(
  context: StoreContext,
  input: { runId: string; type: string; payload?: unknown; runnerId?: string; now?: string },
): RunEventRecord {
  assertWritable(context);
  const now = resolveNow(input.now, context.clock);
  return context.database.transaction(() => {
    const row = loadRunRow(context, input.runId);
    if (row === undefined) throw new StoreError('not_found', `Workflow run not found: ${input.runId}`);
    const lease = readLease(context, row.resource_id);
    const actorType = input.runnerId === undefined ? 'session' : ownerTypeFor(input.runnerId);
    bumpRun(context, row, input.type, { type: actorType, id: input.runnerId ?? null, generation: lease.generation }, input.payload ?? {}, now);
    const seq = context.database.get<{ seq: number }>('SELECT max(event_seq) AS seq FROM events') as { seq: number };
    return {
      seq: seq.seq,
      recordedAt: new Date(now).toISOString(),
      runId: row.run_id,
      workflowRef: row.workflow_ref,
      type: input.type,
      runnerId: input.runnerId ?? null,
      payload: input.payload ?? {},
    };
  });
}
