import { describe, expect } from 'vitest';
import { NO_PROGRESS_DETAIL_LIMIT } from '../../src/store/index.js';
import {
  BUMP,
  claim,
  expectNoWrite,
  expectRejectedUnchanged,
  freeLease,
  hostSetRunStatus,
  ignoreUpdatesOf,
  lastEvent,
  leaseOf,
  parkedWaitingRun,
  reserve,
  resourceRevision,
  rowOf,
  SUMMARY_REPLAY,
  targetsAfter,
  viewerHead,
} from '../helpers/store-fixtures.js';
import { storeTest as it } from '../helpers/store-test.js';
it.beforeEach(({ t }) => {
  reserve(t.store, 'run-1', { executionMode: 'headless' });
  claim(t.store, 'run-1', 'runner-1', 'tok');
  t.store.markWorkflowRunRunning({ runId: 'run-1', claimToken: 'tok' });
  hostSetRunStatus(t.store, 'run-1', 'running', t.clock.t);
  t.clock.advance(1000);
});

describe('parkWorkflowRunForWorkerNoProgress (docs/STORE-RULES.md §6.7)', () => {
  it('cuts the detail to 8192 UTF-16 code units and stores it on the run and as the queue error', ({ t }) => {
    expect(NO_PROGRESS_DETAIL_LIMIT).toBe(8192);
    const detail = 'é'.repeat(5000) + 'x'.repeat(5000);
    const expected = 'é'.repeat(5000) + 'x'.repeat(3192);
    expect(t.store.parkWorkflowRunForWorkerNoProgress({ runId: 'run-1', claimToken: 'tok', detail })).toBe(true);
    const record = t.store.getWorkflowRun('run-1');
    expect(record?.statusDetail).toBe(expected);
    expect(record?.statusDetail).toHaveLength(8192);
    expect(record?.errorMessage).toBe(expected);
    expect(record?.errorCode).toBe('workerNoProgress');
  });

  it('parks the queue, keeps the run status, releases the lease, bumps then summary + replay', ({ t }) => {
    const viewer = viewerHead(t.store, 'run-1').presentation;
    const revision = resourceRevision(t.store, 'run-1');
    expect(t.store.parkWorkflowRunForWorkerNoProgress({ runId: 'run-1', claimToken: 'tok', detail: 'no output for 10 minutes' })).toBe(true);
    expect(rowOf(t.store, 'runs', 'run-1')).toMatchObject({
      status: 'running',
      status_detail: 'no output for 10 minutes',
      updated_at: t.clock.t,
      finished_at: null,
    });
    expect(rowOf(t.store, 'run_queue', 'run-1')).toMatchObject({
      status: 'parked',
      error_code: 'workerNoProgress',
      available_at: t.clock.t,
      updated_at: t.clock.t,
      finished_at: null,
    });
    expect(leaseOf(t.store, 'run-1')).toEqual(freeLease(1));
    expect(lastEvent(t.store, 'run-1')).toMatchObject({
      type: 'run.worker_no_progress',
      revision: revision + 1,
      actorType: 'session',
      actorId: 'runner-1',
      leaseGeneration: 1,
      payload: { status: 'parked', code: 'workerNoProgress' },
    });
    expect(targetsAfter(t.store, 'run-1', viewer)).toEqual([BUMP, SUMMARY_REPLAY]);
  });

  it('keeps the run out of claimNext until it is claimed explicitly', ({ t }) => {
    t.store.parkWorkflowRunForWorkerNoProgress({ runId: 'run-1', claimToken: 'tok', detail: 'stuck' });
    expect(expectNoWrite(t.store, () => t.store.claimNextWorkflowRun({ runnerId: 'runner-2', claimToken: 'x', leaseMs: 1000 }))).toBeUndefined();
    expect(claim(t.store, 'run-1', 'runner-2', 'x')).toMatchObject({ status: 'starting', errorCode: null });
  });

  it('returns false and writes nothing without a verified claim', ({ t }) => {
    expect(expectNoWrite(t.store, () => t.store.parkWorkflowRunForWorkerNoProgress({ runId: 'run-1', claimToken: 'other', detail: 'd' }))).toBe(false);
    expect(expectNoWrite(t.store, () => t.store.parkWorkflowRunForWorkerNoProgress({ runId: 'ghost', claimToken: 'tok', detail: 'd' }))).toBe(false);
  });

  it('refuses a waiting run with a conflict and writes nothing (docs/STORE-RULES.md §13.7)', ({ t }) => {
    parkedWaitingRun(t, 'waiting');
    const control = t.store.claimWorkflowRunForControl({ runId: 'waiting', runnerId: 'control-1', claimToken: 'c', leaseMs: 1000 });
    expect(control?.status).toBe('parked');
    expectRejectedUnchanged(
      t.store,
      () => t.store.parkWorkflowRunForWorkerNoProgress({ runId: 'waiting', claimToken: 'c', detail: 'stuck' }),
      'Workflow run waiting is waiting and cannot be parked for worker no progress',
      'conflict',
    );
  });

  it('Workflow run <runId> changed during worker recovery when the queue update misses; nothing written', ({ t }) => {
    ignoreUpdatesOf(t.store, 'run_queue');
    expectRejectedUnchanged(
      t.store,
      () => t.store.parkWorkflowRunForWorkerNoProgress({ runId: 'run-1', claimToken: 'tok', detail: 'stuck' }),
      'Workflow run run-1 changed during worker recovery',
      'conflict',
    );
  });

  it('Workflow run <runId> claim changed during worker recovery when the release misses; nothing written', ({ t }) => {
    ignoreUpdatesOf(t.store, 'leases');
    expectRejectedUnchanged(
      t.store,
      () => t.store.parkWorkflowRunForWorkerNoProgress({ runId: 'run-1', claimToken: 'tok', detail: 'stuck' }),
      'Workflow run run-1 claim changed during worker recovery',
      'claim_lost',
    );
  });

  it('detail must be a string', ({ t }) => {
    expectRejectedUnchanged(
      t.store,
      () => t.store.parkWorkflowRunForWorkerNoProgress({ runId: 'run-1', claimToken: 'tok', detail: 42 as unknown as string }),
      'detail must be a string',
      'validation',
    );
  });
});
