/** 200 concurrent subscribers of one run over 20 graphql-ws sockets all receive the same 50 revisions, in order. */
import { describe, expect } from 'vitest';
import {
  commitMarker,
  deltaEvents,
  DELTAS_SUBSCRIPTION,
  expectedMarkerBatch,
  range,
  reserveRun,
  subscribeWs,
  untilRevision,
  withoutRecordedAt,
  yieldToEventLoop,
  type DeltasData,
  type EventCollector,
  type StreamResult,
} from '../helpers/live-fixtures.js';
import { feedWaiters } from '../helpers/server-signals.js';
import { serverTest as it } from '../helpers/server-test.js';

const SOCKETS = 20;
const PER_SOCKET = 10;
const COMMITS = 50;

describe('fan-out', () => {
  it(`${SOCKETS * PER_SOCKET} subscribers (live, replay and snapshot cursors mixed) × ${COMMITS} commits: identical sequences`, async ({ fx, ws }) => {
    const runId = 'run-fan-out';
    await reserveRun(fx, runId);
    commitMarker(fx.store, runId, 1); // 2: some cursors start behind it
    const live: Array<EventCollector<StreamResult<DeltasData>>> = [];
    const replay: Array<EventCollector<StreamResult<DeltasData>>> = [];
    const snapshot: Array<EventCollector<StreamResult<DeltasData>>> = [];
    for (let socket = 0; socket < SOCKETS; socket += 1) {
      const client = ws();
      for (let index = 0; index < PER_SOCKET; index += 1) {
        const kind = (socket * PER_SOCKET + index) % 3;
        const afterRevision = kind === 0 ? null : kind === 1 ? 1 : 0;
        const collector = subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId, afterRevision }, `s${socket}.${index}`).collector;
        (kind === 0 ? live : kind === 1 ? replay : snapshot).push(collector);
      }
    }
    const total = SOCKETS * PER_SOCKET;
    // Replay and snapshot subscribers first catch up (revision 2), then everyone waits on the feed.
    for (const collector of [...replay, ...snapshot]) await collector.take(1);
    await feedWaiters(fx.server, total, `all ${total} subscriptions wait on the feed`);

    for (let k = 2; k <= COMMITS + 1; k += 1) {
      commitMarker(fx.store, runId, k); // 3 … 52
      if (k % 10 === 0) await yieldToEventLoop();
    }
    const last = COMMITS + 2;
    for (const collector of [...live, ...replay, ...snapshot]) await untilRevision(collector, last);

    const expectedLive = range(3, last).map((revision) => expectedMarkerBatch(runId, revision, revision - 1));
    const reference = JSON.stringify(deltaEvents(live[0]?.events ?? []));
    for (const collector of live) {
      expect(deltaEvents(collector.events).map(withoutRecordedAt)).toEqual(expectedLive);
      expect(JSON.stringify(deltaEvents(collector.events))).toBe(reference);
    }
    for (const collector of replay) {
      expect(deltaEvents(collector.events).map(withoutRecordedAt)).toEqual([expectedMarkerBatch(runId, 2, 1), ...expectedLive]);
    }
    for (const collector of snapshot) {
      const [first, ...rest] = deltaEvents(collector.events);
      expect(first).toEqual({
        __typename: 'ViewerSnapshotRequired',
        runId,
        currentRevision: 2,
        retainedFromRevision: 1,
        run: { runId, presentationRevision: 2 },
      });
      expect(JSON.stringify(rest)).toBe(reference);
    }
    expect(live.length + replay.length + snapshot.length).toBe(total);
  });
});
