/**
 * Benchmark 7, a pi-workflows state file against our own format (issue 12 item 5): the same
 * 10,000 runs (quick: 2,000) — one deep chain of 1,000 runs (quick: 200) with three restarts,
 * the rest in chains of five — built through the store in our format, then copied into a
 * pi-workflows state file (its 47 tables and its own indexes only: none on `runs.root_run_id`
 * nor on `runs.created_at`). Both files are served at once, each by a server in its own
 * process; requests alternate between them, one at a time, so background load hits both alike.
 *
 * Measured over HTTP (p50/p99): `lineage(first: 100)` with totalCount on the deepest run of the
 * deep chain, `latestRun` and `children` on its root, a run-list page (`workflowRuns(first:
 * 100)` with totalCount), and, for context, a nested run-list page and a page filtered by
 * status. Target: the pi-workflows file at most 3× our format's p50 for the first four. Also
 * the time to open each file in this process (the pi-workflows open builds the in-process run
 * order index).
 */
import { join } from 'node:path';
import { WorkflowStore } from '../src/store/index.js';
import { copyIntoPiWorkflowsFile } from '../test/helpers/pi-workflows-file.js';
import type { BenchContext } from './bench-context.js';
import { buildChain, spreadRestarts, type Chain } from './chains.js';
import { GraphQLHttpClient } from './http-load.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { summarize, type Figure } from './stats.js';
import { steppingClock, tempDir } from './store-inputs.js';

const BENCH = 'pi-workflows-file';
const TARGET_RATIO = 3;
const SHORT_CHAIN = 5;
/** Short chains reserved per transaction while the database is built. */
const BATCH_CHAINS = 200;

interface Measured {
  name: string;
  query: string;
  variables: (deep: Chain) => Record<string, unknown>;
  /** Part of the target (else reported for context). */
  targeted: boolean;
}

const QUERIES: Measured[] = [
  {
    name: 'lineage(first: 100) deepest run',
    query: 'query L($id: String!) { workflowRun(runId: $id) { lineage(first: 100) { totalCount edges { node { runId } } } } }',
    variables: (deep) => ({ id: deep.deepestRunId }),
    targeted: true,
  },
  {
    name: 'latestRun root',
    query: 'query N($id: String!) { workflowRun(runId: $id) { latestRun { runId } } }',
    variables: (deep) => ({ id: deep.rootRunId }),
    targeted: true,
  },
  {
    name: 'children root',
    query: 'query C($id: String!) { workflowRun(runId: $id) { children { runId } } }',
    variables: (deep) => ({ id: deep.rootRunId }),
    targeted: true,
  },
  {
    name: 'run list: workflowRuns(first: 100) + totalCount',
    query: 'query P { workflowRuns(first: 100) { totalCount edges { node { runId } } } }',
    variables: () => ({}),
    targeted: true,
  },
  {
    name: 'run list nested: parent rootRun children latestRun',
    query: 'query Q { workflowRuns(first: 100) { edges { node { runId parent { runId } rootRun { runId } children { runId } latestRun { runId } } } } }',
    variables: () => ({}),
    targeted: false,
  },
  {
    name: 'run list filtered: status FAILED + totalCount',
    query: 'query F { workflowRuns(first: 100, filter: { status: [FAILED] }) { totalCount edges { node { runId } } } }',
    variables: () => ({}),
    targeted: false,
  },
];

/** Builds `total` runs in our format; returns the deep chain. */
function buildOurFile(context: BenchContext, dbPath: string, projectPath: string, total: number, deepLength: number): Chain {
  const store = WorkflowStore.open({ path: dbPath, projectPath, clock: steppingClock(Date.now() - 30 * 86_400_000) });
  try {
    const deep = store.transaction(() => buildChain(store, 'deep', deepLength, spreadRestarts(deepLength)));
    const chains = Math.ceil((total - deepLength) / SHORT_CHAIN);
    for (let first = 0; first < chains; first += BATCH_CHAINS) {
      store.transaction(() => {
        for (let index = first; index < Math.min(chains, first + BATCH_CHAINS); index += 1) {
          buildChain(store, `short${index}`, SHORT_CHAIN, index % 10 === 0 ? [2] : []);
        }
      });
      context.progress(`${BENCH}: … ${deepLength + Math.min(chains, first + BATCH_CHAINS) * SHORT_CHAIN} runs`);
    }
    return deep;
  } finally {
    store.close();
  }
}

/** Milliseconds to open (and close) a store on `path` in this process, median of `times`. */
function openTime(path: string, projectPath: string, times: number): number {
  const samples: number[] = [];
  for (let round = 0; round < times; round += 1) {
    const started = performance.now();
    const store = WorkflowStore.open({ path, projectPath, readOnly: true });
    samples.push(performance.now() - started);
    store.close();
  }
  return summarize(samples).p50;
}

export async function measurePiWorkflowsFile(context: BenchContext): Promise<Figure[]> {
  const total = context.quick ? 2_000 : 10_000;
  const deepLength = context.quick ? 200 : 1_000;
  const requests = context.quick ? 50 : 150;
  const temp = tempDir('bench-pi-file-');
  const ourPath = join(temp.dir, 'ours.db');
  const piPath = join(temp.dir, 'state.sqlite');
  const servers: ServerProcess[] = [];
  const clients: GraphQLHttpClient[] = [];
  try {
    context.progress(`${BENCH}: building ${total} runs in our format (a chain of ${deepLength}, the rest in chains of ${SHORT_CHAIN})`);
    const buildStarted = performance.now();
    const deep = buildOurFile(context, ourPath, temp.dir, total, deepLength);
    const buildMs = performance.now() - buildStarted;
    const copyStarted = performance.now();
    copyIntoPiWorkflowsFile(ourPath, piPath);
    const copyMs = performance.now() - copyStarted;
    context.progress(`${BENCH}: built in ${(buildMs / 1000).toFixed(1)} s, copied into a pi-workflows state file in ${(copyMs / 1000).toFixed(1)} s`);

    const figures: Figure[] = [
      { bench: BENCH, name: `setup: ${total} runs, our format`, unit: 's', value: buildMs / 1000, n: total },
      { bench: BENCH, name: 'setup: copy into a pi-workflows file', unit: 's', value: copyMs / 1000, n: total },
    ];
    const openOurs = openTime(ourPath, temp.dir, 5);
    const openPi = openTime(piPath, temp.dir, 5);
    figures.push(
      { bench: BENCH, name: 'open (read-only), our format', unit: 'ms', value: openOurs, n: 5 },
      {
        bench: BENCH,
        name: 'open, pi-workflows file (builds the run order index)',
        unit: 'ms',
        value: openPi,
        n: 5,
        baseline: 'open, our format',
        ratio: openPi / openOurs,
      },
    );

    for (const [label, dbPath] of [
      ['ours', ourPath],
      ['pi', piPath],
    ] as const) {
      const server = await startServerProcess({
        dbPath,
        projectPath: temp.dir,
        ...(context.profileDir === undefined ? {} : { profileDir: context.profileDir, profileName: `${BENCH}-${label}` }),
      });
      servers.push(server);
      clients.push(new GraphQLHttpClient(server.url, 1));
    }
    const [ours, pi] = clients as [GraphQLHttpClient, GraphQLHttpClient];

    for (const measured of QUERIES) {
      context.progress(`${BENCH}: ${measured.name}, ${requests} requests per format, alternating`);
      const variables = measured.variables(deep);
      const samples = { ours: [] as number[], pi: [] as number[] };
      for (let round = -5; round < requests; round += 1) {
        const answers: string[] = [];
        for (const [label, client] of [
          ['ours', ours],
          ['pi', pi],
        ] as const) {
          const started = performance.now();
          const body = await client.postOk(measured.query, variables);
          const ms = performance.now() - started;
          if (round < 0) answers.push(JSON.stringify(body.data));
          else samples[label].push(ms);
        }
        if (round < 0 && answers[0] !== answers[1]) {
          throw new Error(`${measured.name}: the formats answer differently: ${answers[0]?.slice(0, 300)} vs ${answers[1]?.slice(0, 300)}`);
        }
      }
      const oursStats = summarize(samples.ours);
      const piStats = summarize(samples.pi);
      const ratio = piStats.p50 / oursStats.p50;
      figures.push(
        { bench: BENCH, name: `${measured.name}: our format`, unit: 'ms', p50: oursStats.p50, p99: oursStats.p99, n: oursStats.n },
        {
          bench: BENCH,
          name: `${measured.name}: pi-workflows file`,
          unit: 'ms',
          p50: piStats.p50,
          p99: piStats.p99,
          n: piStats.n,
          baseline: 'our format',
          ratio,
          ...(measured.targeted ? { target: `≤ ${TARGET_RATIO}× our format`, met: ratio <= TARGET_RATIO } : {}),
        },
      );
    }
    return figures;
  } finally {
    for (const client of clients) client.close();
    for (const server of servers) await server.child.stop();
    temp.remove();
  }
}
