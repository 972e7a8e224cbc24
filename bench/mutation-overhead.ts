/**
 * Benchmark `mutation-overhead`: `reserveWorkflowRun` with a claim over HTTP keep-alive at 1 and 8
 * concurrent clients, against two baselines taken in the same run:
 *
 * - the same store call in-process (`store.reserveWorkflowRun(input, claim)`, the call the
 *   resolver makes, run inside the server's process with the definition digest precomputed);
 * - a trivial `{ __typename }` query through the same yoga server (HTTP + yoga + envelop cost).
 *
 * Overhead per op = 1/thr(reserve) − 1/thr(__typename) − 1/thr(raw store): what the GraphQL
 * mutation adds beyond "an HTTP request" plus "the store work", also as a percentage of
 * (1/thr(__typename) + 1/thr(raw)). Every reservation has its own run id and origin session
 * (one active queue entry per session).
 *
 * The machine may be shared, so the figures run in many short segments, round-robin, and each
 * rate is the median of its segments. Two more decompositions help read the result (no
 * target): against the store time measured inside the server on the very writes the resolvers
 * made (`store.writeGroups`: each write's share of its grouped transaction, COMMIT and fsync
 * included, under the same conditions as the HTTP requests, unlike a tight loop), and in server CPU
 * time per operation (`process.cpuUsage()` of the server process around each segment).
 *
 * Its targets (bench/targets.ts) against the fsync-bound commit rate of the same
 * run: single-row INSERT transactions (WAL, synchronous=FULL) in the server process on the same
 * disk, in segments round-robin with the others. Reserve+claim over HTTP at 8 clients ≥ 0.5× that
 * rate; the in-process store call ≤ 2× one such commit; the overhead % at 1 and 8 clients ≤ 25.
 */
import { join } from 'node:path';
import type { BenchContext } from './harness/bench-context.js';
import { closedLoop, GraphQLHttpClient } from './harness/http-load.js';
import { startServerProcess } from './harness/server-process.js';
import { median, summarize, type Figure } from './harness/stats.js';
import { meets } from './targets.js';
import { RESERVE_MUTATION, reserveVariables, tempDir } from './harness/store-inputs.js';

const BENCH = 'mutation-overhead';
const TYPENAME = '{ __typename }';

interface Segment {
  /** Operations per second (wall time). */
  rate: number;
  /** Server CPU per operation, µs. */
  cpuPerOp: number;
  /** Wall time per mutation inside the store's grouped write transactions (`store.writeGroups`), µs. */
  storePerOp: number;
  /** Mutations per COMMIT (writes per group of `store.writeAsync`); 0 when none. */
  writesPerCommit: number;
  latencies: number[];
}

export async function measureMutationOverhead(context: BenchContext): Promise<Figure[]> {
  const segmentMs = context.quick ? 400 : 800;
  const rounds = context.quick ? 3 : 8;
  const concurrencies = [1, 8];
  const temp = tempDir('bench-mutation-');
  const server = await startServerProcess({
    dbPath: join(temp.dir, 'state.db'),
    projectPath: temp.dir,
    ...(context.profileDir === undefined ? {} : { profileDir: context.profileDir, profileName: 'mutation-overhead-server' }),
  });
  const client = new GraphQLHttpClient(server.url, Math.max(...concurrencies));
  let sequence = 0;
  const reserveOnce = async (): Promise<void> => {
    sequence += 1;
    const id = `http-${sequence}`;
    const body = await client.postOk(RESERVE_MUTATION, reserveVariables(id, `${id}-session`, `${id}-token`));
    const result = (body.data as { reserveWorkflowRun: { __typename: string; adopted?: boolean } }).reserveWorkflowRun;
    if (result.__typename !== 'ReserveWorkflowRunSuccess' || result.adopted !== false) {
      throw new Error(`reserve answered ${JSON.stringify(result)}`);
    }
  };
  const typenameOnce = async (): Promise<void> => {
    const body = await client.postOk(TYPENAME);
    if ((body.data as { __typename?: string }).__typename !== 'Query') throw new Error('unexpected __typename answer');
  };
  const httpSegment = async (concurrency: number, send: () => Promise<void>): Promise<Segment> => {
    await server.child.call('storeTime');
    const cpuBefore = await server.child.call<number>('cpuNow');
    const result = await closedLoop({ concurrency, durationMs: segmentMs, send });
    const cpuUs = (await server.child.call<number>('cpuNow')) - cpuBefore;
    const store = await server.child.call<{ count: number; ms: number; commits: number }>('storeTime');
    return {
      rate: result.rate,
      cpuPerOp: cpuUs / result.count,
      storePerOp: store.count === 0 ? 0 : (store.ms * 1000) / store.count,
      writesPerCommit: store.commits === 0 ? 0 : store.count / store.commits,
      latencies: result.latencies,
    };
  };
  let rawSequence = 0;
  const rawSegment = async (count: number): Promise<Segment> => {
    rawSequence += 1;
    const result = await server.child.call<{ ms: number; count: number; cpuUs: number }>('rawReserve', { count, prefix: `raw-${rawSequence}` });
    return {
      rate: (result.count * 1000) / result.ms,
      cpuPerOp: result.cpuUs / result.count,
      storePerOp: (result.ms * 1000) / result.count,
      writesPerCommit: 1,
      latencies: [],
    };
  };

  const commitSegment = async (count: number): Promise<Segment> => {
    const result = await server.child.call<{ ms: number; count: number; cpuUs: number }>('rawCommit', { count });
    return { rate: (result.count * 1000) / result.ms, cpuPerOp: result.cpuUs / result.count, storePerOp: 0, writesPerCommit: 1, latencies: [] };
  };

  try {
    context.progress(`${BENCH}: warming up (server pid ${server.pid})`);
    await closedLoop({ concurrency: 8, durationMs: 400, send: typenameOnce });
    await closedLoop({ concurrency: 8, durationMs: 400, send: reserveOnce });
    const calibration = await rawSegment(100);
    const rawCount = Math.max(50, Math.round((calibration.rate * segmentMs) / 1000));
    const commitCalibration = await commitSegment(100);
    const commitCount = Math.max(50, Math.round((commitCalibration.rate * segmentMs) / 1000));

    const typename = new Map<number, Segment[]>(concurrencies.map((c) => [c, []]));
    const reserve = new Map<number, Segment[]>(concurrencies.map((c) => [c, []]));
    const raw: Segment[] = [];
    const commits: Segment[] = [];
    for (let round = 1; round <= rounds; round += 1) {
      context.progress(
        `${BENCH}: round ${round}/${rounds}: { __typename } and reserveWorkflowRun (claim) over HTTP at ${concurrencies.join(' and ')} client(s), ` +
          `${segmentMs} ms each; ${rawCount} store.reserveWorkflowRun calls and ${commitCount} raw commits in the server process`,
      );
      for (const concurrency of concurrencies) {
        typename.get(concurrency)?.push(await httpSegment(concurrency, typenameOnce));
        reserve.get(concurrency)?.push(await httpSegment(concurrency, reserveOnce));
      }
      raw.push(await rawSegment(rawCount));
      commits.push(await commitSegment(commitCount));
    }
    const commitRate = median(commits.map((segment) => segment.rate));

    const rawRate = median(raw.map((segment) => segment.rate));
    const rawCpu = median(raw.map((segment) => segment.cpuPerOp));
    const figures: Figure[] = [
      {
        bench: BENCH,
        name: "one raw fsync'd commit (single-row INSERT)",
        unit: 'ops/s',
        rate: commitRate,
        n: commitCount * rounds,
        note: `WAL, synchronous=FULL, beside the server's database: ${(1e6 / commitRate).toFixed(0)} µs per commit (median of ${rounds} segments)`,
      },
      meets(
        {
          bench: BENCH,
          name: 'raw store reserve+claim (in-process)',
          unit: 'ops/s',
          rate: rawRate,
          n: rawCount * rounds,
          baseline: "one raw fsync'd commit",
          ratio: commitRate / rawRate,
          note: `store.reserveWorkflowRun(input, claim) in the server process: ${(1e6 / rawRate).toFixed(0)} µs wall, ${rawCpu.toFixed(0)} µs CPU per op (medians of ${rounds} segments); ratio = time per call ÷ time per raw commit`,
        },
        'in-process store call',
        { baselineValue: commitRate },
      ),
    ];
    for (const concurrency of concurrencies) {
      const typenameSegments = typename.get(concurrency) ?? [];
      const reserveSegments = reserve.get(concurrency) ?? [];
      const typenameRate = median(typenameSegments.map((segment) => segment.rate));
      const reserveRate = median(reserveSegments.map((segment) => segment.rate));
      const typenameCpu = median(typenameSegments.map((segment) => segment.cpuPerOp));
      const reserveCpu = median(reserveSegments.map((segment) => segment.cpuPerOp));
      const typenameLatency = summarize(typenameSegments.flatMap((segment) => segment.latencies));
      const reserveLatency = summarize(reserveSegments.flatMap((segment) => segment.latencies));
      const perOp = 1e6 / reserveRate;
      const basis = 1e6 / typenameRate + 1e6 / rawRate;
      const overhead = perOp - basis;
      const percent = (overhead / basis) * 100;
      const cpuBasis = typenameCpu + rawCpu;
      const cpuOverhead = reserveCpu - cpuBasis;
      const inPathStore = median(reserveSegments.map((segment) => segment.storePerOp));
      const writesPerCommit = median(reserveSegments.map((segment) => segment.writesPerCommit));
      const inPathBasis = 1e6 / typenameRate + inPathStore;
      const inPathOverhead = perOp - inPathBasis;
      figures.push(
        {
          bench: BENCH,
          name: `{ __typename } c=${concurrency}`,
          unit: 'ms',
          p50: typenameLatency.p50,
          p99: typenameLatency.p99,
          rate: typenameRate,
          n: typenameLatency.n,
          note: `server CPU ${typenameCpu.toFixed(0)} µs per request`,
        },
        {
          bench: BENCH,
          name: `reserveWorkflowRun c=${concurrency}`,
          unit: 'ms',
          p50: reserveLatency.p50,
          p99: reserveLatency.p99,
          rate: reserveRate,
          n: reserveLatency.n,
          baseline: '__typename + raw store',
          ratio: perOp / basis,
          note: `server CPU ${reserveCpu.toFixed(0)} µs per request; rate/value = requests per second`,
        },
        ...(concurrency === 8
          ? [
              meets(
                {
                  bench: BENCH,
                  name: `reserveWorkflowRun c=${concurrency} vs fsync-bound commits`,
                  unit: 'ops/s',
                  rate: reserveRate,
                  baseline: "raw fsync'd commits",
                  ratio: reserveRate / commitRate,
                },
                'reserve+claim HTTP c=8',
                { baselineValue: commitRate },
              ),
            ]
          : []),
        {
          bench: BENCH,
          name: `overhead per op c=${concurrency}`,
          unit: 'µs',
          value: overhead,
          baseline: '__typename + raw store',
          note: `1/thr(reserve) ${perOp.toFixed(0)} − 1/thr(__typename) ${(1e6 / typenameRate).toFixed(0)} − 1/thr(raw) ${(1e6 / rawRate).toFixed(0)} µs`,
        },
        meets(
          {
            bench: BENCH,
            name: `overhead c=${concurrency}`,
            unit: '%',
            value: percent,
            baseline: '__typename + raw store',
            ratio: perOp / basis,
          },
          concurrency === 1 ? 'GraphQL overhead c=1' : 'GraphQL overhead c=8',
          { baselineValue: basis },
        ),
        {
          bench: BENCH,
          name: `overhead vs in-path store time c=${concurrency}`,
          unit: 'µs',
          value: inPathOverhead,
          baseline: '__typename + store time in the resolver',
          ratio: perOp / inPathBasis,
          note:
            `the grouped write transactions inside the server during the HTTP segments took ${inPathStore.toFixed(0)} µs per op ` +
            `(tight loop: ${(1e6 / rawRate).toFixed(0)} µs), ${writesPerCommit.toFixed(1)} mutations per COMMIT; overhead ${((inPathOverhead / inPathBasis) * 100).toFixed(0)} % of __typename + that (no target)`,
        },
        {
          bench: BENCH,
          name: `CPU overhead per op c=${concurrency}`,
          unit: 'µs',
          value: cpuOverhead,
          baseline: '__typename + raw store CPU',
          ratio: reserveCpu / cpuBasis,
          note: `server CPU: reserve ${reserveCpu.toFixed(0)} − __typename ${typenameCpu.toFixed(0)} − raw ${rawCpu.toFixed(0)} µs = ${((cpuOverhead / cpuBasis) * 100).toFixed(0)} % (no target)`,
        },
      );
    }
    return figures;
  } finally {
    client.close();
    await server.child.stop();
    temp.remove();
  }
}
