/**
 * A run's engine state, start and end, as pi-workflows' engine writes it
 * (`initializeRunFromSnapshot` then `writeSnapshot` `run_started`; `writeSnapshot`
 * `run_completed` / `run_failed`): the `runs` row (status, title, detail, final output, error,
 * times) and the trace events, each with its viewer revision.
 */
import type { JsonValue } from '../canonical-json.js';
import { StoreError } from '../errors.js';
import { engineWrite, requireEngineRun, traceAndRecord, type EngineContext } from './engine-context.js';

/** What {@link startEngineRun} writes. */
export interface StartEngineRunInput {
  runId: string;
  /** `runs.title` (pi's `runTitle`); absent: left as it is. */
  title?: string;
  /** `runs.status_detail`; absent: none. */
  statusDetail?: string;
}

/** Revisions an engine write produced: the run resource's (the trace `seq`) and the viewer's. */
export interface EngineWriteResult {
  /** The last trace event's `seq` (the run resource's revision). */
  seq: number;
  /** The last viewer presentation revision recorded. */
  revision: number;
}

const FINISHED = new Set(['completed', 'failed', 'timed_out', 'cancelled']);

/**
 * Starts a run's engine state: `runs.status` `running` (title and detail as given,
 * `updated_at`), then two trace events, each with its viewer revision —
 * `run_initialized` `{workflowName}` (graph, `trace:tail`, inspector `settings` and
 * `follow-ups` pages, empty) and `run_started` `{inputStored: true, runTitle?, workflowName}`
 * (graph, `trace:tail`). The definition snapshot is the one reserve stored.
 *
 * @throws StoreError(not_found) `Workflow run not found: <runId>`; StoreError(conflict)
 *   `Workflow run <runId> has already finished (status <status>)`
 */
export function startEngineRun(context: EngineContext, input: StartEngineRunInput): EngineWriteResult {
  return engineWrite(context, (now) => {
    const run = requireEngineRun(context, input.runId);
    if (FINISHED.has(run.status)) throw new StoreError('conflict', `Workflow run ${input.runId} has already finished (status ${run.status})`);
    const workflowName = context.database.get<{ name: string }>(
      'SELECT d.workflow_name AS name FROM runs r JOIN workflow_definitions d ON d.definition_digest = r.definition_digest WHERE r.run_id = ?',
      input.runId,
    )?.name as string;
    context.database.run(
      `UPDATE runs SET status = 'running', title = COALESCE(?, title), status_detail = ?, updated_at = ?, finished_at = NULL WHERE run_id = ?`,
      input.title ?? null,
      input.statusDetail ?? null,
      now,
      input.runId,
    );
    traceAndRecord(context, run, { scope: 'run', type: 'run_initialized', payload: { workflowName } }, now, [
      {
        targetType: 'inspector',
        targetKey: 'settings',
        ops: [
          { op: 'replace', path: '/settingsScopes', value: [] },
          { op: 'replace', path: '/settingsStart', value: 0 },
          { op: 'replace', path: '/settingsTotal', value: 0 },
        ],
      },
      {
        targetType: 'inspector',
        targetKey: 'follow-ups',
        ops: [
          { op: 'replace', path: '/followUpQueue', value: { items: [] } },
          { op: 'replace', path: '/followUpStart', value: 0 },
          { op: 'replace', path: '/followUpTotal', value: 0 },
        ],
      },
    ]);
    const title = context.database.get<{ title: string | null }>('SELECT title FROM runs WHERE run_id = ?', input.runId)?.title ?? null;
    const started = traceAndRecord(
      context,
      run,
      { scope: 'run', type: 'run_started', payload: { inputStored: true, ...(title === null ? {} : { runTitle: title }), workflowName } },
      now,
    );
    return { seq: started.event.seq, revision: started.revision };
  });
}

/** How a run ends: completed with a final output, or failed with an error text. */
export type FinishEngineRunInput = { runId: string; status: 'completed'; finalOutput?: JsonValue } | { runId: string; status: 'failed'; error: string };

/**
 * Ends a run's engine state: `runs` `completed` (final output blob when given) or `failed`
 * (error text blob, `text/plain`), paused 0, no detail, `finished_at` = now; then the trace
 * event `run_completed` `{finalOutputStored, status}` or `run_failed` `{error, status}` with its
 * viewer revision (graph, `trace:tail`). Open attempts are left to the caller (finish or fail
 * the step first). The queue is the controller's: settle it afterwards, as pi's host does.
 *
 * @throws StoreError(not_found) `Workflow run not found: <runId>`; StoreError(conflict)
 *   `Workflow run <runId> has already finished (status <status>)`
 */
export function finishEngineRun(context: EngineContext, input: FinishEngineRunInput): EngineWriteResult {
  return engineWrite(context, (now) => {
    const run = requireEngineRun(context, input.runId);
    if (FINISHED.has(run.status)) throw new StoreError('conflict', `Workflow run ${input.runId} has already finished (status ${run.status})`);
    if (input.status === 'completed') {
      const outputHash = input.finalOutput === undefined ? null : context.blobs.putJson(input.finalOutput, now);
      context.database.run(
        `UPDATE runs SET status = 'completed', paused = 0, status_detail = NULL, final_output_hash = ?, updated_at = ?, finished_at = ? WHERE run_id = ?`,
        outputHash,
        now,
        now,
        input.runId,
      );
      const done = traceAndRecord(
        context,
        run,
        { scope: 'run', type: 'run_completed', payload: { finalOutputStored: outputHash !== null, status: 'completed' } },
        now,
      );
      return { seq: done.event.seq, revision: done.revision };
    }
    context.database.run(
      `UPDATE runs SET status = 'failed', paused = 0, status_detail = NULL, error_hash = ?, updated_at = ?, finished_at = ? WHERE run_id = ?`,
      context.blobs.putText(input.error, now),
      now,
      now,
      input.runId,
    );
    const failed = traceAndRecord(context, run, { scope: 'run', type: 'run_failed', payload: { error: input.error, status: 'failed' } }, now);
    return { seq: failed.event.seq, revision: failed.revision };
  });
}
