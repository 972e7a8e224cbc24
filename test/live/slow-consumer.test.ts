/**
 * A subscriber whose socket is not read while 600 revisions are committed: the server does not
 * buffer for it (its stream waits on the socket; queued bytes, held results and feed waiters
 * stay bounded), the other subscribers get all 600 in order, and once it reads again it gets
 * ViewerSnapshotRequired instead of the revisions that left the 256-revision window, then
 * continues live.
 */
import type { Socket } from 'node:net';
import { describe, expect } from 'vitest';
import {
  commitMarker,
  deltaEvents,
  DELTAS_SUBSCRIPTION,
  expectedMarkerBatch,
  openRawWs,
  range,
  reserveRun,
  subscribeSse,
  subscribeWs,
  tcpSocketOf,
  untilRevision,
  withoutRecordedAt,
  yieldToEventLoop,
  type DeltaEvent,
  type DeltasData,
} from '../helpers/live-fixtures.js';
import { serverTest as it } from '../helpers/server-test.js';
import { DEFAULT_MAX_RESULTS_PER_GROUP } from '../../src/delivery/shared-event-execution.js';

const COMMITS = 600;
const BATCH = 50;
/**
 * Payload per revision: large enough that 600 revisions (~20 MB) overflow what the loopback
 * socket buffers of the paused connection can hold, so the server's stream really has to wait.
 */
const PAYLOAD = 'x'.repeat(32 * 1024);
/** Upper bound of one event's frame on the wire: the payload and its envelope (ids, deltas, JSON). */
const EVENT_BYTES = PAYLOAD.length + 4 * 1024;

describe('slow consumer', () => {
  it(`a paused socket during ${COMMITS} commits: snapshot on resume; others get everything; bounded memory`, async ({ fx, ws }) => {
    const runId = 'run-slow';
    await reserveRun(fx, runId);

    // The server's end of the slow socket: what Node queues on it is what the server buffers.
    const serverSockets: Socket[] = [];
    const onUpgrade = (_request: unknown, socket: Socket): void => {
      serverSockets.push(socket);
    };
    fx.server.httpServer.on('upgrade', onUpgrade);
    const slow = await openRawWs(fx.url, 'slow');
    await slow.initAndAck();
    fx.server.httpServer.off('upgrade', onUpgrade);
    expect(serverSockets).toHaveLength(1);
    const slowServerSocket = serverSockets[0] as Socket;
    const slowEvents = slow.subscribe<DeltasData>('slow', DELTAS_SUBSCRIPTION, { runId, afterRevision: 1 });
    tcpSocketOf(slow.ws).pause(); // stops reading: the kernel buffers fill, then the server's sends wait

    const normal = [0, 1].map((index) => {
      const client = ws();
      return subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId, afterRevision: 1 }, `normal-${index}`).collector;
    });
    const sse = subscribeSse<DeltasData>(fx.url, DELTAS_SUBSCRIPTION, { runId, afterRevision: 1 }, {}, 'normal-sse');
    expect((await sse.response).status).toBe(200);
    const readers = [...normal, sse.collector];

    // Counted, not weighed (a heap figure in this loaded worker would measure the runner too):
    // feed waiters, results the shared execution holds, bytes queued on the slow socket.
    let waitersPeak = 0;
    let heldResultsPeak = 0;
    let queuedBytesPeak = 0;
    for (let first = 1; first <= COMMITS; first += BATCH) {
      for (let k = first; k < first + BATCH; k += 1) commitMarker(fx.store, runId, k, PAYLOAD);
      await yieldToEventLoop();
      // The readers keep up batch by batch (never 256 behind), the paused socket does not.
      for (const reader of readers) await untilRevision(reader, first + BATCH);
      waitersPeak = Math.max(waitersPeak, fx.server.feed.waiterCount);
      heldResultsPeak = Math.max(heldResultsPeak, fx.server.sharedExecution.heldResults);
      queuedBytesPeak = Math.max(queuedBytesPeak, slowServerSocket.writableLength);
    }
    const current = COMMITS + 1;
    const retainedFrom = current - 256 + 1;
    const receivedWhilePaused = slowEvents.events.length;

    // Every reader: all 600, in order, with content.
    const expected = range(2, current).map((revision) => expectedMarkerBatch(runId, revision, revision - 1, PAYLOAD));
    for (const reader of readers) {
      expect(deltaEvents(reader.events).map(withoutRecordedAt)).toEqual(expected);
    }
    // Nothing grows with the backlog (600 revisions, ~20 MB): at most one feed waiter per
    // subscription; shared results held for the slow member at most the group's bound (the
    // 256-revision window), whatever the backlog; on the slow socket Node queues what the
    // kernel would not take, at most a few events (the stream waits on each send), never the
    // backlog: the bound of 8 events is wide against how full the kernel buffers happen to be.
    expect(waitersPeak).toBeLessThanOrEqual(4);
    expect(heldResultsPeak).toBeLessThanOrEqual(DEFAULT_MAX_RESULTS_PER_GROUP);
    expect(queuedBytesPeak).toBeLessThan(8 * EVENT_BYTES);
    expect(receivedWhilePaused).toBeLessThan(current - 1);

    // Resume: what was already in the socket buffers, then ViewerSnapshotRequired, then live.
    tcpSocketOf(slow.ws).resume();
    await slowEvents.until((results) => results.some((result) => result.data?.workflowRunDeltas.__typename === 'ViewerSnapshotRequired'), 'a snapshot');
    commitMarker(fx.store, runId, COMMITS + 1, PAYLOAD); // 602
    await untilRevision(slowEvents, current + 1);
    for (const reader of readers) await untilRevision(reader, current + 1);

    const events = deltaEvents(slowEvents.events);
    const snapshots = events.filter((event) => event.__typename === 'ViewerSnapshotRequired');
    console.log(
      `slow consumer: ${receivedWhilePaused} events while paused; then ${events.length - receivedWhilePaused} more; feed waiters peak ${waitersPeak}; held results peak ${heldResultsPeak}; bytes queued on the slow socket peak ${queuedBytesPeak}; snapshots at ${snapshots
        .map((event) => (event.__typename === 'ViewerSnapshotRequired' ? event.currentRevision : 0))
        .join(', ')}`,
    );
    expect(snapshots.length).toBeGreaterThanOrEqual(1);
    // The last snapshot is the one of the resume: the run as it stands after the 600 commits.
    expect(snapshots.at(-1)).toEqual({
      __typename: 'ViewerSnapshotRequired',
      runId,
      currentRevision: current,
      retainedFromRevision: retainedFrom,
      run: { runId, presentationRevision: current },
    });
    expect(withoutRecordedAt(events.at(-1) as DeltaEvent)).toEqual(expectedMarkerBatch(runId, current + 1, COMMITS + 1, PAYLOAD));
    // A valid stream: batches contiguous; a snapshot only where the next revision had left the
    // window, and the stream continues right after its currentRevision; each revision at most once.
    let cursor = 1;
    for (const event of events) {
      if (event.__typename === 'ViewerSnapshotRequired') {
        expect(cursor).toBeLessThan(event.retainedFromRevision - 1);
        expect(event.retainedFromRevision).toBe(event.currentRevision - 255);
        cursor = event.currentRevision;
      } else {
        expect(event.presentationRevision).toBe(cursor + 1);
        expect(withoutRecordedAt(event)).toEqual(expectedMarkerBatch(runId, event.presentationRevision, event.presentationRevision - 1, PAYLOAD));
        cursor = event.presentationRevision;
      }
    }
    expect(cursor).toBe(current + 1);
    sse.close();
    slow.ws.close();
    await slow.closed;
  });
});
