/**
 * A run's whole life over HTTP: `renewWorkflowRunClaim`, `markWorkflowRunRunning`,
 * `reportWorkflowRunState`, `cancelWorkflowRun`, `pauseWorkflowRun`, `resumeWorkflowRun` and
 * the no-progress choice of `parkWorkflowRun`. Each success is checked on the rows it wrote
 * (lease times, queue and run status, events, viewer deltas); each typed error with its exact
 * text, and a failed call changes no table. A graphql-ws subscriber sees a heartbeat's deltas.
 */
import { describe, expect } from 'vitest';
import {
  CancelWorkflowRunDocument,
  ClaimWorkflowRunDocument,
  MarkWorkflowRunRunningDocument,
  ParkWorkflowRunDocument,
  PauseWorkflowRunDocument,
  RenewWorkflowRunClaimDocument,
  ReportWorkflowRunStateDocument,
  ResumeWorkflowRunDocument,
  type CancelWorkflowRunInput,
  type MarkWorkflowRunRunningInput,
  type PauseWorkflowRunInput,
  type RenewWorkflowRunClaimInput,
  type ReportWorkflowRunStateInput,
  type ResumeWorkflowRunInput,
  type RunFieldsFragment,
} from '../../schema/generated/graphql.js';
import { DELTAS_SUBSCRIPTION, subscribeWs, untilRevision, type DeltasData } from '../helpers/live-fixtures.js';
import { claim, park, reserve, reserveInput, snapshotTables, T0, type TestServer } from '../helpers/server-fixture.js';
import { freshServerTest as it } from '../helpers/server-test.js';
import { BUMP, eventsOf, lastEvent, leaseOf, resourceRevision, rowOf, sql, SUMMARY_REPLAY, targetsAfter, viewerHead } from '../helpers/store-fixtures.js';
import { storeInternals } from '../helpers/store-internals.js';

const iso = (ms: number): string => new Date(ms).toISOString();

async function unchanged<T>(fx: TestServer, action: () => Promise<T>): Promise<T> {
  const before = snapshotTables(fx.store);
  const result = await action();
  expect(snapshotTables(fx.store)).toEqual(before);
  return result;
}

const renew = async (fx: TestServer, input: RenewWorkflowRunClaimInput) => (await fx.data(RenewWorkflowRunClaimDocument, { input })).renewWorkflowRunClaim;
const markRunning = async (fx: TestServer, input: MarkWorkflowRunRunningInput) =>
  (await fx.data(MarkWorkflowRunRunningDocument, { input })).markWorkflowRunRunning;
const report = async (fx: TestServer, input: ReportWorkflowRunStateInput) => (await fx.data(ReportWorkflowRunStateDocument, { input })).reportWorkflowRunState;
const cancel = async (fx: TestServer, input: CancelWorkflowRunInput) => (await fx.data(CancelWorkflowRunDocument, { input })).cancelWorkflowRun;
const pause = async (fx: TestServer, input: PauseWorkflowRunInput) => (await fx.data(PauseWorkflowRunDocument, { input })).pauseWorkflowRun;
const resume = async (fx: TestServer, input: ResumeWorkflowRunInput) => (await fx.data(ResumeWorkflowRunDocument, { input })).resumeWorkflowRun;

/** The run of a success answer (fails the test on a typed error). */
function runOf(result: { __typename: string }, success: string): RunFieldsFragment {
  expect(result.__typename, JSON.stringify(result)).toBe(success);
  return (result as unknown as { run: RunFieldsFragment }).run;
}

const claimLost = (runId: string) => ({
  __typename: 'ClaimLostError',
  code: 'CLAIM_LOST',
  message: `Claim token is not the live claim of workflow run: ${runId}`,
});
const notFound = (runId: string) => ({ __typename: 'NotFoundError', code: 'NOT_FOUND', message: `Workflow run not found: ${runId}` });
const conflict = (message: string) => ({ __typename: 'ConflictError', code: 'CONFLICT', message });

/** Every table except those listed, for "only these tables changed". */
function tablesExcept(fx: TestServer, ...tables: string[]): Record<string, unknown[]> {
  const snapshot = snapshotTables(fx.store);
  for (const table of tables) delete snapshot[table];
  return snapshot;
}

describe('renewWorkflowRunClaim (heartbeat)', () => {
  it('moves heartbeat and expiry only, records summary + replay deltas, no event and no revision bump', async ({ fx }) => {
    await reserve(fx, reserveInput('run-1'));
    await claim(fx, 'run-1', 'token-1', { leaseMs: 60_000 });
    fx.clock.advance(10_000);
    const lease = leaseOf(fx.store, 'run-1');
    const revision = resourceRevision(fx.store, 'run-1');
    const viewer = viewerHead(fx.store, 'run-1').presentation;
    const events = eventsOf(fx.store, 'run-1');
    // Besides the lease and the deltas, only the run-list change feed of this server's own file
    // (run_changes, run_change_head) notes the run: its claim expiry changed.
    const changed = ['leases', 'viewer_runs', 'viewer_deltas', 'blobs', 'run_changes', 'run_change_head'];
    const others = tablesExcept(fx, ...changed);
    const run = runOf(await renew(fx, { runId: 'run-1', claimToken: 'token-1', leaseMs: 30_000 }), 'RenewWorkflowRunClaimSuccess');
    expect(run).toMatchObject({
      queueStatus: 'STARTING',
      claim: { ownerId: 'runner-1', leaseGeneration: 1, expiresAt: iso(T0 + 40_000) },
      presentationRevision: viewer + 1,
    });
    expect(leaseOf(fx.store, 'run-1')).toEqual({ ...lease, heartbeat_at: T0 + 10_000, expires_at: T0 + 40_000 });
    expect(resourceRevision(fx.store, 'run-1')).toBe(revision);
    expect(eventsOf(fx.store, 'run-1')).toEqual(events);
    expect(targetsAfter(fx.store, 'run-1', viewer)).toEqual([SUMMARY_REPLAY]);
    expect(tablesExcept(fx, ...changed)).toEqual(others);
  });

  it('a graphql-ws subscriber sees the heartbeat as one batch of summary and replay deltas', async ({ fx, ws }) => {
    await reserve(fx, reserveInput('run-1'));
    const claimed = await claim(fx, 'run-1', 'token-1');
    const { collector } = subscribeWs<DeltasData>(ws(), DELTAS_SUBSCRIPTION, { runId: 'run-1', afterRevision: claimed.presentationRevision });
    fx.clock.advance(1_000);
    runOf(await renew(fx, { runId: 'run-1', claimToken: 'token-1', leaseMs: 60_000 }), 'RenewWorkflowRunClaimSuccess');
    await untilRevision(collector, claimed.presentationRevision + 1);
    const [event] = collector.events;
    expect(collector.events).toHaveLength(1);
    expect(event?.data?.workflowRunDeltas).toMatchObject({
      __typename: 'ViewerDeltaBatch',
      runId: 'run-1',
      presentationRevision: claimed.presentationRevision + 1,
      deltas: [
        { deltaIndex: 0, targetType: 'SUMMARY', targetKey: '', recordedAt: iso(T0 + 1_000) },
        { deltaIndex: 1, targetType: 'REPLAY', targetKey: '', recordedAt: iso(T0 + 1_000) },
      ],
    });
  });

  it('ClaimLostError for a wrong token, an expired lease and a parked run; NotFoundError; ValidationError for leaseMs; nothing written', async ({ fx }) => {
    await reserve(fx, reserveInput('run-1'));
    await claim(fx, 'run-1', 'token-1', { leaseMs: 5_000 });
    expect(await unchanged(fx, () => renew(fx, { runId: 'run-1', claimToken: 'wrong', leaseMs: 5_000 }))).toEqual(claimLost('run-1'));
    for (const leaseMs of [0, 86_400_001]) {
      expect(await unchanged(fx, () => renew(fx, { runId: 'run-1', claimToken: 'token-1', leaseMs }))).toEqual({
        __typename: 'ValidationError',
        code: 'INVALID_INPUT',
        message: 'Lease duration must be an integer from 1 to 86400000 ms',
        field: 'leaseMs',
      });
    }
    expect(await unchanged(fx, () => renew(fx, { runId: 'ghost', claimToken: 'token-1', leaseMs: 5_000 }))).toEqual(notFound('ghost'));
    fx.clock.advance(5_000);
    expect(await unchanged(fx, () => renew(fx, { runId: 'run-1', claimToken: 'token-1', leaseMs: 5_000 }))).toEqual(claimLost('run-1'));
    await claim(fx, 'run-1', 'token-2');
    await park(fx, 'run-1', 'token-2');
    expect(await unchanged(fx, () => renew(fx, { runId: 'run-1', claimToken: 'token-2', leaseMs: 5_000 }))).toEqual(claimLost('run-1'));
  });
});

describe('markWorkflowRunRunning', () => {
  it('queue RUNNING, startedAt set once, event run.queue_running by the claim holder, bump deltas', async ({ fx }) => {
    await reserve(fx, reserveInput('run-1'));
    await claim(fx, 'run-1', 'token-1');
    fx.clock.advance(2_000);
    const viewer = viewerHead(fx.store, 'run-1').presentation;
    const run = runOf(await markRunning(fx, { runId: 'run-1', claimToken: 'token-1' }), 'MarkWorkflowRunRunningSuccess');
    expect(run).toMatchObject({ queueStatus: 'RUNNING', status: 'QUEUED', startedAt: iso(T0 + 2_000), updatedAt: iso(T0 + 2_000) });
    expect(rowOf(fx.store, 'run_queue', 'run-1')).toMatchObject({ status: 'running', started_at: T0 + 2_000, updated_at: T0 + 2_000 });
    expect(lastEvent(fx.store, 'run-1')).toMatchObject({
      type: 'run.queue_running',
      actorType: 'session',
      actorId: 'runner-1',
      leaseGeneration: 1,
      payload: { status: 'running' },
    });
    expect(targetsAfter(fx.store, 'run-1', viewer)).toEqual([BUMP]);
    fx.clock.advance(1_000);
    const again = runOf(await markRunning(fx, { runId: 'run-1', claimToken: 'token-1' }), 'MarkWorkflowRunRunningSuccess');
    expect(again).toMatchObject({ startedAt: iso(T0 + 2_000), updatedAt: iso(T0 + 3_000) });
  });

  it("ConflictError when a parked run held by a control claim would be its session's second active run; nothing written", async ({ fx }) => {
    await reserve(fx, reserveInput('parked'));
    await claim(fx, 'parked', 'token-p');
    await park(fx, 'parked', 'token-p');
    await reserve(fx, reserveInput('active'));
    controlClaim(fx, 'parked');
    expect(await unchanged(fx, () => markRunning(fx, { runId: 'parked', claimToken: 'control' }))).toEqual(
      conflict('Pi session already has an active workflow run: session-1'),
    );
  });

  it('ClaimLostError for a wrong token or an expired lease; NotFoundError; nothing written', async ({ fx }) => {
    await reserve(fx, reserveInput('run-1'));
    await claim(fx, 'run-1', 'token-1', { leaseMs: 5_000 });
    expect(await unchanged(fx, () => markRunning(fx, { runId: 'run-1', claimToken: 'wrong' }))).toEqual(claimLost('run-1'));
    expect(await unchanged(fx, () => markRunning(fx, { runId: 'ghost', claimToken: 'token-1' }))).toEqual(notFound('ghost'));
    fx.clock.advance(5_000);
    expect(await unchanged(fx, () => markRunning(fx, { runId: 'run-1', claimToken: 'token-1' }))).toEqual(claimLost('run-1'));
  });
});

describe('reportWorkflowRunState', () => {
  it('RUNNING: runs.status running, no detail, event run.running; the queue is not touched', async ({ fx }) => {
    await reserve(fx, reserveInput('run-1'));
    await claim(fx, 'run-1', 'token-1');
    fx.clock.advance(1_000);
    const queue = rowOf(fx.store, 'run_queue', 'run-1');
    const viewer = viewerHead(fx.store, 'run-1').presentation;
    const run = runOf(await report(fx, { runId: 'run-1', claimToken: 'token-1', state: 'RUNNING' }), 'ReportWorkflowRunStateSuccess');
    expect(run).toMatchObject({ status: 'RUNNING', queueStatus: 'STARTING', statusDetail: null, finishedAt: null });
    expect(rowOf(fx.store, 'runs', 'run-1')).toMatchObject({ status: 'running', status_detail: null, finished_at: null, updated_at: T0 + 1_000 });
    expect(rowOf(fx.store, 'run_queue', 'run-1')).toEqual(queue);
    expect(lastEvent(fx.store, 'run-1')).toMatchObject({ type: 'run.running', actorId: 'runner-1', payload: { status: 'running' } });
    expect(targetsAfter(fx.store, 'run-1', viewer)).toEqual([BUMP, SUMMARY_REPLAY]);
  });

  it('WAITING: runs.status waiting with finishedAt, the given detail or the default one', async ({ fx }) => {
    await reserve(fx, reserveInput('run-1'));
    await claim(fx, 'run-1', 'token-1');
    fx.clock.advance(1_000);
    expect(runOf(await report(fx, { runId: 'run-1', claimToken: 'token-1', state: 'WAITING' }), 'ReportWorkflowRunStateSuccess')).toMatchObject({
      status: 'WAITING',
      statusDetail: 'waiting for origin-session input',
    });
    expect(rowOf(fx.store, 'runs', 'run-1')).toMatchObject({ status: 'waiting', finished_at: T0 + 1_000, updated_at: T0 + 1_000 });
    expect(
      runOf(await report(fx, { runId: 'run-1', claimToken: 'token-1', state: 'WAITING', detail: 'asked: which branch?' }), 'ReportWorkflowRunStateSuccess'),
    ).toMatchObject({ status: 'WAITING', statusDetail: 'asked: which branch?' });
    expect(lastEvent(fx.store, 'run-1')).toMatchObject({ type: 'run.waiting', payload: { status: 'waiting' } });
  });

  it('ClaimLostError, NotFoundError; an unknown state is refused by GraphQL; nothing written', async ({ fx }) => {
    await reserve(fx, reserveInput('run-1'));
    await claim(fx, 'run-1', 'token-1');
    expect(await unchanged(fx, () => report(fx, { runId: 'run-1', claimToken: 'wrong', state: 'RUNNING' }))).toEqual(claimLost('run-1'));
    expect(await unchanged(fx, () => report(fx, { runId: 'ghost', claimToken: 'token-1', state: 'WAITING' }))).toEqual(notFound('ghost'));
    const bad = await unchanged(fx, () =>
      fx.gql(ReportWorkflowRunStateDocument, { input: { runId: 'run-1', claimToken: 'token-1', state: 'COMPLETED' as 'RUNNING' } }),
    );
    expect(bad.errors?.[0]?.message).toContain('Value "COMPLETED" does not exist in "ReportedRunState" enum.');
  });
});

describe('cancelWorkflowRun', () => {
  it('with the claim: run and queue CANCELLED, error cancelled, claim released, event run.queue_cancelled by the holder', async ({ fx }) => {
    await reserve(fx, reserveInput('run-1'));
    await claim(fx, 'run-1', 'token-1');
    fx.clock.advance(1_000);
    const viewer = viewerHead(fx.store, 'run-1').presentation;
    const run = runOf(await cancel(fx, { runId: 'run-1', claimToken: 'token-1' }), 'CancelWorkflowRunSuccess');
    expect(run).toMatchObject({
      status: 'CANCELLED',
      queueStatus: 'CANCELLED',
      errorCode: 'cancelled',
      errorMessage: 'Workflow run cancelled',
      claim: null,
      finishedAt: iso(T0 + 1_000),
    });
    expect(leaseOf(fx.store, 'run-1')).toMatchObject({ generation: 1, owner_id: null, token_hash: null, expires_at: null });
    expect(lastEvent(fx.store, 'run-1')).toMatchObject({
      type: 'run.queue_cancelled',
      actorType: 'session',
      actorId: 'runner-1',
      leaseGeneration: 1,
      payload: { status: 'cancelled', code: 'cancelled', error: 'Workflow run cancelled' },
    });
    expect(targetsAfter(fx.store, 'run-1', viewer)).toEqual([BUMP, SUMMARY_REPLAY]);
  });

  it('without a token: a queued run nobody claimed is cancelled by the system', async ({ fx }) => {
    await reserve(fx, reserveInput('run-1'));
    fx.clock.advance(1_000);
    expect(runOf(await cancel(fx, { runId: 'run-1' }), 'CancelWorkflowRunSuccess')).toMatchObject({ status: 'CANCELLED', queueStatus: 'CANCELLED' });
    expect(leaseOf(fx.store, 'run-1')).toMatchObject({ generation: 0, owner_id: null });
    expect(lastEvent(fx.store, 'run-1')).toMatchObject({ type: 'run.queue_cancelled', actorType: 'system', actorId: null, payload: { status: 'cancelled' } });
  });

  it('without a token: a parked run or one whose claim expired is cancelled through a control claim, taken and released', async ({ fx }) => {
    await reserve(fx, reserveInput('parked'));
    await claim(fx, 'parked', 'token-p');
    await park(fx, 'parked', 'token-p');
    await reserve(fx, reserveInput('expired', { originSessionId: 'session-2' }));
    await claim(fx, 'expired', 'token-e', { leaseMs: 5_000 });
    fx.clock.advance(5_000);
    for (const runId of ['parked', 'expired']) {
      const viewer = viewerHead(fx.store, runId).presentation;
      expect(runOf(await cancel(fx, { runId }), 'CancelWorkflowRunSuccess')).toMatchObject({
        status: 'CANCELLED',
        queueStatus: 'CANCELLED',
        errorCode: 'cancelled',
        claim: null,
      });
      expect(leaseOf(fx.store, runId)).toMatchObject({ generation: 2, owner_type: null, owner_id: null, token_hash: null, expires_at: null });
      expect(lastEvent(fx.store, runId)).toMatchObject({
        type: 'run.queue_cancelled',
        actorType: 'control',
        actorId: 'workflow-control',
        leaseGeneration: 2,
        payload: { status: 'cancelled', code: 'cancelled', staleControl: true },
      });
      expect(targetsAfter(fx.store, runId, viewer)).toEqual([BUMP, SUMMARY_REPLAY]);
    }
  });

  it('refusals, each writing nothing: a live claim without its token, a wrong token, a finished run, an unknown run', async ({ fx }) => {
    await reserve(fx, reserveInput('run-1'));
    await claim(fx, 'run-1', 'token-1', { runnerId: 'host-7', leaseMs: 60_000 });
    expect(await unchanged(fx, () => cancel(fx, { runId: 'run-1' }))).toEqual(
      conflict(`Workflow run run-1 is claimed by host-7 until ${iso(T0 + 60_000)}: cancel it with that claim's token, or once the lease has expired`),
    );
    expect(await unchanged(fx, () => cancel(fx, { runId: 'run-1', claimToken: 'wrong' }))).toEqual(claimLost('run-1'));
    runOf(await cancel(fx, { runId: 'run-1', claimToken: 'token-1' }), 'CancelWorkflowRunSuccess');
    for (const input of [{ runId: 'run-1' }, { runId: 'run-1', claimToken: 'token-1' }]) {
      expect(await unchanged(fx, () => cancel(fx, input))).toEqual(conflict('Workflow run run-1 has already finished (queue status cancelled)'));
    }
    expect(await unchanged(fx, () => cancel(fx, { runId: 'ghost' }))).toEqual(notFound('ghost'));
  });
});

/** Drives `runId` to parked, run waiting, with a pending interactive request (what a pause applies to). */
async function waitingForInput(fx: TestServer, runId: string, session = 'session-1'): Promise<void> {
  await reserve(fx, reserveInput(runId, { originSessionId: session }));
  await claim(fx, runId, `token-${runId}`);
  runOf(await report(fx, { runId, claimToken: `token-${runId}`, state: 'WAITING' }), 'ReportWorkflowRunStateSuccess');
  await park(fx, runId, `token-${runId}`);
  // The engine opens the request (no mutation does): the test stands in for it.
  storeInternals(fx.store).interactions.openInteraction(
    { runId, nodeId: 'ask', attemptId: `attempt-${runId}`, requestId: `request-${runId}`, targetSessionId: session },
    fx.clock.t,
  );
}

/** The workflow host's control claim (pending interactions allowed, queue kept): 1 s of `host-1`. */
function controlClaim(fx: TestServer, runId: string): void {
  expect(fx.store.claimWorkflowRunForControl({ runId, runnerId: 'host-1', claimToken: 'control', leaseMs: 1_000 })).toBeDefined();
}

describe('pauseWorkflowRun and resumeWorkflowRun', () => {
  it('pause: paused, detail paused, event run.paused by control; pausing again answers the run and writes nothing; resume undoes it', async ({ fx }) => {
    await waitingForInput(fx, 'run-1');
    fx.clock.advance(1_000);
    const viewer = viewerHead(fx.store, 'run-1').presentation;
    const paused = runOf(await pause(fx, { runId: 'run-1' }), 'PauseWorkflowRunSuccess');
    expect(paused).toMatchObject({ paused: true, statusDetail: 'paused', status: 'WAITING', queueStatus: 'PARKED' });
    expect(rowOf(fx.store, 'runs', 'run-1')).toMatchObject({ paused: 1, status_detail: 'paused', updated_at: T0 + 1_000 });
    expect(lastEvent(fx.store, 'run-1')).toMatchObject({ type: 'run.paused', actorType: 'control', actorId: null, payload: { status: 'parked' } });
    expect(targetsAfter(fx.store, 'run-1', viewer)).toEqual([BUMP, SUMMARY_REPLAY]);
    expect(runOf(await unchanged(fx, () => pause(fx, { runId: 'run-1' })), 'PauseWorkflowRunSuccess')).toEqual(paused);

    fx.clock.advance(1_000);
    const resumed = runOf(await resume(fx, { runId: 'run-1' }), 'ResumeWorkflowRunSuccess');
    expect(resumed).toMatchObject({ paused: false, statusDetail: 'waiting for origin-session input', status: 'WAITING', queueStatus: 'PARKED' });
    expect(lastEvent(fx.store, 'run-1')).toMatchObject({ type: 'run.resumed', actorType: 'control', actorId: null, payload: { status: 'waiting' } });
  });

  it('pause refusals, each a ConflictError with its reason and nothing written', async ({ fx }) => {
    await reserve(fx, reserveInput('queued'));
    expect(await unchanged(fx, () => pause(fx, { runId: 'queued' }))).toEqual(
      conflict('Workflow run queued is not parked (queue status queued): only a parked run can be paused'),
    );
    await reserve(fx, reserveInput('no-request', { originSessionId: 'session-2' }));
    await claim(fx, 'no-request', 'token-n');
    await park(fx, 'no-request', 'token-n');
    expect(await unchanged(fx, () => pause(fx, { runId: 'no-request' }))).toEqual(
      conflict('Workflow run no-request has no pending interaction: only a run waiting for input can be paused'),
    );
    await waitingForInput(fx, 'claimed', 'session-3');
    controlClaim(fx, 'claimed');
    expect(await unchanged(fx, () => pause(fx, { runId: 'claimed' }))).toEqual(
      conflict(`Workflow run claimed is claimed by host-1 until ${iso(T0 + 1_000)}: a claimed run cannot be paused`),
    );
    expect(await unchanged(fx, () => pause(fx, { runId: 'ghost' }))).toEqual(notFound('ghost'));
  });

  it('resume refusals, each a ConflictError with its reason and nothing written', async ({ fx }) => {
    await waitingForInput(fx, 'run-1');
    expect(await unchanged(fx, () => resume(fx, { runId: 'run-1' }))).toEqual(conflict('Workflow run run-1 is not paused'));
    await reserve(fx, reserveInput('queued', { originSessionId: 'session-2' }));
    expect(await unchanged(fx, () => resume(fx, { runId: 'queued' }))).toEqual(
      conflict('Workflow run queued is not parked (queue status queued): only a parked run can be resumed'),
    );
    await reserve(fx, reserveInput('parked', { originSessionId: 'session-3' }));
    await claim(fx, 'parked', 'token-p');
    await park(fx, 'parked', 'token-p');
    expect(await unchanged(fx, () => resume(fx, { runId: 'parked' }))).toEqual(
      conflict('Workflow run parked is queued, not waiting: only a paused waiting run can be resumed'),
    );
    runOf(await pause(fx, { runId: 'run-1' }), 'PauseWorkflowRunSuccess');
    controlClaim(fx, 'run-1');
    expect(await unchanged(fx, () => resume(fx, { runId: 'run-1' }))).toEqual(
      conflict(`Workflow run run-1 is claimed by host-1 until ${iso(T0 + 1_000)}: a claimed run cannot be resumed`),
    );
    fx.clock.advance(1_000);
    sql(fx.store, "UPDATE interactive_requests SET status = 'cancelled' WHERE run_id = 'run-1'");
    expect(await unchanged(fx, () => resume(fx, { runId: 'run-1' }))).toEqual(conflict('Workflow run run-1 has no pending interaction to resume'));
    expect(await unchanged(fx, () => resume(fx, { runId: 'ghost' }))).toEqual(notFound('ghost'));
  });
});

describe('parkWorkflowRun for no progress (a choice of park)', () => {
  it('parks with workerNoProgress, event run.worker_no_progress; claiming the next run skips it', async ({ fx }) => {
    await reserve(fx, reserveInput('run-1', { executionMode: 'HEADLESS' }));
    await claim(fx, 'run-1', 'token-1');
    fx.clock.advance(1_000);
    const { parkWorkflowRun } = await fx.data(ParkWorkflowRunDocument, { input: { runId: 'run-1', claimToken: 'token-1', noProgressDetail: 'no tool call' } });
    expect(runOf(parkWorkflowRun, 'ParkWorkflowRunSuccess')).toMatchObject({
      queueStatus: 'PARKED',
      errorCode: 'workerNoProgress',
      statusDetail: 'no tool call',
    });
    expect(rowOf(fx.store, 'run_queue', 'run-1')).toMatchObject({ status: 'parked', error_code: 'workerNoProgress', available_at: T0 + 1_000 });
    expect(lastEvent(fx.store, 'run-1')).toMatchObject({ type: 'run.worker_no_progress', payload: { status: 'parked', code: 'workerNoProgress' } });
    const next = await unchanged(
      fx,
      async () => (await fx.data(ClaimWorkflowRunDocument, { input: { runnerId: 'r', claimToken: 't', leaseMs: 1_000 } })).claimWorkflowRun,
    );
    expect(next).toEqual({ __typename: 'ClaimWorkflowRunSuccess', run: null });
  });
});
