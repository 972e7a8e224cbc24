import { StoreError } from './errors.js';
import { bumpRun, SUMMARY_REPLAY } from './run-events.js';
import { loadRunRow, requireRunRecord, requireRunRow, type RunRow, type WorkflowRunRecord } from './run-records.js';
import { assertWritable, type StoreContext } from './store-context.js';
import { resolveNow } from './values.js';

/**
 * Pause and resume of a parked run waiting for input (docs/STORE-RULES.md §6.8): a control
 * change, refused while another runner's lease is live.
 */

function hasPendingRequest(context: StoreContext, runId: string): boolean {
  return context.database.get("SELECT 1 FROM interactive_requests WHERE run_id = ? AND status = 'pending' LIMIT 1", runId) !== undefined;
}

/** Why a run with a live lease (`now` epoch ms) refuses a control change, or null when its lease is free or expired. */
function liveLeaseRefusal(row: RunRow, now: number, action: string): string | null {
  if (row.owner_id === null || row.expires_at === null || row.expires_at <= now) return null;
  return `Workflow run ${row.run_id} is claimed by ${row.owner_id} until ${new Date(row.expires_at).toISOString()}: a claimed run cannot be ${action}`;
}

/**
 * The pause of docs/STORE-RULES.md §6.8 inside the caller's transaction: refuses (returns the refusal's
 * text, nothing written) a run that is not parked, has a live lease, has no pending
 * interactive request, or (not yet paused) is neither running nor waiting; an already paused
 * run is left as it is; else paused 1, detail `paused`, bump with `run.paused`, viewer
 * summary, replay.
 *
 * @param now epoch ms
 * @returns null when paused (or already paused), else the refusal's text
 */
function pauseRun(context: StoreContext, row: RunRow, now: number): string | null {
  const runId = row.run_id;
  if (row.queue_status !== 'parked') return `Workflow run ${runId} is not parked (queue status ${row.queue_status}): only a parked run can be paused`;
  const leased = liveLeaseRefusal(row, now, 'paused');
  if (leased !== null) return leased;
  if (!hasPendingRequest(context, runId)) return `Workflow run ${runId} has no pending interaction: only a run waiting for input can be paused`;
  if (row.paused === 1) return null;
  if (row.run_status !== 'running' && row.run_status !== 'waiting') {
    return `Workflow run ${runId} is ${row.run_status}: only a running or waiting run can be paused`;
  }
  context.database.run("UPDATE runs SET paused = 1, status_detail = 'paused', updated_at = ? WHERE run_id = ?", now, runId);
  bumpRun(context, row, 'run.paused', { type: 'control', id: null }, { status: 'parked' }, now, SUMMARY_REPLAY);
  return null;
}

/**
 * Pauses a parked run with a pending interaction (docs/STORE-RULES.md §6.8): see {@link pauseRun}.
 * Already paused → true, no change.
 *
 * @returns false when the run is missing, not parked, has a live lease, no pending request, or
 *   is not running/waiting (nothing written)
 */
export function pauseParkedWorkflowRun(context: StoreContext, input: { runId: string; now?: string }): boolean {
  assertWritable(context);
  const now = resolveNow(input.now, context.clock);
  return context.database.transaction(() => {
    const row = loadRunRow(context, input.runId);
    return row !== undefined && pauseRun(context, row, now) === null;
  });
}

/**
 * Pauses a parked run and decides the refusals (docs/PI-WORKFLOWS-FILES.md §5): the pause of
 * {@link pauseParkedWorkflowRun}, in one transaction; an already paused run is answered as it is.
 *
 * @returns the paused run's record
 * @throws StoreError(not_found) `Workflow run not found: <runId>`; StoreError(conflict) with the
 *   refusal's text: `Workflow run <runId> is not parked (queue status <status>): only a parked
 *   run can be paused`, `… is claimed by <owner> until <ISO>: a claimed run cannot be paused`,
 *   `… has no pending interaction: only a run waiting for input can be paused`,
 *   `… is <status>: only a running or waiting run can be paused`
 */
export function pauseParkedWorkflowRunOrThrow(context: StoreContext, input: { runId: string; now?: string }): WorkflowRunRecord {
  assertWritable(context);
  const now = resolveNow(input.now, context.clock);
  return context.database.transaction(() => {
    const refusal = pauseRun(context, requireRunRow(context, input.runId), now);
    if (refusal !== null) throw new StoreError('conflict', refusal);
    return requireRunRecord(context, input.runId, now);
  });
}

/**
 * The resume of docs/STORE-RULES.md §6.8 inside the caller's transaction: refuses (returns the refusal's
 * text, nothing written) unless queue `parked`, run `waiting`, paused, no live lease and a
 * pending request; else paused 0, detail `waiting for origin-session input`, bump with
 * `run.resumed`, viewer summary, replay.
 *
 * @param now epoch ms
 * @returns null when resumed, else the refusal's text
 */
function resumeRun(context: StoreContext, row: RunRow, now: number): string | null {
  const runId = row.run_id;
  if (row.queue_status !== 'parked') return `Workflow run ${runId} is not parked (queue status ${row.queue_status}): only a parked run can be resumed`;
  if (row.run_status !== 'waiting') return `Workflow run ${runId} is ${row.run_status}, not waiting: only a paused waiting run can be resumed`;
  if (row.paused !== 1) return `Workflow run ${runId} is not paused`;
  const leased = liveLeaseRefusal(row, now, 'resumed');
  if (leased !== null) return leased;
  if (!hasPendingRequest(context, runId)) return `Workflow run ${runId} has no pending interaction to resume`;
  context.database.run("UPDATE runs SET paused = 0, status_detail = 'waiting for origin-session input', updated_at = ? WHERE run_id = ?", now, runId);
  bumpRun(context, row, 'run.resumed', { type: 'control', id: null }, { status: 'waiting' }, now, SUMMARY_REPLAY);
  return null;
}

/**
 * Resumes a paused waiting run (docs/STORE-RULES.md §6.8): see {@link resumeRun}.
 *
 * @returns false unless queue `parked`, run `waiting`, paused, no live lease, a pending request
 */
export function resumePausedInteraction(context: StoreContext, input: { runId: string; now?: string }): boolean {
  assertWritable(context);
  const now = resolveNow(input.now, context.clock);
  return context.database.transaction(() => {
    const row = loadRunRow(context, input.runId);
    return row !== undefined && resumeRun(context, row, now) === null;
  });
}

/**
 * Resumes a paused interaction and decides the refusals (docs/PI-WORKFLOWS-FILES.md §5): the
 * resume of {@link resumePausedInteraction}, in one transaction.
 *
 * @returns the resumed run's record
 * @throws StoreError(not_found) `Workflow run not found: <runId>`; StoreError(conflict) with the
 *   refusal's text: `Workflow run <runId> is not parked (queue status <status>): only a parked
 *   run can be resumed`, `… is <status>, not waiting: only a paused waiting run can be
 *   resumed`, `… is not paused`, `… is claimed by <owner> until <ISO>: a claimed run cannot be
 *   resumed`, `… has no pending interaction to resume`
 */
export function resumePausedInteractionOrThrow(context: StoreContext, input: { runId: string; now?: string }): WorkflowRunRecord {
  assertWritable(context);
  const now = resolveNow(input.now, context.clock);
  return context.database.transaction(() => {
    const refusal = resumeRun(context, requireRunRow(context, input.runId), now);
    if (refusal !== null) throw new StoreError('conflict', refusal);
    return requireRunRecord(context, input.runId, now);
  });
}
