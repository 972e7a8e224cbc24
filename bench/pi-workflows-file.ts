/**
 * Benchmark 7, a pi-workflows state file against our own format: the same
 * 10,000 runs (quick: 2,000) — one deep chain of 1,000 runs (quick: 200) with three restarts,
 * the rest in chains of five — built through the store in our format, then copied into a
 * pi-workflows state file (its 47 tables and its own indexes only: none on `runs.root_run_id`
 * nor on `runs.created_at`). Both files are served at once, each by a server in its own
 * process; requests alternate between them, one at a time, so background load hits both alike.
 *
 * Measured over HTTP (p50/p99): `lineage(first: 100)` with totalCount on the deepest run of the
 * deep chain, `latestRun` and `children` on its root, a run-list page (`workflowRuns(first:
 * 100)` with totalCount), and, for context, a nested run-list page and a page filtered by
 * status. Targets (bench/targets.ts): the run-list page and `lineage(first: 100)` on the
 * pi-workflows file within 1.2× of our format's p50 in the same run; `latestRun` and `children`
 * within 3×. Also the time to open each file in this process (the pi-workflows open builds the
 * in-process run order index). bench/pi-workflows-writes.ts measures writes on the same files.
 */
import { join } from 'node:path';
import { WorkflowStore } from '../src/store/index.js';
import { copyIntoPiWorkflowsFile } from '../fixtures/pi-workflows-file.js';
import type { BenchContext } from './bench-context.js';
import { buildChain, spreadRestarts, type Chain } from './chains.js';
import { GraphQLHttpClient } from './http-load.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { summarize, type Figure } from './stats.js';
import { steppingClock, tempDir } from './store-inputs.js';
import { meets, type TargetKey } from './targets.js';

const BENCH = 'pi-workflows-file';
/** The bound of the queries held to no catalogued target (`latestRun`, `children`). */
const CONTEXT_RATIO = 3;
const SHORT_CHAIN = 5;
/** Short chains reserved per transaction while the database is built. */
const BATCH_CHAINS = 200;

interface Measured {
  name: string;
  query: string;
  variables: (deep: Chain) => Record<string, unknown>;
  /** The catalogued target (bench/targets.ts), `context` for ≤ 3× only, or none. */
  target: TargetKey | 'context' | undefined;
}

const QUERIES: Measured[] = [
  {
    name: 'lineage(first: 100) deepest run',
    query: 'query L($id: String!) { workflowRun(runId: $id) { lineage(first: 100) { totalCount edges { node { runId } } } } }',
    variables: (deep) => ({ id: deep.deepestRunId }),
    target: 'pi-workflows file lineage page',
  },
  {
    name: 'latestRun root',
    query: 'query N($id: String!) { workflowRun(runId: $id) { latestRun { runId } } }',
    variables: (deep) => ({ id: deep.rootRunId }),
    target: 'context',
  },
  {
    name: 'children root',
    query: 'query C($id: String!) { workflowRun(runId: $id) { children { runId } } }',
    variables: (deep) => ({ id: deep.rootRunId }),
    target: 'context',
  },
  {
    name: 'run list: workflowRuns(first: 100) + totalCount',
    query: 'query P { workflowRuns(first: 100) { totalCount edges { node { runId } } } }',
    variables: () => ({}),
    target: 'pi-workflows file run-list page',
  },
  {
    name: 'run list nested: parent rootRun children latestRun',
    query: 'query Q { workflowRuns(first: 100) { edges { node { runId parent { runId } rootRun { runId } children { runId } latestRun { runId } } } } }',
    variables: () => ({}),
    target: undefined,
  },
  {
    name: 'run list filtered: status FAILED + totalCount',
    query: 'query F { workflowRuns(first: 100, filter: { status: [FAILED] }) { totalCount edges { node { runId } } } }',
    variables: () => ({}),
    target: undefined,
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

/** The two files of the same runs, built by {@link buildBothFiles}. */
export interface BothFiles {
  /** The temporary directory holding both (also the project path); `remove` deletes it. */
  temp: { dir: string; remove: () => void };
  ourPath: string;
  piPath: string;
  /** The deep chain. */
  deep: Chain;
  /** Run count. */
  total: number;
  /** The setup figures (build and copy times). */
  figures: Figure[];
}

/**
 * Builds `total` runs (quick: 2,000, else 10,000; a deep chain of 1,000 / 200, the rest in
 * chains of five) in our format, then copies them into a pi-workflows state file beside it.
 * The caller removes `temp`.
 *
 * @param bench the benchmark name for progress lines and figures
 */
export function buildBothFiles(context: BenchContext, bench: string): BothFiles {
  const total = context.quick ? 2_000 : 10_000;
  const deepLength = context.quick ? 200 : 1_000;
  const temp = tempDir('bench-pi-file-');
  try {
    const ourPath = join(temp.dir, 'ours.db');
    const piPath = join(temp.dir, 'state.sqlite');
    context.progress(`${bench}: building ${total} runs in our format (a chain of ${deepLength}, the rest in chains of ${SHORT_CHAIN})`);
    const buildStarted = performance.now();
    const deep = buildOurFile(context, ourPath, temp.dir, total, deepLength);
    const buildMs = performance.now() - buildStarted;
    const copyStarted = performance.now();
    copyIntoPiWorkflowsFile(ourPath, piPath);
    const copyMs = performance.now() - copyStarted;
    context.progress(`${bench}: built in ${(buildMs / 1000).toFixed(1)} s, copied into a pi-workflows state file in ${(copyMs / 1000).toFixed(1)} s`);
    const figures: Figure[] = [
      { bench, name: `setup: ${total} runs, our format`, unit: 's', value: buildMs / 1000, n: total },
      { bench, name: 'setup: copy into a pi-workflows file', unit: 's', value: copyMs / 1000, n: total },
    ];
    return { temp, ourPath, piPath, deep, total, figures };
  } catch (error) {
    temp.remove();
    throw error;
  }
}

/** A server child and a keep-alive client (one connection) per file: our format first. */
export interface BothServers {
  servers: [ServerProcess, ServerProcess];
  ours: GraphQLHttpClient;
  pi: GraphQLHttpClient;
  /** Closes the clients and stops both children. */
  stop: () => Promise<void>;
}

/** Starts one server child on each file (read-write), each with its CPU profile when asked for. */
export async function startBothServers(context: BenchContext, bench: string, files: BothFiles): Promise<BothServers> {
  const servers: ServerProcess[] = [];
  const clients: GraphQLHttpClient[] = [];
  const stop = async (): Promise<void> => {
    for (const client of clients) client.close();
    for (const server of servers) await server.child.stop();
  };
  try {
    for (const [label, dbPath] of [
      ['ours', files.ourPath],
      ['pi', files.piPath],
    ] as const) {
      const server = await startServerProcess({
        dbPath,
        projectPath: files.temp.dir,
        ...(context.profileDir === undefined ? {} : { profileDir: context.profileDir, profileName: `${bench}-${label}` }),
      });
      servers.push(server);
      clients.push(new GraphQLHttpClient(server.url, 1));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { servers: servers as [ServerProcess, ServerProcess], ours: clients[0] as GraphQLHttpClient, pi: clients[1] as GraphQLHttpClient, stop };
}

/** The pi-workflows figure of a query: ratio to our format, held to the query's target. */
function piFigure(measured: Measured, pi: { p50: number; p99: number; n: number }, ours: { p50: number }): Figure {
  const ratio = pi.p50 / ours.p50;
  const figure: Figure = {
    bench: BENCH,
    name: `${measured.name}: pi-workflows file`,
    unit: 'ms',
    p50: pi.p50,
    p99: pi.p99,
    n: pi.n,
    baseline: 'our format',
    ratio,
  };
  if (measured.target === undefined) return figure;
  if (measured.target === 'context') return { ...figure, target: `≤ ${CONTEXT_RATIO}× our format`, met: ratio <= CONTEXT_RATIO };
  return meets(figure, measured.target, { baselineValue: ours.p50 });
}

export async function measurePiWorkflowsFile(context: BenchContext): Promise<Figure[]> {
  const requests = context.quick ? 50 : 300;
  const files = buildBothFiles(context, BENCH);
  let both: BothServers | undefined;
  try {
    const figures = [...files.figures];
    const openOurs = openTime(files.ourPath, files.temp.dir, 5);
    const openPi = openTime(files.piPath, files.temp.dir, 5);
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

    both = await startBothServers(context, BENCH, files);
    const { ours, pi } = both;
    for (const measured of QUERIES) {
      context.progress(`${BENCH}: ${measured.name}, ${requests} requests per format, alternating`);
      const variables = measured.variables(files.deep);
      const samples = { ours: [] as number[], pi: [] as number[] };
      for (let round = -5; round < requests; round += 1) {
        const answers = new Map<string, string>();
        // Each round sends to both files, the first one alternating, so neither always goes second.
        const order = [
          ['ours', ours],
          ['pi', pi],
        ] as const;
        for (const [label, client] of round % 2 === 0 ? order : [...order].reverse()) {
          const started = performance.now();
          const body = await client.postOk(measured.query, variables);
          const ms = performance.now() - started;
          if (round < 0) answers.set(label, JSON.stringify(body.data));
          else samples[label].push(ms);
        }
        if (round < 0 && answers.get('ours') !== answers.get('pi')) {
          throw new Error(`${measured.name}: the formats answer differently: ${answers.get('ours')?.slice(0, 300)} vs ${answers.get('pi')?.slice(0, 300)}`);
        }
      }
      const oursStats = summarize(samples.ours);
      const piStats = summarize(samples.pi);
      figures.push(
        { bench: BENCH, name: `${measured.name}: our format`, unit: 'ms', p50: oursStats.p50, p99: oursStats.p99, n: oursStats.n },
        piFigure(measured, piStats, oursStats),
      );
    }
    return figures;
  } finally {
    await both?.stop();
    files.temp.remove();
  }
}
