import { describe, expect } from 'vitest';
import type { WorkflowMessageKind } from '../../src/store/index.js';
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
  rowOf,
  SUMMARY_REPLAY,
  targetsAfter,
  viewerHead,
  type TestStore,
} from '../helpers/store-fixtures.js';
import { storeTest as it } from '../helpers/store-test.js';
import { storeInternals, connectionOf, unreferencedBlobs } from '../helpers/store-internals.js';

const content = (triggerTurn: boolean) => ({
  schema: 'pi-workflows.workflow-message-content.v1' as const,
  customType: 'pi-workflows.test',
  content: 'text',
  display: true,
  details: null,
  triggerTurn,
});

/**
 * Messages of every kind, pending, plus a sent step message with a started turn; returns
 * the message ids by label.
 */
function seedMessages(t: TestStore, runId: string): Record<string, string> {
  const session = `session-${runId}`;
  const ids: Record<string, string> = {};
  const kinds: Array<[string, WorkflowMessageKind, boolean]> = [
    ['step', 'step', true],
    ['decision', 'decision', false],
    ['followUp', 'followUp', true],
    ['notification', 'notification', false],
    ['terminal', 'terminal', false],
    ['sentStep', 'step', true],
  ];
  for (const [label, kind, triggerTurn] of kinds) {
    ids[label] = storeInternals(t.store).messages.create(
      { idempotencyKey: label, runId, targetSessionId: session, kind, sourceId: `source-${label}`, content: content(triggerTurn) },
      t.clock.t,
    ).workflowMessageId;
  }
  storeInternals(t.store).messages.markSent(ids.sentStep as string, session, 'entry-1', t.clock.t);
  storeInternals(t.store).messages.startTurn(
    { workflowTurnId: `turn-${runId}`, workflowMessageId: ids.sentStep as string, runId, targetSessionId: session },
    t.clock.t,
  );
  return ids;
}

function messageStatuses(t: TestStore, runId: string): Record<string, string> {
  return Object.fromEntries(
    storeInternals(t.store)
      .messages.listForRun(runId)
      .map((message) => [message.sourceId.replace('source-', ''), message.status]),
  );
}

const SETTLED_MESSAGES = {
  step: 'cancelled',
  decision: 'cancelled',
  followUp: 'cancelled',
  notification: 'pending',
  terminal: 'pending',
  sentStep: 'sent',
};

/** A claimed, running run with messages, a pending request and a validating submission. */
function runningRun(t: TestStore, runId: string): void {
  reserve(t.store, runId);
  claim(t.store, runId, 'runner-1', 'tok');
  t.store.markWorkflowRunRunning({ runId, claimToken: 'tok' });
  hostSetRunStatus(t.store, runId, 'running', t.clock.t);
  seedMessages(t, runId);
  t.clock.advance(1000);
}

describe('settleWorkflowRun (docs/STORE-RULES.md §13.3)', () => {
  it('COMPLETED: run completed with the output and no status detail, queue done, lease released, run.queue_done; messages and turns left as they are (docs/PI-WORKFLOWS-FILES.md §5)', ({
    t,
  }) => {
    runningRun(t, 'run-1');
    sqlDetail(t, 'run-1');
    const messagesBefore = messageStatuses(t, 'run-1');
    const viewer = viewerHead(t.store, 'run-1').presentation;
    const record = t.store.settleWorkflowRun({ runId: 'run-1', claimToken: 'tok', status: 'completed', output: { answer: 42 } });
    expect(record).toMatchObject({
      status: 'done',
      runStateStatus: 'completed',
      finalOutput: { answer: 42 },
      finishedAt: t.clock.iso(),
      runnerId: null,
      claimGeneration: null,
      errorCode: null,
    });
    expect(rowOf(t.store, 'runs', 'run-1')).toMatchObject({
      status: 'completed',
      paused: 0,
      status_detail: null,
      finished_at: t.clock.t,
      updated_at: t.clock.t,
    });
    expect(rowOf(t.store, 'run_queue', 'run-1')).toMatchObject({ status: 'done', finished_at: t.clock.t });
    expect(leaseOf(t.store, 'run-1')).toEqual(freeLease(1));
    expect(messageStatuses(t, 'run-1')).toEqual(messagesBefore);
    expect(messagesBefore).toMatchObject({ step: 'pending', sentStep: 'sent' });
    expect(storeInternals(t.store).messages.turnsForRun('run-1')).toEqual([
      expect.objectContaining({ workflowTurnId: 'turn-run-1', state: 'started', stopReason: null }),
    ]);
    expect(lastEvent(t.store, 'run-1')).toMatchObject({
      type: 'run.queue_done',
      actorType: 'session',
      actorId: 'runner-1',
      leaseGeneration: 1,
      payload: { status: 'done' },
    });
    expect(targetsAfter(t.store, 'run-1', viewer)).toEqual([BUMP, SUMMARY_REPLAY]);
  });

  it('FAILED: run failed with the error, queue failed with code failed, run.queue_failed', ({ t }) => {
    runningRun(t, 'run-1');
    sqlDetail(t, 'run-1');
    const record = t.store.settleWorkflowRun({ runId: 'run-1', claimToken: 'tok', status: 'failed', error: 'exploded' });
    expect(record).toMatchObject({
      status: 'failed',
      runStateStatus: 'failed',
      errorCode: 'failed',
      errorMessage: 'exploded',
      runError: 'exploded',
      statusDetail: null,
      paused: false,
    });
    expect(lastEvent(t.store, 'run-1')).toMatchObject({
      type: 'run.queue_failed',
      payload: { status: 'failed', code: 'failed', error: 'exploded' },
    });
    expect(messageStatuses(t, 'run-1')).toEqual(SETTLED_MESSAGES);
    expect(leaseOf(t.store, 'run-1')).toEqual(freeLease(1));
  });

  it('TIMED_OUT: run timed_out, queue failed with code timed_out, default text', ({ t }) => {
    runningRun(t, 'run-1');
    const record = t.store.settleWorkflowRun({ runId: 'run-1', claimToken: 'tok', status: 'timed_out' });
    expect(record).toMatchObject({ status: 'failed', runStateStatus: 'timed_out', errorCode: 'timed_out', errorMessage: 'Workflow run timed out' });
    expect(lastEvent(t.store, 'run-1').payload).toEqual({ status: 'failed', code: 'timed_out', error: 'Workflow run timed out' });
    expect(messageStatuses(t, 'run-1')).toEqual(SETTLED_MESSAGES);
  });

  it('FAILED without error text uses Workflow run failed', ({ t }) => {
    runningRun(t, 'run-1');
    expect(t.store.settleWorkflowRun({ runId: 'run-1', claimToken: 'tok', status: 'failed' }).errorMessage).toBe('Workflow run failed');
  });

  it('CANCELLED: run and queue cancelled, code cancelled, dependents cancelled', ({ t }) => {
    runningRun(t, 'run-1');
    storeInternals(t.store).interactions.openInteraction(
      { runId: 'run-1', nodeId: 'ask', attemptId: 'attempt-1', requestId: 'request-1', targetSessionId: 'session-run-1' },
      t.clock.t,
    );
    storeInternals(t.store).interactions.addValidatingSubmission({ submissionId: 'sub-1', requestId: 'request-1', idempotencyKey: 'k', payload: 1 }, t.clock.t);
    const record = t.store.settleWorkflowRun({ runId: 'run-1', claimToken: 'tok', status: 'cancelled' });
    expect(record).toMatchObject({ status: 'cancelled', runStateStatus: 'cancelled', errorCode: 'cancelled', errorMessage: 'Workflow run cancelled' });
    expect(lastEvent(t.store, 'run-1').payload).toEqual({ status: 'cancelled', code: 'cancelled', error: 'Workflow run cancelled' });
    expect(lastEvent(t.store, 'run-1').type).toBe('run.queue_cancelled');
    const db = connectionOf(t.store);
    expect(db.prepare("SELECT status FROM node_attempts WHERE attempt_id = 'attempt-1'").get()).toEqual({ status: 'cancelled' });
    expect(db.prepare("SELECT status, revision FROM interactive_requests WHERE request_id = 'request-1'").get()).toEqual({
      status: 'cancelled',
      revision: 2,
    });
    const submission = db.prepare('SELECT s.outcome, b.content FROM interactive_submissions s JOIN blobs b ON b.blob_hash = s.receipt_hash').get() as {
      outcome: string;
      content: Buffer;
    };
    expect(submission.outcome).toBe('rejected');
    expect(JSON.parse(submission.content.toString('utf8'))).toEqual({ status: 'rejected', error: 'Workflow run cancelled' });
    expect(messageStatuses(t, 'run-1')).toEqual(SETTLED_MESSAGES);
    expect(unreferencedBlobs(t.store)).toEqual([]);
  });

  it('CANCELLED with no validating submission still puts the receipt blob, as pi-workflows does (docs/PI-WORKFLOWS-FILES.md §5)', ({ t }) => {
    runningRun(t, 'run-1');
    storeInternals(t.store).interactions.openInteraction(
      { runId: 'run-1', nodeId: 'ask', attemptId: 'attempt-1', requestId: 'request-1', targetSessionId: 'session-run-1' },
      t.clock.t,
    );
    t.store.settleWorkflowRun({ runId: 'run-1', claimToken: 'tok', status: 'cancelled' });
    const db = connectionOf(t.store);
    expect(db.prepare("SELECT status, revision FROM interactive_requests WHERE request_id = 'request-1'").get()).toEqual({ status: 'cancelled', revision: 2 });
    const receipt = Buffer.from(JSON.stringify({ error: 'Workflow run cancelled', status: 'rejected' }), 'utf8');
    expect(db.prepare('SELECT media_type, byte_length FROM blobs WHERE content = ?').get(receipt)).toEqual({
      media_type: 'application/json',
      byte_length: receipt.length,
    });
    expect(db.prepare('SELECT count(*) AS n FROM interactive_submissions').get()).toEqual({ n: 0 });
  });

  it('Claim token is not the live claim of workflow run: <runId> for a wrong token, an expired lease, a finished run', ({ t }) => {
    runningRun(t, 'run-1');
    const text = 'Claim token is not the live claim of workflow run: run-1';
    expectRejectedUnchanged(t.store, () => t.store.settleWorkflowRun({ runId: 'run-1', claimToken: 'other', status: 'completed' }), text, 'claim_lost');
    t.clock.advance(60_000);
    expectRejectedUnchanged(t.store, () => t.store.settleWorkflowRun({ runId: 'run-1', claimToken: 'tok', status: 'failed' }), text, 'claim_lost');
    reserve(t.store, 'run-2');
    claim(t.store, 'run-2', 'runner-1', 'tok2');
    t.store.settleWorkflowRun({ runId: 'run-2', claimToken: 'tok2', status: 'completed' });
    expectRejectedUnchanged(
      t.store,
      () => t.store.settleWorkflowRun({ runId: 'run-2', claimToken: 'tok2', status: 'cancelled' }),
      'Claim token is not the live claim of workflow run: run-2',
      'claim_lost',
    );
  });

  it('Workflow run not found: <runId>', ({ t }) => {
    expectRejectedUnchanged(
      t.store,
      () => t.store.settleWorkflowRun({ runId: 'ghost', claimToken: 'tok', status: 'completed' }),
      'Workflow run not found: ghost',
      'not_found',
    );
  });

  it.for(['completed', 'failed'] as const)('Workflow run <runId> claim changed during terminal transition (%s); nothing written', (status, { t }) => {
    runningRun(t, 'run-1');
    ignoreUpdatesOf(t.store, 'leases');
    expectRejectedUnchanged(
      t.store,
      () => t.store.settleWorkflowRun({ runId: 'run-1', claimToken: 'tok', status }),
      'Workflow run run-1 claim changed during terminal transition',
      'claim_lost',
    );
  });

  it('refuses an output canonical JSON cannot store, before writing', ({ t }) => {
    runningRun(t, 'run-1');
    expectRejectedUnchanged(
      t.store,
      () => t.store.settleWorkflowRun({ runId: 'run-1', claimToken: 'tok', status: 'completed', output: { n: Number.NaN } }),
      'JSON numbers must be finite',
      'validation',
    );
  });
});

function sqlDetail(t: TestStore, runId: string): void {
  connectionOf(t.store).prepare("UPDATE runs SET paused = 0, status_detail = 'working' WHERE run_id = ?").run(runId);
}

describe('failWorkflowRun and cancelWorkflowRun (docs/STORE-RULES.md §6.10)', () => {
  it('fail with a token: the given code and message', ({ t }) => {
    runningRun(t, 'run-1');
    expect(t.store.failWorkflowRun({ runId: 'run-1', claimToken: 'tok', errorCode: 'effectFailed', errorMessage: 'effect exploded' })).toBe(true);
    expect(t.store.getWorkflowRun('run-1')).toMatchObject({
      status: 'failed',
      runStateStatus: 'failed',
      errorCode: 'effectFailed',
      errorMessage: 'effect exploded',
    });
    expect(lastEvent(t.store, 'run-1')).toMatchObject({
      type: 'run.queue_failed',
      actorType: 'session',
      actorId: 'runner-1',
      payload: { status: 'failed', code: 'effectFailed', error: 'effect exploded' },
    });
    expect(messageStatuses(t, 'run-1')).toEqual(SETTLED_MESSAGES);
  });

  it('fail without a token: only a queued/starting run with an unowned lease', ({ t }) => {
    reserve(t.store, 'queued');
    expect(t.store.failWorkflowRun({ runId: 'queued', errorCode: 'x', errorMessage: 'y' })).toBe(true);
    expect(lastEvent(t.store, 'queued')).toMatchObject({ actorType: 'system', actorId: null, leaseGeneration: null });
    runningRun(t, 'owned');
    expect(expectNoWrite(t.store, () => t.store.failWorkflowRun({ runId: 'owned', errorCode: 'x', errorMessage: 'y' }))).toBe(false);
    expect(expectNoWrite(t.store, () => t.store.failWorkflowRun({ runId: 'owned', claimToken: 'wrong', errorCode: 'x', errorMessage: 'y' }))).toBe(false);
    expect(expectNoWrite(t.store, () => t.store.failWorkflowRun({ runId: 'queued', errorCode: 'x', errorMessage: 'y' }))).toBe(false);
    expect(expectNoWrite(t.store, () => t.store.failWorkflowRun({ runId: 'ghost', errorCode: 'x', errorMessage: 'y' }))).toBe(false);
  });

  it('cancel a queued run without a token: the normal routine', ({ t }) => {
    reserve(t.store, 'run-1');
    const viewer = viewerHead(t.store, 'run-1').presentation;
    expect(t.store.cancelWorkflowRun({ runId: 'run-1' })).toBe(true);
    expect(t.store.getWorkflowRun('run-1')).toMatchObject({ status: 'cancelled', runStateStatus: 'cancelled', errorCode: 'cancelled' });
    expect(lastEvent(t.store, 'run-1')).toMatchObject({
      type: 'run.queue_cancelled',
      actorType: 'system',
      payload: { status: 'cancelled', code: 'cancelled', error: 'Workflow run cancelled' },
    });
    expect(targetsAfter(t.store, 'run-1', viewer)).toEqual([BUMP, SUMMARY_REPLAY]);
    expect(expectNoWrite(t.store, () => t.store.cancelWorkflowRun({ runId: 'run-1' }))).toBe(false);
  });

  it('stale cancel of a parked run: a 30 s system lease of the control id, released, stale-cancel event', ({ t }) => {
    parkedWaitingRun(t, 'run-1');
    seedMessages(t, 'run-1');
    storeInternals(t.store).interactions.openInteraction(
      { runId: 'run-1', nodeId: 'ask', attemptId: 'attempt-1', requestId: 'request-1', targetSessionId: 'session-run-1' },
      t.clock.t,
    );
    t.store.pauseParkedWorkflowRun({ runId: 'run-1' });
    const viewer = viewerHead(t.store, 'run-1').presentation;
    expect(t.store.cancelWorkflowRun({ runId: 'run-1', controlId: 'ops-console' })).toBe(true);
    expect(t.store.getWorkflowRun('run-1')).toMatchObject({
      status: 'cancelled',
      runStateStatus: 'cancelled',
      paused: false,
      statusDetail: null,
      errorCode: 'cancelled',
      errorMessage: 'Workflow run cancelled',
      runError: 'Workflow run cancelled',
    });
    expect(leaseOf(t.store, 'run-1')).toEqual(freeLease(2));
    expect(lastEvent(t.store, 'run-1')).toMatchObject({
      type: 'run.queue_cancelled',
      actorType: 'control',
      actorId: 'ops-console',
      leaseGeneration: 2,
      payload: { status: 'cancelled', code: 'cancelled', staleControl: true },
    });
    expect(targetsAfter(t.store, 'run-1', viewer)).toEqual([BUMP, SUMMARY_REPLAY]);
    expect(messageStatuses(t, 'run-1')).toEqual(SETTLED_MESSAGES);
    expect(connectionOf(t.store).prepare('SELECT status FROM interactive_requests').get()).toEqual({ status: 'cancelled' });
  });

  it('stale cancel defaults the control id to workflow-control and takes an expired lease', ({ t }) => {
    reserve(t.store, 'run-1');
    claim(t.store, 'run-1', 'runner-1', 'tok', 1000);
    expect(expectNoWrite(t.store, () => t.store.cancelWorkflowRun({ runId: 'run-1' }))).toBe(false);
    t.clock.advance(1000);
    expect(t.store.cancelWorkflowRun({ runId: 'run-1' })).toBe(true);
    expect(lastEvent(t.store, 'run-1')).toMatchObject({ actorType: 'control', actorId: 'workflow-control', leaseGeneration: 2 });
  });

  it('cancel with a token needs the live claim', ({ t }) => {
    runningRun(t, 'run-1');
    expect(expectNoWrite(t.store, () => t.store.cancelWorkflowRun({ runId: 'run-1', claimToken: 'wrong' }))).toBe(false);
    expect(t.store.cancelWorkflowRun({ runId: 'run-1', claimToken: 'tok' })).toBe(true);
    expect(lastEvent(t.store, 'run-1')).toMatchObject({ actorType: 'session', actorId: 'runner-1' });
    expect(messageStatuses(t, 'run-1')).toEqual(SETTLED_MESSAGES);
    expect(expectNoWrite(t.store, () => t.store.cancelWorkflowRun({ runId: 'ghost' }))).toBe(false);
  });

  it('a stale cancel whose control lease release misses rolls back', ({ t }) => {
    parkedWaitingRun(t, 'run-1');
    ignoreUpdatesOf(t.store, 'leases', 'NEW.owner_id IS NULL');
    expectRejectedUnchanged(
      t.store,
      () => t.store.cancelWorkflowRun({ runId: 'run-1' }),
      'Workflow run run-1 control claim changed during cancellation',
      'conflict',
    );
  });
});
