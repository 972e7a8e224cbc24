/**
 * Child process of the cross-process tests: opens the server's database file with its own
 * WorkflowStore and commits marker revisions on command, printing one JSON line per commit
 * with `Date.now()` taken right after the commit returned.
 *
 * argv: <dbPath> <projectPath> <runId>
 * stdin: `burst <n> <firstK>` (n commits back to back), `one <k> [delayMs]` (one commit after
 *   delayMs: spreads commits over the server's poll phase for latency samples), `exit`
 * stdout: `{"ready":true}`, then `{"revision":R,"k":k,"at":ms}` per commit, `{"done":n}` per command
 */
import { WorkflowStore } from '../../src/store/index.js';
import { commitMarker } from '../helpers/live-markers.js';
import { serveStoreCommands } from './store-commands.js';

const [dbPath, projectPath, runId] = process.argv.slice(2);
if (dbPath === undefined || projectPath === undefined || runId === undefined) {
  throw new Error('usage: writer.ts <dbPath> <projectPath> <runId>');
}
const store = WorkflowStore.open({ path: dbPath, projectPath });

function commit(k: number): void {
  const revision = commitMarker(store, runId as string, k);
  const at = Date.now();
  process.stdout.write(`${JSON.stringify({ revision, k, at })}\n`);
}

serveStoreCommands(store, (command, [a, b]) => {
  if (command === 'burst') {
    const n = Number(a);
    const first = Number(b);
    for (let index = 0; index < n; index += 1) commit(first + index);
    process.stdout.write(`${JSON.stringify({ done: n })}\n`);
  } else if (command === 'one') {
    setTimeout(
      () => {
        commit(Number(a));
        process.stdout.write(`${JSON.stringify({ done: 1 })}\n`);
      },
      Number(b ?? 0),
    );
  }
});
