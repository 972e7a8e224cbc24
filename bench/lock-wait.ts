/**
 * Benchmark `lock-wait`: writes waiting for SQLite's write lock:
 *
 * 1. Event-loop delay of a server (`perf_hooks.monitorEventLoopDelay` in the server process)
 *    while another process (bench/harness/lock-holder.ts) holds the write lock for 2 s, with
 *    queries (`workflowRuns(first: 10)`, 4 clients) and writes (`reserveWorkflowRun`, 2 clients)
 *    flowing; baseline: the same window and load without the lock. Also the queries' p99 in
 *    both windows (queries keep flowing; only writes wait).
 * 2. Two server processes on one file racing `claimWorkflowRun` (claim the next run) with 16
 *    HTTP clients each over the same number of queued headless runs, against one server
 *    process with 32 clients on a file of its own: claims per second and the claim p99, both
 *    counted after {@link WARMUP_CLAIMS} warm-up claims.
 *    Every run is claimed exactly once (checked).
 */
import { join } from 'node:path';
import { sleep, type BenchContext } from './harness/bench-context.js';
import { GraphQLHttpClient } from './harness/http-load.js';
import { startChild, type Child } from './harness/ipc.js';
import { startServerProcess, type ServerProcess } from './harness/server-process.js';
import { summarize, type Figure } from './harness/stats.js';
import { RESERVE_MUTATION, reservation, reserveVariables, tempDir } from './harness/store-inputs.js';
import { meets } from './targets.js';
import { WorkflowStore } from '../src/store/index.js';

const BENCH = 'lock-wait';
const HOLD_MS = 2_000;

const QUERY = '{ workflowRuns(first: 10) { edges { node { id runId status } } } }';
const CLAIM_MUTATION = `mutation Claim($input: ClaimWorkflowRunInput!) {
  claimWorkflowRun(input: $input) {
    __typename
    ... on ClaimWorkflowRunSuccess { run { id runId } }
    ... on Error { code message }
  }
}`;

interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
  count: number;
}

/**
 * Runs `clients` loops of `send` until `until()` says stop; returns each request's latency (ms),
 * only of the requests started when `keep(started)` (a `performance.now()` value) says so (all
 * when absent).
 */
async function loops(clients: number, until: () => boolean, send: () => Promise<void>, keep: (started: number) => boolean = () => true): Promise<number[]> {
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (!until()) {
        const started = performance.now();
        await send();
        if (keep(started)) latencies.push(performance.now() - started);
      }
    }),
  );
  return latencies;
}

/**
 * Claims of a race that warm its servers up (JIT, statement caches, SQLite's page cache) before
 * anything is measured: the race's rate, latencies and p99 count only requests started after
 * this many claims were answered, in the one-process and the two-process race alike.
 */
const WARMUP_CLAIMS = 200;

async function loopDelayWindow(
  server: ServerProcess,
  client: GraphQLHttpClient,
  holder: Child | undefined,
  dbPath: string,
  sequence: { next: number },
): Promise<{ delay: LoopDelay; queries: number[]; writes: number[]; lockedAt?: number }> {
  const windowMs = HOLD_MS + 800;
  const delayPromise = server.child.call<LoopDelay>('loopDelay', { ms: windowMs });
  await sleep(200);
  let lockedAt: number | undefined;
  let released: Promise<unknown> = Promise.resolve();
  if (holder !== undefined) {
    released = holder.once('released', 30_000);
    lockedAt = (await holder.call<{ lockedAt: number }>('hold', { dbPath, ms: HOLD_MS })).lockedAt;
  }
  const stopAt = performance.now() + HOLD_MS + 300;
  const until = (): boolean => performance.now() >= stopAt;
  const [queries, writes] = await Promise.all([
    loops(4, until, async () => {
      const body = await client.postOk(QUERY);
      if ((body.data as { workflowRuns?: unknown }).workflowRuns === undefined) throw new Error('no workflowRuns');
    }),
    loops(2, until, async () => {
      sequence.next += 1;
      const id = `lock-${sequence.next}`;
      const body = await client.postOk(RESERVE_MUTATION, reserveVariables(id, `${id}-session`, `${id}-token`));
      const result = (body.data as { reserveWorkflowRun: { __typename: string } }).reserveWorkflowRun;
      if (result.__typename !== 'ReserveWorkflowRunSuccess') throw new Error(`reserve answered ${JSON.stringify(result)}`);
    }),
  ]);
  const delay = await delayPromise;
  await released;
  return { delay, queries, writes, ...(lockedAt === undefined ? {} : { lockedAt }) };
}

/** Reserves `count` headless runs (queued, claimable by anyone) straight into `dbPath`. */
function seedQueuedRuns(dbPath: string, projectPath: string, count: number): void {
  const store = WorkflowStore.open({ path: dbPath, projectPath });
  try {
    store.transaction(() => {
      for (let index = 0; index < count; index += 1) {
        const runId = `queued-${String(index).padStart(6, '0')}`;
        store.reserveWorkflowRun(reservation(runId, `session-${runId}`, { executionMode: 'headless' }));
      }
    });
  } finally {
    store.close();
  }
}

/**
 * Every client of every server claims the next run until none is left. The first
 * {@link WARMUP_CLAIMS} answers warm the servers up: `claims`, `ms` and `latencies` cover the
 * requests started after them (`claimed` counts every run, to check each was claimed once).
 */
async function raceClaims(
  urls: readonly string[],
  clientsPerServer: number,
): Promise<{ claims: number; ms: number; latencies: number[]; duplicates: number; claimed: number }> {
  const httpClients = urls.map((url) => new GraphQLHttpClient(url, clientsPerServer));
  const claimed = new Set<string>();
  let duplicates = 0;
  let tokens = 0;
  let answered = 0;
  let measuredFrom = Number.POSITIVE_INFINITY;
  let measuredClaims = 0;
  try {
    const latencies = (
      await Promise.all(
        httpClients.map((client, server) => {
          let empty = false;
          return loops(
            clientsPerServer,
            () => empty,
            async () => {
              tokens += 1;
              const body = await client.postOk(CLAIM_MUTATION, {
                // A runner claiming again gets its own live claim back: one runner id per request.
                input: { runnerId: `runner-${server}-${tokens}`, claimToken: `token-${tokens}`, leaseMs: 3_600_000 },
              });
              const result = (body.data as { claimWorkflowRun: { __typename: string; run?: { runId: string } | null } }).claimWorkflowRun;
              if (result.__typename !== 'ClaimWorkflowRunSuccess') throw new Error(`claim answered ${JSON.stringify(result)}`);
              if (result.run == null) {
                empty = true;
                return;
              }
              if (claimed.has(result.run.runId)) duplicates += 1;
              claimed.add(result.run.runId);
              answered += 1;
              if (answered > WARMUP_CLAIMS) measuredClaims += 1;
              if (answered === WARMUP_CLAIMS) measuredFrom = performance.now();
            },
            (started) => started >= measuredFrom,
          );
        }),
      )
    ).flat();
    return { claims: measuredClaims, ms: performance.now() - measuredFrom, latencies, duplicates, claimed: claimed.size + duplicates };
  } finally {
    for (const client of httpClients) client.close();
  }
}

export async function measureLockWait(context: BenchContext): Promise<Figure[]> {
  const temp = tempDir('bench-lockwait-');
  const figures: Figure[] = [];
  const children: Child[] = [];
  const servers: ServerProcess[] = [];
  const profile = (name: string) => (context.profileDir === undefined ? {} : { profileDir: context.profileDir, profileName: name });
  try {
    // 1. Event-loop delay while another process holds the write lock.
    const dbPath = join(temp.dir, 'state.db');
    const server = await startServerProcess({ dbPath, projectPath: temp.dir, ...profile('lock-wait-server') });
    servers.push(server);
    for (let index = 0; index < 20; index += 1) await server.child.call('createRun', { runId: `seed-${index}` });
    const holder = await startChild('bench/harness/lock-holder.ts');
    children.push(holder);
    const client = new GraphQLHttpClient(server.url, 6);
    const sequence = { next: 0 };
    try {
      context.progress(`${BENCH}: baseline window, no lock held (${HOLD_MS + 800} ms)`);
      const free = await loopDelayWindow(server, client, undefined, dbPath, sequence);
      context.progress(`${BENCH}: another process holds the write lock for ${HOLD_MS} ms`);
      const locked = await loopDelayWindow(server, client, holder, dbPath, sequence);
      const freeQueries = summarize(free.queries);
      const lockedQueries = summarize(locked.queries);
      const lockedWrites = summarize(locked.writes);
      figures.push(
        {
          bench: BENCH,
          name: 'event-loop delay, no lock held',
          unit: 'ms',
          p50: free.delay.p50,
          p99: free.delay.p99,
          n: free.delay.count,
          note: `max ${free.delay.max.toFixed(1)} ms`,
        },
        meets(
          {
            bench: BENCH,
            name: `event-loop delay, lock held ${HOLD_MS} ms by another process`,
            unit: 'ms',
            p50: locked.delay.p50,
            p99: locked.delay.p99,
            n: locked.delay.count,
            baseline: 'no lock held',
            ratio: locked.delay.p99 / Math.max(free.delay.p99, 1e-3),
            note: `max ${locked.delay.max.toFixed(1)} ms; ratio of p99s`,
          },
          'event-loop delay p99 while locked',
          { baselineValue: free.delay.p99 },
        ),
        {
          bench: BENCH,
          name: 'longest event-loop stall while the lock is held',
          unit: 'ms',
          value: locked.delay.max,
          baseline: 'no lock held (max)',
          ratio: locked.delay.max / Math.max(free.delay.max, 1e-3),
          note: 'one stall is one sample of the delay histogram, so p99 hides a single long stall; this is the max (a synchronous busy wait shows ≈ the hold time here)',
        },
        { bench: BENCH, name: 'query, no lock held', unit: 'ms', p50: freeQueries.p50, p99: freeQueries.p99, n: freeQueries.n },
        {
          bench: BENCH,
          name: 'query while the lock is held',
          unit: 'ms',
          p50: lockedQueries.p50,
          p99: lockedQueries.p99,
          n: lockedQueries.n,
          baseline: 'no lock held',
          ratio: lockedQueries.p50 / freeQueries.p50,
        },
        {
          bench: BENCH,
          name: 'write while the lock is held',
          unit: 'ms',
          p50: lockedWrites.p50,
          p99: lockedWrites.p99,
          n: lockedWrites.n,
          note: `reserveWorkflowRun waits for the lock (held ${HOLD_MS} ms); ${free.writes.length} writes in the free window`,
        },
      );
    } finally {
      client.close();
    }
    await server.child.stop();
    servers.splice(0);

    // 2. Two processes racing claims against one process with the same number of clients.
    const runs = context.quick ? 400 : 2_000;
    const clients = 32;
    const onePath = join(temp.dir, 'one.db');
    const twoPath = join(temp.dir, 'two.db');
    context.progress(`${BENCH}: seeding ${runs} queued runs into two files`);
    const seeded = runs + WARMUP_CLAIMS;
    seedQueuedRuns(onePath, temp.dir, seeded);
    seedQueuedRuns(twoPath, temp.dir, seeded);
    const one = await startServerProcess({ dbPath: onePath, projectPath: temp.dir, ...profile('lock-wait-one') });
    servers.push(one);
    context.progress(`${BENCH}: one process, ${clients} clients claim ${seeded} runs (${WARMUP_CLAIMS} warm-up)`);
    const single = await raceClaims([one.url], clients);
    await one.child.stop();
    servers.splice(0);
    const twoA = await startServerProcess({ dbPath: twoPath, projectPath: temp.dir, ...profile('lock-wait-two-a') });
    servers.push(twoA);
    const twoB = await startServerProcess({ dbPath: twoPath, projectPath: temp.dir, ...profile('lock-wait-two-b') });
    servers.push(twoB);
    context.progress(`${BENCH}: two processes, ${clients / 2} clients each, claim ${seeded} runs (${WARMUP_CLAIMS} warm-up)`);
    const pair = await raceClaims([twoA.url, twoB.url], clients / 2);
    const singleStats = summarize(single.latencies);
    const pairStats = summarize(pair.latencies);
    const singleRate = (single.claims * 1000) / single.ms;
    const pairRate = (pair.claims * 1000) / pair.ms;
    const exact = (result: { claimed: number; duplicates: number }): boolean => result.claimed === seeded && result.duplicates === 0;
    figures.push(
      {
        bench: BENCH,
        name: `claims, 1 process × ${clients} clients`,
        unit: 'ms',
        p50: singleStats.p50,
        p99: singleStats.p99,
        rate: singleRate,
        n: singleStats.n,
        note: `rate/value = runs claimed per second after ${WARMUP_CLAIMS} warm-up claims; ${single.claimed}/${seeded} runs claimed, ${single.duplicates} twice`,
      },
      meets(
        {
          bench: BENCH,
          name: `claims, 2 processes × ${clients / 2} clients`,
          unit: 'ms',
          p50: pairStats.p50,
          p99: pairStats.p99,
          rate: pairRate,
          n: pairStats.n,
          baseline: '1 process (rate)',
          ratio: pairRate / singleRate,
          note: `rate/value = runs claimed per second after ${WARMUP_CLAIMS} warm-up claims; ${pair.claimed}/${seeded} runs claimed, ${pair.duplicates} twice`,
        },
        'two processes racing claims',
        { baselineValue: singleRate, also: { ok: exact(pair), why: 'not every run was claimed exactly once' } },
      ),
      meets(
        {
          bench: BENCH,
          name: `claim p99, 2 processes × ${clients / 2} clients`,
          unit: 'ms',
          p50: pairStats.p50,
          p99: pairStats.p99,
          n: pairStats.n,
          baseline: '1 process (p99)',
          ratio: pairStats.p99 / singleStats.p99,
        },
        'racing claims p99',
        { baselineValue: singleStats.p99 },
      ),
    );
    return figures;
  } finally {
    await Promise.all(children.map((child) => child.stop()));
    await Promise.all(servers.map((server) => server.child.stop()));
    temp.remove();
  }
}
