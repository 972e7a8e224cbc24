/**
 * Benchmark `lineage-depth`: chains of 10, 100, 1,000 and 10,000 runs (quick: up to 1,000) in one
 * database, built through the store (continuations of parked parents, three restarts per chain) on
 * a clock that advances 1 ms per read, inside one transaction. Then, over HTTP against the server
 * in its own process, the latency of `lineage(first: 100)`, `rootRun`, `latestRun` and `children`
 * on the deepest run and on the root of each chain.
 *
 * Requests go one at a time, round-robin over the chain sizes, so background load hits every
 * size alike. Baseline: the 10-run chain (ratio = p50 ÷ p50 of the 10 chain).
 */
import { join } from 'node:path';
import { WorkflowStore } from '../src/store/index.js';
import type { BenchContext } from './harness/bench-context.js';
import { buildChain, spreadRestarts, type Chain } from './harness/chains.js';
import { GraphQLHttpClient } from './harness/http-load.js';
import { startServerProcess } from './harness/server-process.js';
import { summarize, type Figure } from './harness/stats.js';
import { steppingClock, tempDir } from './harness/store-inputs.js';

const BENCH = 'lineage-depth';
const TARGET_RATIO = 1.5;

interface LineageQuery {
  name: string;
  query: string;
  /** Checks the answer against the chain; throws when wrong. */
  check: (data: RunData, chain: Chain, target: 'deepest' | 'root') => void;
}

interface RunData {
  workflowRun: {
    lineage?: { totalCount: number; edges: Array<{ node: { runId: string } }> };
    rootRun?: { runId: string };
    latestRun?: { runId: string };
    children?: Array<{ runId: string }>;
  };
}

function expectEqual(actual: unknown, expected: unknown, what: string): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}

const QUERIES: LineageQuery[] = [
  {
    name: 'lineage(first: 100)',
    query: 'query L($id: String!) { workflowRun(runId: $id) { lineage(first: 100) { totalCount edges { node { runId } } } } }',
    check: (data, chain) => {
      expectEqual(data.workflowRun.lineage?.totalCount, chain.runIds.length, 'lineage totalCount');
      expectEqual(
        data.workflowRun.lineage?.edges.map((edge) => edge.node.runId),
        chain.runIds.slice(0, 100),
        'lineage page',
      );
    },
  },
  {
    name: 'rootRun',
    query: 'query R($id: String!) { workflowRun(runId: $id) { rootRun { runId } } }',
    check: (data, chain) => expectEqual(data.workflowRun.rootRun?.runId, chain.rootRunId, 'rootRun'),
  },
  {
    name: 'latestRun',
    query: 'query N($id: String!) { workflowRun(runId: $id) { latestRun { runId } } }',
    check: (data, chain) => expectEqual(data.workflowRun.latestRun?.runId, chain.deepestRunId, 'latestRun'),
  },
  {
    name: 'children',
    query: 'query C($id: String!) { workflowRun(runId: $id) { children { runId } } }',
    check: (data, chain, target) =>
      expectEqual(
        data.workflowRun.children?.map((child) => child.runId),
        target === 'root' && chain.runIds.length > 1 ? [chain.runIds[1]] : [],
        'children',
      ),
  },
];

export async function measureLineageDepth(context: BenchContext): Promise<Figure[]> {
  const depths = context.quick ? [10, 100, 1_000] : [10, 100, 1_000, 10_000];
  const requests = context.quick ? 50 : 150;
  const temp = tempDir('bench-lineage-');
  const dbPath = join(temp.dir, 'state.db');
  try {
    const chains = new Map<number, Chain>();
    const total = depths.reduce((sum, depth) => sum + depth, 0);
    context.progress(`${BENCH}: building chains of ${depths.join(', ')} runs (${total} runs, one transaction, 1 ms clock steps)`);
    const buildStarted = performance.now();
    const store = WorkflowStore.open({ path: dbPath, projectPath: temp.dir, clock: steppingClock(Date.now() - 86_400_000) });
    try {
      store.transaction(() => {
        for (const depth of depths) chains.set(depth, buildChain(store, `chain${depth}`, depth, spreadRestarts(depth)));
      });
    } finally {
      store.close();
    }
    const buildMs = performance.now() - buildStarted;
    context.progress(`${BENCH}: built ${total} runs in ${(buildMs / 1000).toFixed(1)} s`);

    const server = await startServerProcess({
      dbPath,
      projectPath: temp.dir,
      ...(context.profileDir === undefined ? {} : { profileDir: context.profileDir, profileName: 'lineage-depth-server' }),
    });
    const client = new GraphQLHttpClient(server.url, 1);
    const figures: Figure[] = [
      {
        bench: BENCH,
        name: 'setup: build chains',
        unit: 's',
        value: buildMs / 1000,
        n: total,
        note: `${total} runs via prepareOrAdopt/park/settle/restart in one transaction (${Math.round((total * 1000) / buildMs)} runs/s)`,
      },
    ];
    try {
      for (const query of QUERIES) {
        for (const target of ['deepest', 'root'] as const) {
          context.progress(`${BENCH}: ${query.name} on the ${target} run of each chain, ${requests} requests per chain size`);
          const samples = new Map<number, number[]>(depths.map((depth) => [depth, []]));
          for (let round = -5; round < requests; round += 1) {
            for (const depth of depths) {
              const chain = chains.get(depth) as Chain;
              const runId = target === 'deepest' ? chain.deepestRunId : chain.rootRunId;
              const t0 = performance.now();
              const body = await client.postOk(query.query, { id: runId });
              const ms = performance.now() - t0;
              if (round < 0) {
                query.check(body.data as RunData, chain, target); // warm-up requests also verify the answer
                continue;
              }
              samples.get(depth)?.push(ms);
            }
          }
          const baseline = summarize(samples.get(depths[0] as number) ?? []);
          for (const depth of depths) {
            const stats = summarize(samples.get(depth) ?? []);
            const isLargest = depth === depths[depths.length - 1];
            const ratio = stats.p50 / baseline.p50;
            figures.push({
              bench: BENCH,
              name: `${query.name} ${target} @${depth}`,
              unit: 'ms',
              p50: stats.p50,
              p99: stats.p99,
              n: stats.n,
              ...(depth === depths[0] ? {} : { baseline: `@${depths[0] as number}`, ratio }),
              ...(isLargest ? { target: `≤ ${TARGET_RATIO}× @${depths[0] as number}`, met: ratio <= TARGET_RATIO } : {}),
            });
          }
          // lineage(first: 100) returns 10 edges on the 10-run chain but 100 on every longer one:
          // the same page size against the 100-run chain isolates the effect of depth.
          const largest = depths[depths.length - 1] as number;
          if (query.name.startsWith('lineage') && largest > 100 && samples.has(100)) {
            const same = summarize(samples.get(100) ?? []);
            const deep = summarize(samples.get(largest) ?? []);
            figures.push({
              bench: BENCH,
              name: `${query.name} ${target} @${largest} vs @100`,
              unit: 'ms',
              p50: deep.p50,
              p99: deep.p99,
              n: deep.n,
              baseline: '@100 (same page size)',
              ratio: deep.p50 / same.p50,
            });
          }
        }
      }
    } finally {
      client.close();
      await server.child.stop();
    }
    const lineageNote = figures.find((figure) => figure.name.startsWith('lineage(first: 100) deepest @') && figure.target !== undefined);
    if (lineageNote !== undefined) {
      lineageNote.note = `the ${depths[0] as number}-run chain returns ${depths[0] as number} edges, larger chains 100: part of the ratio is page size, not depth`;
    }
    return figures;
  } finally {
    temp.remove();
  }
}
