import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkflowStore, type ClaimNextWorkflowRunInput } from '../../src/store/index.js';
import {
  claim,
  expectNoWrite,
  hostSetRunStatus,
  openTestStore,
  parkedWaitingRun,
  reserve,
  sql,
  tempDir,
  terminalRun,
  TestClock,
  type TestStore,
} from '../helpers/store-fixtures.js';
import { storeInternals } from '../helpers/store-internals.js';

let t: TestStore;
beforeEach(() => {
  t = openTestStore();
});
afterEach(() => t.close());

function next(overrides: Partial<ClaimNextWorkflowRunInput> = {}): string | undefined {
  return t.store.claimNextWorkflowRun({ runnerId: 'runner-1', claimToken: 'next-token', leaseMs: 10_000, ...overrides })?.runId;
}

/** claimNext must find nothing and write nothing. */
function expectNone(overrides: Partial<ClaimNextWorkflowRunInput> = {}): void {
  expect(expectNoWrite(t.store, () => next(overrides))).toBeUndefined();
}

const headless = (runId: string, overrides = {}) => reserve(t.store, runId, { executionMode: 'headless', ...overrides });

/** A headless run released to parked with its run status `running` (claimable again). */
function parkedRunning(runId: string, overrides = {}): void {
  headless(runId, overrides);
  claim(t.store, runId);
  hostSetRunStatus(t.store, runId, 'running', t.clock.t);
  expect(t.store.parkWorkflowRun({ runId, claimToken: `token-${runId}` })).toBe(true);
}

describe('claimNextWorkflowRun (STORE.md §6.4)', () => {
  it('returns nothing on an empty store', () => {
    expectNone();
  });

  it('claims a queued headless run: the claim core in normal mode', () => {
    headless('run-1');
    const record = t.store.claimNextWorkflowRun({ runnerId: 'runner-1', claimToken: 'next-token', leaseMs: 10_000 });
    expect(record).toMatchObject({ runId: 'run-1', status: 'starting', claimToken: 'next-token', claimGeneration: 1, runnerId: 'runner-1' });
  });

  it('without sessionId: an interactive queued run waits for its own session, an interactive parked run does not', () => {
    reserve(t.store, 'interactive');
    expectNone();
    expect(next({ sessionId: 'session-interactive' })).toBe('interactive');
    hostSetRunStatus(t.store, 'interactive', 'running', t.clock.t);
    t.store.parkWorkflowRun({ runId: 'interactive', claimToken: 'next-token' });
    expect(next()).toBe('interactive');
  });

  it('with sessionId: only runs bound to that session, headless ones included', () => {
    headless('mine', { originSessionId: 'S1' });
    headless('theirs', { originSessionId: 'S2' });
    expect(next({ sessionId: 'S2' })).toBe('theirs');
    expectNone({ sessionId: 'S2', runnerId: 'runner-2' });
    expectNone({ sessionId: 'S3' });
    expect(next({ sessionId: 'S1' })).toBe('mine');
  });

  it('affinity binds only queued rows', () => {
    headless('bound', { runnerId: 'runner-a' });
    expectNone({ runnerId: 'runner-b' });
    expect(next({ runnerId: 'runner-a' })).toBe('bound');
    parkedRunning('parked-bound', { runnerId: 'runner-a' });
    expect(next({ runnerId: 'runner-b' })).toBe('parked-bound');
  });

  it('excludes a run with a pending interactive request', () => {
    parkedRunning('run-1');
    storeInternals(t.store).interactions.openInteraction(
      { runId: 'run-1', nodeId: 'ask', attemptId: 'a1', requestId: 'q1', targetSessionId: 'session-run-1' },
      t.clock.t,
    );
    expectNone();
  });

  it('excludes parked runs that are waiting or paused; a parked running run is eligible', () => {
    parkedWaitingRun(t, 'waiting', { executionMode: 'headless' });
    expectNone();
    parkedRunning('paused');
    sql(t.store, "UPDATE runs SET paused = 1, status_detail = 'paused' WHERE run_id = 'paused'");
    expectNone();
    parkedRunning('running');
    expect(next()).toBe('running');
  });

  it.each(['workerNoProgress', 'workflowSourceChanged'])('excludes error code %s', (code) => {
    parkedRunning('run-1');
    sql(t.store, 'UPDATE run_queue SET error_code = ? WHERE run_id = ?', code, 'run-1');
    expectNone();
  });

  it('excludes a run parked for worker no progress until it is claimed explicitly', () => {
    headless('run-1');
    claim(t.store, 'run-1');
    t.store.parkWorkflowRunForWorkerNoProgress({ runId: 'run-1', claimToken: 'token-run-1', detail: 'stuck' });
    expectNone();
    expect(claim(t.store, 'run-1', 'runner-2', 'direct').errorCode).toBeNull();
  });

  it('does not exclude other error codes', () => {
    parkedRunning('run-1');
    sql(t.store, "UPDATE run_queue SET error_code = 'effectAmbiguous' WHERE run_id = 'run-1'");
    expect(next()).toBe('run-1');
  });

  it('honours excludeRunIds', () => {
    headless('run-1');
    headless('run-2');
    expect(next({ excludeRunIds: ['run-1'] })).toBe('run-2');
    expectNone({ excludeRunIds: ['run-1'], runnerId: 'runner-2' });
    expectNone({ excludeRunIds: ['run-1', 'run-2'] });
  });

  it('skips another runner’s live lease and takes it once expired (expiry ≤ now)', () => {
    headless('run-1');
    claim(t.store, 'run-1', 'runner-1', 'first', 1000);
    expectNone({ runnerId: 'runner-2' });
    t.clock.advance(999);
    expectNone({ runnerId: 'runner-2' });
    t.clock.advance(1);
    const taken = t.store.claimNextWorkflowRun({ runnerId: 'runner-2', claimToken: 'second', leaseMs: 1000 });
    expect(taken).toMatchObject({ runId: 'run-1', runnerId: 'runner-2', claimGeneration: 2 });
  });

  it('lets the same runner re-claim a run it holds', () => {
    headless('run-1');
    claim(t.store, 'run-1', 'runner-1', 'first');
    expect(t.store.claimNextWorkflowRun({ runnerId: 'runner-1', claimToken: 'again', leaseMs: 1000 })).toMatchObject({
      runId: 'run-1',
      claimGeneration: 2,
    });
  });

  it('excludes finished queues and rows not yet available', () => {
    terminalRun(t, 'done', { executionMode: 'headless' }, 'completed');
    terminalRun(t, 'failed', { executionMode: 'headless' });
    terminalRun(t, 'cancelled', { executionMode: 'headless' }, 'cancelled');
    headless('later');
    sql(t.store, 'UPDATE run_queue SET available_at = ? WHERE run_id = ?', t.clock.t + 1, 'later');
    expectNone();
    t.clock.advance(1);
    expect(next()).toBe('later');
  });

  it('orders by available_at, then queue created_at', () => {
    headless('c-created-first');
    t.clock.advance(10);
    headless('b-created-second');
    t.clock.advance(10);
    headless('a-available-first');
    sql(t.store, 'UPDATE run_queue SET available_at = ? WHERE run_id = ?', t.clock.t - 100, 'a-available-first');
    // Distinct runners: a runner would otherwise re-claim the run it already holds.
    const order = [next({ runnerId: 'r1' }), next({ runnerId: 'r2' }), next({ runnerId: 'r3' })];
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
