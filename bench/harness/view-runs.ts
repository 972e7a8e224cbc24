/**
 * The runs of the `view` benchmark (bench/view.ts): a pi-workflows state file with runs whose
 * engine rows are written the way pi-workflows' engine writes them — the run started, its Pi
 * session bound, a few steps with prompts, outputs and session entries through
 * `EngineRowWriter` — and then the bulk of a big run's lists in one transaction each:
 *
 * - trace events through `appendTrace` (the run resource bumped, the `events` row with its
 *   envelope payload blob, as `EngineRowWriter.trace` writes them) without the viewer revision
 *   per event: that revision's `graph` target re-reads the whole view, so 10,000 of them through
 *   the writer take minutes; one revision (graph, `trace:tail`) is recorded at the end so the
 *   run's presentation revision moves past them;
 * - session entries and session events through the writer's own calls
 *   (`appendSessionEntry`, `appendSessionEvents` in batches of 100), joined into one transaction
 *   (each call joins the open one): their viewer revisions are cheap tail patches, as pi writes
 *   them. pi also writes a `viewer_session_checkpoints` row every 256 session events, which the
 *   engine-row writer does not; the run view's pages do not read them.
 */
import { createHash } from 'node:crypto';
import { canonicalJson, type JsonValue } from '../../src/store/canonical-json.js';
import { StateDatabase } from '../../src/store/database.js';
import { EngineRowWriter } from '../../src/store/engine-rows/index.js';
import { appendTrace, engineContext, recordRunDeltas, requireEngineRun, type EngineTraceEvent } from '../../src/store/engine-rows/engine-context.js';
import { WorkflowStore } from '../../src/store/index.js';
import { systemClock } from '../../src/store/values.js';
import { createPiWorkflowsFile } from '../../fixtures/pi-workflows-file.js';
import { reservation } from './store-inputs.js';

/** A definition snapshot in pi-workflows' form (the run view reads its nodes and edges). */
const DEFINITION = {
  schema: 'pi-workflows.definition-snapshot.v1',
  name: 'view-bench',
  startAt: 'plan',
  nodes: { plan: { nodeType: 'agent' }, apply: { nodeType: 'agent' } },
  edges: [
    { from: 'plan', to: 'apply' },
    { from: 'apply', to: 'plan' },
  ],
};
const DIGEST = createHash('sha256').update(canonicalJson(DEFINITION)).digest('hex');

/** Steps each run gets through the writer (each writes 3 trace events and 1 session entry). */
export const VIEW_RUN_STEPS = 5;
/** Session events per `appendSessionEvents` call of the bulk. */
const EVENT_BATCH = 100;

/** What one run got. */
export interface ViewRunSpec {
  runId: string;
  /** Trace events in all (the run's resource revision). */
  trace: number;
  /** Session entries in all. */
  entries: number;
  /** Session events in all. */
  events: number;
}

/** A session entry as Pi's session JSONL holds it: an assistant message with text and a tool call. */
export function sessionEntry(id: string, index: number): { [key: string]: JsonValue } {
  return {
    type: 'message',
    id,
    parentId: null,
    timestamp: new Date().toISOString(),
    message: {
      role: index % 2 === 0 ? 'assistant' : 'user',
      content: [
        { type: 'text', text: `entry ${index}: ${'lorem ipsum dolor sit amet '.repeat(4)}` },
        ...(index % 2 === 0 ? [{ type: 'toolCall', id: `call-${id}`, name: 'read', arguments: { path: `src/file-${index % 97}.ts` } }] : []),
      ],
    },
  };
}

/** One step of the engine: started, prompt sent, a session entry, finished with an output. */
function engineStep(writer: EngineRowWriter, runId: string, index: number): void {
  const nodeId = index % 2 === 0 ? 'plan' : 'apply';
  const { attemptId } = writer.startStep({ runId, nodeId, nodeType: 'agent' });
  writer.sendPrompt({ runId, attemptId, prompt: `Do ${nodeId} (${index}).` });
  writer.appendSessionEntry({ runId, entry: sessionEntry(`${runId}-step-${index}`, index * 2) });
  writer.finishStep({ runId, attemptId, outcome: 'ok', output: { step: index, summary: `${nodeId} done` } });
}

/**
 * Creates the pi-workflows file at `path` and the runs of `specs` in it (reserved through the
 * store, then the engine rows); `progress` is told what is being written.
 */
export function buildViewRuns(path: string, projectPath: string, specs: readonly ViewRunSpec[], progress: (text: string) => void): void {
  createPiWorkflowsFile(path).close();
  const store = WorkflowStore.open({ path, projectPath });
  try {
    for (const spec of specs) {
      store.reserveWorkflowRun(
        reservation(spec.runId, `${spec.runId}-origin`, {
          workflowName: DEFINITION.name,
          workflowSource: { kind: 'file', path: 'workflows/view-bench.json', hash: DIGEST },
          workflowSourceRef: 'workflows/view-bench.json',
          definitionDigest: DIGEST,
          definitionSnapshot: DEFINITION,
        }),
      );
    }
  } finally {
    store.close();
  }
  const database = StateDatabase.open({ path });
  try {
    const writer = new EngineRowWriter(database);
    const context = engineContext(database, systemClock);
    for (const spec of specs) {
      const runId = spec.runId;
      writer.startRun({ runId, title: `View bench ${runId}` });
      writer.bindSession({ runId, piSessionId: `pi-${runId}`, cwd: '/work' });
      for (let index = 0; index < VIEW_RUN_STEPS; index += 1) engineStep(writer, runId, index);
      const run = requireEngineRun(context, runId);
      // Trace so far: run_initialized, run_started, session_bound, 3 per step.
      const traceSoFar = database.get<{ revision: number }>('SELECT revision FROM resources WHERE resource_id = ?', run.resourceId)?.revision as number;
      const started = performance.now();
      database.transaction(() => {
        let last: EngineTraceEvent | undefined;
        const now = Date.now();
        for (let seq = traceSoFar + 1; seq <= spec.trace; seq += 1) {
          last = appendTrace(
            context,
            run,
            { scope: 'node', type: seq % 3 === 0 ? 'agent_tool_called' : 'node_heartbeat', nodeId: 'apply', payload: { beat: seq, note: `trace ${seq}` } },
            now,
          );
        }
        if (last !== undefined) recordRunDeltas(context, runId, last, now);
      });
      const entriesSoFar = VIEW_RUN_STEPS;
      database.transaction(() => {
        for (let index = entriesSoFar; index < spec.entries; index += 1) writer.appendSessionEntry({ runId, entry: sessionEntry(`${runId}-e${index}`, index) });
        for (let first = 0; first < spec.events; first += EVENT_BATCH) {
          const events = Array.from({ length: Math.min(EVENT_BATCH, spec.events - first) }, (_, offset) => {
            const index = first + offset;
            return {
              type: ['turn_started', 'message_started', 'assistant_event', 'message_finished', 'tool_execution_started', 'tool_execution_finished'][
                index % 6
              ] as string,
              nodeId: 'apply',
              attemptId: `${runId}-attempt`,
              turnId: `turn-${Math.floor(index / 6)}`,
              payload: { index, delta: `event ${index}` },
            };
          });
          writer.appendSessionEvents({ runId, events });
        }
      });
      progress(
        `${runId}: ${spec.trace} trace events, ${spec.entries} session entries, ${spec.events} session events (bulk ${(performance.now() - started).toFixed(0)} ms)`,
      );
    }
  } finally {
    database.close();
  }
}
