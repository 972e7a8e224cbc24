import { describe, expect } from 'vitest';
import { workflowMessageIdFor, type CreateWorkflowMessageInput, type WorkflowMessageKind } from '../../src/store/index.js';
import { expectNoWrite, expectRejectedUnchanged, ignoreUpdatesOf, reserve, sha256Hex, snapshotTables, type TestStore } from '../helpers/store-fixtures.js';
import { storeTest as it } from '../helpers/store-test.js';
import { storeInternals } from '../helpers/store-internals.js';
it.beforeEach(({ t }) => {
  reserve(t.store, 'run-1', { originSessionId: 'S' });
});

const content = (triggerTurn: boolean, text = 'hello') => ({
  schema: 'pi-workflows.workflow-message-content.v1' as const,
  customType: 'pi-workflows.step',
  content: text,
  display: true,
  details: { n: 1 },
  triggerTurn,
});

function input(overrides: Partial<CreateWorkflowMessageInput> = {}): CreateWorkflowMessageInput {
  return { idempotencyKey: 'key-1', runId: 'run-1', targetSessionId: 'S', kind: 'step', sourceId: 'request-1', content: content(true), ...overrides };
}

const create = (t: TestStore, overrides: Partial<CreateWorkflowMessageInput> = {}) => storeInternals(t.store).messages.create(input(overrides), t.clock.t);

describe('workflow messages (docs/STORE-RULES.md §9)', () => {
  it('derives the id from SHA-256 of canonical {idempotencyKey, kind, sourceId}', ({ t }) => {
    const expected = `workflow-message-${sha256Hex('{"idempotencyKey":"key-1","kind":"step","sourceId":"request-1"}')}`;
    expect(workflowMessageIdFor('key-1', 'step', 'request-1')).toBe(expected);
    const message = create(t);
    expect(message).toEqual({
      workflowMessageId: expected,
      runId: 'run-1',
      targetSessionId: 'S',
      kind: 'step',
      sourceId: 'request-1',
      content: content(true),
      orderNumber: 1,
      status: 'pending',
      piSessionEntryId: null,
      createdAt: t.clock.iso(),
      updatedAt: t.clock.iso(),
    });
    expect(create(t, { workflowMessageId: 'explicit-id', idempotencyKey: 'key-2', sourceId: 'request-2' }).workflowMessageId).toBe('explicit-id');
  });

  it('numbers messages per session from 1, never reusing a number', ({ t }) => {
    expect(create(t).orderNumber).toBe(1);
    expect(create(t, { idempotencyKey: 'key-2', kind: 'notification', sourceId: 'n-1', content: content(false) }).orderNumber).toBe(2);
    expect(create(t, { idempotencyKey: 'key-3', targetSessionId: 'T', sourceId: 'other' }).orderNumber).toBe(1);
    storeInternals(t.store).messages.cancelPendingForRun('run-1', t.clock.t);
    expect(create(t, { idempotencyKey: 'key-4', sourceId: 'request-4' }).orderNumber).toBe(3);
  });

  it('is idempotent: the same message again returns it and writes nothing', ({ t }) => {
    const first = create(t);
    t.clock.advance(10);
    expect(expectNoWrite(t.store, () => create(t))).toEqual(first);
  });

  it.for<[string, Partial<CreateWorkflowMessageInput>]>([
    ['run', { runId: 'run-2' }],
    ['session', { targetSessionId: 'T' }],
    ['content', { content: content(true, 'different') }],
  ])('Workflow message idempotency conflict: <id> for another %s', ([_name, overrides], { t }) => {
    reserve(t.store, 'run-2');
    const first = create(t);
    expectRejectedUnchanged(
      t.store,
      () => create(t, { ...overrides, workflowMessageId: first.workflowMessageId }),
      `Workflow message idempotency conflict: ${first.workflowMessageId}`,
      'conflict',
    );
  });

  it.for([
    ['a wrong schema', { ...content(true), schema: 'v0' }],
    ['an empty custom type', { ...content(true), customType: '' }],
    ['no details', { ...content(true), details: undefined }],
    ['a non-boolean display', { ...content(true), display: 'yes' }],
  ])('Workflow message content is invalid (%s)', ([_name, bad], { t }) => {
    expectRejectedUnchanged(t.store, () => create(t, { content: bad as never }), 'Workflow message content is invalid', 'validation');
  });

  it.for<[WorkflowMessageKind, boolean]>([
    ['step', false],
    ['followUp', false],
    ['decision', true],
    ['notification', true],
  ])('Workflow message kind %s has invalid turn behavior (triggerTurn %s)', ([kind, triggerTurn], { t }) => {
    expectRejectedUnchanged(
      t.store,
      () => create(t, { kind, content: content(triggerTurn) }),
      `Workflow message kind ${kind} has invalid turn behavior`,
      'validation',
    );
  });

  it('a terminal message may request a turn or not', ({ t }) => {
    expect(create(t, { kind: 'terminal', sourceId: 'terminal:run-1', content: content(true) }).kind).toBe('terminal');
    expect(create(t, { kind: 'terminal', sourceId: 'terminal:run-1', idempotencyKey: 'k2', content: content(false) }).kind).toBe('terminal');
  });

  describe('sent status (branch adoption)', () => {
    it('pending → sent with the entry id; again with the same entry is a no-op', ({ t }) => {
      const message = create(t);
      const sent = storeInternals(t.store).messages.markSent(message.workflowMessageId, 'S', 'entry-1', t.clock.t);
      expect(sent).toMatchObject({ status: 'sent', piSessionEntryId: 'entry-1' });
      expect(expectNoWrite(t.store, () => storeInternals(t.store).messages.markSent(message.workflowMessageId, 'S', 'entry-1', t.clock.t))).toEqual(sent);
    });

    it('cancelled → sent', ({ t }) => {
      const message = create(t);
      storeInternals(t.store).messages.cancelPendingForRun('run-1', t.clock.t);
      expect(storeInternals(t.store).messages.markSent(message.workflowMessageId, 'S', 'entry-1', t.clock.t).status).toBe('sent');
    });

    it('Workflow branch report contains an unknown message: <id>', ({ t }) => {
      expectRejectedUnchanged(
        t.store,
        () => storeInternals(t.store).messages.markSent('nope', 'S', 'entry-1', t.clock.t),
        'Workflow branch report contains an unknown message: nope',
        'not_found',
      );
    });

    it('Workflow branch report targets the wrong origin session', ({ t }) => {
      const message = create(t);
      expectRejectedUnchanged(
        t.store,
        () => storeInternals(t.store).messages.markSent(message.workflowMessageId, 'T', 'entry-1', t.clock.t),
        'Workflow branch report targets the wrong origin session',
        'conflict',
      );
    });

    it('Workflow message has conflicting Pi session entry evidence', ({ t }) => {
      const message = create(t);
      storeInternals(t.store).messages.markSent(message.workflowMessageId, 'S', 'entry-1', t.clock.t);
      expectRejectedUnchanged(
        t.store,
        () => storeInternals(t.store).messages.markSent(message.workflowMessageId, 'S', 'entry-2', t.clock.t),
        'Workflow message has conflicting Pi session entry evidence',
        'conflict',
      );
    });
  });

  describe('turns', () => {
    let messageId: string;
    const start = (t: TestStore, overrides: Record<string, string> = {}) =>
      storeInternals(t.store).messages.startTurn(
        { workflowTurnId: 'turn-1', workflowMessageId: messageId, runId: 'run-1', targetSessionId: 'S', ...overrides },
        t.clock.t,
      );

    it.beforeEach(({ t }) => {
      messageId = create(t).workflowMessageId;
    });

    it('Workflow turn requires a sent message', ({ t }) => {
      expectRejectedUnchanged(t.store, () => start(t), 'Workflow turn requires a sent message', 'conflict');
    });

    it('starts idempotently on the turn id and ends with a stop reason', ({ t }) => {
      storeInternals(t.store).messages.markSent(messageId, 'S', 'entry-1', t.clock.t);
      const started = start(t);
      expect(started).toEqual({
        workflowTurnId: 'turn-1',
        workflowMessageId: messageId,
        runId: 'run-1',
        targetSessionId: 'S',
        state: 'started',
        stopReason: null,
        responseSessionEntryId: null,
        startedAt: t.clock.iso(),
        endedAt: null,
      });
      expect(expectNoWrite(t.store, () => start(t))).toEqual(started);
      t.clock.advance(5);
      const ended = storeInternals(t.store).messages.endTurn('turn-1', 'completed', 'entry-9', t.clock.t);
      expect(ended).toMatchObject({ state: 'ended', stopReason: 'completed', responseSessionEntryId: 'entry-9', endedAt: t.clock.iso() });
      expect(expectNoWrite(t.store, () => storeInternals(t.store).messages.endTurn('turn-1', 'completed', 'entry-9', t.clock.t + 1))).toEqual(ended);
    });

    it('Workflow turn identity conflict: <id>', ({ t }) => {
      storeInternals(t.store).messages.markSent(messageId, 'S', 'entry-1', t.clock.t);
      start(t);
      expectRejectedUnchanged(t.store, () => start(t, { targetSessionId: 'T' }), 'Workflow turn identity conflict: turn-1', 'conflict');
    });

    it('Workflow turn does not match its message', ({ t }) => {
      storeInternals(t.store).messages.markSent(messageId, 'S', 'entry-1', t.clock.t);
      reserve(t.store, 'run-2');
      expectRejectedUnchanged(t.store, () => start(t, { runId: 'run-2' }), 'Workflow turn does not match its message', 'conflict');
      expectRejectedUnchanged(t.store, () => start(t, { targetSessionId: 'T' }), 'Workflow turn does not match its message', 'conflict');
    });

    it('Workflow message <id> already has open turn <turnId>', ({ t }) => {
      storeInternals(t.store).messages.markSent(messageId, 'S', 'entry-1', t.clock.t);
      start(t);
      expectRejectedUnchanged(t.store, () => start(t, { workflowTurnId: 'turn-2' }), `Workflow message ${messageId} already has open turn turn-1`, 'conflict');
    });

    it('Workflow turn end report conflicts with its saved result', ({ t }) => {
      storeInternals(t.store).messages.markSent(messageId, 'S', 'entry-1', t.clock.t);
      start(t);
      storeInternals(t.store).messages.endTurn('turn-1', 'completed', null, t.clock.t);
      expectRejectedUnchanged(
        t.store,
        () => storeInternals(t.store).messages.endTurn('turn-1', 'aborted', null, t.clock.t),
        'Workflow turn end report conflicts with its saved result',
        'conflict',
      );
    });

    it('Workflow turn changed before its end report', ({ t }) => {
      storeInternals(t.store).messages.markSent(messageId, 'S', 'entry-1', t.clock.t);
      start(t);
      ignoreUpdatesOf(t.store, 'workflow_turns');
      expectRejectedUnchanged(
        t.store,
        () => storeInternals(t.store).messages.endTurn('turn-1', 'completed', null, t.clock.t),
        'Workflow turn changed before its end report',
        'conflict',
      );
    });

    it('settleOpenTurnsForRun ends open turns as lost and returns them; a second call returns none', ({ t }) => {
      storeInternals(t.store).messages.markSent(messageId, 'S', 'entry-1', t.clock.t);
      start(t);
      const settled = t.store.transaction(() => storeInternals(t.store).messages.settleOpenTurnsForRun('run-1', 'lost', t.clock.t + 7));
      expect(settled).toEqual([expect.objectContaining({ workflowTurnId: 'turn-1', state: 'ended', stopReason: 'lost', endedAt: t.clock.iso(7) })]);
      expect(storeInternals(t.store).messages.settleOpenTurnsForRun('run-1', 'lost', t.clock.t)).toEqual([]);
      expect(storeInternals(t.store).messages.turnsForRun('run-1')[0]?.stopReason).toBe('lost');
    });
  });

  it('cancelPendingForRun cancels pending step, decision and followUp messages only', ({ t }) => {
    create(t, { idempotencyKey: 'a', kind: 'step', sourceId: 's' });
    create(t, { idempotencyKey: 'b', kind: 'decision', sourceId: 'd', content: content(false) });
    create(t, { idempotencyKey: 'c', kind: 'followUp', sourceId: 'f' });
    create(t, { idempotencyKey: 'd', kind: 'notification', sourceId: 'n', content: content(false) });
    create(t, { idempotencyKey: 'e', kind: 'terminal', sourceId: 'terminal:run-1', content: content(false) });
    expect(storeInternals(t.store).messages.cancelPendingForRun('run-1', t.clock.t)).toBe(3);
    expect(
      storeInternals(t.store)
        .messages.listForRun('run-1')
        .map((message) => [message.kind, message.status]),
    ).toEqual([
      ['step', 'cancelled'],
      ['decision', 'cancelled'],
      ['followUp', 'cancelled'],
      ['notification', 'pending'],
      ['terminal', 'pending'],
    ]);
  });

  it('one pending step message per request: the unique index refuses a second one, nothing written', ({ t }) => {
    create(t);
    const before = snapshotTables(t.store);
    expect(() => create(t, { idempotencyKey: 'other-key' })).toThrow('UNIQUE constraint failed: workflow_messages.source_id');
    expect(snapshotTables(t.store)).toEqual(before);
  });
});

describe("the facade's message and turn operations (a host needs no private parts)", () => {
  it('joined in one store.transaction with a viewer delta: a failure leaves no message, turn or delta', ({ t }) => {
    const before = snapshotTables(t.store);
    expect(() =>
      t.store.transaction(() => {
        const message = t.store.createWorkflowMessage(input());
        t.store.markWorkflowMessageSent({ workflowMessageId: message.workflowMessageId, targetSessionId: 'S', piSessionEntryId: 'entry-1' });
        t.store.startWorkflowTurn({ workflowTurnId: 'turn-1', workflowMessageId: message.workflowMessageId, runId: 'run-1', targetSessionId: 'S' });
        t.store.recordViewerDeltas('run-1', [{ targetType: 'conversation' }]);
        throw new Error('host stopped');
      }),
    ).toThrow('host stopped');
    expect(snapshotTables(t.store)).toEqual(before);
  });

  it('committed: message sent and turn started, then ended, at the store clock', ({ t }) => {
    const revision = t.store.transaction(() => {
      const message = t.store.createWorkflowMessage(input());
      t.store.markWorkflowMessageSent({ workflowMessageId: message.workflowMessageId, targetSessionId: 'S', piSessionEntryId: 'entry-1' });
      t.store.startWorkflowTurn({ workflowTurnId: 'turn-1', workflowMessageId: message.workflowMessageId, runId: 'run-1', targetSessionId: 'S' });
      return t.store.recordViewerDeltas('run-1', [{ targetType: 'conversation' }]);
    });
    expect(revision).toBe(2);
    t.clock.advance(1000);
    const ended = t.store.endWorkflowTurn({ workflowTurnId: 'turn-1', stopReason: 'completed', responseSessionEntryId: 'entry-2' });
    expect(ended).toEqual(t.store.listWorkflowTurns('run-1')[0]);
    expect(t.store.listWorkflowTurns('run-1').map((turn) => [turn.workflowTurnId, turn.state, turn.stopReason, turn.endedAt])).toEqual([
      ['turn-1', 'ended', 'completed', t.clock.iso()],
    ]);
    expect(t.store.listWorkflowMessages('run-1').map((message) => [message.status, message.piSessionEntryId, message.updatedAt])).toEqual([
      ['sent', 'entry-1', t.clock.iso(-1000)],
    ]);
  });
});
