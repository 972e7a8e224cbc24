import { describe, expect } from 'vitest';
import {
  BUMP,
  claim,
  expectRejectedUnchanged,
  lastEvent,
  reserve,
  rowOf,
  SUMMARY_REPLAY,
  targetsAfter,
  terminalRun,
  viewerHead,
} from '../helpers/store-fixtures.js';
import { storeTest as it } from '../helpers/store-test.js';
it.beforeEach(({ t }) => {
  reserve(t.store, 'run-1', { executionMode: 'headless' });
  claim(t.store, 'run-1', 'host-1', 'tok');
  t.clock.advance(1000);
});

describe('reportWorkflowRunState: the engine reports running / waiting (docs/STORE-RULES.md §4)', () => {
  it('running: runs.status running, finished_at NULL, event run.running, bump then summary+replay; queue untouched', ({ t }) => {
    const before = viewerHead(t.store, 'run-1').presentation;
    const revision = t.store.reportWorkflowRunState({ runId: 'run-1', claimToken: 'tok', status: 'running' });
    expect(revision).toBe(before + 2);
    expect(rowOf(t.store, 'runs', 'run-1')).toMatchObject({ status: 'running', status_detail: null, finished_at: null, updated_at: t.clock.t });
    expect(rowOf(t.store, 'run_queue', 'run-1')).toMatchObject({ status: 'starting' });
    const event = lastEvent(t.store, 'run-1');
    expect(event).toMatchObject({ type: 'run.running', actorType: 'host', actorId: 'host-1', leaseGeneration: 1, payload: { status: 'running' } });
    expect(targetsAfter(t.store, 'run-1', before)).toEqual([BUMP, SUMMARY_REPLAY]);
  });

  it('waiting: finished_at now and the default detail; custom drafts replace summary+replay', ({ t }) => {
    const before = viewerHead(t.store, 'run-1').presentation;
    t.store.reportWorkflowRunState({
      runId: 'run-1',
      claimToken: 'tok',
      status: 'waiting',
      drafts: [{ targetType: 'conversation', ops: [{ op: 'append', path: '/messages', value: ['hi'] }] }],
    });
    expect(rowOf(t.store, 'runs', 'run-1')).toMatchObject({
      status: 'waiting',
      status_detail: 'waiting for origin-session input',
      finished_at: t.clock.t,
    });
    expect(targetsAfter(t.store, 'run-1', before)).toEqual([BUMP, ['conversation']]);
    expect(t.store.getWorkflowRun('run-1')?.runStateStatus).toBe('waiting');
  });

  it('refuses a token that is not the live claim, and an expired lease, writing nothing', ({ t }) => {
    expectRejectedUnchanged(
      t.store,
      () => t.store.reportWorkflowRunState({ runId: 'run-1', claimToken: 'nope', status: 'running' }),
      'Claim token is not the live claim of workflow run: run-1',
      'claim_lost',
    );
    t.clock.advance(60_000);
    expectRejectedUnchanged(
      t.store,
      () => t.store.reportWorkflowRunState({ runId: 'run-1', claimToken: 'tok', status: 'running' }),
      'Claim token is not the live claim of workflow run: run-1',
      'claim_lost',
    );
  });

  it('refuses an unknown run, a bad status, and a terminal run', ({ t }) => {
    expectRejectedUnchanged(
      t.store,
      () => t.store.reportWorkflowRunState({ runId: 'ghost', claimToken: 'tok', status: 'running' }),
      'Workflow run not found: ghost',
      'not_found',
    );
    expectRejectedUnchanged(
      t.store,
      () => t.store.reportWorkflowRunState({ runId: 'run-1', claimToken: 'tok', status: 'done' as 'running' }),
      'status must be running or waiting',
      'validation',
    );
    terminalRun(t, 'run-2');
    // A terminal run has no live claim any more: the claim check answers first.
    expectRejectedUnchanged(
      t.store,
      () => t.store.reportWorkflowRunState({ runId: 'run-2', claimToken: 'token-run-2', status: 'running' }),
      'Claim token is not the live claim of workflow run: run-2',
      'claim_lost',
    );
  });
});
