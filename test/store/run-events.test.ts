import { describe, expect } from 'vitest';
import {
  BUMP,
  claim,
  eventsOf,
  expectRejectedUnchanged,
  lastEvent,
  reserve,
  resourceRevision,
  targetsAfter,
  viewerHead,
  WORKFLOW_REF,
} from '../helpers/store-fixtures.js';
import { connectionOf } from '../helpers/store-internals.js';
import { storeTest as it } from '../helpers/store-test.js';
it.beforeEach(({ t }) => {
  reserve(t.store, 'run-1');
});

describe('recordRunEvent (docs/STORE-RULES.md §6.11)', () => {
  it('bumps the run with the event and returns it', ({ t }) => {
    claim(t.store, 'run-1', 'host-1', 'tok');
    const viewer = viewerHead(t.store, 'run-1').presentation;
    t.clock.advance(3);
    const event = t.store.recordRunEvent({ runId: 'run-1', type: 'node.started', payload: { node: 'ask' }, runnerId: 'host-1' });
    const stored = lastEvent(t.store, 'run-1');
    expect(event).toEqual({
      seq: stored.seq,
      recordedAt: t.clock.iso(),
      runId: 'run-1',
      workflowRef: WORKFLOW_REF,
      type: 'node.started',
      runnerId: 'host-1',
      payload: { node: 'ask' },
    });
    expect(stored).toMatchObject({ type: 'node.started', revision: 3, actorType: 'host', actorId: 'host-1', leaseGeneration: 1, payload: { node: 'ask' } });
    expect(targetsAfter(t.store, 'run-1', viewer)).toEqual([BUMP]);
  });

  it('actor session with a null id and no generation without a runner; payload {} by default', ({ t }) => {
    const event = t.store.recordRunEvent({ runId: 'run-1', type: 'note' });
    expect(event.payload).toEqual({});
    expect(event.runnerId).toBeNull();
    expect(lastEvent(t.store, 'run-1')).toMatchObject({ actorType: 'session', actorId: null, leaseGeneration: null, payload: {}, revision: 2 });
    t.store.recordRunEvent({ runId: 'run-1', type: 'note', runnerId: 'runner-9' });
    expect(lastEvent(t.store, 'run-1')).toMatchObject({ actorType: 'session', actorId: 'runner-9', revision: 3 });
  });

  it('revisions and event revisions stay contiguous: one event per revision', ({ t }) => {
    claim(t.store, 'run-1', 'runner-1', 'tok');
    t.store.markWorkflowRunRunning({ runId: 'run-1', claimToken: 'tok' });
    t.store.recordRunEvent({ runId: 'run-1', type: 'x' });
    t.store.parkWorkflowRun({ runId: 'run-1', claimToken: 'tok' });
    expect(eventsOf(t.store, 'run-1').map((event) => event.revision)).toEqual([1, 2, 3, 4, 5]);
    expect(resourceRevision(t.store, 'run-1')).toBe(5);
  });

  it('Workflow run not found: <runId>', ({ t }) => {
    expectRejectedUnchanged(t.store, () => t.store.recordRunEvent({ runId: 'ghost', type: 'x' }), 'Workflow run not found: ghost', 'not_found');
  });
});

describe('event ids (docs/STORE-RULES.md §3.5)', () => {
  it('are event- + a version 7 UUID, increasing in the order the events were written', ({ t }) => {
    claim(t.store, 'run-1', 'host-1', 'tok');
    for (let index = 0; index < 20; index += 1) {
      t.store.recordRunEvent({ runId: 'run-1', type: 'node.started', payload: { index }, runnerId: 'host-1' });
    }
    const ids = (
      connectionOf(t.store)
        .prepare('SELECT e.event_id AS id FROM events e JOIN runs r ON r.resource_id = e.resource_id WHERE r.run_id = ? ORDER BY e.event_seq')
        .all('run-1') as Array<{ id: string }>
    ).map((row) => row.id);
    expect(ids.length).toBeGreaterThanOrEqual(22);
    for (const id of ids) expect(id).toMatch(/^event-[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...ids].sort()).toEqual(ids);
  });
});
