/**
 * Benchmark `pi-workflows-writes`: writes on a pi-workflows state file against the same writes
 * on our own file of the same runs (the 10,000 runs of bench/pi-workflows-file.ts, built by
 * bench/harness/both-files.ts; quick: 2,000), each file served by a server in its own process,
 * read-write:
 *
 * - reserve+claim: `reserveWorkflowRun` with a claim (prepare-or-adopt), a new root run with its
 *   own origin session each time;
 * - one viewer revision: `renewWorkflowRunClaim` (a heartbeat: lease times and one revision of
 *   `summary` + `replay` deltas, the cheapest mutation that records a revision) on one claimed run.
 *
 * Over HTTP, one request at a time, in interleaved rounds: the two files take turns request by
 * request (the first one alternating), so background load hits both alike. Figures: p50/p99
 * latency per file, the pi-workflows file's p50 ÷ ours (target ≤ 1.2×, bench/targets.ts), and
 * the server CPU per request (`process.cpuUsage()` of each child around each round of 10
 * requests per file; median of the rounds). For context, a run-list page read right after each
 * reserve (on a pi-workflows file the in-process run index catches up first), and the same store
 * calls inside each server's process (`store.reserveWorkflowRun`, `store.renewWorkflowRunClaim`,
 * `store.recordViewerDeltas` with one timeline draft), in segments alternating file by file.
 */
import type { BenchContext } from './harness/bench-context.js';
import type { Child } from './harness/ipc.js';
import { buildBothFiles, startBothServers, type BothServers } from './harness/both-files.js';
import { median, summarize, type Figure } from './harness/stats.js';
import { RESERVE_MUTATION, reserveVariables } from './harness/store-inputs.js';
import { meets, type TargetKey } from './targets.js';
import type { GraphQLHttpClient } from './harness/http-load.js';

const BENCH = 'pi-workflows-writes';
const LEASE_MS = 60_000;

const RENEW_MUTATION = `mutation Renew($input: RenewWorkflowRunClaimInput!) {
  renewWorkflowRunClaim(input: $input) {
    __typename
    ... on RenewWorkflowRunClaimSuccess { run { runId claim { leaseGeneration expiresAt } } }
    ... on Error { code message }
  }
}`;

/** The run-list page of bench/pi-workflows-file.ts (newest first, run ids only). */
const RUN_LIST_PAGE = 'query P { workflowRuns(first: 100) { totalCount edges { node { runId } } } }';

type Label = 'ours' | 'pi';

/** One file's side: its client, its server child, and a claimed run to renew. */
interface Side {
  label: Label;
  client: GraphQLHttpClient;
  child: Child;
  claimed: { runId: string; claimToken: string };
}

/** What the rounds collected per file. */
interface Collected {
  latencies: number[];
  /** Server CPU per request of each block, µs. */
  cpuPerOp: number[];
}

/** The two files' samples of one measured operation. */
type Samples = Record<Label, Collected>;

function emptySamples(): Samples {
  return { ours: { latencies: [], cpuPerOp: [] }, pi: { latencies: [], cpuPerOp: [] } };
}

/**
 * Runs `rounds` rounds of `block` requests per side, the sides taking turns request by request
 * (which one goes first alternates), so a burst of background load (a slow fsync) hits both
 * alike. Each side's server CPU is read around the round: the two servers are separate
 * processes, so each reading holds only its own side's requests. Rounds below 0 warm up and are
 * not kept. `send` may return the ms of the part it measured (else the whole call is timed).
 */
async function interleaved(sides: readonly [Side, Side], rounds: number, block: number, send: (side: Side) => Promise<number | void>): Promise<Samples> {
  const samples = emptySamples();
  const cpuNow = (side: Side): Promise<number> => side.child.call<number>('cpuNow');
  for (let round = -2; round < rounds; round += 1) {
    const cpuBefore = await Promise.all(sides.map(cpuNow));
    const latencies: Record<Label, number[]> = { ours: [], pi: [] };
    for (let index = 0; index < block; index += 1) {
      for (const side of (round + index) % 2 === 0 ? sides : [sides[1], sides[0]]) {
        const started = performance.now();
        const measured = await send(side);
        latencies[side.label].push(typeof measured === 'number' ? measured : performance.now() - started);
      }
    }
    const cpuAfter = await Promise.all(sides.map(cpuNow));
    if (round < 0) continue;
    sides.forEach((side, at) => {
      samples[side.label].latencies.push(...latencies[side.label]);
      samples[side.label].cpuPerOp.push(((cpuAfter[at] as number) - (cpuBefore[at] as number)) / block);
    });
  }
  return samples;
}

/** The HTTP figures of one operation: latency per file (the pi-workflows one held to `target`) and CPU per request. */
function httpFigures(name: string, samples: Samples, target: TargetKey): Figure[] {
  const ours = summarize(samples.ours.latencies);
  const pi = summarize(samples.pi.latencies);
  const oursCpu = median(samples.ours.cpuPerOp);
  const piCpu = median(samples.pi.cpuPerOp);
  return [
    { bench: BENCH, name: `${name}: our format`, unit: 'ms', p50: ours.p50, p99: ours.p99, n: ours.n },
    meets(
      {
        bench: BENCH,
        name: `${name}: pi-workflows file`,
        unit: 'ms',
        p50: pi.p50,
        p99: pi.p99,
        n: pi.n,
        baseline: 'our format',
        ratio: pi.p50 / ours.p50,
      },
      target,
      { baselineValue: ours.p50 },
    ),
    {
      bench: BENCH,
      name: `${name}: server CPU per request, pi-workflows file`,
      unit: 'µs',
      value: piCpu,
      n: samples.pi.cpuPerOp.length,
      baseline: `our format = ${oursCpu.toFixed(0)} µs`,
      ratio: piCpu / oursCpu,
    },
  ];
}

/** Per-call wall time and CPU of a store call in each server's process, in alternating segments. */
async function inProcess(
  name: string,
  sides: readonly [Side, Side],
  rounds: number,
  call: (side: Side, round: number) => Promise<{ ms: number; count: number; cpuUs: number }>,
): Promise<Figure[]> {
  const wall: Record<Label, number[]> = { ours: [], pi: [] };
  const cpu: Record<Label, number[]> = { ours: [], pi: [] };
  let count = 0;
  for (let round = -1; round < rounds; round += 1) {
    for (const side of round % 2 === 0 ? sides : [sides[1], sides[0]]) {
      const result = await call(side, round + 1);
      if (round < 0) continue;
      wall[side.label].push((result.ms * 1000) / result.count);
      cpu[side.label].push(result.cpuUs / result.count);
      if (side.label === 'pi') count += result.count;
    }
  }
  const [oursWall, piWall, oursCpu, piCpu] = [median(wall.ours), median(wall.pi), median(cpu.ours), median(cpu.pi)];
  return [
    {
      bench: BENCH,
      name: `${name}: our format`,
      unit: 'µs',
      value: oursWall,
      n: count,
      note: `${oursCpu.toFixed(0)} µs CPU per call (median of ${rounds} segments)`,
    },
    {
      bench: BENCH,
      name: `${name}: pi-workflows file`,
      unit: 'µs',
      value: piWall,
      n: count,
      baseline: 'our format',
      ratio: piWall / oursWall,
      note: `${piCpu.toFixed(0)} µs CPU per call, ${(piCpu / oursCpu).toFixed(2)}× ours`,
    },
  ];
}

export async function measurePiWorkflowsWrites(context: BenchContext): Promise<Figure[]> {
  const rounds = context.quick ? 8 : 30;
  const block = 10;
  const files = buildBothFiles(context, BENCH);
  let both: BothServers | undefined;
  try {
    const figures = [...files.figures];
    both = await startBothServers(context, BENCH, files);
    let sequence = 0;
    const reserve = async (client: GraphQLHttpClient, id: string): Promise<void> => {
      const body = await client.postOk(RESERVE_MUTATION, reserveVariables(id, `${id}-session`, `${id}-token`));
      const result = (body.data as { reserveWorkflowRun: { __typename: string; adopted?: boolean } }).reserveWorkflowRun;
      if (result.__typename !== 'ReserveWorkflowRunSuccess' || result.adopted !== false) throw new Error(`reserve answered ${JSON.stringify(result)}`);
    };
    const sides = (['ours', 'pi'] as const).map((label, index): Side => {
      const server = (both as BothServers).servers[index] as BothServers['servers'][number];
      const id = `renewed-${label}`;
      return {
        label,
        client: label === 'ours' ? (both as BothServers).ours : (both as BothServers).pi,
        child: server.child,
        claimed: { runId: id, claimToken: `${id}-token` },
      };
    }) as [Side, Side];
    for (const side of sides) await reserve(side.client, side.claimed.runId);

    context.progress(`${BENCH}: reserveWorkflowRun with a claim over HTTP, ${rounds} rounds of ${block} per file, request by request`);
    const reserves = await interleaved(sides, rounds, block, async (side) => {
      sequence += 1;
      await reserve(side.client, `bench-${side.label}-${sequence}`);
    });
    figures.push(...httpFigures('reserveWorkflowRun with a claim (HTTP)', reserves, 'pi-workflows file reserve+claim'));

    context.progress(`${BENCH}: renewWorkflowRunClaim (one viewer revision) over HTTP, ${rounds} rounds of ${block} per file, request by request`);
    const renewals = await interleaved(sides, rounds, block, async (side) => {
      const body = await side.client.postOk(RENEW_MUTATION, { input: { ...side.claimed, leaseMs: LEASE_MS } });
      const result = (body.data as { renewWorkflowRunClaim: { __typename: string } }).renewWorkflowRunClaim;
      if (result.__typename !== 'RenewWorkflowRunClaimSuccess') throw new Error(`renew answered ${JSON.stringify(result)}`);
    });
    figures.push(...httpFigures('renewWorkflowRunClaim, one viewer revision (HTTP)', renewals, 'pi-workflows file viewer revision'));

    context.progress(`${BENCH}: a run-list page right after each reserve (the run index catching up on a pi-workflows file), ${rounds} rounds of ${block}`);
    const pages = await interleaved(sides, rounds, block, async (side) => {
      sequence += 1;
      await reserve(side.client, `bench-${side.label}-${sequence}`);
      const started = performance.now();
      const body = await side.client.postOk(RUN_LIST_PAGE);
      const ms = performance.now() - started;
      const edges = (body.data as { workflowRuns: { edges: Array<{ node: { runId: string } }> } }).workflowRuns.edges;
      if (edges[0]?.node.runId !== `bench-${side.label}-${sequence}`) throw new Error(`the page after a reserve starts with ${edges[0]?.node.runId}`);
      return ms;
    });
    const pageOurs = summarize(pages.ours.latencies);
    const pagePi = summarize(pages.pi.latencies);
    const pageName = 'workflowRuns(first: 100) + totalCount right after a reserve (HTTP)';
    figures.push(
      { bench: BENCH, name: `${pageName}: our format`, unit: 'ms', p50: pageOurs.p50, p99: pageOurs.p99, n: pageOurs.n },
      {
        bench: BENCH,
        name: `${pageName}: pi-workflows file`,
        unit: 'ms',
        p50: pagePi.p50,
        p99: pagePi.p99,
        n: pagePi.n,
        baseline: 'our format',
        ratio: pagePi.p50 / pageOurs.p50,
        note: 'the page only is timed; the newest run is the one just reserved',
      },
    );

    context.progress(`${BENCH}: the same store calls inside each server's process, ${rounds} segments of ${block * 2} per file, alternating`);
    figures.push(
      ...(await inProcess('store.reserveWorkflowRun with a claim (in-process)', sides, rounds, (side, round) =>
        side.child.call('rawReserve', { count: block * 2, prefix: `raw-${side.label}-${round}` }),
      )),
      ...(await inProcess('store.renewWorkflowRunClaim (in-process)', sides, rounds, (side) =>
        side.child.call('rawRenew', { ...side.claimed, count: block * 2 }),
      )),
      ...(await inProcess('store.recordViewerDeltas, one draft (in-process)', sides, rounds, (side, round) =>
        side.child.call('rawRevisions', { runId: side.claimed.runId, count: block * 2, first: round * block * 2 }),
      )),
    );
    return figures;
  } finally {
    await both?.stop();
    files.temp.remove();
  }
}
