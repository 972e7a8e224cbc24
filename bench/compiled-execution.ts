/**
 * Benchmark `compiled-execution`: the same requests against two servers in the same run, one
 * executing with graphql-js (`PI_WORKFLOWS_GRAPHQL_JIT=0`), the other with graphql-jit (the
 * default, src/server/graphql/compiled-execution.ts), each on its own copy of one file of 10,000 runs
 * (quick: 2,000) in chains of five. Both run in their own processes; their segments alternate
 * (the order flips every round), so both see the same machine.
 *
 * Per server: `{ __typename }`, the flat run-list page (`runId`), the nested page (`parent
 * rootRun children latestRun`) and `reserveWorkflowRun` with a claim, one client, sequential:
 * p50 latency and server CPU per request (`process.cpuUsage()` of the server around each
 * segment). The figure that decides is CPU per request, jit ÷ graphql-js (below 1: jit is
 * cheaper); latency on a loaded machine is noisier.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkflowStore } from '../src/store/index.js';
import type { BenchContext } from './harness/bench-context.js';
import { buildChain } from './harness/chains.js';
import { GraphQLHttpClient } from './harness/http-load.js';
import { startServerProcess, type ServerProcess } from './harness/server-process.js';
import { median, summarize, type Figure } from './harness/stats.js';
import { RESERVE_MUTATION, reserveVariables, steppingClock, tempDir } from './harness/store-inputs.js';

const BENCH = 'compiled-execution';
const CHAIN_LENGTH = 5;
const FLAT = 'query RunIds { workflowRuns(first: 100) { edges { node { runId } } } }';
const NESTED = `query Runs { workflowRuns(first: 100) { edges { node {
  runId parent { runId } rootRun { runId } children { runId } latestRun { runId }
} } } }`;
const TYPENAME = '{ __typename }';

interface Side {
  name: 'graphql-js' | 'graphql-jit';
  server: ServerProcess;
  client: GraphQLHttpClient;
  sequence: number;
  samples: Map<string, { latencies: number[]; cpuPerRequest: number[] }>;
}

const KINDS = ['{ __typename }', 'flat page', 'nested page', 'reserveWorkflowRun'] as const;
type Kind = (typeof KINDS)[number];

async function sendOnce(side: Side, kind: Kind): Promise<void> {
  if (kind === 'reserveWorkflowRun') {
    side.sequence += 1;
    const id = `jit-${side.name}-${side.sequence}`;
    const body = await side.client.postOk(RESERVE_MUTATION, reserveVariables(id, `${id}-session`, `${id}-token`));
    const result = (body.data as { reserveWorkflowRun: { __typename: string } }).reserveWorkflowRun;
    if (result.__typename !== 'ReserveWorkflowRunSuccess') throw new Error(`reserve answered ${JSON.stringify(result)}`);
    return;
  }
  const query = kind === 'flat page' ? FLAT : kind === 'nested page' ? NESTED : TYPENAME;
  const body = await side.client.postOk(query);
  if (kind !== '{ __typename }') {
    const edges = (body.data as { workflowRuns: { edges: unknown[] } }).workflowRuns.edges;
    if (edges.length !== 100) throw new Error(`${kind}: ${edges.length} runs, expected 100`);
  }
}

async function segment(side: Side, kind: Kind, count: number): Promise<void> {
  const latencies: number[] = [];
  const cpuBefore = await side.server.child.call<number>('cpuNow');
  for (let index = 0; index < count; index += 1) {
    const started = performance.now();
    await sendOnce(side, kind);
    latencies.push(performance.now() - started);
  }
  const cpuUs = (await side.server.child.call<number>('cpuNow')) - cpuBefore;
  const samples = side.samples.get(kind) ?? { latencies: [], cpuPerRequest: [] };
  samples.latencies.push(...latencies);
  samples.cpuPerRequest.push(cpuUs / count);
  side.samples.set(kind, samples);
}

export async function measureCompiledExecution(context: BenchContext): Promise<Figure[]> {
  const runs = context.quick ? 2_000 : 10_000;
  const rounds = context.quick ? 4 : 10;
  const perSegment = context.quick ? 40 : 100;
  const plainDir = tempDir('bench-jit-plain-');
  const jitDir = tempDir('bench-jit-on-');
  const sides: Side[] = [];
  try {
    context.progress(`${BENCH}: building ${runs} runs in chains of ${CHAIN_LENGTH}`);
    const store = WorkflowStore.open({ path: join(plainDir.dir, 'state.db'), projectPath: plainDir.dir, clock: steppingClock(Date.now() - 86_400_000) });
    try {
      store.transaction(() => {
        for (let index = 0; index < runs / CHAIN_LENGTH; index += 1) buildChain(store, `jit${index}`, CHAIN_LENGTH, index % 10 === 0 ? [2] : []);
      });
    } finally {
      store.close();
    }
    copyFileSync(join(plainDir.dir, 'state.db'), join(jitDir.dir, 'state.db'));
    for (const [name, dir, jit] of [
      ['graphql-js', plainDir.dir, false],
      ['graphql-jit', jitDir.dir, true],
    ] as const) {
      const server = await startServerProcess({
        dbPath: join(dir, 'state.db'),
        projectPath: dir,
        jit,
        ...(context.profileDir === undefined ? {} : { profileDir: context.profileDir, profileName: `compiled-execution-${name}` }),
      });
      sides.push({ name, server, client: new GraphQLHttpClient(server.url, 1), sequence: 0, samples: new Map() });
    }
    context.progress(`${BENCH}: warming up`);
    for (const side of sides) for (const kind of KINDS) for (let index = 0; index < 30; index += 1) await sendOnce(side, kind);
    for (let round = 0; round < rounds; round += 1) {
      context.progress(`${BENCH}: round ${round + 1}/${rounds}: ${perSegment} requests of each kind per server, alternating`);
      const order = round % 2 === 0 ? sides : [...sides].reverse();
      for (const kind of KINDS) for (const side of order) await segment(side, kind, perSegment);
    }
    const figures: Figure[] = [];
    const cpuOf = (side: Side, kind: Kind): number => median(side.samples.get(kind)?.cpuPerRequest ?? []);
    const [plain, jit] = sides as [Side, Side];
    for (const kind of KINDS) {
      for (const side of sides) {
        const stats = summarize(side.samples.get(kind)?.latencies ?? []);
        const cpu = cpuOf(side, kind);
        figures.push({
          bench: BENCH,
          name: `${kind}, ${side.name}: server CPU per request`,
          unit: 'µs',
          value: cpu,
          ...(side === jit ? { baseline: 'graphql-js', ratio: cpu / cpuOf(plain, kind) } : {}),
          note: `latency p50 ${stats.p50.toFixed(2)} ms, p99 ${stats.p99.toFixed(2)} ms (${stats.n} requests); CPU: median of ${rounds} segments`,
        });
      }
    }
    for (const side of sides) {
      const flat = summarize(side.samples.get('flat page')?.latencies ?? []);
      const nested = summarize(side.samples.get('nested page')?.latencies ?? []);
      figures.push({
        bench: BENCH,
        name: `nested ÷ flat page, ${side.name}`,
        unit: 'ms',
        p50: nested.p50,
        p99: nested.p99,
        n: nested.n,
        baseline: 'flat page',
        ratio: nested.p50 / flat.p50,
        note: `ratio of latency p50s; CPU ${(cpuOf(side, 'nested page') / cpuOf(side, 'flat page')).toFixed(2)}×`,
      });
    }
    return figures;
  } finally {
    for (const side of sides) {
      side.client.close();
      await side.server.child.stop();
    }
    plainDir.remove();
    jitDir.remove();
  }
}
