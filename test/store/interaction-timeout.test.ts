import { createHash } from 'node:crypto';
import { describe, expect } from 'vitest';
import { INTERACTION_DEADLINE_ERROR, type WorkflowMessageContent } from '../../src/store/index.js';
import {
  BUMP,
  expectNoWrite,
  expectRejectedUnchanged,
  hostSetRunStatus,
  lastEvent,
  parkedWaitingRun,
  reserve,
  resourceRevision,
  rowOf,
  targetsAfter,
  viewerHead,
  type TestStore,
} from '../helpers/store-fixtures.js';
import { storeTest as it } from '../helpers/store-test.js';
import { storeInternals, connectionOf, unreferencedBlobs } from '../helpers/store-internals.js';

const SESSION = 'session-run-1';
const DEADLINE_MS = 1000;

function content(triggerTurn: boolean): WorkflowMessageContent {
  return {
    schema: 'pi-workflows.workflow-message-content.v1',
    customType: 'pi-workflows.step',
    content: 'Please answer',
    display: true,
    details: { requestId: 'request-1' },
    triggerTurn,
  };
}

interface Setup {
  deadline?: number | null;
  messageKind?: 'step' | 'decision';
  sendAndStartTurn?: boolean;
  endTurn?: boolean;
  pause?: boolean;
  runStatus?: 'running';
  advance?: number;
  submission?: boolean;
}

/**
 * A parked waiting run with a pending request whose attempt has a deadline, a `step` message
 * for the request (source id = request id) sent with a started turn, a validating submission
 * (unless `submission: false`),
 * the clock at the deadline, and a control claim (`ctl`).
 */
function setup(t: TestStore, options: Setup = {}): void {
  parkedWaitingRun(t, 'run-1');
  const deadline = options.deadline === undefined ? t.clock.t + DEADLINE_MS : options.deadline;
  storeInternals(t.store).interactions.openInteraction(
    { runId: 'run-1', nodeId: 'ask', attemptId: 'attempt-1', requestId: 'request-1', targetSessionId: SESSION, deadlineAt: deadline },
    t.clock.t,
  );
  const kind = options.messageKind ?? 'step';
  const message = storeInternals(t.store).messages.create(
    { idempotencyKey: 'k1', runId: 'run-1', targetSessionId: SESSION, kind, sourceId: 'request-1', content: content(kind === 'step') },
    t.clock.t,
  );
  if (options.sendAndStartTurn !== false) {
    storeInternals(t.store).messages.markSent(message.workflowMessageId, SESSION, 'entry-1', t.clock.t);
    storeInternals(t.store).messages.startTurn(
      { workflowTurnId: 'turn-1', workflowMessageId: message.workflowMessageId, runId: 'run-1', targetSessionId: SESSION },
      t.clock.t,
    );
    if (options.endTurn === true) storeInternals(t.store).messages.endTurn('turn-1', 'completed', 'entry-2', t.clock.t);
  }
  if (options.submission !== false) {
    storeInternals(t.store).interactions.addValidatingSubmission(
      { submissionId: 'sub-1', requestId: 'request-1', idempotencyKey: 'i1', payload: { a: 1 } },
      t.clock.t,
    );
  }
  if (options.pause === true) expect(t.store.pauseParkedWorkflowRun({ runId: 'run-1' })).toBe(true);
  if (options.runStatus === 'running') hostSetRunStatus(t.store, 'run-1', 'running', t.clock.t);
  t.clock.advance(options.advance ?? DEADLINE_MS);
  const control = t.store.claimWorkflowRunForControl({ runId: 'run-1', runnerId: 'control-1', claimToken: 'ctl', leaseMs: 30_000 });
  expect(control?.status).toBe('parked');
}

const begin = (t: TestStore, overrides: { claimToken?: string; targetSessionId?: string } = {}) =>
  t.store.beginWorkflowRunInteractionTimeout({ runId: 'run-1', targetSessionId: SESSION, claimToken: 'ctl', ...overrides });

describe('beginWorkflowRunInteractionTimeout (docs/STORE-RULES.md §6.9)', () => {
  it('cancels the request, moves run waiting → running and queue parked → starting, rejects validating submissions', ({ t }) => {
    setup(t);
    const viewer = viewerHead(t.store, 'run-1').presentation;
    const revision = resourceRevision(t.store, 'run-1');
    expect(begin(t)).toBe(true);
    const request = connectionOf(t.store).prepare("SELECT * FROM interactive_requests WHERE request_id = 'request-1'").get();
    expect(request).toMatchObject({ status: 'cancelled', revision: 2, updated_at: t.clock.t });
    expect(rowOf(t.store, 'runs', 'run-1')).toMatchObject({
      status: 'running',
      status_detail: 'finishing expired interaction deadline',
      finished_at: null,
      updated_at: t.clock.t,
    });
    expect(rowOf(t.store, 'run_queue', 'run-1')).toMatchObject({ status: 'starting', error_code: null, error_hash: null, finished_at: null });
    const submission = connectionOf(t.store)
      .prepare("SELECT s.outcome, b.content FROM interactive_submissions s JOIN blobs b ON b.blob_hash = s.receipt_hash WHERE s.submission_id = 'sub-1'")
      .get() as { outcome: string; content: Buffer };
    expect(submission.outcome).toBe('rejected');
    expect(JSON.parse(submission.content.toString('utf8'))).toEqual({ status: 'rejected', error: 'Workflow node model-turn deadline expired' });
    expect(INTERACTION_DEADLINE_ERROR).toBe('Workflow node model-turn deadline expired');
    expect(lastEvent(t.store, 'run-1')).toMatchObject({
      type: 'run.interaction_timeout_started',
      revision: revision + 1,
      actorType: 'session',
      actorId: 'control-1',
      leaseGeneration: 2,
      payload: { requestId: 'request-1', attemptId: 'attempt-1' },
    });
    expect(targetsAfter(t.store, 'run-1', viewer)).toEqual([BUMP, ['summary', 'replay', 'conversation']]);
    // The control claim stays; the run can now be worked on.
    expect(t.store.verifyWorkflowRunClaim({ runId: 'run-1', claimToken: 'ctl' })).toBe(true);
  });

  it('with no validating submission still puts the receipt blob, as pi-workflows does (docs/PI-WORKFLOWS-FILES.md §5)', ({ t }) => {
    setup(t, { submission: false });
    expect(begin(t)).toBe(true);
    expect(connectionOf(t.store).prepare("SELECT status FROM interactive_requests WHERE request_id = 'request-1'").get()).toEqual({ status: 'cancelled' });
    const receipt = Buffer.from(JSON.stringify({ error: 'Workflow node model-turn deadline expired', status: 'rejected' }), 'utf8');
    expect(unreferencedBlobs(t.store)).toEqual([createHash('sha256').update(receipt).digest('hex')]);
  });

  it('returns false, writing nothing, when the claim does not verify', ({ t }) => {
    setup(t);
    expect(expectNoWrite(t.store, () => begin(t, { claimToken: 'other' }))).toBe(false);
  });

  it.for<[string, Setup, { targetSessionId?: string }]>([
    ['the deadline has not passed', { advance: DEADLINE_MS - 1 }, {}],
    ['the attempt has no deadline', { deadline: null }, {}],
    ['the request targets another session', {}, { targetSessionId: 'session-other' }],
    ['the step message has no turn', { sendAndStartTurn: false }, {}],
    ['the turn has ended', { endTurn: true }, {}],
    ['the message for the request is not a step', { messageKind: 'decision' }, {}],
    ['the run is paused', { pause: true }, {}],
  ])('returns false, writing nothing, when %s', ([_name, options, overrides], { t }) => {
    setup(t, options);
    expect(expectNoWrite(t.store, () => begin(t, overrides))).toBe(false);
  });

  it('Workflow run <runId> changed during interaction timeout when the run is not waiting; nothing written', ({ t }) => {
    setup(t, { runStatus: 'running' });
    expectRejectedUnchanged(t.store, () => begin(t), 'Workflow run run-1 changed during interaction timeout', 'conflict');
  });

  it('a session that already has an active queue entry is a conflict; nothing written', ({ t }) => {
    setup(t);
    reserve(t.store, 'run-2', { originSessionId: SESSION });
    expectRejectedUnchanged(t.store, () => begin(t), `Pi session already has an active workflow run: ${SESSION}`, 'conflict');
  });
});
