/**
 * Benchmark `fanout`: 1,000, 5,000, 20,000 and 50,000 graphql-ws subscribers (quick: 1,000 and
 * 5,000) of `workflowRunDeltas` on one run. The server runs alone in its own process; the
 * subscribers live in 4 client processes (bench/harness/fanout-client.ts), 100 subscriptions
 * multiplexed per WebSocket. Baseline: the same procedure with 1 subscriber.
 *
 * Pacing: the server process commits 100 revisions (one timeline draft each, through
 * `store.recordViewerDeltas`, stamping `Date.now()` after the commit returns) on IPC command.
 * Each commit comes at least 20 ms after the previous one *and* only once every subscriber
 * got the previous revision, so a revision never queues behind the previous one and each
 * latency is that of one fan-out. Latency = receipt `Date.now()` in the client − commit
 * stamp (same machine clock), client-side queueing included.
 *
 * Revisions per count: 100 (20,000 subscribers: 30 and 50,000: 10, as one fan-out takes seconds
 * there; --quick: 20, and 10 for 5,000). Its targets: CPU per delivery, p99 at
 * 1,000 and 20,000, 50,000 held (bench/targets.ts).
 *
 * Memory per subscriber = (server RSS / heap after every subscription is registered −
 * before any client connected) ÷ subscribers, both after a full GC.
 */
import { join } from 'node:path';
import { sleep, type BenchContext } from './harness/bench-context.js';
import { startChild } from './harness/ipc.js';
import { startServerProcess } from './harness/server-process.js';
import { IntHistogram, type Figure } from './harness/stats.js';
import { meets, type TargetKey } from './targets.js';
import { tempDir } from './harness/store-inputs.js';
import { DeliveryTracker, PER_SOCKET, subscribeAll, waitForWaiters } from './harness/subscribers.js';

const BENCH = 'fanout';
const CLIENT_PROCESSES = 4;
const COMMIT_INTERVAL_MS = 20;
/** Subscriber counts whose commit→receipt p99 is held to a target. */
const P99_TARGETS: Readonly<Record<number, TargetKey>> = { 1_000: 'fan-out 1,000 subscribers p99', 20_000: 'fan-out 20,000 subscribers p99' };
const TARGET_HELD = 50_000;

/** What one fan-out phase measured. */
export interface FanoutResult {
  subscribers: number;
  latency: IntHistogram;
  expected: number;
  received: number;
  missing: number;
  outOfOrder: number;
  duplicates: number;
  snapshots: number;
  errors: string[];
  subscribeMs: number;
  commitPhaseMs: number;
  revisions: number;
  rssPerSubscriber: number;
  heapPerSubscriber: number;
  rssBefore: number;
  rssAfter: number;
  /** Revisions whose delivery to every subscriber timed out. */
  stalls: number;
  /** Server CPU (user + system) during the commit phase ÷ revisions, µs. */
  serverCpuPerRevisionUs: number;
}

interface Memory {
  rss: number;
  heapUsed: number;
}

/** Runs one phase: fresh server, `subscribers` subscriptions, `revisions` paced commits. */
export async function fanoutPhase(context: BenchContext, subscribers: number, revisions: number): Promise<FanoutResult> {
  const temp = tempDir('bench-fanout-');
  const server = await startServerProcess({
    dbPath: join(temp.dir, 'state.db'),
    projectPath: temp.dir,
    ...(context.profileDir === undefined ? {} : { profileDir: context.profileDir, profileName: `fanout-${subscribers}-server` }),
  });
  const processes = Math.min(CLIENT_PROCESSES, subscribers);
  const clients = await Promise.all(Array.from({ length: processes }, () => startChild('bench/harness/fanout-client.ts')));
  try {
    const runId = 'fanout-run';
    const created = await server.child.call<{ revision: number }>('createRun', { runId });
    const before = await server.child.call<Memory>('memory');

    context.progress(`${BENCH}: ${subscribers} subscriber(s): subscribing over ${Math.ceil(subscribers / PER_SOCKET)} socket(s) from ${processes} process(es)`);
    const subscribeStarted = performance.now();
    await subscribeAll(clients, server.url, runId, subscribers, created.revision);
    await waitForWaiters(server, subscribers, 180_000);
    const subscribeMs = performance.now() - subscribeStarted;
    const after = await server.child.call<Memory>('memory');

    const tracker = new DeliveryTracker(clients);

    context.progress(
      `${BENCH}: ${subscribers} subscriber(s): committing ${revisions} revisions (≥ ${COMMIT_INTERVAL_MS} ms apart, each after the previous one reached everyone)`,
    );
    const commits: Record<number, number> = {};
    let stalls = 0;
    let previous: number | undefined;
    let lastCommitAt = 0;
    const commitStarted = performance.now();
    const cpuBefore = await server.child.call<number>('cpuNow');
    for (let index = 0; index < revisions; index += 1) {
      if (previous !== undefined && !(await tracker.waitAll(previous, 60_000))) {
        stalls += 1;
        if (stalls >= 3) break; // broken delivery: report it rather than wait for every revision
      }
      const wait = lastCommitAt + COMMIT_INTERVAL_MS - performance.now();
      if (wait > 0) await sleep(wait);
      lastCommitAt = performance.now();
      const commit = await server.child.call<{ revision: number; at: number }>('commit', { runId, index });
      commits[commit.revision] = commit.at;
      previous = commit.revision;
      if (subscribers >= 1_000 && (index + 1) % Math.max(1, Math.round(revisions / 4)) === 0) {
        context.progress(`${BENCH}: ${subscribers} subscribers: ${index + 1}/${revisions} revisions committed`);
      }
    }
    if (previous !== undefined && !(await tracker.waitAll(previous, 60_000))) stalls += 1;
    const commitPhaseMs = performance.now() - commitStarted;
    const serverCpuUs = (await server.child.call<number>('cpuNow')) - cpuBefore;

    const latency = new IntHistogram();
    const result: FanoutResult = {
      subscribers,
      latency,
      expected: subscribers * revisions,
      received: 0,
      missing: 0,
      outOfOrder: 0,
      duplicates: 0,
      snapshots: 0,
      errors: [],
      subscribeMs,
      commitPhaseMs,
      revisions,
      rssPerSubscriber: (after.rss - before.rss) / subscribers,
      heapPerSubscriber: (after.heapUsed - before.heapUsed) / subscribers,
      rssBefore: before.rss,
      rssAfter: after.rss,
      stalls,
      serverCpuPerRevisionUs: serverCpuUs / revisions,
    };
    for (const client of clients) {
      const report = await client.call<{
        histogram: number[];
        received: number;
        missing: number;
        outOfOrder: number;
        duplicates: number;
        snapshots: number;
        errors: string[];
      }>('report', { commits });
      latency.merge(report.histogram);
      result.received += report.received;
      result.missing += report.missing;
      result.outOfOrder += report.outOfOrder;
      result.duplicates += report.duplicates;
      result.snapshots += report.snapshots;
      result.errors.push(...report.errors);
    }
    return result;
  } finally {
    await Promise.all(clients.map((client) => client.stop()));
    await server.child.stop();
    temp.remove();
  }
}

function held(result: FanoutResult): boolean {
  return (
    result.missing === 0 &&
    result.outOfOrder === 0 &&
    result.duplicates === 0 &&
    result.snapshots === 0 &&
    result.errors.length === 0 &&
    result.stalls === 0 &&
    result.received === result.expected
  );
}

export async function measureFanout(context: BenchContext): Promise<Figure[]> {
  // [subscribers, revisions]: 100 revisions per count; fewer where one fan-out takes seconds
  // (20,000) and in --quick mode, so the whole run stays within its time budget.
  const plan: Array<[number, number]> = context.quick
    ? [
        [1, 20],
        [1_000, 20],
        [5_000, 10],
      ]
    : [
        [1, 100],
        [1_000, 100],
        [5_000, 100],
        [20_000, 30],
        [50_000, 10],
      ];
  const figures: Figure[] = [];
  let baselineP50: number | undefined;
  let baselineCpu = Number.NaN;
  for (const [subscribers, revisions] of plan) {
    const result = await fanoutPhase(context, subscribers, revisions);
    const p50 = result.latency.percentile(50);
    const p99 = result.latency.percentile(99);
    const label = `${subscribers.toLocaleString('en-US')} sub${subscribers === 1 ? '' : 's'}`;
    if (subscribers === 1) {
      baselineP50 = p50;
      baselineCpu = result.serverCpuPerRevisionUs;
    }
    const ok = held(result);
    const latencyFigure: Figure = {
      bench: BENCH,
      name: `${label}: commit→receipt`,
      unit: 'ms',
      p50,
      p99,
      n: result.received,
      ...(subscribers === 1 || baselineP50 === undefined ? {} : { baseline: '1 sub', ratio: p50 / Math.max(1, baselineP50) }),
      note:
        `${result.revisions} revisions in ${(result.commitPhaseMs / 1000).toFixed(1)} s (${(result.commitPhaseMs / result.revisions).toFixed(0)} ms per revision); ` +
        `delivered ${result.received}/${result.expected}, out of order ${result.outOfOrder}, duplicates ${result.duplicates}, ` +
        `snapshots ${result.snapshots}, stalls ${result.stalls}, errors ${result.errors.length}${result.errors.length > 0 ? ` (${result.errors[0] as string})` : ''}`,
    };
    const p99Target = P99_TARGETS[subscribers];
    figures.push(
      p99Target === undefined
        ? latencyFigure
        : meets(latencyFigure, p99Target, {
            ...(baselineP50 === undefined ? {} : { baselineValue: baselineP50 }),
            also: { ok, why: 'not every revision reached every subscriber once, in order' },
          }),
    );
    if (subscribers === 1) {
      figures.push({
        bench: BENCH,
        name: `${label}: server CPU per revision`,
        unit: 'µs',
        value: result.serverCpuPerRevisionUs,
        note: 'server process.cpuUsage() over the commit phase ÷ revisions (commit, wake-up, one delivery)',
      });
    } else {
      figures.push(
        meets(
          {
            bench: BENCH,
            name: `${label}: server CPU per delivery`,
            unit: 'µs',
            value: (result.serverCpuPerRevisionUs - baselineCpu) / (subscribers - 1),
            baseline: '1 sub (CPU per revision)',
            ratio: result.serverCpuPerRevisionUs / baselineCpu,
            note: `(CPU per revision − the 1-sub CPU per revision) ÷ (subscribers − 1); ${(result.serverCpuPerRevisionUs / 1000).toFixed(0)} ms CPU per revision`,
          },
          'fan-out CPU per subscriber and revision µs',
          { baselineValue: baselineCpu },
        ),
      );
    }
    if (subscribers === 1) continue;
    const heldFigure: Figure = {
      bench: BENCH,
      name: `${label}: held (all delivered in order)`,
      unit: 'subs',
      value: ok ? subscribers : 0,
      note: `subscribing took ${(result.subscribeMs / 1000).toFixed(1)} s (until every subscription waited on the change feed)`,
    };
    figures.push(subscribers === TARGET_HELD ? meets(heldFigure, 'fan-out 50,000 subscribers held') : heldFigure);
    figures.push({
      bench: BENCH,
      name: `${label}: server memory per subscriber`,
      unit: 'KiB',
      value: result.rssPerSubscriber / 1024,
      baseline: 'RSS before subscribing',
      ratio: result.rssAfter / result.rssBefore,
      note: `RSS ${(result.rssBefore / 2 ** 20).toFixed(0)} → ${(result.rssAfter / 2 ** 20).toFixed(0)} MiB; heap ${(result.heapPerSubscriber / 1024).toFixed(1)} KiB per subscriber (after GC)`,
    });
  }
  if (context.quick) {
    figures.push({
      bench: BENCH,
      name: '20,000 and 50,000 subs',
      unit: '',
      note: 'not run in --quick mode (their targets are checked by the full run)',
    });
  }
  return figures;
}
