/** Engine trace events of the workflow's own (pi's `writeSnapshot` with any event draft). */
import { engineWrite, requireEngineRun, traceAndRecord, type EngineContext, type EngineTraceDraft } from './engine-context.js';
import type { EngineWriteResult } from './run-lifecycle.js';

/**
 * Records one engine trace event on the run: its resource bumped, the event with the envelope
 * payload blob `{scope, nodeId?, attemptId?, payload}` (actor `system`), and its viewer revision
 * (graph, `trace:tail`). For the events the other modules write (`node_started`, …) use them:
 * they also write the rows the event stands for.
 *
 * @throws StoreError(not_found) `Workflow run not found: <runId>`
 */
export function recordEngineTrace(context: EngineContext, input: { runId: string } & EngineTraceDraft): EngineWriteResult {
  return engineWrite(context, (now) => {
    const { runId, ...draft } = input;
    const { event, revision } = traceAndRecord(context, requireEngineRun(context, runId), draft, now);
    return { seq: event.seq, revision };
  });
}
