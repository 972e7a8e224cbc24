/**
 * The server beside a live pi-workflows host (docs/PI-WORKFLOWS-FILES.md §6): the real server
 * CLI in one process serves a pi-workflows 0.16 state file read-write, while a second process
 * (test/children/pi-writer.ts) writes the same file the way pi-workflows' host does, each
 * call its own `BEGIN IMMEDIATE` transaction with busy timeout 5 s, WAL, `synchronous=FULL`.
 *
 * - Both reserve at once: every run of both is there, in the file and in the server's run list.
 * - Both race to claim the same runs, by id and by claim next: every run is claimed exactly
 *   once, its lease generation moves once, and neither takes a run the other holds.
 * - A lease the pi host renews is never taken (the server answers not claimable, a cancel
 *   without a claim is refused); once it expired the server takes it (generation + 1: a claim,
 *   or the control claim of a cancel) and the pi host's late heartbeat, park and completion
 *   are refused, writing nothing.
 * - Subscribers (graphql-ws) see the pi host's commits: workflowRunDeltas every revision once, in
 *   order, heartbeats included; workflowRunChanges every evented change once, in order.
 * - Both write the same run at once (the pi host's timeline revisions, the server's heartbeats):
 *   every revision number is taken once, nothing is lost, the subscriber gets each once in order.
 */
import { realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectIdFor } from '../../src/store/index.js';
import { faultTempDir, postGraphQL, startServerProcess, type ServerProcess } from '../helpers/fault-fixtures.js';
import {
  DELTAS_SUBSCRIPTION,
  deltaEvents,
  subscribeWs,
  untilRevision,
  wsClient,
  type DeltasData,
  type EventCollector,
  type StreamResult,
} from '../helpers/live-fixtures.js';
import {
  createPiWorkflowsFile,
  piWorkflowsIdentity,
  piWorkflowsOpenCheck,
  runResourceId,
  type PiWorkflowsFileFacts,
  type PiWorkflowsIdentity,
} from '../../fixtures/pi-workflows-file.js';
import { startPiWriterProcess, type PiWriterProcess, type RaceClaim } from '../helpers/pi-writer-process.js';
import { DEFINITION } from '../helpers/server-fixture.js';

const HOUR = 3_600_000;
const RUN = 'runId status queueStatus presentationRevision claim { ownerId leaseGeneration }';
const RESERVE = `mutation R($input: ReserveWorkflowRunInput!) { reserveWorkflowRun(input: $input) { __typename ... on ReserveWorkflowRunSuccess { run { ${RUN} } } ... on Error { message } } }`;
const CLAIM = `mutation C($input: ClaimWorkflowRunInput!) { claimWorkflowRun(input: $input) { __typename ... on ClaimWorkflowRunSuccess { run { ${RUN} } } ... on Error { message } } }`;
const RUN_CHANGES = `subscription Changes($after: String, $filter: WorkflowRunFilter) {
  workflowRunChanges(after: $after, filter: $filter) { __typename ... on WorkflowRunChange { cursor run { runId queueStatus presentationRevision } } }
}`;

interface RunFields {
  runId: string;
  status: string;
  queueStatus: string;
  presentationRevision: number;
  claim: { ownerId: string; leaseGeneration: number } | null;
}

let dir: string;
let facts: PiWorkflowsFileFacts;
let before: PiWorkflowsIdentity;
let projectId: string;
let server: ServerProcess;
let pi: PiWriterProcess;
let client: Client;

/** One GraphQL request; fails the test on a transport or GraphQL error. */
async function gql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const response = await postGraphQL(server.url, { query, variables });
  expect(response.body?.errors, response.text).toBeUndefined();
  return response.body?.data as T;
}

/** Reserves a headless run over HTTP (its own origin session); expects success. */
async function apiReserve(runId: string, mode: 'HEADLESS' | 'INTERACTIVE' = 'HEADLESS'): Promise<void> {
  const input = {
    runId,
    workflowName: 'demo',
    workflowRef: 'workflows/demo.ts',
    definition: DEFINITION,
    input: { runId },
    originSessionId: `session-${runId}`,
    executionMode: mode,
  };
  const data = await gql<{ reserveWorkflowRun: { __typename: string } }>(RESERVE, { input });
  expect(data.reserveWorkflowRun.__typename, JSON.stringify(data)).toBe('ReserveWorkflowRunSuccess');
}

/** Claims over HTTP (by id when `runId` is given, else the next eligible run); the claimed run or null. */
async function apiClaim(runnerId: string, runId?: string): Promise<RunFields | null> {
  const input = { runnerId, claimToken: `${runnerId}-token`, leaseMs: HOUR, ...(runId === undefined ? {} : { runId }) };
  const data = await gql<{ claimWorkflowRun: { __typename: string; run?: RunFields | null } }>(CLAIM, { input });
  expect(data.claimWorkflowRun.__typename, JSON.stringify(data)).toBe('ClaimWorkflowRunSuccess');
  return data.claimWorkflowRun.run ?? null;
}

/** A pi-host run spec: its own origin session, the server's project. */
function piRun(runId: string, executionMode: 'headless' | 'interactive' = 'headless') {
  return { runId, originSessionId: `session-${runId}`, executionMode, projectId, input: { runId } };
}

/** What the file says of each run: lease generation, owner, and how many `lease.claimed` / `run.queued` events it has. */
function fileClaims(runIds: readonly string[]): Record<string, { generation: number; owner: string | null; claimed: number; queued: number }> {
  const connection = new Database(facts.path, { readonly: true });
  try {
    const lease = connection.prepare('SELECT generation, owner_id AS owner FROM leases WHERE resource_id = ?');
    const count = connection.prepare('SELECT count(*) AS n FROM events WHERE resource_id = ? AND event_type = ?');
    return Object.fromEntries(
      runIds.map((runId) => {
        const resourceId = runResourceId(runId);
        const row = lease.get(resourceId) as { generation: number; owner: string | null };
        const n = (type: string) => (count.get(resourceId, type) as { n: number }).n;
        return [runId, { ...row, claimed: n('lease.claimed'), queued: n('run.queued') }];
      }),
    );
  } finally {
    connection.close();
  }
}

/** The lease expiry of a run in the file, epoch ms. */
function leaseExpiry(runId: string): number {
  const connection = new Database(facts.path, { readonly: true });
  try {
    return (connection.prepare('SELECT expires_at FROM leases WHERE resource_id = ?').get(runResourceId(runId)) as { expires_at: number }).expires_at;
  } finally {
    connection.close();
  }
}

const names = (prefix: string, count: number): string[] => Array.from({ length: count }, (_, index) => `${prefix}-${String(index).padStart(3, '0')}`);

beforeAll(async () => {
  dir = faultTempDir('pi-host-claims-');
  const writer = createPiWorkflowsFile(join(dir, 'state.sqlite'));
  writer.close();
  facts = writer.facts;
  before = piWorkflowsIdentity(facts.path);
  projectId = projectIdFor(realpathSync(dir));
  // The server first: its open registers the project row the pi host's runs refer to.
  server = await startServerProcess({ dbPath: facts.path, projectPath: dir });
  pi = await startPiWriterProcess(facts.path);
  client = wsClient(server.url);
});

afterAll(async () => {
  await client?.dispose();
  pi?.handle.kill();
  server?.child.kill('SIGKILL');
  await server?.exited;
  rmSync(dir, { recursive: true, force: true });
});

describe('the server beside a live pi-workflows host', () => {
  it('both reserve at once and every run is there; racing for the same runs by id and by claim next, each run is claimed exactly once and its generation moves once', async () => {
    const piById = names('pi-id', 30);
    const apiById = names('api-id', 30);
    const piNext = names('pi-next', 30);
    const apiNext = names('api-next', 30);
    // Both writers reserve at the same time.
    await Promise.all([
      pi.call('reserve', { runs: [...piById, ...piNext].map((runId) => piRun(runId)) }),
      (async () => {
        for (const runId of [...apiById, ...apiNext]) await apiReserve(runId);
      })(),
    ]);
    const all = [...piById, ...apiById, ...piNext, ...apiNext];
    const reserved = fileClaims(all);
    expect(Object.values(reserved).every((run) => run.queued === 1 && run.generation === 0 && run.claimed === 0)).toBe(true);
    expect(Object.keys(reserved).sort()).toEqual([...all].sort());
    // The server's in-process run order sees the pi host's runs at once.
    const list = await gql<{ workflowRuns: { totalCount: number } }>('{ workflowRuns(first: 1) { totalCount } }');
    expect(list.workflowRuns.totalCount).toBe(all.length);

    // Race by id, head to head: for each run the pi host's claim and the server's are sent at
    // the same moment, four runs at a time.
    const byId = [...piById, ...apiById];
    const piWon: RaceClaim[] = [];
    const apiWon: string[] = [];
    const headToHead = async (runIds: string[]): Promise<void> => {
      for (const runId of runIds) {
        const [piClaim, apiRun] = await Promise.all([
          pi.call('claim', { runId, runnerId: 'host-pi', claimToken: 'host-pi-token', leaseMs: HOUR }),
          apiClaim('host-api', runId),
        ]);
        expect(piClaim === null, `${runId}: exactly one of the two claims wins`).not.toBe(apiRun === null);
        if (piClaim !== null) piWon.push({ runId, generation: piClaim.generation });
        if (apiRun !== null) apiWon.push(runId);
      }
    };
    await Promise.all([0, 1, 2, 3].map((lane) => headToHead(byId.filter((_, index) => index % 4 === lane))));
    expectExactlyOnce(byId, piWon, apiWon);

    // Race by claim next: in each round the pi host and the server claim next at the same
    // moment, three rounds at a time, until neither finds anything; every call its own runner
    // id (a runner may re-claim its own live lease).
    let calls = 0;
    const piNextWon: RaceClaim[] = [];
    const apiNextWon: string[] = [];
    const rounds = async (): Promise<void> => {
      for (;;) {
        calls += 1;
        const [piClaim, apiRun] = await Promise.all([
          pi.call('claimNext', { runnerId: `host-pi-next-${calls}`, claimToken: 'host-pi-token', leaseMs: HOUR }),
          apiClaim(`host-api-next-${calls}`),
        ]);
        if (piClaim !== null) piNextWon.push({ runId: piClaim.runId, generation: piClaim.generation });
        if (apiRun !== null) apiNextWon.push(apiRun.runId);
        if (piClaim === null && apiRun === null) return;
      }
    };
    await Promise.all([rounds(), rounds(), rounds()]);
    expectExactlyOnce([...piNext, ...apiNext], piNextWon, apiNextWon);
    console.info(
      `claims raced: by id ${byId.length} runs (pi ${piWon.length}, server ${apiWon.length}); claim next ${piNext.length + apiNext.length} runs (pi ${piNextWon.length}, server ${apiNextWon.length})`,
    );

    // Neither takes what the other holds now: the server answers not claimable (run: null),
    // the pi host refuses, and nothing is written.
    const piHeld = [...piWon, ...piNextWon].map((claim) => claim.runId).slice(0, 10);
    const apiHeld = [...apiWon, ...apiNextWon].slice(0, 10);
    const held = fileClaims([...piHeld, ...apiHeld]);
    for (const runId of piHeld) expect(await apiClaim('host-api', runId)).toBeNull();
    for (const runId of apiHeld) expect(await pi.call('claim', { runId, runnerId: 'host-pi', claimToken: 'host-pi-token', leaseMs: HOUR })).toBeNull();
    expect(fileClaims([...piHeld, ...apiHeld])).toEqual(held);
  });

  it('a lease the pi host renews is never taken (claim, cancel without a claim); once expired the server takes it, and the pi host’s late heartbeat, park and completion write nothing', async () => {
    await pi.call('reserve', { runs: [piRun('renewed', 'interactive'), piRun('expired', 'interactive')] });
    const t = Date.now();
    const claim = { runnerId: 'host-pi', claimToken: 'pi-secret', leaseMs: 60_000, now: t - 120_000 };
    // Both claimed two minutes ago for one minute: expired by now. Renewed a minute and a half
    // ago (while live) for an hour, `renewed` is live again.
    expect(await pi.call('claim', { runId: 'renewed', ...claim })).toMatchObject({ generation: 1, expiresAt: t - 60_000 });
    expect(await pi.call('claim', { runId: 'expired', ...claim })).toMatchObject({ generation: 1 });
    const renewal = { runId: 'renewed', runnerId: 'host-pi', claimToken: 'pi-secret', generation: 1, leaseMs: HOUR };
    expect(await pi.call('renew', { ...renewal, now: t - 90_000 })).toBe(3);

    expect(await apiClaim('host-api', 'renewed')).toBeNull();
    expect(fileClaims(['renewed']).renewed).toEqual({ generation: 1, owner: 'host-pi', claimed: 1, queued: 1 });
    // Heartbeat again (now), and the server still cannot take it.
    expect(await pi.call('renew', renewal)).toBe(4);
    expect(await apiClaim('host-api', 'renewed')).toBeNull();

    const taken = await apiClaim('host-api', 'expired');
    expect(taken).toMatchObject({ runId: 'expired', queueStatus: 'STARTING', claim: { ownerId: 'host-api', leaseGeneration: 2 } });
    const afterTake = fileClaims(['expired']);
    expect(afterTake.expired).toEqual({ generation: 2, owner: 'host-api', claimed: 2, queued: 1 });
    expect(await pi.call('renew', { ...renewal, runId: 'expired' })).toBeNull();
    expect(await pi.call('park', { runId: 'expired', claimToken: 'pi-secret' })).toBe(false);
    expect(await pi.call('complete', { runId: 'expired', claimToken: 'pi-secret', output: { late: true } })).toBe(false);
    const run = await gql<{ workflowRun: RunFields }>(`{ workflowRun(runId: "expired") { ${RUN} } }`);
    expect(run.workflowRun).toEqual(taken);
    expect(fileClaims(['expired'])).toEqual(afterTake);

    // Cancel without a claim (the control claim) never takes the renewed lease either; on an
    // expired pi lease it takes the control claim (generation + 1), cancels and releases it, and
    // the pi host's late completion is refused.
    const CANCEL = `mutation ($input: CancelWorkflowRunInput!) { cancelWorkflowRun(input: $input) { __typename ... on CancelWorkflowRunSuccess { run { ${RUN} } } ... on Error { message } } }`;
    const renewedLease = fileClaims(['renewed']);
    const expiresAt = new Date(leaseExpiry('renewed')).toISOString();
    expect(await gql(CANCEL, { input: { runId: 'renewed' } })).toEqual({
      cancelWorkflowRun: {
        __typename: 'ConflictError',
        message: `Workflow run renewed is claimed by host-pi until ${expiresAt}: cancel it with that claim's token, or once the lease has expired`,
      },
    });
    expect(fileClaims(['renewed'])).toEqual(renewedLease);
    await pi.call('reserve', { runs: [piRun('stale', 'interactive')] });
    expect(await pi.call('claim', { runId: 'stale', ...claim })).toMatchObject({ generation: 1 });
    expect(await gql(CANCEL, { input: { runId: 'stale' } })).toMatchObject({
      cancelWorkflowRun: { __typename: 'CancelWorkflowRunSuccess', run: { status: 'CANCELLED', queueStatus: 'CANCELLED', claim: null } },
    });
    expect(fileClaims(['stale']).stale).toEqual({ generation: 2, owner: null, claimed: 1, queued: 1 });
    expect(await pi.call('complete', { runId: 'stale', claimToken: 'pi-secret' })).toBe(false);

    // Released by the pi host (park), the renewed run is the server's to claim.
    expect(await pi.call('park', { runId: 'renewed', claimToken: 'pi-secret' })).toBe(true);
    expect(await apiClaim('host-api', 'renewed')).toMatchObject({ claim: { ownerId: 'host-api', leaseGeneration: 2 } });
  });

  it('subscribers see the pi host’s commits: every viewer revision once and in order (heartbeats too), every evented change once and in order', async () => {
    await pi.call('reserve', { runs: [piRun('watched', 'interactive')] });
    const page = await gql<{ workflowRuns: { changeCursor: string } }>('{ workflowRuns(first: 1) { changeCursor } }');
    const deltas = subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId: 'watched', afterRevision: 1 }, 'deltas').collector;
    type Change = { workflowRunChanges: { cursor: string; run: { runId: string; queueStatus: string; presentationRevision: number } } };
    const changes = subscribeWs<Change>(
      client,
      RUN_CHANGES,
      { after: page.workflowRuns.changeCursor, filter: { originSessionId: 'session-watched' } },
      'changes',
    ).collector;

    // One commit at a time, each awaited on the stream it shows on, so every change is seen on
    // its own: claim (2), three timeline revisions (3–5), heartbeat (6), park (7, 8), claim (9),
    // complete (10, 11).
    const token = { runnerId: 'host-pi', claimToken: 'watch-secret', leaseMs: HOUR };
    const step = async (commit: () => Promise<unknown>, revision: number, evented: number): Promise<void> => {
      await commit();
      await untilRevision(deltas, revision);
      await changes.take(evented);
    };
    await step(() => pi.call('claim', { runId: 'watched', ...token }), 2, 1);
    for (const k of [1, 2, 3]) await step(() => pi.call('delta', { runId: 'watched', k }), 2 + k, 1);
    await step(() => pi.call('renew', { runId: 'watched', ...token, generation: 1 }), 6, 1);
    await step(() => pi.call('park', { runId: 'watched', claimToken: 'watch-secret' }), 8, 2);
    await step(() => pi.call('claim', { runId: 'watched', ...token }), 9, 3);
    await step(() => pi.call('complete', { runId: 'watched', claimToken: 'watch-secret', output: { seen: true } }), 11, 4);

    // Then a burst of timeline revisions, not awaited one by one.
    const burst = await Promise.all([4, 5, 6, 7, 8, 9, 10, 11, 12, 13].map((k) => pi.call('delta', { runId: 'watched', k })));
    expect(burst).toEqual([12, 13, 14, 15, 16, 17, 18, 19, 20, 21]);
    await untilRevision(deltas, 21);

    const bump = ['SUMMARY/', 'GRAPH/', 'REPLAY/', 'INSPECTOR/run'];
    const summaryReplay = ['SUMMARY/', 'REPLAY/'];
    const timeline = ['TIMELINE/items'];
    expect(batches(deltas)).toEqual([
      [2, bump],
      [3, timeline],
      [4, timeline],
      [5, timeline],
      [6, summaryReplay],
      [7, bump],
      [8, summaryReplay],
      [9, bump],
      [10, bump],
      [11, summaryReplay],
      ...Array.from({ length: 10 }, (_, index) => [12 + index, timeline]),
    ]);
    expect(changes.events.map((event) => event.data?.workflowRunChanges.run)).toEqual([
      { runId: 'watched', queueStatus: 'STARTING', presentationRevision: 2 },
      { runId: 'watched', queueStatus: 'PARKED', presentationRevision: 8 },
      { runId: 'watched', queueStatus: 'STARTING', presentationRevision: 9 },
      { runId: 'watched', queueStatus: 'DONE', presentationRevision: 11 },
    ]);
    expect(deltas.error).toBeUndefined();
    expect(changes.error).toBeUndefined();
  });

  it('both write the same run at once (the pi host’s timeline, the server’s heartbeats): every revision of both taken once, delivered once and in order', async () => {
    await pi.call('reserve', { runs: [piRun('shared', 'interactive')] });
    expect(await apiClaim('host-api', 'shared')).toMatchObject({ presentationRevision: 2, claim: { leaseGeneration: 1 } });
    const deltas = subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId: 'shared', afterRevision: 2 }, 'shared').collector;
    const RENEW = `mutation ($input: RenewWorkflowRunClaimInput!) { renewWorkflowRunClaim(input: $input) { __typename ... on RenewWorkflowRunClaimSuccess { run { presentationRevision } } } }`;
    // Fifteen rounds, in each the pi host's revision and the server's heartbeat sent at the same moment.
    const piRevisions: number[] = [];
    const apiRevisions: number[] = [];
    for (let k = 0; k < 15; k += 1) {
      const [piRevision, renewed] = await Promise.all([
        pi.call('delta', { runId: 'shared', k }),
        gql<{ renewWorkflowRunClaim: { run: { presentationRevision: number } } }>(RENEW, {
          input: { runId: 'shared', claimToken: 'host-api-token', leaseMs: HOUR },
        }),
      ]);
      piRevisions.push(piRevision);
      apiRevisions.push(renewed.renewWorkflowRunClaim.run.presentationRevision);
    }
    expect([...piRevisions, ...apiRevisions].sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, index) => 3 + index));
    await untilRevision(deltas, 32);
    const pis = new Set(piRevisions);
    expect(batches(deltas)).toEqual(Array.from({ length: 30 }, (_, index) => [3 + index, pis.has(3 + index) ? ['TIMELINE/items'] : ['SUMMARY/', 'REPLAY/']]));
    expect(fileClaims(['shared']).shared).toEqual({ generation: 1, owner: 'host-api', claimed: 1, queued: 1 });
    console.info(`same run: pi revisions ${piRevisions.join(',')}; server heartbeats ${apiRevisions.join(',')}`);
  });

  it('after all of it, with both still attached, pi-workflows’ open accepts the file: identity unchanged, integrity and foreign keys clean', () => {
    expect(piWorkflowsOpenCheck(facts, before)).toEqual([]);
  });
});

/** The batches of a deltas stream as `[revision, ['TARGET/key', …]]`. */
function batches(collector: EventCollector<StreamResult<DeltasData>>): Array<[number, string[]]> {
  return deltaEvents(collector.events).map((event) => {
    if (event.__typename !== 'ViewerDeltaBatch') throw new Error(`unexpected ${JSON.stringify(event)}`);
    return [event.presentationRevision, event.deltas.map((delta) => `${delta.targetType}/${delta.targetKey}`)];
  });
}

/**
 * Every run of `pool` claimed by exactly one of the two (pi host's claims, the server's run
 * ids), both took some, and the file agrees: generation 1, the winner as owner, one `lease.claimed`.
 */
function expectExactlyOnce(pool: readonly string[], piClaims: readonly RaceClaim[], apiRunIds: readonly string[]): void {
  const piRunIds = piClaims.map((claim) => claim.runId);
  expect([...piRunIds, ...apiRunIds].sort()).toEqual([...pool].sort());
  expect(piClaims.every((claim) => claim.generation === 1)).toBe(true);
  expect(piRunIds.length).toBeGreaterThan(0);
  expect(apiRunIds.length).toBeGreaterThan(0);
  const piSet = new Set(piRunIds);
  const rows = fileClaims(pool);
  for (const runId of pool) {
    expect(rows[runId], runId).toEqual({
      generation: 1,
      owner: piSet.has(runId) ? expect.stringMatching(/^host-pi/) : expect.stringMatching(/^host-api/),
      claimed: 1,
      queued: 1,
    });
  }
}
