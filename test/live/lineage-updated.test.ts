/**
 * workflowRunLineageUpdated(rootRunId): every run of the chain that changed, and every run that
 * joined it (continuation, restart), once per wake-up, oldest first; runs of other chains never.
 */
import { describe, expect } from 'vitest';
import { commitMarker, reserveRun, subscribeWs } from '../helpers/live-fixtures.js';
import { feedWaiters } from '../helpers/server-signals.js';
import { claim, park, reserve, reserveInput, restart, settle } from '../helpers/server-fixture.js';
import { serverTest as it } from '../helpers/server-test.js';

const LINEAGE = /* GraphQL */ `
  subscription Lineage($rootRunId: String!) {
    workflowRunLineageUpdated(rootRunId: $rootRunId) {
      runId
      rootRunId
      parentRunId
      lineageKind
      restartNumber
      status
      queueStatus
      presentationRevision
    }
  }
`;

interface LineageRun {
  runId: string;
  rootRunId: string;
  parentRunId: string | null;
  lineageKind: string | null;
  restartNumber: number;
  status: string;
  queueStatus: string;
  presentationRevision: number;
}
type LineageData = { workflowRunLineageUpdated: LineageRun };

describe('workflowRunLineageUpdated', () => {
  it('changes of any run of the chain and runs joining it (continuation, restart) are emitted; other chains are not', async ({ client, fx }) => {
    const session = 'session-lineage';
    const root = 'run-root';
    const continuation = 'run-continuation';
    await reserve(fx, reserveInput(root, { originSessionId: session }));
    await reserveRun(fx, 'run-other-chain');
    const waiting = fx.server.feed.waiterCount;
    const { collector } = subscribeWs<LineageData>(client, LINEAGE, { rootRunId: root });
    await feedWaiters(fx.server, waiting + 1, 'the lineage subscription waits');
    const emitted = (): Array<[string, string, number]> =>
      collector.events.map((result) => {
        expect(result.errors).toBeUndefined();
        const run = result.data?.workflowRunLineageUpdated as LineageRun;
        return [run.runId, run.queueStatus, run.presentationRevision];
      });
    const head = (runId: string): number => fx.store.viewerHead(runId)?.currentRevision ?? -1;

    // A change of another chain: nothing. Then the root's claim: the root.
    commitMarker(fx.store, 'run-other-chain', 1);
    await claim(fx, root, 'token-root');
    await collector.take(1);
    expect(emitted()).toEqual([[root, 'STARTING', head(root)]]);

    // Park (two revisions in one commit): the root once.
    fx.clock.advance(1_000);
    await park(fx, root, 'token-root');
    await collector.take(2);
    expect(emitted()[1]).toEqual([root, 'PARKED', head(root)]);

    // A continuation joins; the root is bumped (queue done) in the same commit: root, then the new run.
    fx.clock.advance(1_000);
    await reserve(fx, reserveInput(continuation, { originSessionId: session, parentRunId: root, lineageKind: 'CONTINUATION' }));
    await collector.take(4);
    expect(emitted().slice(2)).toEqual([
      [root, 'DONE', head(root)],
      [continuation, 'QUEUED', 1],
    ]);
    expect(collector.events[3]?.data?.workflowRunLineageUpdated).toMatchObject({
      rootRunId: root,
      parentRunId: root,
      lineageKind: 'CONTINUATION',
      restartNumber: 0,
    });

    // The continuation's own changes.
    fx.clock.advance(1_000);
    await claim(fx, continuation, 'token-continuation');
    await collector.take(5);
    fx.clock.advance(1_000);
    await settle(fx, continuation, 'token-continuation', 'FAILED', { error: 'boom' });
    await collector.take(6);
    expect(emitted().slice(4)).toEqual([
      [continuation, 'STARTING', head(continuation) - 2],
      [continuation, 'FAILED', head(continuation)],
    ]);

    // A restart joins the chain.
    fx.clock.advance(1_000);
    const restarted = await restart(fx, { runId: continuation, originSessionId: session });
    await collector.take(7);
    expect(collector.events[6]?.data?.workflowRunLineageUpdated).toEqual({
      runId: restarted.run.runId,
      rootRunId: root,
      parentRunId: continuation,
      lineageKind: 'RESTART',
      restartNumber: 1,
      status: restarted.run.status,
      queueStatus: restarted.run.queueStatus,
      presentationRevision: head(restarted.run.runId),
    });

    // A plain delta on the restart run, then on the root: each emitted, nothing else in between.
    commitMarker(fx.store, 'run-other-chain', 2);
    commitMarker(fx.store, restarted.run.runId, 1);
    await collector.take(8);
    commitMarker(fx.store, root, 1);
    await collector.take(9);
    expect(
      emitted()
        .slice(7)
        .map(([runId, , revision]) => [runId, revision]),
    ).toEqual([
      [restarted.run.runId, head(restarted.run.runId)],
      [root, head(root)],
    ]);
    expect(collector.events).toHaveLength(9);
  });

  it('unsubscribing releases its feed waiter at once, without waiting for a commit', async ({ client, fx }) => {
    const root = 'run-lineage-unsubscribe';
    await reserveRun(fx, root);
    const waiting = fx.server.feed.waiterCount;
    const { unsubscribe } = subscribeWs<LineageData>(client, LINEAGE, { rootRunId: root });
    await feedWaiters(fx.server, waiting + 1, 'the lineage subscription waits');
    unsubscribe();
    await feedWaiters(fx.server, waiting, 'the waiter is gone', 5_000);
  });

  it('an unknown root is a NOT_FOUND error', async ({ client }) => {
    const { collector } = subscribeWs<LineageData>(client, LINEAGE, { rootRunId: 'run-missing' });
    await collector.ended();
    expect(collector.events).toHaveLength(1);
    expect(collector.events[0]?.data ?? null).toBeNull();
    expect(collector.events[0]?.errors?.[0]).toMatchObject({
      message: 'Workflow run not found: run-missing',
      extensions: { code: 'NOT_FOUND' },
    });
  });

  it('a run that is not a root is a BAD_USER_INPUT error', async ({ client, fx }) => {
    const session = 'session-not-root';
    await reserve(fx, reserveInput('run-nr-root', { originSessionId: session }));
    await claim(fx, 'run-nr-root', 'token-nr');
    await park(fx, 'run-nr-root', 'token-nr');
    await reserve(fx, reserveInput('run-nr-child', { originSessionId: session, parentRunId: 'run-nr-root' }));
    const { collector } = subscribeWs<LineageData>(client, LINEAGE, { rootRunId: 'run-nr-child' });
    await collector.ended();
    expect(collector.events).toHaveLength(1);
    expect(collector.events[0]?.data ?? null).toBeNull();
    expect(collector.events[0]?.errors?.[0]).toMatchObject({
      message: 'Workflow run is not a root run: run-nr-child',
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });
});
