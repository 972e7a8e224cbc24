/**
 * workflowRunUpdated: after each recorded change with a summary delta (claim, park, settle, a
 * continuation reserved on the parent) it emits the run as committed, nested fields included
 * (fresh loaders per event: a second claim, a new continuation, the parent's new state show).
 */
import { describe, expect } from 'vitest';
import type { WorkflowStore } from '../../src/store/index.js';
import { EventCollector, reserveRun, subscribeWs, type StreamResult } from '../helpers/live-fixtures.js';
import { feedWaiters } from '../helpers/server-signals.js';
import { claim, park, reserve, reserveInput, settle, type TestServer } from '../helpers/server-fixture.js';
import { serverTest as it } from '../helpers/server-test.js';

const RUN_FIELDS = /* GraphQL */ `
  fragment LiveRun on WorkflowRun {
    runId
    status
    queueStatus
    paused
    presentationRevision
    errorMessage
    claim { ownerId leaseGeneration expiresAt }
    parent { runId status queueStatus presentationRevision }
    continuation { runId status queueStatus }
  }
`;
const UPDATED = `subscription Updated($runId: String!) { workflowRunUpdated(runId: $runId) { ...LiveRun } } ${RUN_FIELDS}`;
const RUN_QUERY = `query Run($runId: String!) { workflowRun(runId: $runId) { ...LiveRun } } ${RUN_FIELDS}`;

interface LiveRun {
  runId: string;
  status: string;
  queueStatus: string;
  paused: boolean;
  presentationRevision: number;
  errorMessage: string | null;
  claim: { ownerId: string; leaseGeneration: number; expiresAt: string } | null;
  parent: { runId: string; status: string; queueStatus: string; presentationRevision: number } | null;
  continuation: { runId: string; status: string; queueStatus: string } | null;
}

/** Revisions after `after` that carry a summary delta (one transaction's revisions give one workflowRunUpdated event). */
function summaryRevisionsAfter(store: WorkflowStore, runId: string, after: number): number {
  const read = store.readViewerDeltas(runId, after);
  if (read?.kind !== 'deltas') throw new Error(`cannot read ${runId} after ${after}`);
  return read.batches.filter((batch) => batch.deltas.some((delta) => delta.targetType === 'summary')).length;
}

describe('workflowRunUpdated', () => {
  /**
   * Runs `op` (one transaction), then awaits exactly the one event its summary revisions
   * produce — a park records two revisions with a summary delta, yet emits once — and checks it
   * equals the run as a query reads it right after the commit.
   */
  async function step(
    fx: TestServer,
    collector: EventCollector<StreamResult<{ workflowRunUpdated: LiveRun }>>,
    runId: string,
    op: () => Promise<unknown>,
  ): Promise<LiveRun> {
    const before = fx.store.viewerHead(runId)?.currentRevision ?? 0;
    const seen = collector.events.length;
    await op();
    expect(summaryRevisionsAfter(fx.store, runId, before)).toBeGreaterThan(0);
    const expected = 1;
    const { workflowRun } = await fx.data<{ workflowRun: LiveRun }, { runId: string }>(RUN_QUERY, { runId });
    await collector.take(seen + expected);
    const emitted = collector.events.slice(seen).map((result) => {
      expect(result.errors).toBeUndefined();
      return result.data?.workflowRunUpdated;
    });
    expect(emitted).toEqual(Array.from({ length: expected }, () => workflowRun));
    return workflowRun;
  }

  it('claim, park, second claim, settle of a continuation; a continuation reserved on the parent', async ({ client, fx }) => {
    const parentId = 'run-parent';
    const childId = 'run-child';
    const session = 'session-updated';
    await reserve(fx, reserveInput(parentId, { originSessionId: session }));
    const waiting = fx.server.feed.waiterCount;
    const parentUpdates = subscribeWs<{ workflowRunUpdated: LiveRun }>(client, UPDATED, { runId: parentId }, 'parent').collector;
    await feedWaiters(fx.server, waiting + 1, 'the parent subscription waits');

    const claimedParent = await step(fx, parentUpdates, parentId, () => claim(fx, parentId, 'token-parent'));
    expect(claimedParent).toMatchObject({ queueStatus: 'STARTING', claim: { ownerId: 'runner-1', leaseGeneration: 1 }, continuation: null });
    fx.clock.advance(1_000);
    const parkedParent = await step(fx, parentUpdates, parentId, () => park(fx, parentId, 'token-parent'));
    expect(parkedParent).toMatchObject({ queueStatus: 'PARKED', claim: null, continuation: null });
    fx.clock.advance(1_000);
    // Reserving the continuation bumps the parent: its event shows the new continuation.
    const doneParent = await step(fx, parentUpdates, parentId, () =>
      reserve(fx, reserveInput(childId, { originSessionId: session, parentRunId: parentId, lineageKind: 'CONTINUATION' })),
    );
    expect(doneParent).toMatchObject({ queueStatus: 'DONE', continuation: { runId: childId, queueStatus: 'QUEUED' } });

    const childUpdates = subscribeWs<{ workflowRunUpdated: LiveRun }>(client, UPDATED, { runId: childId }, 'child').collector;
    await feedWaiters(fx.server, waiting + 2, 'both subscriptions wait');
    fx.clock.advance(1_000);
    const claimed = await step(fx, childUpdates, childId, () => claim(fx, childId, 'token-1', { runnerId: 'runner-1' }));
    expect(claimed).toMatchObject({
      queueStatus: 'STARTING',
      claim: { ownerId: 'runner-1', leaseGeneration: 1, expiresAt: fx.clock.iso(60_000) },
      parent: { runId: parentId, queueStatus: 'DONE' },
    });
    fx.clock.advance(1_000);
    const parked = await step(fx, childUpdates, childId, () => park(fx, childId, 'token-1'));
    expect(parked).toMatchObject({ queueStatus: 'PARKED', claim: null });
    fx.clock.advance(1_000);
    const reclaimed = await step(fx, childUpdates, childId, () => claim(fx, childId, 'token-2', { runnerId: 'runner-2', leaseMs: 30_000 }));
    expect(reclaimed).toMatchObject({
      queueStatus: 'STARTING',
      claim: { ownerId: 'runner-2', leaseGeneration: 2, expiresAt: fx.clock.iso(30_000) },
    });
    fx.clock.advance(1_000);
    const settled = await step(fx, childUpdates, childId, () => settle(fx, childId, 'token-2', 'FAILED', { error: 'boom' }));
    expect(settled).toMatchObject({ status: 'FAILED', queueStatus: 'FAILED', claim: null, errorMessage: 'boom' });

    // One event per change, each showing the state that change committed, never an older one.
    const childEvents = childUpdates.events.map((result) => result.data?.workflowRunUpdated);
    expect(childEvents.map((run) => [run?.queueStatus, run?.claim?.ownerId ?? null])).toEqual([
      ['STARTING', 'runner-1'],
      ['PARKED', null],
      ['STARTING', 'runner-2'],
      ['FAILED', null],
    ]);
    // Parent untouched by the child's changes: its three changes gave three events, no more.
    expect(parentUpdates.events).toHaveLength(3);
  });

  it('a revision without a summary delta (a timeline change) emits nothing', async ({ client, fx }) => {
    const runId = 'run-quiet';
    await reserveRun(fx, runId);
    const waiting = fx.server.feed.waiterCount;
    const updates = subscribeWs<{ workflowRunUpdated: LiveRun }>(client, UPDATED, { runId }, 'quiet').collector;
    await feedWaiters(fx.server, waiting + 1, 'the subscription waits');
    fx.store.recordViewerDeltas(runId, [{ targetType: 'timeline', ops: [{ op: 'append', path: '/entries', value: [1] }] }]);
    const summaryRevision = fx.store.recordViewerDeltas(runId, [{ targetType: 'summary' }]);
    await updates.take(1);
    expect(updates.events.map((result) => result.data?.workflowRunUpdated.presentationRevision)).toEqual([summaryRevision]);
  });
});
