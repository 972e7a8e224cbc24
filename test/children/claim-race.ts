/**
 * Child process of test/store/claim-race.test.ts: opens its own WorkflowStore connection on
 * the shared database file, says `ready`, waits for `go` on stdin, then claims runs as fast
 * as it can and prints the run ids it won as one JSON line.
 *
 * argv: <database path> <project path> <runner id> <mode: next|byId> <ISO now>
 */
import { createInterface } from 'node:readline';
import { WorkflowStore } from '../../src/store/index.js';
import { storeInternals } from '../helpers/store-internals.js';

const [path, projectPath, runnerId, mode, now] = process.argv.slice(2) as [string, string, string, 'next' | 'byId', string];
const store = WorkflowStore.open({ path, projectPath, busyTimeoutMs: 30_000 });
const claimToken = `${runnerId}-token`;
const leaseMs = 3_600_000;

const lines = createInterface({ input: process.stdin });
process.stdout.write('ready\n');
for await (const line of lines) {
  if (line.trim() === 'go') break;
}
lines.close();

const claimed: string[] = [];
if (mode === 'next') {
  // A runner may re-claim its own live lease, so exclude what this runner already holds.
  for (;;) {
    const run = store.claimNextWorkflowRun({ runnerId, claimToken, leaseMs, now, excludeRunIds: claimed });
    if (run === undefined) break;
    claimed.push(run.runId);
  }
} else {
  const runIds = storeInternals(store)
    .database.all<{ run_id: string }>('SELECT run_id FROM runs ORDER BY run_id')
    .map((row) => row.run_id);
  // Each runner walks the runs in its own (seeded) order, so the two collide all along.
  let seed = [...runnerId].reduce((sum, char) => sum * 31 + char.charCodeAt(0), 7) >>> 0;
  for (let index = runIds.length - 1; index > 0; index -= 1) {
    seed = (seed * 1_103_515_245 + 12_345) >>> 0;
    const other = seed % (index + 1);
    [runIds[index], runIds[other]] = [runIds[other] as string, runIds[index] as string];
  }
  for (const runId of runIds) {
    if (store.claimWorkflowRun({ runId, runnerId, claimToken, leaseMs, now }) !== undefined) claimed.push(runId);
  }
}
store.close();
process.stdout.write(`${JSON.stringify({ runnerId, claimed })}\n`);
