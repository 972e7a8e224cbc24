/**
 * Benchmark `live-queries`: `@live` queries over graphql-ws.
 *
 * 1. Push latency and server CPU per live-query update at 100 and 1,000 live queries of one run
 *    (`workflowRun(runId:) { id runId status queueStatus presentationRevision updatedAt }`),
 *    50 per WebSocket, held by 2 client processes (bench/harness/live-query-client.ts); the
 *    server runs alone in its own process at its default throttle (250 ms). The server commits
 *    one viewer revision on IPC command, at least 300 ms after the previous one (so the
 *    throttle never delays a push) and only once every live query showed the previous one. Latency = receipt
 *    `Date.now()` in the client − commit stamp (same clock). CPU per update = server CPU
 *    (user + system) over the commit phase ÷ live-query updates in it, re-executions plus results
 *    shared between equal live queries (the commits, the change-feed wake-ups and the sends
 *    included).
 * 2. What an idle live page costs the server: server CPU per second of wall time with no client,
 *    then with 1 and with 100 idle page sessions (one WebSocket each holding a live run list
 *    and a live run), nothing committed.
 */
import { join } from 'node:path';
import { sleep, type BenchContext } from './harness/bench-context.js';
import { DeliveryTracker } from './harness/subscribers.js';
import { callEvenly, startChild, type Child } from './harness/ipc.js';
import { startServerProcess, type ServerProcess } from './harness/server-process.js';
import { IntHistogram, type Figure } from './harness/stats.js';
import { tempDir } from './harness/store-inputs.js';

const BENCH = 'live-queries';
const PER_SOCKET = 50;
const CLIENT_PROCESSES = 2;
const THROTTLE_MS = 250;
const COMMIT_GAP_MS = THROTTLE_MS + 50;

interface LiveStats {
  active: number;
  executions: number;
  shared: number;
  pushes: number;
  trackedIdentifiers: number;
}

/** Starts `count` live queries of `runId` over `clients`, evenly. */
async function subscribeAll(clients: readonly Child[], url: string, runId: string, count: number, list = false): Promise<void> {
  await callEvenly(clients, count, 'subscribe', (mine, index) => ({ url, runId, count: mine, perSocket: list ? 1 : PER_SOCKET, prefix: `c${index}q`, list }));
}

async function waitForActive(server: ServerProcess, count: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const stats = await server.child.call<LiveStats>('liveStats');
    if (stats.active >= count) return;
    if (Date.now() > deadline) throw new Error(`only ${stats.active} of ${count} live queries started within ${timeoutMs} ms`);
    await sleep(50);
  }
}

interface PushResult {
  latency: IntHistogram;
  missing: number;
  errors: string[];
  /** Server CPU ÷ live-query updates (re-executions + shared results), µs. */
  cpuPerUpdateUs: number;
  executions: number;
  shared: number;
  revisions: number;
}

async function pushPhase(context: BenchContext, liveQueries: number, revisions: number): Promise<PushResult> {
  const temp = tempDir('bench-live-');
  const server = await startServerProcess({ dbPath: join(temp.dir, 'state.db'), projectPath: temp.dir, liveThrottleMs: THROTTLE_MS });
  const clients = await Promise.all(Array.from({ length: Math.min(CLIENT_PROCESSES, liveQueries) }, () => startChild('bench/harness/live-query-client.ts')));
  try {
    const runId = 'live-run';
    const created = await server.child.call<{ revision: number }>('createRun', { runId });
    const tracker = new DeliveryTracker(clients);
    context.progress(`${BENCH}: ${liveQueries} live queries: starting them`);
    await subscribeAll(clients, server.url, runId, liveQueries);
    await waitForActive(server, liveQueries, 120_000);
    if (!(await tracker.waitAll(created.revision, 120_000))) throw new Error('the initial results did not all arrive');

    context.progress(
      `${BENCH}: ${liveQueries} live queries: ${revisions} commits (≥ ${COMMIT_GAP_MS} ms apart, each once every query showed the previous one)`,
    );
    const commits: Record<number, number> = {};
    const before = await server.child.call<LiveStats>('liveStats');
    const cpuBefore = await server.child.call<number>('cpuNow');
    let previous: number | undefined;
    let lastCommitAt = 0;
    for (let index = 0; index < revisions; index += 1) {
      if (previous !== undefined && !(await tracker.waitAll(previous, 60_000))) break;
      const wait = lastCommitAt + COMMIT_GAP_MS - performance.now();
      if (wait > 0) await sleep(wait);
      lastCommitAt = performance.now();
      const commit = await server.child.call<{ revision: number; at: number }>('commit', { runId, index });
      commits[commit.revision] = commit.at;
      previous = commit.revision;
    }
    if (previous !== undefined) await tracker.waitAll(previous, 60_000);
    const cpuUs = (await server.child.call<number>('cpuNow')) - cpuBefore;
    const after = await server.child.call<LiveStats>('liveStats');
    const latency = new IntHistogram();
    let missing = 0;
    const errors: string[] = [];
    for (const client of clients) {
      const report = await client.call<{ histogram: number[]; missing: number; errors: string[] }>('report', { commits });
      latency.merge(report.histogram);
      missing += report.missing;
      errors.push(...report.errors);
    }
    const executions = after.executions - before.executions;
    const shared = after.shared - before.shared;
    return { latency, missing, errors, executions, shared, revisions: Object.keys(commits).length, cpuPerUpdateUs: cpuUs / Math.max(1, executions + shared) };
  } finally {
    await Promise.all(clients.map((client) => client.stop()));
    await server.child.stop();
    temp.remove();
  }
}

/** Server CPU per second (µs/s) with no client, and with 1 and 100 idle live pages. */
async function idlePhase(context: BenchContext, seconds: number): Promise<Array<{ pages: number; cpuUsPerSecond: number }>> {
  const temp = tempDir('bench-live-idle-');
  const server = await startServerProcess({ dbPath: join(temp.dir, 'state.db'), projectPath: temp.dir });
  const clients: Child[] = [];
  const measure = async (): Promise<number> => {
    const used = await server.child.call<{ userMs: number; systemMs: number; wallMs: number }>('cpu', { ms: seconds * 1000 });
    return ((used.userMs + used.systemMs) * 1000) / (used.wallMs / 1000);
  };
  try {
    await server.child.call('createRun', { runId: 'idle-run' });
    const results: Array<{ pages: number; cpuUsPerSecond: number }> = [];
    context.progress(`${BENCH}: idle: no client, ${seconds} s`);
    results.push({ pages: 0, cpuUsPerSecond: await measure() });
    let open = 0;
    for (const pages of [1, 100]) {
      const client = await startChild('bench/harness/live-query-client.ts');
      clients.push(client);
      await subscribeAll([client], server.url, 'idle-run', pages - open, true);
      open = pages;
      await waitForActive(server, pages * 2, 60_000);
      await sleep(500); // initial results sent
      context.progress(`${BENCH}: idle: ${pages} live page(s), ${seconds} s`);
      results.push({ pages, cpuUsPerSecond: await measure() });
    }
    return results;
  } finally {
    await Promise.all(clients.map((client) => client.stop()));
    await server.child.stop();
    temp.remove();
  }
}

export async function measureLiveQueries(context: BenchContext): Promise<Figure[]> {
  const figures: Figure[] = [];
  const revisions = context.quick ? 10 : 40;
  for (const count of [100, 1_000]) {
    const result = await pushPhase(context, count, revisions);
    const label = `${count.toLocaleString('en-US')} live queries`;
    const note =
      result.missing === 0 && result.errors.length === 0
        ? `${result.revisions} commits, ${result.executions} re-executions, ${result.shared} shared results`
        : `${result.missing} pushes missing, errors: ${result.errors.slice(0, 2).join('; ')}`;
    figures.push(
      {
        bench: BENCH,
        name: `push latency, ${label}`,
        unit: 'ms',
        p50: result.latency.percentile(50),
        p99: result.latency.percentile(99),
        n: result.latency.total,
        note,
      },
      {
        bench: BENCH,
        name: `server CPU per live-query update, ${label}`,
        unit: 'µs',
        value: result.cpuPerUpdateUs,
        n: result.executions + result.shared,
        note: 'commit phase CPU ÷ (re-executions + shared results); equal live queries execute once per change',
      },
    );
  }
  const idle = await idlePhase(context, context.quick ? 2 : 5);
  const baseline = idle[0]?.cpuUsPerSecond ?? 0;
  for (const { pages, cpuUsPerSecond } of idle) {
    figures.push({
      bench: BENCH,
      name: pages === 0 ? 'server CPU idle, no client' : `server CPU idle, ${pages} live page${pages === 1 ? '' : 's'}`,
      unit: 'µs/s',
      value: cpuUsPerSecond,
      ...(pages === 0
        ? {}
        : { note: `${((cpuUsPerSecond - baseline) / pages).toFixed(0)} µs/s per page over no client (a page: a live run list + a live run)` }),
    });
  }
  return figures;
}
