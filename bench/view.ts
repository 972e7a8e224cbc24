/**
 * Benchmark `view`: a run's view (`WorkflowRun.view`, store `src/store/run-view/`) and following it
 * (`workflowRunView`, docs/PROTOCOL.md "Following a run's view"), on a pi-workflows state file
 * whose runs were written in pi-workflows' engine's way (bench/harness/view-runs.ts): a big run of
 * 10,000 trace events, 10,000 session entries and 10,000 session events, and a small one of 100
 * of each (both with 5 steps), in the same file and served by the same server process.
 *
 * 1. Opening a view over HTTP: the typed client's `WorkflowRunView` query
 *    (`WorkflowRunViewDocument`, schema/generated/graphql.ts: the newest page of steps, trace and
 *    session entries) with the newest page of session events added, on the big run against the
 *    small one, requests alternating on one keep-alive connection. For context the same read
 *    straight on the store in this process (`readRunViewNewest`, what a follower's reset reads).
 * 2. A commit by another process → the typed change delivered: an engine process
 *    (bench/harness/view-writer.ts, its own `EngineRowWriter`) appends a trace event or a session
 *    entry, alternately, to the big and the small run (interleaved, 20–50 ms apart, each after
 *    the previous one was delivered); a graphql-ws subscriber of each run
 *    (bench/harness/view-client.ts) receives the `WorkflowRunViewChanged`. Latency = receipt −
 *    the writer's stamp after its commit (`performance.timeOrigin + now()`, both processes).
 *    Baseline: the same on the small run.
 * 3. Server CPU per subscriber and revision: 1,000 graphql-ws subscribers of the small run (2
 *    client processes, 100 per socket), revisions committed by the engine process (a trace event
 *    each, ≥ 20 ms apart, each after every subscriber got the previous one): server
 *    `process.cpuUsage()` over the commits ÷ (subscribers × revisions). Baseline: 1 subscriber.
 */
import { join } from 'node:path';
import { WorkflowRunViewDocument } from '../schema/generated/graphql.js';
import { WorkflowStore } from '../src/store/index.js';
import { sleep, type BenchContext } from './harness/bench-context.js';
import { GraphQLHttpClient } from './harness/http-load.js';
import { callEvenly, startChild, type Child } from './harness/ipc.js';
import { startServerProcess, type ServerProcess } from './harness/server-process.js';
import { IntHistogram, summarize, type Figure } from './harness/stats.js';
import { tempDir } from './harness/store-inputs.js';
import { PER_SOCKET, waitForWaiters } from './harness/subscribers.js';
import { buildViewRuns, type ViewRunSpec } from './harness/view-runs.js';
import { meets } from './targets.js';

const BENCH = 'view';
const BIG: ViewRunSpec = { runId: 'view-big', trace: 10_000, entries: 10_000, events: 10_000 };
const SMALL: ViewRunSpec = { runId: 'view-small', trace: 100, entries: 100, events: 100 };
const FANOUT_SUBSCRIBERS = 1_000;
const FANOUT_CLIENTS = 2;
const CLIENT = 'bench/harness/view-client.ts';
/** The view-client's latency buckets per ms. */
const BUCKETS_PER_MS = 10;

/** The typed client's view query with the newest page of session events added (the fourth list). */
export const VIEW_QUERY = (() => {
  const text = WorkflowRunViewDocument.toString()
    .replace('$entries: Int = 50)', '$entries: Int = 50, $events: Int = 50)')
    .replace(
      /captureStatus\n/,
      'captureStatus\n        events(last: $events) { totalCount pageInfo { hasPreviousPage startCursor } edges { node { seq at type nodeId attemptId turnId messageId toolCallId } } }\n',
    );
  if (!text.includes('events(last: $events)') || !text.includes('$events: Int'))
    throw new Error('WorkflowRunViewDocument changed: cannot add the session events page');
  return text;
})();

interface ViewAnswer {
  workflowRun: {
    view: {
      revision: number;
      steps: { totalCount: number };
      trace: { totalCount: number; edges: unknown[] };
      session: { entries: { totalCount: number; edges: unknown[] }; events: { totalCount: number; edges: unknown[] } };
    };
  };
}

/** Checks a view answer holds the run's lists and their newest pages. */
function checkAnswer(body: unknown, spec: ViewRunSpec): void {
  const view = (body as { data: ViewAnswer }).data.workflowRun.view;
  const [trace, entries, events] = [view.trace.totalCount, view.session.entries.totalCount, view.session.events.totalCount];
  if (trace < spec.trace || entries < spec.entries || events < spec.events) throw new Error(`${spec.runId}: view has ${trace}/${entries}/${events} items`);
  if (view.trace.edges.length !== 50 || view.session.entries.edges.length !== 50 || view.session.events.edges.length !== 50) {
    throw new Error(`${spec.runId}: pages of ${view.trace.edges.length}/${view.session.entries.edges.length}/${view.session.events.edges.length} items`);
  }
}

/** `readRunViewNewest` on the store in this process, runs alternating: ms per read. */
function storeReads(path: string, projectPath: string, rounds: number): Record<string, number[]> {
  const store = WorkflowStore.open({ path, projectPath, readOnly: true });
  const samples: Record<string, number[]> = { [BIG.runId]: [], [SMALL.runId]: [] };
  try {
    for (let round = -5; round < rounds; round += 1) {
      for (const spec of [SMALL, BIG]) {
        const started = performance.now();
        if (store.readRunViewNewest(spec.runId) === null) throw new Error(`no view of ${spec.runId}`);
        if (round >= 0) samples[spec.runId]?.push(performance.now() - started);
      }
    }
  } finally {
    store.close();
  }
  return samples;
}

/** Per client process and run, the revision every subscription of the process reached (`got` events). */
class Reached {
  private readonly reached = new Map<string, number>();
  private wake: (() => void) | undefined;

  constructor(private readonly clients: readonly Child[]) {
    clients.forEach((client, index) =>
      client.on('got', (message) => {
        const key = `${index}|${String(message.runId)}`;
        this.reached.set(key, Math.max(this.reached.get(key) ?? 0, Number(message.revision)));
        this.wake?.();
      }),
    );
  }

  private all(runId: string, revision: number, clients: readonly number[]): boolean {
    return clients.every((index) => (this.reached.get(`${index}|${runId}`) ?? 0) >= revision);
  }

  /** Resolves true once the given clients' subscriptions of `runId` reached `revision`, false after `timeoutMs`. */
  async wait(runId: string, revision: number, timeoutMs: number, clients = this.clients.map((_, index) => index)): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.all(runId, revision, clients)) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, Math.min(left, 100));
      });
      this.wake = undefined;
    }
    return true;
  }
}

interface ClientReport {
  histogram: number[];
  received: number;
  missing: number;
  gaps: number;
  extraResets: number;
  traceItems: number;
  entryItems: number;
  errors: string[];
}

/** Merged latencies (ms) of `runId`'s subscriptions over `clients`. */
async function report(
  clients: readonly Child[],
  runId: string,
  commits: Array<[number, number]>,
): Promise<{ p50: number; p99: number; problems: string; received: number; ok: boolean }> {
  const histogram = new IntHistogram(600_001);
  let received = 0;
  let missing = 0;
  let gaps = 0;
  let extraResets = 0;
  const errors: string[] = [];
  for (const client of clients) {
    const result = await client.call<ClientReport>('report', { runId, commits });
    histogram.merge(result.histogram);
    received += result.received;
    missing += result.missing;
    gaps += result.gaps;
    extraResets += result.extraResets;
    errors.push(...result.errors);
  }
  return {
    p50: histogram.percentile(50) / BUCKETS_PER_MS,
    p99: histogram.percentile(99) / BUCKETS_PER_MS,
    received,
    problems: `missing ${missing}, gaps ${gaps}, extra resets ${extraResets}, errors ${errors.length}${errors.length > 0 ? ` (${errors[0] as string})` : ''}`,
    ok: missing === 0 && gaps === 0 && extraResets === 0 && errors.length === 0,
  };
}

/** Subscribes `count` times to `runId` over `clients` and waits until every reset arrived and every subscription waits. */
async function subscribe(server: ServerProcess, clients: readonly Child[], runId: string, count: number, waitersBefore: number): Promise<void> {
  await callEvenly(clients, count, 'subscribe', (mine, index) => ({
    url: server.url,
    runId,
    count: mine,
    perSocket: PER_SOCKET,
    prefix: `${runId}-${index}-`,
  }));
  const deadline = Date.now() + 120_000;
  for (;;) {
    const resets = (await Promise.all(clients.map((client) => client.call<number>('resets')))).reduce((sum, value) => sum + value, 0);
    if (resets >= count) break;
    if (Date.now() > deadline) throw new Error(`only ${resets} of ${count} subscriptions got their view`);
    await sleep(50);
  }
  await waitForWaiters(server, waitersBefore + count, 60_000);
}

async function closeClients(server: ServerProcess, clients: readonly Child[]): Promise<void> {
  await Promise.all(clients.map((client) => client.call('close')));
  await Promise.all(clients.map((client) => client.stop()));
  const deadline = Date.now() + 10_000;
  while ((await server.child.call<number>('waiters')) > 0 && Date.now() < deadline) await sleep(50);
}

/** `revisions` trace events on `runId` by the engine process, ≥ 20 ms apart, each after every subscriber got the previous one; server CPU µs over them. */
async function pacedRevisions(
  server: ServerProcess,
  writer: Child,
  reached: Reached,
  runId: string,
  revisions: number,
  first: number,
): Promise<{ cpuUs: number; commits: Array<[number, number]>; stalls: number; wallMs: number }> {
  const commits: Array<[number, number]> = [];
  let stalls = 0;
  let lastAt = 0;
  const started = performance.now();
  const cpuBefore = await server.child.call<number>('cpuNow');
  for (let index = 0; index < revisions; index += 1) {
    const wait = lastAt + 20 - performance.now();
    if (wait > 0) await sleep(wait);
    lastAt = performance.now();
    const commit = await writer.call<{ revision: number; at: number }>('trace', { runId, index: first + index });
    commits.push([commit.revision, commit.at]);
    if (!(await reached.wait(runId, commit.revision, 60_000))) {
      stalls += 1;
      if (stalls >= 3) break;
    }
  }
  const cpuUs = (await server.child.call<number>('cpuNow')) - cpuBefore;
  return { cpuUs, commits, stalls, wallMs: performance.now() - started };
}

export async function measureView(context: BenchContext): Promise<Figure[]> {
  const requests = context.quick ? 40 : 200;
  const commitRounds = context.quick ? 40 : 240;
  const revisions = context.quick ? 10 : 50;
  const temp = tempDir('bench-view-');
  const dbPath = join(temp.dir, 'state.sqlite');
  const figures: Figure[] = [];
  const children: Child[] = [];
  let server: ServerProcess | undefined;
  let http: GraphQLHttpClient | undefined;
  try {
    context.progress(`${BENCH}: writing the runs (pi-workflows file, engine rows)`);
    const setupStarted = performance.now();
    buildViewRuns(dbPath, temp.dir, [BIG, SMALL], (text) => context.progress(`${BENCH}: ${text}`));
    figures.push({ bench: BENCH, name: 'setup: both runs written', unit: 'ms', value: performance.now() - setupStarted });

    context.progress(`${BENCH}: readRunViewNewest on the store in this process`);
    const reads = storeReads(dbPath, temp.dir, context.quick ? 20 : 50);
    const storeSmall = summarize(reads[SMALL.runId] as number[]);
    const storeBig = summarize(reads[BIG.runId] as number[]);
    figures.push(
      {
        bench: BENCH,
        name: 'store readRunViewNewest, 100 each',
        unit: 'ms',
        p50: storeSmall.p50,
        p99: storeSmall.p99,
        n: storeSmall.n,
        note: 'in the bench process, no server',
      },
      {
        bench: BENCH,
        name: 'store readRunViewNewest, 10,000 each',
        unit: 'ms',
        p50: storeBig.p50,
        p99: storeBig.p99,
        n: storeBig.n,
        baseline: '100 each',
        ratio: storeBig.p50 / storeSmall.p50,
        note: 'what a follower’s reset reads (every list’s newest page and positions)',
      },
    );

    server = await startServerProcess({
      dbPath,
      projectPath: temp.dir,
      ...(context.profileDir === undefined ? {} : { profileDir: context.profileDir, profileName: 'view-server' }),
    });

    // 1. Opening a view over HTTP.
    context.progress(`${BENCH}: opening a view over HTTP: ${requests} requests per run, alternating`);
    http = new GraphQLHttpClient(server.url, 1);
    const latencies: Record<string, number[]> = { [BIG.runId]: [], [SMALL.runId]: [] };
    for (let round = -10; round < requests; round += 1) {
      for (const spec of round % 2 === 0 ? [SMALL, BIG] : [BIG, SMALL]) {
        const started = performance.now();
        const body = await http.postOk(VIEW_QUERY, { runId: spec.runId });
        const ms = performance.now() - started;
        if (round < 0) checkAnswer(body, spec);
        else latencies[spec.runId]?.push(ms);
      }
    }
    http.close();
    http = undefined;
    const small = summarize(latencies[SMALL.runId] as number[]);
    const big = summarize(latencies[BIG.runId] as number[]);
    figures.push(
      {
        bench: BENCH,
        name: 'open view over HTTP, 100 each',
        unit: 'ms',
        p50: small.p50,
        p99: small.p99,
        n: small.n,
        note: 'WorkflowRunViewDocument + session events page, 50 per list',
      },
      meets(
        {
          bench: BENCH,
          name: 'open view over HTTP, 10,000 each',
          unit: 'ms',
          p50: big.p50,
          p99: big.p99,
          n: big.n,
          baseline: '100 each',
          ratio: big.p50 / small.p50,
          note: '10,000 trace events, session entries and session events; 5 steps; ratio of medians',
        },
        'run view open 10,000 ÷ 100',
        { baselineValue: small.p50 },
      ),
    );

    // 2. Commits by another process → the typed change delivered.
    const writer = await startChild('bench/harness/view-writer.ts');
    children.push(writer);
    await writer.call('open', { dbPath });
    const follower = await startChild(CLIENT);
    children.push(follower);
    await subscribe(server, [follower], BIG.runId, 1, 0);
    await subscribe(server, [follower], SMALL.runId, 1, 1);
    const reached = new Reached([follower]);
    context.progress(`${BENCH}: ${commitRounds} commits per run by the engine process (trace event / session entry alternately), 1 subscriber each`);
    const commits: Record<string, Array<[number, number]>> = { [BIG.runId]: [], [SMALL.runId]: [] };
    const writeMs: Record<string, number[]> = { [BIG.runId]: [], [SMALL.runId]: [] };
    let stalls = 0;
    for (let index = 0; index < commitRounds; index += 1) {
      for (const spec of index % 2 === 0 ? [SMALL, BIG] : [BIG, SMALL]) {
        await sleep(20 + Math.random() * 30);
        const commit = await writer.call<{ revision: number; at: number; ms: number }>(index % 2 === 0 ? 'trace' : 'entry', { runId: spec.runId, index });
        commits[spec.runId]?.push([commit.revision, commit.at]);
        writeMs[spec.runId]?.push(commit.ms);
        if (!(await reached.wait(spec.runId, commit.revision, 10_000))) stalls += 1;
      }
      if ((index + 1) % Math.max(1, Math.round(commitRounds / 4)) === 0) context.progress(`${BENCH}: … ${index + 1}/${commitRounds} rounds`);
    }
    const followSmall = await report([follower], SMALL.runId, commits[SMALL.runId] as Array<[number, number]>);
    const followBig = await report([follower], BIG.runId, commits[BIG.runId] as Array<[number, number]>);
    const writeSmall = summarize(writeMs[SMALL.runId] as number[]);
    const writeBig = summarize(writeMs[BIG.runId] as number[]);
    figures.push(
      {
        bench: BENCH,
        name: 'engine commit→WorkflowRunViewChanged, 100 each',
        unit: 'ms',
        p50: followSmall.p50,
        p99: followSmall.p99,
        n: followSmall.received,
        note: `${followSmall.problems}; the engine's write itself ${writeSmall.p50.toFixed(1)} ms p50 (not counted)`,
      },
      meets(
        {
          bench: BENCH,
          name: 'engine commit→WorkflowRunViewChanged, 10,000 each',
          unit: 'ms',
          p50: followBig.p50,
          p99: followBig.p99,
          n: followBig.received,
          baseline: '100 each',
          ratio: followBig.p50 / followSmall.p50,
          note: `${followBig.problems}, stalls ${stalls}; the engine's write itself ${writeBig.p50.toFixed(1)} ms p50, ${writeBig.p99.toFixed(1)} ms p99 (EngineRowWriter re-reads the view; not counted)`,
        },
        'run view change p99',
        { baselineValue: followSmall.p50, also: { ok: followBig.ok && followSmall.ok && stalls === 0, why: 'changes missing, out of order or repeated' } },
      ),
    );
    await closeClients(server, [follower]);

    // 3. Server CPU per subscriber and revision.
    context.progress(`${BENCH}: server CPU: 1 subscriber, ${revisions} revisions`);
    const single = await startChild(CLIENT);
    children.push(single);
    await subscribe(server, [single], SMALL.runId, 1, 0);
    const one = await pacedRevisions(server, writer, new Reached([single]), SMALL.runId, revisions, 0);
    await closeClients(server, [single]);

    context.progress(`${BENCH}: server CPU: ${FANOUT_SUBSCRIBERS} subscribers (${FANOUT_CLIENTS} processes, ${PER_SOCKET} per socket), ${revisions} revisions`);
    const clients = await Promise.all(Array.from({ length: FANOUT_CLIENTS }, () => startChild(CLIENT)));
    children.push(...clients);
    await subscribe(server, clients, SMALL.runId, FANOUT_SUBSCRIBERS, 0);
    const many = await pacedRevisions(server, writer, new Reached(clients), SMALL.runId, revisions, revisions);
    const manyLatency = await report(clients, SMALL.runId, many.commits);
    const oneCpu = one.cpuUs / one.commits.length;
    const manyCpu = many.cpuUs / many.commits.length;
    figures.push(
      {
        bench: BENCH,
        name: '1 subscriber: server CPU per revision',
        unit: 'µs',
        value: oneCpu,
        n: one.commits.length,
        note: 'wake-up, one read of the changes, one delivery',
      },
      meets(
        {
          bench: BENCH,
          name: `${FANOUT_SUBSCRIBERS.toLocaleString('en-US')} subscribers: server CPU per subscriber and revision`,
          unit: 'µs',
          value: manyCpu / FANOUT_SUBSCRIBERS,
          n: many.commits.length,
          baseline: '1 sub (CPU per revision)',
          ratio: manyCpu / oneCpu,
          note: `server process.cpuUsage() over the commits ÷ (subscribers × revisions); ${(manyCpu / 1000).toFixed(1)} ms CPU per revision; marginal ${((manyCpu - oneCpu) / (FANOUT_SUBSCRIBERS - 1)).toFixed(1)} µs per added subscriber`,
        },
        'run view CPU per subscriber and revision µs',
        { baselineValue: oneCpu, also: { ok: manyLatency.ok && many.stalls === 0, why: 'changes missing, out of order or repeated' } },
      ),
      {
        bench: BENCH,
        name: `${FANOUT_SUBSCRIBERS.toLocaleString('en-US')} subscribers: engine commit→receipt`,
        unit: 'ms',
        p50: manyLatency.p50,
        p99: manyLatency.p99,
        n: manyLatency.received,
        note: `${manyLatency.problems}, stalls ${many.stalls}; ${(many.wallMs / many.commits.length).toFixed(0)} ms per revision`,
      },
    );
    return figures;
  } finally {
    http?.close();
    await Promise.all(children.map((child) => child.stop()));
    await server?.child.stop();
    temp.remove();
  }
}
