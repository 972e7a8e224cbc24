import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { describe, expect } from 'vitest';
import { WorkflowStore, type ClaimNextWorkflowRunInput } from '../../src/store/index.js';
import {
  claim,
  expectNoWrite,
  hostSetRunStatus,
  parkedWaitingRun,
  reserve,
  sql,
  tempDir,
  terminalRun,
  TestClock,
  type TestStore,
} from '../helpers/store-fixtures.js';
import { storeTest as it } from '../helpers/store-test.js';
import { storeInternals } from '../helpers/store-internals.js';

function next(t: TestStore, overrides: Partial<ClaimNextWorkflowRunInput> = {}): string | undefined {
  return t.store.claimNextWorkflowRun({ runnerId: 'runner-1', claimToken: 'next-token', leaseMs: 10_000, ...overrides })?.runId;
}

/** claimNext must find nothing and write nothing. */
function expectNone(t: TestStore, overrides: Partial<ClaimNextWorkflowRunInput> = {}): void {
  expect(expectNoWrite(t.store, () => next(t, overrides))).toBeUndefined();
}

const headless = (t: TestStore, runId: string, overrides = {}) => reserve(t.store, runId, { executionMode: 'headless', ...overrides });

/** A headless run released to parked with its run status `running` (claimable again). */
function parkedRunning(t: TestStore, runId: string, overrides = {}): void {
  headless(t, runId, overrides);
  claim(t.store, runId);
  hostSetRunStatus(t.store, runId, 'running', t.clock.t);
  expect(t.store.parkWorkflowRun({ runId, claimToken: `token-${runId}` })).toBe(true);
}

describe('claimNextWorkflowRun (docs/STORE-RULES.md §6.4)', () => {
  it('returns nothing on an empty store', ({ t }) => {
    expectNone(t);
  });

  it('claims a queued headless run: the claim core in normal mode', ({ t }) => {
    headless(t, 'run-1');
    const record = t.store.claimNextWorkflowRun({ runnerId: 'runner-1', claimToken: 'next-token', leaseMs: 10_000 });
    expect(record).toMatchObject({ runId: 'run-1', status: 'starting', claimToken: 'next-token', claimGeneration: 1, runnerId: 'runner-1' });
  });

  it('without sessionId: an interactive queued run waits for its own session, an interactive parked run does not', ({ t }) => {
    reserve(t.store, 'interactive');
    expectNone(t);
    expect(next(t, { sessionId: 'session-interactive' })).toBe('interactive');
    hostSetRunStatus(t.store, 'interactive', 'running', t.clock.t);
    t.store.parkWorkflowRun({ runId: 'interactive', claimToken: 'next-token' });
    expect(next(t)).toBe('interactive');
  });

  it('with sessionId: only runs bound to that session, headless ones included', ({ t }) => {
    headless(t, 'mine', { originSessionId: 'S1' });
    headless(t, 'theirs', { originSessionId: 'S2' });
    expect(next(t, { sessionId: 'S2' })).toBe('theirs');
    expectNone(t, { sessionId: 'S2', runnerId: 'runner-2' });
    expectNone(t, { sessionId: 'S3' });
    expect(next(t, { sessionId: 'S1' })).toBe('mine');
  });

  it('affinity binds only queued rows', ({ t }) => {
    headless(t, 'bound', { runnerId: 'runner-a' });
    expectNone(t, { runnerId: 'runner-b' });
    expect(next(t, { runnerId: 'runner-a' })).toBe('bound');
    parkedRunning(t, 'parked-bound', { runnerId: 'runner-a' });
    expect(next(t, { runnerId: 'runner-b' })).toBe('parked-bound');
  });

  it('excludes a run with a pending interactive request', ({ t }) => {
    parkedRunning(t, 'run-1');
    storeInternals(t.store).interactions.openInteraction(
      { runId: 'run-1', nodeId: 'ask', attemptId: 'a1', requestId: 'q1', targetSessionId: 'session-run-1' },
      t.clock.t,
    );
    expectNone(t);
  });

  it('excludes parked runs that are waiting or paused; a parked running run is eligible', ({ t }) => {
    parkedWaitingRun(t, 'waiting', { executionMode: 'headless' });
    expectNone(t);
    parkedRunning(t, 'paused');
    sql(t.store, "UPDATE runs SET paused = 1, status_detail = 'paused' WHERE run_id = 'paused'");
    expectNone(t);
    parkedRunning(t, 'running');
    expect(next(t)).toBe('running');
  });

  it.for(['workerNoProgress', 'workflowSourceChanged'])('excludes error code %s', (code, { t }) => {
    parkedRunning(t, 'run-1');
    sql(t.store, 'UPDATE run_queue SET error_code = ? WHERE run_id = ?', code, 'run-1');
    expectNone(t);
  });

  it('excludes a run parked for worker no progress until it is claimed explicitly', ({ t }) => {
    headless(t, 'run-1');
    claim(t.store, 'run-1');
    t.store.parkWorkflowRunForWorkerNoProgress({ runId: 'run-1', claimToken: 'token-run-1', detail: 'stuck' });
    expectNone(t);
    expect(claim(t.store, 'run-1', 'runner-2', 'direct').errorCode).toBeNull();
  });

  it('does not exclude other error codes', ({ t }) => {
    parkedRunning(t, 'run-1');
    sql(t.store, "UPDATE run_queue SET error_code = 'effectAmbiguous' WHERE run_id = 'run-1'");
    expect(next(t)).toBe('run-1');
  });

  it('honours excludeRunIds', ({ t }) => {
    headless(t, 'run-1');
    headless(t, 'run-2');
    expect(next(t, { excludeRunIds: ['run-1'] })).toBe('run-2');
    expectNone(t, { excludeRunIds: ['run-1'], runnerId: 'runner-2' });
    expectNone(t, { excludeRunIds: ['run-1', 'run-2'] });
  });

  it('skips another runner’s live lease and takes it once expired (expiry ≤ now)', ({ t }) => {
    headless(t, 'run-1');
    claim(t.store, 'run-1', 'runner-1', 'first', 1000);
    expectNone(t, { runnerId: 'runner-2' });
    t.clock.advance(999);
    expectNone(t, { runnerId: 'runner-2' });
    t.clock.advance(1);
    const taken = t.store.claimNextWorkflowRun({ runnerId: 'runner-2', claimToken: 'second', leaseMs: 1000 });
    expect(taken).toMatchObject({ runId: 'run-1', runnerId: 'runner-2', claimGeneration: 2 });
  });

  it('lets the same runner re-claim a run it holds', ({ t }) => {
    headless(t, 'run-1');
    claim(t.store, 'run-1', 'runner-1', 'first');
    expect(t.store.claimNextWorkflowRun({ runnerId: 'runner-1', claimToken: 'again', leaseMs: 1000 })).toMatchObject({
      runId: 'run-1',
      claimGeneration: 2,
    });
  });

  it('excludes finished queues and rows not yet available', ({ t }) => {
    terminalRun(t, 'done', { executionMode: 'headless' }, 'completed');
    terminalRun(t, 'failed', { executionMode: 'headless' });
    terminalRun(t, 'cancelled', { executionMode: 'headless' }, 'cancelled');
    headless(t, 'later');
    sql(t.store, 'UPDATE run_queue SET available_at = ? WHERE run_id = ?', t.clock.t + 1, 'later');
    expectNone(t);
    t.clock.advance(1);
    expect(next(t)).toBe('later');
  });

  it('orders by available_at, then queue created_at', ({ t }) => {
    headless(t, 'c-created-first');
    t.clock.advance(10);
    headless(t, 'b-created-second');
    t.clock.advance(10);
    headless(t, 'a-available-first');
    sql(t.store, 'UPDATE run_queue SET available_at = ? WHERE run_id = ?', t.clock.t - 100, 'a-available-first');
    // Distinct runners: a runner would otherwise re-claim the run it already holds.
    const order = [next(t, { runnerId: 'r1' }), next(t, { runnerId: 'r2' }), next(t, { runnerId: 'r3' })];
    expect(order).toEqual(['a-available-first', 'c-created-first', 'b-created-second']);
  });

  it('stays within the store’s project', () => {
    const dir = tempDir();
    const path = join(dir, 'state.db');
    const clock = new TestClock();
    const projectA = WorkflowStore.open({ path, projectPath: join(dir, 'a'), clock: clock.now });
    const projectB = WorkflowStore.open({ path, projectPath: join(dir, 'b'), clock: clock.now });
    try {
      reserve(projectA, 'run-a', { executionMode: 'headless' });
      expect(projectB.claimNextWorkflowRun({ runnerId: 'r', claimToken: 'x', leaseMs: 1000 })).toBeUndefined();
      expect(projectA.claimNextWorkflowRun({ runnerId: 'r', claimToken: 'x', leaseMs: 1000 })?.runId).toBe('run-a');
    } finally {
      projectA.close();
      projectB.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
