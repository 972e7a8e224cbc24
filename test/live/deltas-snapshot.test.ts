/**
 * Cursors that cannot be served (0, ahead of the run, outside the 256-revision window) start
 * with ViewerSnapshotRequired, then the stream continues after its currentRevision.
 */
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
import { serverTest as it } from '../helpers/server-test.js';

function snapshot(runId: string, currentRevision: number, retainedFromRevision: number): unknown {
  return {
    __typename: 'ViewerSnapshotRequired',
    runId,
    currentRevision,
    retainedFromRevision,
    run: { runId, presentationRevision: currentRevision },
  };
}

describe('workflowRunDeltas: ViewerSnapshotRequired', () => {
  it('cursor 0 and a cursor ahead of the run: snapshot first, then the next commit', async ({ client, fx }) => {
    const runId = 'run-small';
    await reserveRun(fx, runId);
    for (let k = 1; k <= 3; k += 1) commitMarker(fx.store, runId, k); // revisions 2..4
    const zero = subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId, afterRevision: 0 }).collector;
    const ahead = subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId, afterRevision: 100 }).collector;
    const justAhead = subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId, afterRevision: 5 }).collector;
    await zero.take(1);
    await ahead.take(1);
    await justAhead.take(1);
    commitMarker(fx.store, runId, 4); // revision 5
    for (const collector of [zero, ahead, justAhead]) {
      await untilRevision(collector, 5);
      expect(deltaEvents(collector.events).map(withoutRecordedAt)).toEqual([snapshot(runId, 4, 1), expectedMarkerBatch(runId, 5, 4)]);
    }
  });

  it('300 revisions: cursors outside the window get a snapshot (exact revisions); the window edge replays', async ({ client, fx }) => {
    const runId = 'run-long';
    await reserveRun(fx, runId);
    for (let k = 1; k <= 300; k += 1) commitMarker(fx.store, runId, k); // revisions 2..301
    // retained_from = 301 - 256 + 1 = 46; cursors below 45 cannot be served.
    const current = 301;
    const retainedFrom = 46;
    const at10 = subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId, afterRevision: 10 }).collector;
    const at44 = subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId, afterRevision: retainedFrom - 2 }).collector;
    const at45 = subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId, afterRevision: retainedFrom - 1 }).collector;
    await at10.take(1);
    await at44.take(1);
    await untilRevision(at45, current);
    commitMarker(fx.store, runId, 301); // revision 302
    for (const collector of [at10, at44]) {
      await untilRevision(collector, 302);
      expect(deltaEvents(collector.events).map(withoutRecordedAt)).toEqual([snapshot(runId, current, retainedFrom), expectedMarkerBatch(runId, 302, 301)]);
    }
    await untilRevision(at45, 302);
    expect(revisionsOf(at45.events)).toEqual(range(retainedFrom, 302));
    expect(deltaEvents(at45.events).map(withoutRecordedAt)).toEqual(range(retainedFrom, 302).map((r) => expectedMarkerBatch(runId, r, r - 1)));
  });
});
