/**
 * Progress and metric updates as pi-workflows' engine publishes them (`publishUpdate`): a
 * `workflow_updates` row at the run revision of its trace event `update_published`.
 */
import { randomUUID } from 'node:crypto';
import type { JsonValue } from '../canonical-json.js';
import { StoreError } from '../errors.js';
import { appendTrace, engineWrite, recordRunDeltas, requireEngineRun, type EngineContext } from './engine-context.js';
import type { EngineWriteResult } from './run-lifecycle.js';

/** An update of an attempt: its type (`progress`, `metric`, …), key and data (a JSON object). */
export interface PublishEngineUpdateInput {
  runId: string;
  attemptId: string;
  type: string;
  key: string;
  /** e.g. `{schema: "pi-workflows.progress.v1", label, status, completed, total, unit}` for `progress`. */
  data: { [key: string]: JsonValue };
}

/**
 * Publishes an update: the run's trace event `update_published` (scope `node`, payload
 * `{updateId, type, key, data}`) at run revision R, the `workflow_updates` row (`update_id`
 * `upd_` + UUID, the attempt's next `update_seq`, `run_revision` R, the data blob), and the
 * viewer revision (graph: `/state/updates` with the run's current updates; `trace:tail`).
 *
 * @returns the update id, R (`seq`) and the viewer revision
 * @throws StoreError(not_found) for an unknown run or an attempt not of this run
 */
export function publishEngineUpdate(context: EngineContext, input: PublishEngineUpdateInput): EngineWriteResult & { updateId: string } {
  return engineWrite(context, (now) => {
    const run = requireEngineRun(context, input.runId);
    const attempt = context.database.get<{ nodeId: string }>(
      'SELECT node_id AS nodeId FROM node_attempts WHERE attempt_id = ? AND run_id = ?',
      input.attemptId,
      input.runId,
    );
    if (attempt === undefined) throw new StoreError('not_found', `Node attempt not found in run ${input.runId}: ${input.attemptId}`);
    const updateId = `upd_${randomUUID()}`;
    const event = appendTrace(
      context,
      run,
      {
        scope: 'node',
        type: 'update_published',
        nodeId: attempt.nodeId,
        attemptId: input.attemptId,
        payload: { updateId, type: input.type, key: input.key, data: input.data },
      },
      now,
    );
    const updateSeq = context.database.get<{ n: number }>(
      'SELECT COALESCE(MAX(update_seq), 0) + 1 AS n FROM workflow_updates WHERE attempt_id = ?',
      input.attemptId,
    )?.n as number;
    context.database.run(
      `INSERT INTO workflow_updates(update_id, attempt_id, update_seq, run_revision, update_type, update_key, data_hash, recorded_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      updateId,
      input.attemptId,
      updateSeq,
      event.seq,
      input.type,
      input.key,
      context.blobs.putJson(input.data, now),
      now,
    );
    return { updateId, seq: event.seq, revision: recordRunDeltas(context, input.runId, event, now) };
  });
}
