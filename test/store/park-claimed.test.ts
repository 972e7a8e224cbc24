/**
 * `parkClaimedWorkflowRun`: the store decides a park's refusals — a missing
 * run is `not_found`, a token that is not the live claim (or an expired lease) is `claim_lost`
 * — and returns the parked record, so callers map the error kind instead of re-reading the run.
 * Refusals write nothing; the writes are those of the boolean parks (docs/STORE-RULES.md §6.6, §6.7).
 */
import { describe, expect } from 'vitest';
import {
  claim,
  expectRejectedUnchanged,
  freeLease,
  hostSetRunStatus,
  lastEvent,
  LEASE_MS,
  leaseOf,
  parkedWaitingRun,
  reserve,
  rowOf,
} from '../helpers/store-fixtures.js';
import { storeTest as it } from '../helpers/store-test.js';
it.beforeEach(({ t }) => {
  reserve(t.store, 'run-1');
  claim(t.store, 'run-1', 'runner-1', 'tok');
  hostSetRunStatus(t.store, 'run-1', 'running', t.clock.t);
  t.clock.advance(100);
});

describe('parkClaimedWorkflowRun', () => {
  it('releases to parked and returns the parked record (the writes of parkWorkflowRun)', ({ t }) => {
    const run = t.store.parkClaimedWorkflowRun({ runId: 'run-1', claimToken: 'tok' });
    expect(run).toMatchObject({ runId: 'run-1', status: 'parked', claim: null });
    expect(rowOf(t.store, 'run_queue', 'run-1')).toMatchObject({ status: 'parked', updated_at: t.clock.t, finished_at: null });
    expect(leaseOf(t.store, 'run-1')).toEqual(freeLease(1));
    expect(lastEvent(t.store, 'run-1')).toMatchObject({ type: 'run.queue_parked', payload: { status: 'parked' } });
  });

  it('with noProgressDetail parks for worker no progress (the writes of parkWorkflowRunForWorkerNoProgress)', ({ t }) => {
    const run = t.store.parkClaimedWorkflowRun({ runId: 'run-1', claimToken: 'tok', noProgressDetail: 'stuck' });
    expect(run).toMatchObject({ runId: 'run-1', status: 'parked', errorCode: 'workerNoProgress', statusDetail: 'stuck', claim: null });
    expect(lastEvent(t.store, 'run-1')).toMatchObject({ type: 'run.worker_no_progress', payload: { status: 'parked', code: 'workerNoProgress' } });
  });

  it('refuses a missing run with not_found', ({ t }) => {
    expectRejectedUnchanged(
      t.store,
      () => t.store.parkClaimedWorkflowRun({ runId: 'missing', claimToken: 'tok' }),
      'Workflow run not found: missing',
      'not_found',
    );
    expectRejectedUnchanged(
      t.store,
      () => t.store.parkClaimedWorkflowRun({ runId: 'missing', claimToken: 'tok', noProgressDetail: 'stuck' }),
      'Workflow run not found: missing',
      'not_found',
    );
  });

  it('refuses another token, and an expired lease, with claim_lost', ({ t }) => {
    const notLive = 'Claim token is not the live claim of workflow run: run-1';
    expectRejectedUnchanged(t.store, () => t.store.parkClaimedWorkflowRun({ runId: 'run-1', claimToken: 'other' }), notLive, 'claim_lost');
    expectRejectedUnchanged(
      t.store,
      () => t.store.parkClaimedWorkflowRun({ runId: 'run-1', claimToken: 'other', noProgressDetail: 'stuck' }),
      notLive,
      'claim_lost',
    );
    t.clock.advance(LEASE_MS);
    expectRejectedUnchanged(t.store, () => t.store.parkClaimedWorkflowRun({ runId: 'run-1', claimToken: 'tok' }), notLive, 'claim_lost');
  });

  it('keeps the no-progress rule: a waiting run is a conflict, nothing written', ({ t }) => {
    parkedWaitingRun(t, 'waiting-1');
    claim(t.store, 'waiting-1', 'runner-1', 'tok-w');
    expectRejectedUnchanged(
      t.store,
      () => t.store.parkClaimedWorkflowRun({ runId: 'waiting-1', claimToken: 'tok-w', noProgressDetail: 'stuck' }),
      'Workflow run waiting-1 is waiting and cannot be parked for worker no progress',
      'conflict',
    );
  });
});
