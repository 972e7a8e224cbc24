/**
 * Benchmark `cross-process`, pickup of another process's commits: a writer process
 * (bench/harness/cross-process-writer.ts) opens the server's database file with
 * `WorkflowStore.open` and records viewer revisions while 4 subscribers (one client process, one
 * socket) wait on the server, which notices the commit through a change event of the `-wal` file
 * and a burst of `PRAGMA data_version` checks at most 25 ms apart (or polls every 25 ms where the
 * file cannot be watched). Latency = receipt `Date.now()` − the writer's stamp after its commit.
 *
 * Baseline: the same subscribers while the server process commits itself (the in-process
 * notifier, no polling). Commits are spaced 30–80 ms apart at random, so they land at every
 * phase of the poll timer, and each waits until the previous revision reached every
 * subscriber.
 *
 * Also the idle cost of the watcher: the server's `process.cpuUsage()` over a few seconds
 * with no subscriber (nothing watched) and with 1 waiting subscriber (the file watch and a 1 s
 * safety poll; it replaced 40 polls a second).
 */
import { join } from 'node:path';
import { sleep, type BenchContext } from './harness/bench-context.js';
import { DeliveryTracker, subscribeAll, waitForWaiters } from './harness/subscribers.js';
import { startChild, type Child } from './harness/ipc.js';
import { startServerProcess, type ServerProcess } from './harness/server-process.js';
import { IntHistogram, median, type Figure } from './harness/stats.js';
import { meets } from './targets.js';
import { tempDir } from './harness/store-inputs.js';

const BENCH = 'cross-process';
const SUBSCRIBERS = 4;
const POLL_INTERVAL_MS = 25;

interface Committer {
  commit(index: number): Promise<{ revision: number; at: number }>;
}

async function pacedCommits(committer: Committer, tracker: DeliveryTracker, count: number): Promise<{ commits: Record<number, number>; stalls: number }> {
  const commits: Record<number, number> = {};
  let stalls = 0;
  let previous: number | undefined;
  for (let index = 0; index < count; index += 1) {
    if (previous !== undefined && !(await tracker.waitAll(previous, 10_000))) stalls += 1;
    await sleep(30 + Math.random() * 50);
    const commit = await committer.commit(index);
    commits[commit.revision] = commit.at;
    previous = commit.revision;
  }
  if (previous !== undefined && !(await tracker.waitAll(previous, 10_000))) stalls += 1;
  return { commits, stalls };
}

async function latencies(
  client: Child,
  commits: Record<number, number>,
): Promise<{ histogram: IntHistogram; received: number; missing: number; problems: number }> {
  const report = await client.call<{ histogram: number[]; received: number; missing: number; outOfOrder: number; duplicates: number; errorCount: number }>(
    'report',
    { commits },
  );
  const histogram = new IntHistogram();
  histogram.merge(report.histogram);
  await client.call('reset');
  return { histogram, received: report.received, missing: report.missing, problems: report.outOfOrder + report.duplicates + report.errorCount };
}

/**
 * Server CPU ms per second of wall time: the median of 3 windows of `ms / 3`, after a full GC
 * (so leftover garbage from the phases before is not collected during the windows).
 */
async function idleCpu(server: ServerProcess, ms: number): Promise<number> {
  await server.child.call('memory');
  await sleep(300);
  const windows: number[] = [];
  for (let window = 0; window < 3; window += 1) {
    const usage = await server.child.call<{ userMs: number; systemMs: number; wallMs: number }>('cpu', { ms: ms / 3 });
    windows.push(((usage.userMs + usage.systemMs) * 1000) / usage.wallMs);
  }
  return median(windows);
}

export async function measureCrossProcess(context: BenchContext): Promise<Figure[]> {
  const commitsPerPhase = context.quick ? 25 : 200;
  const idleMs = context.quick ? 1_200 : 5_000;
  const temp = tempDir('bench-crossprocess-');
  const dbPath = join(temp.dir, 'state.db');
  const server = await startServerProcess({
    dbPath,
    projectPath: temp.dir,
    pollIntervalMs: POLL_INTERVAL_MS,
    ...(context.profileDir === undefined ? {} : { profileDir: context.profileDir, profileName: 'cross-process-server' }),
  });
  const children: Child[] = [];
  try {
    const runId = 'cross-run';
    const created = await server.child.call<{ revision: number }>('createRun', { runId });
    const writer = await startChild('bench/harness/cross-process-writer.ts');
    children.push(writer);
    await writer.call('open', { dbPath, projectPath: temp.dir });
    const client = await startChild('bench/harness/fanout-client.ts');
    children.push(client);
    await subscribeAll([client], server.url, runId, SUBSCRIBERS, created.revision);
    await waitForWaiters(server, SUBSCRIBERS, 30_000);
    const tracker = new DeliveryTracker([client]);

    context.progress(`${BENCH}: baseline: ${commitsPerPhase} commits by the server process itself, ${SUBSCRIBERS} subscribers`);
    const local = await pacedCommits({ commit: (index) => server.child.call('commit', { runId, index }) }, tracker, commitsPerPhase);
    const localLatency = await latencies(client, local.commits);

    context.progress(`${BENCH}: ${commitsPerPhase} commits by a writer process (own WorkflowStore.open), poll interval ${POLL_INTERVAL_MS} ms`);
    const remote = await pacedCommits({ commit: (index) => writer.call('commit', { runId, index }) }, tracker, commitsPerPhase);
    const remoteLatency = await latencies(client, remote.commits);

    context.progress(`${BENCH}: idle CPU of the server with 0 and with 1 waiting subscriber, ${idleMs} ms each`);
    await client.call('close');
    await client.stop();
    await waitForZeroWaiters(server);
    await sleep(200);
    const idleNone = await idleCpu(server, idleMs);
    const single = await startChild('bench/harness/fanout-client.ts');
    children.push(single);
    const head = await server.child.call<{ revision: number }>('createRun', { runId: 'idle-run' });
    await subscribeAll([single], server.url, 'idle-run', 1, head.revision);
    await waitForWaiters(server, 1, 30_000);
    await sleep(200);
    const idleOne = await idleCpu(server, idleMs);

    const base = { p50: localLatency.histogram.percentile(50), p99: localLatency.histogram.percentile(99) };
    const cross = { p50: remoteLatency.histogram.percentile(50), p99: remoteLatency.histogram.percentile(99) };
    return [
      {
        bench: BENCH,
        name: 'in-process commit→receipt',
        unit: 'ms',
        p50: base.p50,
        p99: base.p99,
        n: localLatency.received,
        note: `server commits itself; missing ${localLatency.missing}, order/duplicate/errors ${localLatency.problems}, stalls ${local.stalls}`,
      },
      meets(
        {
          bench: BENCH,
          name: `cross-process commit→receipt (-wal watch, poll ${POLL_INTERVAL_MS} ms)`,
          unit: 'ms',
          p50: cross.p50,
          p99: cross.p99,
          n: remoteLatency.received,
          baseline: 'in-process',
          ratio: cross.p50 / Math.max(1, base.p50),
          note: `writer process commits; missing ${remoteLatency.missing}, order/duplicate/errors ${remoteLatency.problems}, stalls ${remote.stalls}`,
        },
        'cross-process pickup p99',
        {
          baselineValue: base.p50,
          also: { ok: remoteLatency.missing === 0 && remoteLatency.problems === 0, why: 'revisions missing, out of order or duplicated' },
        },
      ),
      {
        bench: BENCH,
        name: 'idle CPU, no subscriber',
        unit: 'ms/s',
        value: idleNone,
        note: 'server process CPU (user + system) per second of wall time, median of 3 windows',
      },
      meets(
        {
          bench: BENCH,
          name: 'idle CPU, 1 waiting subscriber',
          unit: 'ms/s',
          value: idleOne,
          baseline: 'no subscriber',
          ratio: idleOne / Math.max(idleNone, 1e-3),
          note: `while someone waits the feed watches the -wal file (a data_version check burst after each change event, a 1 s safety poll); extra ${(idleOne - idleNone).toFixed(2)} ms CPU per second`,
        },
        'idle CPU while subscribers wait ms/s',
        { baselineValue: idleNone },
      ),
    ];
  } finally {
    await Promise.all(children.map((child) => child.stop()));
    await server.child.stop();
    temp.remove();
  }
}

async function waitForZeroWaiters(server: ServerProcess): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await server.child.call<number>('waiters')) > 0) {
    if (Date.now() > deadline) throw new Error('subscriptions did not end after their sockets closed');
    await sleep(50);
  }
}
