/**
 * The engine process of the `view` benchmark (bench/view.ts): opens the server's pi-workflows file
 * with its own `EngineRowWriter` (another connection in another process, as pi-workflows' engine
 * writes) and commits one trace event (`trace`) or one session entry (`entry`) per request,
 * stamping `performance.timeOrigin + performance.now()` right after the commit returned.
 */
import { EngineRowWriter } from '../../src/store/engine-rows/index.js';
import { emit, serveRequests } from './ipc.js';
import { sessionEntry } from './view-runs.js';

let writer: EngineRowWriter | undefined;

function open(): EngineRowWriter {
  if (writer === undefined) throw new Error('writer not open');
  return writer;
}

const stamp = (): number => performance.timeOrigin + performance.now();

serveRequests({
  open(message) {
    writer = EngineRowWriter.open({ path: String(message.dbPath) });
    return { pid: process.pid };
  },

  /** One engine trace event (graph and `trace:tail` revision); `ms` is the write's own time. */
  trace(message) {
    const index = Number(message.index);
    const started = performance.now();
    const result = open().trace({ runId: String(message.runId), scope: 'node', type: 'node_heartbeat', nodeId: 'apply', payload: { beat: index } });
    const at = stamp();
    return { revision: result.revision, at, ms: performance.now() - started };
  },

  /** One captured session entry (`entries:tail` and `capture` revision). */
  entry(message) {
    const index = Number(message.index);
    const runId = String(message.runId);
    const started = performance.now();
    const result = open().appendSessionEntry({ runId, entry: sessionEntry(`${runId}-live-${index}`, index) });
    const at = stamp();
    return { revision: result.revision, at, ms: performance.now() - started };
  },

  stop() {
    writer?.close();
    writer = undefined;
    setImmediate(() => process.exit(0));
    return null;
  },
});

emit('child-ready');
