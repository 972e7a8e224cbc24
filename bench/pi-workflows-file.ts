/**
 * Benchmark `pi-workflows-file`, a pi-workflows state file against our own format: the same 10,000
 * runs (quick: 2,000) — one deep chain of 1,000 runs (quick: 200) with three restarts, the rest in
 * chains of five — built through the store in our format, then copied into a pi-workflows state
 * file (its 47 tables and its own indexes only: none on `runs.root_run_id` nor on
 * `runs.created_at`). Both files are served at once, each by a server in its own process; requests
 * alternate between them, one at a time, so background load hits both alike.
 *
 * Measured over HTTP (p50/p99): `lineage(first: 100)` with totalCount on the deepest run of the
 * deep chain, `latestRun` and `children` on its root, a run-list page (`workflowRuns(first:
 * 100)` with totalCount), and, for context, a nested run-list page and a page filtered by
 * status. Targets (bench/targets.ts): the run-list page and `lineage(first: 100)` on the
 * pi-workflows file within 1.2× of our format's p50 in the same run; `latestRun` and `children`
 * within 3×. Also the time to open each file in this process (the pi-workflows open builds the
 * in-process run order index). bench/pi-workflows-writes.ts measures writes on the same files.
 */
import { WorkflowStore } from '../src/store/index.js';
import type { BenchContext } from './harness/bench-context.js';
import { buildBothFiles, startBothServers, type BothServers } from './harness/both-files.js';
import type { Chain } from './harness/chains.js';
import { summarize, type Figure } from './harness/stats.js';
import { meets, type TargetKey } from './targets.js';

const BENCH = 'pi-workflows-file';
/** The bound of the queries held to no catalogued target (`latestRun`, `children`). */
const CONTEXT_RATIO = 3;

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
