/**
 * Child process of the run-list change feed tests: opens the server's database file with its own
 * WorkflowStore (like a workflow host) and reserves runs on command, printing one JSON line each.
 *
 * argv: <dbPath> <projectPath>
 * stdin: `reserve <runId>` (a root run in session `session-<runId>`), `exit`
 * stdout: `{"ready":true}`, then `{"reserved":"<runId>"}` per command
 */
import { WorkflowStore } from '../../src/store/index.js';
import { serveStoreCommands } from './store-commands.js';

const [dbPath, projectPath] = process.argv.slice(2);
if (dbPath === undefined || projectPath === undefined) throw new Error('usage: run-reserver.ts <dbPath> <projectPath>');
const store = WorkflowStore.open({ path: dbPath, projectPath });

serveStoreCommands(store, (command, [runId]) => {
  if (command === 'reserve' && runId !== undefined) {
    // (Not the test fixtures: they import vitest, which a child process cannot load.)
    store.reserveWorkflowRun({
      runId,
      workflowName: 'demo',
      workflowSourceRef: 'workflows/demo.json',
      definitionSnapshot: { name: 'demo', nodes: [{ id: 'done', type: 'end' }] },
      originSessionId: `session-${runId}`,
    });
    process.stdout.write(`${JSON.stringify({ reserved: runId })}\n`);
  }
});
