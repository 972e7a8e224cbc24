/**
 * Benchmark `run-lists`: `workflowRuns(first: 100)` with `parent`, `rootRun`, `children` and
 * `latestRun` on every node, on a database of 100,000 runs (quick: 10,000) in chains of five (every
 * tenth chain holds a restart), built through the store in transactions of 1,000 runs. Reports
 * p50/p99 over HTTP (server in its own process) and the SQL statements one request costs (the
 * server's `statementCount`, reset right before the request).
 *
 * Baseline: the flat page `workflowRuns(first: 100) { edges { node { runId } } }` on the same
 * database, requests interleaved with the nested ones, itself held to `{ __typename }` (yoga's
 * own floor) and compared with `lineage(first: 100)` of a chain of 200 runs, built first, so
 * the newest pages are those of the short chains.
 *
 * Orders and search, interleaved with the same requests: the flat page in
 * UPDATED_AT DESC order (walks run_queue_updated_idx), and two search pages (no index can
 * answer a substring: the page walks the created order until it holds 100 matches): a frequent
 * text (`LIST1`: every chain of the newest half) fills the page at once; a rare one (`list99-`:
 * the 5 runs of one old chain) walks the whole list, in rounds of its own after the others
 * (whatever request follows it pays for the caches it churned).
 */
import { join } from 'node:path';
import { WorkflowStore } from '../src/store/index.js';
import type { BenchContext } from './harness/bench-context.js';
import { buildChain } from './harness/chains.js';
import { GraphQLHttpClient } from './harness/http-load.js';
import { startServerProcess } from './harness/server-process.js';
import { summarize, type Figure } from './harness/stats.js';
import { meets } from './targets.js';
import { steppingClock, tempDir } from './harness/store-inputs.js';

const BENCH = 'run-lists';
const TARGET_STATEMENTS = 6;
const CHAIN_LENGTH = 5;
/** Chains reserved per transaction while the database is built. */
const BATCH_CHAINS = 200;

const NESTED = `query Runs { workflowRuns(first: 100) { edges { node {
  runId parent { runId } rootRun { runId } children { runId } latestRun { runId }
} } } }`;
const FLAT = 'query RunIds { workflowRuns(first: 100) { edges { node { runId } } } }';
const UPDATED = 'query RunsByUpdate { workflowRuns(first: 100, orderBy: {field: UPDATED_AT, direction: DESC}) { edges { node { runId } } } }';
const SEARCH_FREQUENT = 'query SearchFrequent { workflowRuns(first: 100, filter: {search: "LIST1"}) { edges { node { runId } } } }';
const SEARCH_RARE = 'query SearchRare { workflowRuns(first: 100, filter: {search: "list99-"}) { edges { node { runId } } } }';
const TYPENAME = '{ __typename }';
/** The chain `lineage` pages through (built before the short chains). */
const LONG_CHAIN = 'long';
const LONG_CHAIN_LENGTH = 200;
const LINEAGE = `query Lineage { workflowRun(runId: "${LONG_CHAIN}-${LONG_CHAIN_LENGTH - 1}") { lineage(first: 100) { edges { node { runId } } } } }`;

interface RunsData {
  workflowRuns: { edges: Array<{ node: { runId: string; parent?: { runId: string } | null; children?: unknown[] } }> };
}

export async function measureRunLists(context: BenchContext): Promise<Figure[]> {
  const runs = context.quick ? 10_000 : 100_000;
  const requests = context.quick ? 50 : 150;
  const temp = tempDir('bench-runlists-');
  const dbPath = join(temp.dir, 'state.db');
  try {
    const chains = Math.ceil(runs / CHAIN_LENGTH);
    context.progress(`${BENCH}: building ${chains * CHAIN_LENGTH} runs (${chains} chains of ${CHAIN_LENGTH}) through the store, 1,000 runs per transaction`);
    const buildStarted = performance.now();
    const store = WorkflowStore.open({ path: dbPath, projectPath: temp.dir, clock: steppingClock(Date.now() - 30 * 86_400_000) });
    try {
      // Transactions of BATCH_CHAINS chains: one commit per batch, and the dirty pages of a
      // batch fit the page cache (one transaction over 100,000 runs spills and slows down).
      const step = Math.max(1, Math.floor(chains / 10));
      store.transaction(() => buildChain(store, LONG_CHAIN, LONG_CHAIN_LENGTH));
      for (let first = 0; first < chains; first += BATCH_CHAINS) {
        store.transaction(() => {
          for (let index = first; index < Math.min(chains, first + BATCH_CHAINS); index += 1) {
            buildChain(store, `list${index}`, CHAIN_LENGTH, index % 10 === 0 ? [2] : []);
            if ((index + 1) % step === 0) {
              context.progress(`${BENCH}: … ${(index + 1) * CHAIN_LENGTH} runs (${((performance.now() - buildStarted) / 1000).toFixed(1)} s)`);
            }
          }
        });
      }
    } finally {
      store.close();
    }
    const buildMs = performance.now() - buildStarted;
    const total = chains * CHAIN_LENGTH + LONG_CHAIN_LENGTH;
    context.progress(`${BENCH}: built ${total} runs in ${(buildMs / 1000).toFixed(1)} s`);

    const server = await startServerProcess({
      dbPath,
      projectPath: temp.dir,
      ...(context.profileDir === undefined ? {} : { profileDir: context.profileDir, profileName: 'run-lists-server' }),
    });
    const client = new GraphQLHttpClient(server.url, 1);
    try {
      const countStatements = async (query: string): Promise<{ statements: number; data: RunsData }> => {
        await server.child.call('resetStatements');
        const body = await client.postOk(query);
        const statements = await server.child.call<number>('statements');
        return { statements, data: body.data as RunsData };
      };
      context.progress(`${BENCH}: counting SQL statements per request`);
      const flatCount = await countStatements(FLAT);
      const nestedCount = await countStatements(NESTED);
      const extraQueries = [
        { name: 'UPDATED_AT DESC page: runId', query: UPDATED, expected: 100, walksWholeList: false },
        { name: 'search page, frequent text (LIST1)', query: SEARCH_FREQUENT, expected: 100, walksWholeList: false },
        { name: 'search page, rare text (list99-: walks the whole list)', query: SEARCH_RARE, expected: CHAIN_LENGTH, walksWholeList: true },
      ];
      const extraCounts: number[] = [];
      for (const extra of extraQueries) {
        const counted = await countStatements(extra.query);
        if (counted.data.workflowRuns.edges.length !== extra.expected) {
          throw new Error(`${extra.name}: ${counted.data.workflowRuns.edges.length} runs, expected ${extra.expected}`);
        }
        extraCounts.push(counted.statements);
      }
      const edges = nestedCount.data.workflowRuns.edges;
      if (edges.length !== 100 || !edges.some((edge) => edge.node.parent != null) || !edges.some((edge) => (edge.node.children ?? []).length > 0)) {
        throw new Error('the nested page does not hold 100 runs with parents and children');
      }

      const lineagePage = (await client.postOk(LINEAGE)).data as { workflowRun: { lineage: { edges: unknown[] } } };
      if (lineagePage.workflowRun.lineage.edges.length !== 100) throw new Error('the lineage page does not hold 100 runs');

      context.progress(`${BENCH}: ${requests} requests of each page (nested, flat, lineage, { __typename }, UPDATED_AT, frequent search), interleaved`);
      const nested: number[] = [];
      const flat: number[] = [];
      const lineage: number[] = [];
      const typename: number[] = [];
      const extraSamples = extraQueries.map((): number[] => []);
      const extraRounds = (walksWholeList: boolean): Array<[string, number[]]> =>
        extraQueries.flatMap((extra, index): Array<[string, number[]]> =>
          extra.walksWholeList === walksWholeList ? [[extra.query, extraSamples[index] as number[]]] : [],
        );
      const measureRounds = async (rounds: Array<[string, number[]]>): Promise<void> => {
        for (let round = -5; round < requests; round += 1) {
          for (const [query, samples] of rounds) {
            const t0 = performance.now();
            await client.postOk(query);
            if (round >= 0) samples.push(performance.now() - t0);
          }
        }
      };
      await measureRounds([[NESTED, nested], [FLAT, flat], [LINEAGE, lineage], [TYPENAME, typename], ...extraRounds(false)]);
      // A page that walks the whole list (≈50 ms over 100,000 runs) leaves the server slower for
      // the requests right after it (its page cache and heap churned); interleaved in a fixed
      // order, that cost landed on the same page every round (the nested page: 1.7–2.0× the
      // flat page right after it, 1.1–1.2× when the flat page came first). It runs on its own.
      context.progress(`${BENCH}: ${requests} requests of the page that walks the whole list, on their own`);
      await measureRounds(extraRounds(true));
      const flatStats = summarize(flat);
      const nestedStats = summarize(nested);
      const lineageStats = summarize(lineage);
      const typenameStats = summarize(typename);
      const extraFigures: Figure[] = extraQueries.flatMap((extra, index) => {
        const stats = summarize(extraSamples[index] as number[]);
        return [
          { bench: BENCH, name: extra.name, unit: 'ms', p50: stats.p50, p99: stats.p99, n: stats.n, baseline: 'flat page', ratio: stats.p50 / flatStats.p50 },
          { bench: BENCH, name: `${extra.name}: statements`, unit: 'statements', value: extraCounts[index] as number },
        ];
      });
      return [
        {
          bench: BENCH,
          name: `setup: build ${total.toLocaleString('en-US')} runs`,
          unit: 's',
          value: buildMs / 1000,
          n: total,
          note: `prepareOrAdopt/park (and settle/restart), 1,000 runs per transaction: ${Math.round((total * 1000) / buildMs)} runs/s`,
        },
        { bench: BENCH, name: '{ __typename }', unit: 'ms', p50: typenameStats.p50, p99: typenameStats.p99, n: typenameStats.n },
        meets(
          {
            bench: BENCH,
            name: 'flat page: runId',
            unit: 'ms',
            p50: flatStats.p50,
            p99: flatStats.p99,
            n: flatStats.n,
            baseline: '{ __typename }',
            ratio: flatStats.p50 / typenameStats.p50,
            note: 'ratio of p50s',
          },
          'flat run-list page',
          { baselineValue: typenameStats.p50 },
        ),
        { bench: BENCH, name: 'flat page: statements', unit: 'statements', value: flatCount.statements },
        meets(
          {
            bench: BENCH,
            name: 'nested page: parent rootRun children latestRun',
            unit: 'ms',
            p50: nestedStats.p50,
            p99: nestedStats.p99,
            n: nestedStats.n,
            baseline: 'flat page',
            ratio: nestedStats.p50 / flatStats.p50,
            note: 'ratio of p50s',
          },
          'nested run-list page',
          { baselineValue: flatStats.p50 },
        ),
        meets(
          {
            bench: BENCH,
            name: `lineage(first: 100) of a ${LONG_CHAIN_LENGTH}-run chain`,
            unit: 'ms',
            p50: lineageStats.p50,
            p99: lineageStats.p99,
            n: lineageStats.n,
            baseline: 'flat page',
            ratio: lineageStats.p50 / flatStats.p50,
            note: "ratio of p50s; lineage of the chain's deepest run, 100 edges of runId",
          },
          'lineage page',
          { baselineValue: flatStats.p50 },
        ),
        {
          bench: BENCH,
          name: 'nested page: statements',
          unit: 'statements',
          value: nestedCount.statements,
          baseline: 'flat page',
          ratio: nestedCount.statements / flatCount.statements,
          target: `≤ ${TARGET_STATEMENTS}`,
          met: nestedCount.statements <= TARGET_STATEMENTS,
        },
        ...extraFigures,
      ];
    } finally {
      client.close();
      await server.child.stop();
    }
  } finally {
    temp.remove();
  }
}
