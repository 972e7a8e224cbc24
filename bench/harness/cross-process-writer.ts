/**
 * The writer process of the cross-process benchmark: opens the server's database file with its
 * own `WorkflowStore.open` (another connection in another process, like a workflow host) and
 * records one viewer revision per `commit` request, stamping `Date.now()` after the commit.
 */
import { WorkflowStore } from '../../src/store/index.js';
import { emit, serveRequests } from './ipc.js';

let store: WorkflowStore | undefined;

serveRequests({
  open(message) {
    store = WorkflowStore.open({ path: String(message.dbPath), projectPath: String(message.projectPath) });
    return { pid: process.pid };
  },

  /** Records one timeline revision on `runId`; `at` is `Date.now()` right after the commit returned. */
  commit(message) {
    if (store === undefined) throw new Error('store not open');
    const index = Number(message.index ?? 0);
    const revision = store.recordViewerDeltas(String(message.runId), [
      {
        targetType: 'timeline',
        targetKey: 'items',
        ops: [{ op: 'append', path: '/items', value: [{ kind: 'message', index, text: `host step ${index}` }] }],
      },
    ]);
    return { revision, at: Date.now() };
  },

  stop() {
    store?.close();
    store = undefined;
    setImmediate(() => process.exit(0));
    return null;
  },
});

emit('child-ready');
