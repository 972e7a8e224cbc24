/**
 * Benchmark `run-changes`: the run-list change feed, at the store's feed
 * (`ChangeFeed.followRunChanges`, no GraphQL, no socket: the transport's share is in `fanout`
 * and `cross-process`):
 *
 * - commit → change event, in-process: a live stream waits on the feed (as a subscriber does);
 *   this process records a viewer revision (its commit hook wakes the feed); latency from the
 *   commit's return to the event; 2–10 ms random gaps;
 * - commit → change event from another process: the writer child of the cross-process benchmark
 *   (`bench/harness/cross-process-writer.ts`, its own `WorkflowStore.open`) commits, stamping
 *   `Date.now()` after its commit, while the stream waits; this process's feed notices through
 *   `PRAGMA data_version` (poll 25 ms); commits 30–80 ms apart at random so they land at every
 *   phase of the timer;
 * - replay rate: events per second of a stream replaying every run from the oldest cursor.
 */
import { join } from 'node:path';
import { WorkflowStore } from '../src/store/index.js';
import { ChangeFeed, type RunChangeEvent } from '../src/delivery/index.js';
import { sleep, type BenchContext } from './harness/bench-context.js';
import { startChild } from './harness/ipc.js';
import { summarize, type Figure } from './harness/stats.js';
import { reservation, tempDir } from './harness/store-inputs.js';

const BENCH = 'run-changes';
const POLL_INTERVAL_MS = 25;

/** The next change event of `runId` (the only run that changes while it waits); resolves with its revision. */
async function nextChange(stream: AsyncIterator<RunChangeEvent>, runId: string): Promise<number> {
  for (;;) {
    const item = await stream.next();
    if (item.done === true) throw new Error('the change stream ended');
    const event = item.value;
    if (event.kind === 'change' && event.run.runId === runId) return event.run.presentationRevision;
  }
}

export async function measureRunChanges(context: BenchContext): Promise<Figure[]> {
  const commits = context.quick ? 40 : 300;
  const replayRuns = context.quick ? 2_000 : 20_000;
  const temp = tempDir('bench-run-changes-');
  const dbPath = join(temp.dir, 'state.db');
  const store = WorkflowStore.open({ path: dbPath, projectPath: temp.dir });
  const feed = new ChangeFeed(store, { pollIntervalMs: POLL_INTERVAL_MS });
  const writer = await startChild('bench/harness/cross-process-writer.ts');
  try {
    const runId = 'changes-run';
    store.reserveWorkflowRun(reservation(runId, 'session-changes'));
    const stream = feed.followRunChanges(undefined, null);

    context.progress(`${BENCH}: ${commits} in-process commits, each awaited as a change event`);
    const local: number[] = [];
    for (let index = 0; index < commits; index += 1) {
      const next = nextChange(stream, runId); // waiting on the feed before the commit, as a subscriber does
      await sleep(2 + Math.random() * 8);
      store.recordViewerDeltas(runId, [{ targetType: 'timeline', ops: [{ op: 'replace', path: '/i', value: index }] }]);
      const committed = performance.now();
      await next;
      local.push(performance.now() - committed);
    }

    context.progress(`${BENCH}: ${commits} commits by a writer process, poll ${POLL_INTERVAL_MS} ms`);
    await writer.call('open', { dbPath, projectPath: temp.dir });
    const remote: number[] = [];
    for (let index = 0; index < commits; index += 1) {
      const next = nextChange(stream, runId);
      await sleep(30 + Math.random() * 50);
      const { revision, at } = await writer.call<{ revision: number; at: number }>('commit', { runId, index });
      const seen = await next;
      if (seen < revision) throw new Error(`change event at revision ${seen}, committed ${revision}`);
      remote.push(Date.now() - at);
    }
    await stream.return?.();

    context.progress(`${BENCH}: replay of ${replayRuns} runs from the oldest cursor`);
    store.transaction(() => {
      for (let index = 0; index < replayRuns; index += 1) store.reserveWorkflowRun(reservation(`replay-${index}`, `session-replay-${index}`));
    });
    const { databaseId } = store.runChangeHead();
    const replay = feed.followRunChanges(undefined, Buffer.from(`v1:${databaseId}:0`).toString('base64url'));
    const started = performance.now();
    let replayed = 0;
    while (replayed < replayRuns + 1) {
      const item = await replay.next();
      if (item.done === true) break;
      replayed += 1;
    }
    const replayMs = performance.now() - started;
    await replay.return?.();

    const inProcess = summarize(local);
    const crossProcess = summarize(remote);
    return [
      {
        bench: BENCH,
        name: 'in-process commit→change event',
        unit: 'ms',
        p50: inProcess.p50,
        p99: inProcess.p99,
        n: inProcess.n,
        note: 'store feed, no transport',
      },
      {
        bench: BENCH,
        name: `cross-process commit→change event (poll ${POLL_INTERVAL_MS} ms)`,
        unit: 'ms',
        p50: crossProcess.p50,
        p99: crossProcess.p99,
        n: crossProcess.n,
        note: 'writer child stamps Date.now() after its commit; store feed, no transport',
      },
      {
        bench: BENCH,
        name: 'replay from the oldest cursor',
        unit: 'events/s',
        rate: (replayed * 1000) / replayMs,
        n: replayed,
        note: `${replayed} runs, one page of 64 per read`,
      },
    ];
  } finally {
    await writer.stop();
    feed.close();
    store.close();
    temp.remove();
  }
}
