/**
 * Replica mode with Litestream itself (docs/DEPLOYMENT.md "Read replicas"): a primary server on
 * its own file, `litestream replicate` (v0.3.13, from the `@flydotio/litestream-linux-x64` npm
 * package) copying it to a `file` replica, the 0.3 restore loop (a complete copy restored into a
 * temporary file, renamed over the replica's file, again and again), and a replica server
 * (`--replica <primary URL>`) serving that file. No timing: every step awaits an event (a
 * subscription event, a restore's exit) or polls /health in a bounded loop for a condition.
 */
import { execFile } from 'node:child_process';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { Client } from 'graphql-ws';
import { afterEach, describe, expect, it } from 'vitest';
import { percentile, subscribeWs, WAIT_MS, wsClient, type StreamResult } from '../helpers/live-fixtures.js';
import { graphqlData, healthOf, ReplicaServers, RESERVE, reserveOn } from '../helpers/replica-servers.js';
import { reserveInput } from '../helpers/server-fixture.js';
import { spawnService } from '../helpers/service-process.js';

const run = promisify(execFile);

/**
 * The package ships Litestream for linux x64 only, so it is an optional dependency (npm installs
 * it there and nowhere else) and this file runs on linux x64 only, CI's platform. There a missing
 * package throws in {@link litestreamBinary}: the test fails, it does not skip.
 */
const LITESTREAM_PLATFORM = process.platform === 'linux' && process.arch === 'x64';

/** The Litestream binary of the optional dependency; throws when the package is not installed. */
function litestreamBinary(): string {
  return join(dirname(createRequire(import.meta.url).resolve('@flydotio/litestream-linux-x64/package.json')), 'litestream');
}

/** Mutations on the primary. */
const RUNS = 30;
/** `--replica-poll-ms` of the replica server. */
const REPLICA_POLL_MS = 100;

const CHANGES = /* GraphQL */ `
  subscription Changes($after: String) {
    workflowRunChanges(after: $after) {
      __typename
      ... on WorkflowRunChange { cursor run { runId queueStatus } }
      ... on WorkflowRunChangesResetRequired { cursor }
    }
  }
`;
const HEAD = '{ workflowRuns(first: 100) { changeCursor edges { node { runId } } } }';

interface ChangesData {
  workflowRunChanges: { __typename: string; cursor: string; run?: { runId: string; queueStatus: string } };
}

interface Health {
  database: { runChanges: { databaseId: string; head: number } };
  replica?: { positionsBehind: number | null; lagSeconds: number | null; reopens: number; reopenError: string | null; position: number };
}

let dir: string;
let servers: ReplicaServers;
let clients: Client[] = [];
let stopLoop: (() => Promise<void>) | undefined;

afterEach(async () => {
  await stopLoop?.();
  stopLoop = undefined;
  for (const client of clients) await client.dispose();
  clients = [];
  await servers.dispose();
});

/** Reads /health until `condition` holds, at most {@link WAIT_MS} (each read awaits the previous answer). */
async function untilHealth(url: string, condition: (health: Health) => boolean, what: string): Promise<Health> {
  const deadline = Date.now() + WAIT_MS;
  let last: Health | undefined;
  while (Date.now() < deadline) {
    last = await healthOf<Health>(url);
    if (condition(last)) return last;
  }
  throw new Error(`${url}: no ${what} within ${WAIT_MS} ms; last /health: ${JSON.stringify(last)}`);
}

/** `litestream restore` of the primary's newest copy into `to` (which must not exist); resolves with its exit code and output. */
async function restore(config: string, primaryDb: string, to: string): Promise<{ ok: boolean; output: string }> {
  try {
    const { stdout, stderr } = await run(litestreamBinary(), ['restore', '-config', config, '-o', to, primaryDb], { timeout: WAIT_MS });
    return { ok: true, output: stdout + stderr };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    return { ok: false, output: `${failed.message}\n${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/**
 * The 0.3 restore loop (docs/DEPLOYMENT.md "Read replicas"), in test code: restore a complete
 * copy into `<replica>.tmp`, rename it over `replica`, and again, until stopped. The first copy
 * is waited for (Litestream has nothing to restore before its first sync); after that a failed
 * restore fails the test. Resolves once the first copy is installed.
 */
async function restoreLoop(config: string, primaryDb: string, replicaDb: string): Promise<{ periodsMs: number[]; installed: () => number }> {
  const tmp = `${replicaDb}.tmp`;
  const periodsMs: number[] = [];
  let installed = 0;
  let stopped = false;
  let failure: string | undefined;
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    rmSync(tmp, { force: true });
    const first = await restore(config, primaryDb, tmp);
    if (first.ok) break;
    if (Date.now() > deadline) throw new Error(`no copy to restore within ${WAIT_MS} ms:\n${first.output}`);
  }
  renameSync(tmp, replicaDb);
  installed += 1;
  const loop = (async () => {
    while (!stopped) {
      const started = Date.now();
      rmSync(tmp, { force: true });
      const result = await restore(config, primaryDb, tmp);
      if (!result.ok) {
        failure = result.output;
        return;
      }
      renameSync(tmp, replicaDb);
      installed += 1;
      periodsMs.push(Date.now() - started);
    }
  })();
  stopLoop = async () => {
    stopped = true;
    await loop;
    expect(failure, 'a restore of the loop failed').toBeUndefined();
  };
  return { periodsMs, installed: () => installed };
}

function label(result: StreamResult<ChangesData>): string {
  expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
  const event = result.data?.workflowRunChanges;
  return event?.__typename === 'WorkflowRunChange' ? `${event.run?.runId} ${event.run?.queueStatus}` : String(event?.__typename);
}

describe.runIf(LITESTREAM_PLATFORM)('--replica with Litestream 0.3.13 and a restore loop', () => {
  const LITESTREAM = LITESTREAM_PLATFORM ? litestreamBinary() : '';
  it('mutations on the primary reach a replica subscriber once each, in order; the lag stays within the loop period; mutations name the primary', async () => {
    const { stdout: version } = await run(LITESTREAM, ['version']);
    expect(version.trim()).toBe('v0.3.13');

    servers = new ReplicaServers('piwf-litestream-');
    dir = servers.dir;
    const primaryDb = join(dir, 'primary.db');
    const replicaDb = join(dir, 'replica.db');
    const config = join(dir, 'litestream.yml');
    writeFileSync(
      config,
      [
        'dbs:',
        `  - path: ${primaryDb}`,
        '    monitor-interval: 100ms',
        '    replicas:',
        '      - type: file',
        `        path: ${join(dir, 'backup')}`,
        '        sync-interval: 100ms',
        '        snapshot-interval: 2s',
        '',
      ].join('\n'),
    );

    const primaryUrl = await servers.start(primaryDb, 'primary').listening();
    await reserveOn(primaryUrl, 'run-00');
    const litestream = spawnService(LITESTREAM, ['replicate', '-config', config], { cwd: dir, env: process.env, label: 'litestream' });
    servers.track(litestream);
    const loop = await restoreLoop(config, primaryDb, replicaDb);

    const replica = servers.start(replicaDb, 'replica', ['--replica', primaryUrl, '--replica-poll-ms', String(REPLICA_POLL_MS)]);
    const replicaUrl = await replica.listening();
    const start = await graphqlData<{ workflowRuns: { changeCursor: string; edges: Array<{ node: { runId: string } }> } }>(replicaUrl, HEAD);
    expect(start.workflowRuns.edges.map(({ node }) => node.runId)).toEqual(['run-00']);
    const client = wsClient(replicaUrl);
    clients.push(client);
    let connections = 0;
    client.on('connected', () => (connections += 1));
    const changes = subscribeWs<ChangesData>(client, CHANGES, { after: start.workflowRuns.changeCursor }, 'changes').collector;
    await untilHealth(replicaUrl, (h) => h.replica?.positionsBehind === 0, 'caught-up replica');

    const runIds = Array.from({ length: RUNS }, (_, index) => `run-${String(index + 1).padStart(2, '0')}`);
    const answeredAt: number[] = [];
    const lags: number[] = [];
    for (const runId of runIds) {
      await reserveOn(primaryUrl, runId);
      answeredAt.push(Date.now());
      const lag = (await healthOf<Health>(replicaUrl)).replica?.lagSeconds;
      expect(typeof lag, 'the lag is known (the primary answers the replica)').toBe('number');
      lags.push(lag as number);
    }
    const events = await changes.take(RUNS);
    expect(events.map(label)).toEqual(runIds.map((runId) => `${runId} QUEUED`));
    const cursors = events.map((result) => result.data?.workflowRunChanges.cursor);
    expect(new Set(cursors).size).toBe(RUNS);
    const primaryHead = (await healthOf<Health>(primaryUrl)).database.runChanges;
    const caughtUp = await untilHealth(replicaUrl, (h) => h.replica?.position === primaryHead.head && h.replica.lagSeconds === 0, 'replica at the primary');
    expect(caughtUp.database.runChanges).toEqual(primaryHead);

    // The loop renamed new copies over the file while the subscriber stayed connected: every one followed.
    expect(caughtUp.replica?.reopens).toBeGreaterThan(0);
    expect(caughtUp.replica?.reopenError).toBeNull();
    expect(replica.lines.events.filter((line) => line.msg === 'replica file replaced: reopened').length).toBe(caughtUp.replica?.reopens);
    expect(connections).toBe(1);
    expect(changes.error).toBeUndefined();
    expect(changes.events.length).toBe(RUNS);

    // The lag reported stays within the time one change can take to arrive: Litestream's sync
    // (100 ms) and up to two loop periods (a restore that began just before it), plus a margin.
    const maxPeriodS = Math.max(...loop.periodsMs) / 1000;
    const boundS = 0.1 + 2 * maxPeriodS + REPLICA_POLL_MS / 1000 + 1;
    expect(Math.max(...lags), JSON.stringify({ lags, periodsMs: loop.periodsMs })).toBeLessThanOrEqual(boundS);
    const deliveryMs = changes.receivedAt.slice(0, RUNS).map((at, index) => at - (answeredAt[index] as number));
    console.info(
      `litestream replica: ${RUNS} runs; delivery p50 ${percentile(deliveryMs, 50)} ms, max ${Math.max(...deliveryMs)} ms; ` +
        `reported lag max ${Math.max(...lags).toFixed(3)} s (bound ${boundS.toFixed(2)} s); loop period p50 ${percentile(loop.periodsMs, 50)} ms, ` +
        `max ${Math.max(...loop.periodsMs)} ms; ${loop.installed()} copies installed, ${caughtUp.replica?.reopens} reopens`,
    );

    const refused = await graphqlData(replicaUrl, RESERVE, { input: reserveInput('run-x') });
    expect(refused).toEqual({
      reserveWorkflowRun: {
        __typename: 'ForbiddenError',
        code: 'FORBIDDEN',
        message: `The server is a read-only replica: send mutations to the primary at ${primaryUrl}`,
      },
    });
    const primaryRuns = await graphqlData<{ workflowRuns: { edges: Array<{ node: { runId: string } }> } }>(primaryUrl, HEAD);
    expect(primaryRuns.workflowRuns.edges.map(({ node }) => node.runId)).not.toContain('run-x');
    expect((await healthOf<Health>(primaryUrl)).database.runChanges).toEqual(primaryHead);
  }, 120_000);
});
