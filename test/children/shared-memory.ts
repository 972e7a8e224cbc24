/**
 * Child process of test/faults/shared-memory.test.ts, run with `--expose-gc`: the real server
 * and its graphql-ws clients in one process, so the heap it measures holds everything a
 * subscription leaves behind on either side.
 *
 * `runs` runs, each with a full retained window (260 revisions, read once so the delta read
 * cache is at its steady size). Then `cyclesPerRun` cycles per run, `concurrency` runs at a
 * time over 10 sockets: commit one revision, subscribe at three revisions before the head
 * (cursors vary from cycle to cycle and run to run), take the three events, complete. The heap
 * is measured (settled: forced collections between event-loop turns, the lowest of 8 readings)
 * after a warm-up of 5 cycles per run, and again after the cycles once the server holds no
 * subscription and nothing waits on the change feed.
 *
 * argv: <dir> <runs> <cyclesPerRun> <concurrency>
 * stdout: one JSON line `{"baselineBytes","afterBytes","cycles","events","executed","shared",
 *   "subscribers","groups","heldResults","waiters"}`
 */
import { join } from 'node:path';
import { createClient, type Client } from 'graphql-ws';
import { pino } from 'pino';
import WebSocket from 'ws';
import { startServer } from '../../src/server/app.js';
import { commitMarker } from '../helpers/live-markers.js';
import { streamsWaiting } from '../helpers/server-signals.js';
import { settledHeap } from '../helpers/settled-heap.js';
import { testServerConfig } from '../helpers/server-config.js';

const [dir, runsArg, cyclesArg, concurrencyArg] = process.argv.slice(2);
if (dir === undefined || runsArg === undefined || cyclesArg === undefined || concurrencyArg === undefined) {
  throw new Error('usage: shared-memory.ts <dir> <runs> <cyclesPerRun> <concurrency>');
}
if ((globalThis as { gc?: unknown }).gc === undefined) throw new Error('run with --expose-gc');

const DELTAS = /* GraphQL */ `
  subscription Deltas($runId: String!, $afterRevision: Int) {
    workflowRunDeltas(runId: $runId, afterRevision: $afterRevision) {
      ... on ViewerDeltaBatch { runId presentationRevision deltas { deltaIndex targetType targetKey recordedAt patch { op path value } } }
      ... on ViewerSnapshotRequired { runId currentRevision retainedFromRevision }
    }
  }
`;
const RESERVE = /* GraphQL */ `
  mutation Reserve($input: ReserveWorkflowRunInput!) { reserveWorkflowRun(input: $input) { __typename } }
`;

const server = await startServer(testServerConfig(join(dir, 'state.db'), dir), { logger: pino({ level: 'silent' }) });
const runs = Array.from({ length: Number(runsArg) }, (_, index) => `run-memory-${index}`);
const heads = new Map<string, number>();
const markers = new Map<string, number>();
for (const runId of runs) {
  const reserved = await fetch(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      query: RESERVE,
      variables: {
        input: { runId, workflowName: 'demo', workflowRef: 'workflows/demo.ts', definition: { steps: [] }, input: {}, originSessionId: `session-${runId}` },
      },
    }),
  });
  const answer = (await reserved.json()) as { data?: { reserveWorkflowRun?: { __typename?: string } } };
  if (answer.data?.reserveWorkflowRun?.__typename !== 'ReserveWorkflowRunSuccess') throw new Error(`reserve failed: ${JSON.stringify(answer)}`);
  let head = 1;
  for (let k = 1; k <= 259; k += 1) head = commitMarker(server.store, runId, k);
  heads.set(runId, head);
  markers.set(runId, 259);
  server.feed.readDeltas(runId, head - 256, 256); // the retained window, cached
}

const clients: Client[] = Array.from({ length: 10 }, () =>
  createClient({ url: server.url.replace(/^http/, 'ws'), webSocketImpl: WebSocket, retryAttempts: 0, lazy: false }),
);
let events = 0;
let cyclesRun = 0;

/** One cycle on `runId`: commit a revision, subscribe 3 revisions before the head, take the 3, complete. */
function cycle(client: Client, runId: string): Promise<void> {
  const k = (markers.get(runId) as number) + 1;
  markers.set(runId, k);
  const head = commitMarker(server.store, runId, k);
  heads.set(runId, head);
  cyclesRun += 1;
  return new Promise((resolve, reject) => {
    let taken = 0;
    const unsubscribe = client.subscribe(
      { query: DELTAS, variables: { runId, afterRevision: head - 3 } },
      {
        next: (result) => {
          if (result.errors !== undefined) reject(new Error(JSON.stringify(result.errors)));
          taken += 1;
          events += 1;
          if (taken === 3) {
            unsubscribe();
            resolve();
          }
        },
        error: reject,
        complete: () => resolve(),
      },
    );
  });
}

/** `perRun` cycles on every run, `concurrency` runs at a time. */
async function cycles(perRun: number, concurrency: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < runs.length) {
      const index = next;
      next += 1;
      for (let count = 0; count < perRun; count += 1) await cycle(clients[index % clients.length] as Client, runs[index] as string);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, () => worker()));
}
/** Resolves once the server holds no subscription and nothing waits on the feed. */
async function drained(): Promise<void> {
  await streamsWaiting(server, { subscribers: 0, waiters: 0 }, 'no subscription held, nothing waits on the feed');
}

const concurrency = Number(concurrencyArg);
await cycles(5, concurrency);
await drained();
const baselineBytes = await settledHeap();
const warmupCycles = cyclesRun;
await cycles(Number(cyclesArg), concurrency);
await drained();
const afterBytes = await settledHeap();
const stats = server.sharedExecution;
process.stdout.write(
  `${JSON.stringify({
    baselineBytes,
    afterBytes,
    cycles: cyclesRun - warmupCycles,
    events,
    executed: stats.executed,
    shared: stats.shared,
    subscribers: stats.subscribers,
    groups: stats.groups,
    heldResults: stats.heldResults,
    waiters: server.feed.waiterCount,
  })}\n`,
);
await Promise.all(clients.map((client) => client.dispose()));
await server.close();
