/** A client that drops its socket and resubscribes with its last seen revision misses nothing. */
import { describe, expect } from 'vitest';
import {
  commitMarker,
  deltaEvents,
  DELTAS_SUBSCRIPTION,
  expectedMarkerBatch,
  openRawWs,
  range,
  reserveRun,
  revisionsOf,
  subscribeWs,
  untilRevision,
  withoutRecordedAt,
  wsClient,
  type DeltasData,
} from '../helpers/live-fixtures.js';
import { feedWaiters } from '../helpers/server-signals.js';
import { serverTest as it } from '../helpers/server-test.js';

describe('workflowRunDeltas: reconnect with the last seen revision', () => {
  it('graphql-ws client disposed: the 5 revisions committed meanwhile arrive exactly once after resubscribing', async ({ fx }) => {
    const runId = 'run-reconnect';
    await reserveRun(fx, runId);
    const first = wsClient(fx.url);
    const before = subscribeWs<DeltasData>(first, DELTAS_SUBSCRIPTION, { runId, afterRevision: 1 }).collector;
    for (let k = 1; k <= 3; k += 1) commitMarker(fx.store, runId, k); // 2..4
    await untilRevision(before, 4);
    expect(revisionsOf(before.events)).toEqual([2, 3, 4]);
    const lastSeen = 4;

    await first.dispose();
    await feedWaiters(fx.server, 0, 'the dropped subscription left the feed');
    for (let k = 4; k <= 8; k += 1) commitMarker(fx.store, runId, k); // 5..9, while disconnected

    const second = wsClient(fx.url);
    try {
      const after = subscribeWs<DeltasData>(second, DELTAS_SUBSCRIPTION, { runId, afterRevision: lastSeen }).collector;
      await after.take(5);
      commitMarker(fx.store, runId, 9); // 10, live after the replay
      await untilRevision(after, 10);
      expect(revisionsOf(after.events)).toEqual(range(5, 10));
      expect(deltaEvents(after.events).map(withoutRecordedAt)).toEqual(range(5, 10).map((r) => expectedMarkerBatch(runId, r, r - 1)));
      expect(before.events).toHaveLength(3);
    } finally {
      await second.dispose();
    }
  });

  it('socket terminated abruptly (no complete message): the server drops the subscription; resubscribing misses nothing', async ({ fx }) => {
    const runId = 'run-terminate';
    await reserveRun(fx, runId);
    const raw = await openRawWs(fx.url);
    await raw.initAndAck();
    const before = raw.subscribe<DeltasData>('1', DELTAS_SUBSCRIPTION, { runId, afterRevision: 1 });
    for (let k = 1; k <= 2; k += 1) commitMarker(fx.store, runId, k); // 2..3
    await untilRevision(before, 3);
    expect(revisionsOf(before.events)).toEqual([2, 3]);

    raw.ws.terminate();
    await raw.closed;
    await feedWaiters(fx.server, 0, 'the terminated subscription left the feed');
    for (let k = 3; k <= 7; k += 1) commitMarker(fx.store, runId, k); // 4..8

    const client = wsClient(fx.url);
    try {
      const after = subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId, afterRevision: 3 }).collector;
      await after.take(5);
      commitMarker(fx.store, runId, 8); // 9
      await untilRevision(after, 9);
      expect(revisionsOf(after.events)).toEqual(range(4, 9));
      expect(deltaEvents(after.events).map(withoutRecordedAt)).toEqual(range(4, 9).map((r) => expectedMarkerBatch(runId, r, r - 1)));
    } finally {
      await client.dispose();
    }
  });
});
