/** SSE (`accept: text/event-stream`) and graphql-ws deliver the same events for the same commits. */
import { describe, expect } from 'vitest';
import {
  commitMarker,
  deltaEvents,
  DELTAS_SUBSCRIPTION,
  expectedMarkerBatch,
  range,
  reserveRun,
  subscribeSse,
  subscribeWs,
  untilRevision,
  withoutRecordedAt,
  type DeltasData,
} from '../helpers/live-fixtures.js';
import { feedWaiters } from '../helpers/server-signals.js';
import { claim, park } from '../helpers/server-fixture.js';
import { serverTest as it } from '../helpers/server-test.js';

describe('SSE and graphql-ws', () => {
  it('identical sequences (replay, snapshot, live, store transitions) for the same commits', async ({ client, fx }) => {
    const runId = 'run-sse';
    await reserveRun(fx, runId);
    for (let k = 1; k <= 3; k += 1) commitMarker(fx.store, runId, k); // 2..4
    const streams = [
      {
        ws: subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId, afterRevision: 1 }, 'ws replay').collector,
        sse: subscribeSse<DeltasData>(fx.url, DELTAS_SUBSCRIPTION, { runId, afterRevision: 1 }, {}, 'sse replay'),
      },
      {
        ws: subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId, afterRevision: 0 }, 'ws snapshot').collector,
        sse: subscribeSse<DeltasData>(fx.url, DELTAS_SUBSCRIPTION, { runId, afterRevision: 0 }, {}, 'sse snapshot'),
      },
      {
        ws: subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId, afterRevision: null }, 'ws live').collector,
        sse: subscribeSse<DeltasData>(fx.url, DELTAS_SUBSCRIPTION, { runId, afterRevision: null }, {}, 'sse live'),
      },
    ];
    try {
      for (const { sse } of streams) expect((await sse.response).status).toBe(200);
      // The live-only ones take their cursor when the server registers them.
      await feedWaiters(fx.server, 6, 'all six subscriptions wait on the feed');
      for (let k = 4; k <= 10; k += 1) commitMarker(fx.store, runId, k); // 5..11
      await claim(fx, runId, 'token-sse'); // 12: bump
      fx.clock.advance(1_000);
      await park(fx, runId, 'token-sse'); // 13: bump, 14: summary + replay
      for (const { ws, sse } of streams) {
        await untilRevision(ws, 14);
        await untilRevision(sse.collector, 14);
      }
      const [replay, snapshot, live] = streams.map(({ ws, sse }) => {
        expect(sse.collector.events).toEqual(ws.events);
        return deltaEvents(ws.events);
      });
      expect(replay?.map((event) => (event.__typename === 'ViewerDeltaBatch' ? event.presentationRevision : -1))).toEqual(range(2, 14));
      expect(replay?.slice(0, 10).map(withoutRecordedAt)).toEqual(range(2, 11).map((r) => expectedMarkerBatch(runId, r, r - 1)));
      const targets = (revision: number): string[] | undefined => {
        const event = replay?.find((e) => e.__typename === 'ViewerDeltaBatch' && e.presentationRevision === revision);
        return event?.__typename === 'ViewerDeltaBatch' ? event.deltas.map((delta) => `${delta.targetType}/${delta.targetKey}`) : undefined;
      };
      expect(targets(12)).toEqual(['SUMMARY/', 'GRAPH/', 'REPLAY/', 'INSPECTOR/run']);
      expect(targets(13)).toEqual(['SUMMARY/', 'GRAPH/', 'REPLAY/', 'INSPECTOR/run']);
      expect(targets(14)).toEqual(['SUMMARY/', 'REPLAY/']);
      expect(snapshot?.[0]).toMatchObject({ __typename: 'ViewerSnapshotRequired', currentRevision: 4, retainedFromRevision: 1 });
      expect(snapshot?.slice(1)).toEqual(replay?.slice(3));
      expect(live).toEqual(replay?.slice(3));
    } finally {
      for (const { sse } of streams) sse.close();
    }
  });
});
