/**
 * Workers: the same requests against the real CLI (`src/server/main.ts`) with `--workers 1` and
 * `--workers N` (N = the cores, `os.availableParallelism()`), each on a fresh database file, in
 * one run (docs/OPERATIONS.md "Workers"): requests per second over HTTP keep-alive for
 * `{ __typename }` and a flat run-list page (16 clients), reserve+claim (`reserveWorkflowRun`
 * with a claim) at 8 and 32 clients, and fan-out: 200 graphql-ws `workflowRunDeltas`
 * subscribers of one run, spread over the workers by the round-robin of their sockets, each
 * revision committed by another process (bench/harness/cross-process-writer.ts, as a workflow
 * host would) once the previous one reached everyone; latency = receipt − commit.
 *
 * Every figure at N workers has the same figure at 1 worker as its baseline; the ratio is the
 * scaling (rates: N ÷ 1, higher is better; latency: N ÷ 1, lower is better). Load client, writer
 * and subscribers run on the same machine, so on 2 cores the clients take part of the CPU the
 * workers would use.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import type { BenchContext } from './harness/bench-context.js';
import { sleep } from './harness/bench-context.js';
import { closedLoop, GraphQLHttpClient } from './harness/http-load.js';
import { REPO_ROOT, startChild, type Child } from './harness/ipc.js';
import { IntHistogram, type Figure } from './harness/stats.js';
import { RESERVE_MUTATION, reserveVariables, tempDir } from './harness/store-inputs.js';
import { DeliveryTracker, subscribeAll } from './harness/subscribers.js';

const BENCH = 'workers';
const TYPENAME = '{ __typename }';
const FLAT_PAGE = '{ workflowRuns(first: 100) { edges { node { runId } } } }';
/** Runs on the file before the flat page is read. */
const SEEDED_RUNS = 500;
/** Closed-loop clients of the read figures. */
const READ_CLIENTS = 16;
/** Subscribers of the fan-out figure and the client processes holding them. */
const FANOUT_SUBSCRIBERS = 200;
const FANOUT_PROCESSES = 2;
/** Least pause between two fan-out commits, ms. */
const COMMIT_INTERVAL_MS = 20;

/** The CLI under test. */
interface Cli {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** A TCP port free a moment ago. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Starts `main.ts --workers <workers>` and waits until `/health` lists every worker `ok`. */
async function startCli(dbPath: string, projectPath: string, workers: number): Promise<Cli> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/server/main.ts',
      '--db',
      dbPath,
      '--project',
      projectPath,
      '--port',
      String(port),
      '--workers',
      String(workers),
      '--log-level',
      'warn',
    ],
    // Its banner, warnings and errors show in the bench output.
    { cwd: REPO_ROOT, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode})`);
    try {
      const health = (await (await fetch(`${base}/health`)).json()) as { status: string; workers?: unknown[] };
      if (health.status === 'ok' && (workers === 1 || health.workers?.length === workers)) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('the server did not start within 120 s');
    await sleep(200);
  }
  return {
    url: `${base}/graphql`,
    child,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The figures of one worker count. */
interface Phase {
  typename: number;
  flatPage: number;
  reserve8: number;
  reserve32: number;
  fanout: { p50: number; p99: number; received: number; expected: number; errors: string[] };
}

/** Reserve+claim at `clients` clients for `durationMs`; every answer checked. */
async function reserveRate(url: string, clients: number, durationMs: number, prefix: string): Promise<number> {
  const client = new GraphQLHttpClient(url, clients);
  try {
    const result = await closedLoop({
      concurrency: clients,
      durationMs,
      send: async (index) => {
        const body = await client.postOk(RESERVE_MUTATION, reserveVariables(`${prefix}-${index}`, `${prefix}-session-${index}`, `${prefix}-token-${index}`));
        const typename = (body.data as { reserveWorkflowRun: { __typename: string } }).reserveWorkflowRun.__typename;
        if (typename !== 'ReserveWorkflowRunSuccess') throw new Error(`reserve answered ${JSON.stringify(body.data)}`);
      },
    });
    return result.rate;
  } finally {
    client.close();
  }
}

/** A read at `READ_CLIENTS` clients for `durationMs`. */
async function readRate(url: string, query: string, durationMs: number): Promise<number> {
  const client = new GraphQLHttpClient(url, READ_CLIENTS);
  try {
    const result = await closedLoop({ concurrency: READ_CLIENTS, durationMs, send: async () => void (await client.postOk(query)) });
    return result.rate;
  } finally {
    client.close();
  }
}

/** Waits until `/metrics` (every worker's, summed) counts `count` graphql-ws subscriptions streaming. */
async function untilLive(url: string, count: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await (await fetch(url.replace(/\/graphql$/, '/metrics'))).text();
    const live = Number(/^pi_workflows_live_subscriptions\{transport="graphql-ws"\} (\d+)$/m.exec(text)?.[1] ?? 0);
    if (live >= count) return;
    if (Date.now() > deadline) throw new Error(`only ${live} of ${count} subscriptions streaming after ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** Fan-out: subscribers over the workers, revisions committed by a writer process. */
async function fanout(url: string, dbPath: string, projectPath: string, revisions: number): Promise<Phase['fanout']> {
  const runId = 'fanout-run';
  const http = new GraphQLHttpClient(url, 1);
  await http.postOk(RESERVE_MUTATION, reserveVariables(runId, 'fanout-session', 'fanout-token'));
  http.close();
  const writer = await startChild('bench/harness/cross-process-writer.ts');
  const clients: Child[] = await Promise.all(Array.from({ length: FANOUT_PROCESSES }, () => startChild('bench/harness/fanout-client.ts')));
  try {
    await writer.call('open', { dbPath, projectPath });
    const head = await writer.call<{ revision: number }>('commit', { runId, index: -1 });
    await subscribeAll(clients, url, runId, FANOUT_SUBSCRIBERS, head.revision);
    // Live-only subscriptions: the first commit waits until every worker streams them all (the
    // whole server's /metrics), and a little more for their first read of the feed.
    await untilLive(url, FANOUT_SUBSCRIBERS, 120_000);
    await sleep(500);
    const tracker = new DeliveryTracker(clients);
    const commits: Record<number, number> = {};
    let previous: number | undefined;
    let lastCommitAt = 0;
    for (let index = 0; index < revisions; index += 1) {
      if (previous !== undefined && !(await tracker.waitAll(previous, 30_000))) break;
      const wait = lastCommitAt + COMMIT_INTERVAL_MS - performance.now();
      if (wait > 0) await sleep(wait);
      lastCommitAt = performance.now();
      const commit = await writer.call<{ revision: number; at: number }>('commit', { runId, index });
      commits[commit.revision] = commit.at;
      previous = commit.revision;
    }
    if (previous !== undefined) await tracker.waitAll(previous, 30_000);
    const latency = new IntHistogram();
    let received = 0;
    const errors: string[] = [];
    for (const client of clients) {
      const report = await client.call<{ histogram: number[]; received: number; errors: string[] }>('report', { commits });
      latency.merge(report.histogram);
      received += report.received;
      errors.push(...report.errors);
    }
    return { p50: latency.percentile(50), p99: latency.percentile(99), received, expected: FANOUT_SUBSCRIBERS * revisions, errors };
  } finally {
    await Promise.all(clients.map((client) => client.stop()));
    await writer.call('stop').catch(() => undefined);
  }
}

/** One worker count on a fresh file. */
async function phase(context: BenchContext, workers: number): Promise<Phase> {
  const temp = tempDir('bench-workers-');
  const dbPath = join(temp.dir, 'state.db');
  const durationMs = context.quick ? 1_500 : 5_000;
  const cli = await startCli(dbPath, temp.dir, workers);
  try {
    const label = `${workers} worker${workers === 1 ? '' : 's'}`;
    context.progress(`${BENCH}: ${label}: { __typename }, ${READ_CLIENTS} clients`);
    await readRate(cli.url, TYPENAME, 3_000); // warm-up (JIT) of every worker
    const typename = await readRate(cli.url, TYPENAME, durationMs);
    context.progress(`${BENCH}: ${label}: seeding ${SEEDED_RUNS} runs, then the flat page`);
    const seeder = new GraphQLHttpClient(cli.url, 8);
    await closedLoop({
      concurrency: 8,
      durationMs: 600_000,
      maxCount: SEEDED_RUNS,
      send: async (index) => void (await seeder.postOk(RESERVE_MUTATION, reserveVariables(`seed-${index}`, `seed-session-${index}`, `seed-token-${index}`))),
    });
    seeder.close();
    await readRate(cli.url, FLAT_PAGE, 2_000);
    const flatPage = await readRate(cli.url, FLAT_PAGE, durationMs);
    context.progress(`${BENCH}: ${label}: reserve+claim at 8 and 32 clients`);
    const reserve8 = await reserveRate(cli.url, 8, durationMs, 'c8');
    const reserve32 = await reserveRate(cli.url, 32, durationMs, 'c32');
    context.progress(`${BENCH}: ${label}: fan-out to ${FANOUT_SUBSCRIBERS} subscribers`);
    const fan = await fanout(cli.url, dbPath, temp.dir, context.quick ? 10 : 40);
    return { typename, flatPage, reserve8, reserve32, fanout: fan };
  } finally {
    await cli.stop();
    temp.remove();
  }
}

/** The workers benchmark: every figure at 1 and at N workers (module comment). */
export async function measureWorkers(context: BenchContext): Promise<Figure[]> {
  const cores = availableParallelism();
  const counts = cores > 1 ? [1, cores] : [1];
  const phases = new Map<number, Phase>();
  for (const workers of counts) phases.set(workers, await phase(context, workers));
  const one = phases.get(1) as Phase;
  const figures: Figure[] = [];
  const rates: Array<[string, (phase: Phase) => number]> = [
    [`{ __typename } c=${READ_CLIENTS}`, (each) => each.typename],
    [`flat page (first: 100) c=${READ_CLIENTS}`, (each) => each.flatPage],
    ['reserve+claim c=8', (each) => each.reserve8],
    ['reserve+claim c=32', (each) => each.reserve32],
  ];
  for (const [name, read] of rates) {
    for (const [workers, each] of phases) {
      const baseline = `${name}, 1 worker`;
      figures.push({
        bench: BENCH,
        name: `${name}, ${workers} worker${workers === 1 ? '' : 's'}`,
        unit: 'req/s',
        rate: read(each),
        ...(workers === 1 ? {} : { baseline, ratio: read(each) / read(one) }),
      });
    }
  }
  for (const [workers, each] of phases) {
    const fan = each.fanout;
    figures.push({
      bench: BENCH,
      name: `fan-out ${FANOUT_SUBSCRIBERS} subscribers: commit→receipt, ${workers} worker${workers === 1 ? '' : 's'}`,
      unit: 'ms',
      p50: fan.p50,
      p99: fan.p99,
      n: fan.received,
      ...(workers === 1 ? {} : { baseline: `fan-out ${FANOUT_SUBSCRIBERS} subscribers: commit→receipt, 1 worker`, ratio: fan.p50 / one.fanout.p50 }),
      note:
        `${fan.received} of ${fan.expected} deliveries` +
        (fan.errors.length === 0 ? '' : `; ${fan.errors.length} errors, first: ${fan.errors[0]}`) +
        '; commits by another process (data_version wake-up on every worker)',
    });
  }
  if (cores === 1) figures.push({ bench: BENCH, name: 'N workers', unit: '', note: 'one core: only --workers 1 measured' });
  return figures;
}
