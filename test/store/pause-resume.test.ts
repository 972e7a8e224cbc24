import { describe, expect } from 'vitest';
import {
  BUMP,
  claim,
  expectNoWrite,
  hostSetRunStatus,
  lastEvent,
  parkedWaitingRun,
  reserve,
  resourceRevision,
  rowOf,
  sql,
  SUMMARY_REPLAY,
  targetsAfter,
  viewerHead,
  type TestStore,
} from '../helpers/store-fixtures.js';
import { storeTest as it } from '../helpers/store-test.js';
import { storeInternals } from '../helpers/store-internals.js';

function openRequest(t: TestStore, runId: string): void {
  storeInternals(t.store).interactions.openInteraction(
    { runId, nodeId: 'ask', attemptId: `attempt-${runId}`, requestId: `request-${runId}`, targetSessionId: `session-${runId}` },
    t.clock.t,
  );
}

/** A parked waiting run with a pending request: what a pause applies to. */
function waitingForInput(t: TestStore, runId: string): void {
  parkedWaitingRun(t, runId);
  openRequest(t, runId);
}

describe('pauseParkedWorkflowRun (docs/STORE-RULES.md §6.8)', () => {
  it('pauses: paused 1, detail paused, bump with run.paused, then summary + replay', ({ t }) => {
    waitingForInput(t, 'run-1');
    const viewer = viewerHead(t.store, 'run-1').presentation;
    const revision = resourceRevision(t.store, 'run-1');
    t.clock.advance(5);
    expect(t.store.pauseParkedWorkflowRun({ runId: 'run-1' })).toBe(true);
    expect(rowOf(t.store, 'runs', 'run-1')).toMatchObject({ paused: 1, status_detail: 'paused', status: 'waiting', updated_at: t.clock.t });
    expect(rowOf(t.store, 'run_queue', 'run-1').status).toBe('parked');
    expect(lastEvent(t.store, 'run-1')).toMatchObject({
      type: 'run.paused',
      revision: revision + 1,
      actorType: 'control',
      actorId: null,
      leaseGeneration: null,
      payload: { status: 'parked' },
    });
    expect(targetsAfter(t.store, 'run-1', viewer)).toEqual([BUMP, SUMMARY_REPLAY]);
    expect(t.store.getWorkflowRun('run-1')?.paused).toBe(true);
  });

  it('an already paused run answers true and writes nothing', ({ t }) => {
    waitingForInput(t, 'run-1');
    t.store.pauseParkedWorkflowRun({ runId: 'run-1' });
    expect(expectNoWrite(t.store, () => t.store.pauseParkedWorkflowRun({ runId: 'run-1' }))).toBe(true);
  });

  it('pauses a parked running run with a pending request', ({ t }) => {
    reserve(t.store, 'run-1');
    claim(t.store, 'run-1');
    hostSetRunStatus(t.store, 'run-1', 'running', t.clock.t);
    t.store.parkWorkflowRun({ runId: 'run-1', claimToken: 'token-run-1' });
    openRequest(t, 'run-1');
    expect(t.store.pauseParkedWorkflowRun({ runId: 'run-1' })).toBe(true);
  });

  it('returns false, writing nothing: not parked, live lease, no pending request, run neither running nor waiting, missing', ({ t }) => {
    reserve(t.store, 'queued');
    openRequest(t, 'queued');
    expect(expectNoWrite(t.store, () => t.store.pauseParkedWorkflowRun({ runId: 'queued' }))).toBe(false);

    waitingForInput(t, 'leased');
    t.store.claimWorkflowRunForControl({ runId: 'leased', runnerId: 'control', claimToken: 'c', leaseMs: 1000 });
    expect(expectNoWrite(t.store, () => t.store.pauseParkedWorkflowRun({ runId: 'leased' }))).toBe(false);
    t.clock.advance(1000); // an expired lease does not count
    expect(t.store.pauseParkedWorkflowRun({ runId: 'leased' })).toBe(true);

    parkedWaitingRun(t, 'no-request');
    expect(expectNoWrite(t.store, () => t.store.pauseParkedWorkflowRun({ runId: 'no-request' }))).toBe(false);

    reserve(t.store, 'never-started');
    claim(t.store, 'never-started');
    t.store.parkWorkflowRun({ runId: 'never-started', claimToken: 'token-never-started' });
    openRequest(t, 'never-started');
    expect(expectNoWrite(t.store, () => t.store.pauseParkedWorkflowRun({ runId: 'never-started' }))).toBe(false);

    expect(expectNoWrite(t.store, () => t.store.pauseParkedWorkflowRun({ runId: 'ghost' }))).toBe(false);
  });
});

describe('resumePausedInteraction (docs/STORE-RULES.md §6.8)', () => {
  it.beforeEach(({ t }) => {
    waitingForInput(t, 'run-1');
    t.store.pauseParkedWorkflowRun({ runId: 'run-1' });
  });

  it('resumes: paused 0, detail waiting for origin-session input, bump with run.resumed, then summary + replay', ({ t }) => {
    const viewer = viewerHead(t.store, 'run-1').presentation;
    expect(t.store.resumePausedInteraction({ runId: 'run-1' })).toBe(true);
    expect(rowOf(t.store, 'runs', 'run-1')).toMatchObject({ paused: 0, status_detail: 'waiting for origin-session input', status: 'waiting' });
    expect(lastEvent(t.store, 'run-1')).toMatchObject({
      type: 'run.resumed',
      actorType: 'control',
      actorId: null,
      payload: { status: 'waiting' },
    });
    expect(targetsAfter(t.store, 'run-1', viewer)).toEqual([BUMP, SUMMARY_REPLAY]);
  });

  it('returns false, writing nothing: not paused, live lease, no pending request, run not waiting', ({ t }) => {
    t.store.resumePausedInteraction({ runId: 'run-1' });
    expect(expectNoWrite(t.store, () => t.store.resumePausedInteraction({ runId: 'run-1' }))).toBe(false);

    t.store.pauseParkedWorkflowRun({ runId: 'run-1' });
    t.store.claimWorkflowRunForControl({ runId: 'run-1', runnerId: 'control', claimToken: 'c', leaseMs: 1000 });
    expect(expectNoWrite(t.store, () => t.store.resumePausedInteraction({ runId: 'run-1' }))).toBe(false);
    t.clock.advance(1000);

    sql(t.store, "UPDATE interactive_requests SET status = 'cancelled' WHERE run_id = 'run-1'");
    expect(expectNoWrite(t.store, () => t.store.resumePausedInteraction({ runId: 'run-1' }))).toBe(false);
    sql(t.store, "UPDATE interactive_requests SET status = 'pending' WHERE run_id = 'run-1'");

    hostSetRunStatus(t.store, 'run-1', 'running', t.clock.t);
    expect(expectNoWrite(t.store, () => t.store.resumePausedInteraction({ runId: 'run-1' }))).toBe(false);
    hostSetRunStatus(t.store, 'run-1', 'waiting', t.clock.t);
    expect(t.store.resumePausedInteraction({ runId: 'run-1' })).toBe(true);
  });
});
