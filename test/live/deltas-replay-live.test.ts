/** workflowRunDeltas over graphql-ws: replay after a cursor then live; live only with a null cursor. Each test has its own server (freshServerTest). */
import { describe, expect } from 'vitest';
import {
  commitMarker,
  deltaEvents,
  DELTAS_SUBSCRIPTION,
  expectedMarkerBatch,
  range,
  reserveRun,
  revisionsOf,
  subscribeWs,
  untilRevision,
  withoutRecordedAt,
  type DeltasData,
} from '../helpers/live-fixtures.js';
import { feedWaiters } from '../helpers/server-signals.js';
import { freshServerTest as it } from '../helpers/server-test.js';

describe('workflowRunDeltas: replay then live', () => {
  it('replays r+1 … current, then delivers each new commit exactly once, in order, with its deltas', async ({ fx, ws }) => {
    const runId = 'run-replay';
    await reserveRun(fx, runId);
    // revisions 2..6 = markers 1..5
    for (let k = 1; k <= 5; k += 1) expect(commitMarker(fx.store, runId, k)).toBe(k + 1);
    const client = ws();
    const { collector } = subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId, afterRevision: 3 });
    await collector.take(3); // 4, 5, 6 replayed
    for (let k = 6; k <= 10; k += 1) commitMarker(fx.store, runId, k); // revisions 7..11
    await untilRevision(collector, 11);
    // One more, after the stream is idle again: still exactly once.
    commitMarker(fx.store, runId, 11);
    await untilRevision(collector, 12);

    expect(revisionsOf(collector.events)).toEqual(range(4, 12));
    expect(deltaEvents(collector.events).map(withoutRecordedAt)).toEqual(range(4, 12).map((revision) => expectedMarkerBatch(runId, revision, revision - 1)));
    const recordedAt = deltaEvents(collector.events).flatMap((event) =>
      event.__typename === 'ViewerDeltaBatch' ? event.deltas.map((delta) => delta.recordedAt) : [],
    );
    expect(new Set(recordedAt)).toEqual(new Set([fx.clock.iso()]));
  });

  it('the cursor at the current revision replays nothing and goes live', async ({ fx, ws }) => {
    const runId = 'run-at-head';
    await reserveRun(fx, runId);
    commitMarker(fx.store, runId, 1); // revision 2
    const client = ws();
    const { collector } = subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId, afterRevision: 2 });
    commitMarker(fx.store, runId, 2); // revision 3
    await collector.take(1);
    commitMarker(fx.store, runId, 3);
    await untilRevision(collector, 4);
    expect(deltaEvents(collector.events).map(withoutRecordedAt)).toEqual([expectedMarkerBatch(runId, 3, 2), expectedMarkerBatch(runId, 4, 3)]);
  });
});

describe('workflowRunDeltas: live only (afterRevision null)', () => {
  it('replays nothing; the next commits arrive in order', async ({ fx, ws }) => {
    const runId = 'run-live';
    await reserveRun(fx, runId);
    for (let k = 1; k <= 4; k += 1) commitMarker(fx.store, runId, k); // revisions 2..5, before subscribing
    const client = ws();
    const { collector } = subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId, afterRevision: null });
    const omitted = subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId }).collector;
    // Nothing signals "the server registered the subscription" but its wait on the feed.
    await feedWaiters(fx.server, 2, 'both subscriptions wait on the feed');
    expect(collector.events).toEqual([]);
    commitMarker(fx.store, runId, 5); // revision 6
    await collector.take(1);
    commitMarker(fx.store, runId, 6); // revision 7
    await untilRevision(collector, 7);
    await untilRevision(omitted, 7);
    expect(deltaEvents(collector.events).map(withoutRecordedAt)).toEqual([expectedMarkerBatch(runId, 6, 5), expectedMarkerBatch(runId, 7, 6)]);
    expect(omitted.events).toEqual(collector.events);
  });
});
