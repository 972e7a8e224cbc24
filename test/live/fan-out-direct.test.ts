/**
 * The fan-out's direct route (src/delivery/index.ts): graphql-ws
 * subscribers get each revision written inside the change feed's wake-up, one synchronous loop
 * over the waiting subscribers. Over real graphql-ws sockets: more subscribers than one turn of
 * the wake-up handles (`WAKE_CHUNK`), some completed by their client while the fan-out is under
 * way, bursts of revisions that mix the direct and the pulled route — every remaining
 * subscriber gets every revision once, in order; a completed one gets nothing after its
 * complete and leaves the feed and the shared execution.
 */
import { afterAll, describe, expect } from 'vitest';
import { WAKE_CHUNK } from '../../src/delivery/revision-waiters.js';
import {
  commitMarker,
  DELTAS_SUBSCRIPTION,
  openRawWs,
  reserveRun,
  revisionsOf,
  untilRevision,
  type DeltasData,
  type EventCollector,
  type RawWs,
  type StreamResult,
} from '../helpers/live-fixtures.js';
import { feedWaiters, sharedSubscribers } from '../helpers/server-signals.js';
import { serverTest as it } from '../helpers/server-test.js';

const PER_SOCKET = 100;
const SOCKETS = Math.ceil((WAKE_CHUNK + 500) / PER_SOCKET);
/** The sockets whose subscriptions the client completes during the first fan-out: the last ones to subscribe. */
const COMPLETING_SOCKETS = 5;

interface Subscriber {
  id: string;
  raw: RawWs;
  events: EventCollector<StreamResult<DeltasData>>;
}

describe('fan-out, direct route', () => {
  const sockets: RawWs[] = [];
  afterAll(() => {
    for (const raw of sockets) raw.ws.close();
  });

  it(`${SOCKETS * PER_SOCKET} subscribers, ${COMPLETING_SOCKETS * PER_SOCKET} completed mid-fan-out: the others get every revision once, in order`, async ({
    fx,
  }) => {
    const runId = 'run-fan-out-direct';
    await reserveRun(fx, runId);
    commitMarker(fx.store, runId, 1); // 2
    const subscribers: Subscriber[] = [];
    for (let socket = 0; socket < SOCKETS; socket += 1) {
      const raw = await openRawWs(fx.url, `direct-${socket}`);
      sockets.push(raw);
      await raw.initAndAck();
      for (let index = 0; index < PER_SOCKET; index += 1) {
        const id = `s${socket}.${index}`;
        subscribers.push({ id, raw, events: raw.subscribe<DeltasData>(id, DELTAS_SUBSCRIPTION, { runId, afterRevision: 2 }) });
      }
    }
    const total = SOCKETS * PER_SOCKET;
    await feedWaiters(fx.server, total, `all ${total} subscriptions wait on the feed`);
    const completing = subscribers.slice(-COMPLETING_SOCKETS * PER_SOCKET);
    const staying = subscribers.slice(0, -COMPLETING_SOCKETS * PER_SOCKET);
    const directBefore = fx.server.sharedExecution.direct;

    // Revision 3: at its first delivery (inside the wake-up's first turn) the clients complete
    // the last-subscribed subscriptions; the server reads those messages before its next turn.
    let completesSent = false;
    const stopListening = fx.server.feed.onDelivery(() => {
      if (completesSent) return;
      completesSent = true;
      for (const subscriber of completing) subscriber.raw.send({ type: 'complete', id: subscriber.id });
    });
    commitMarker(fx.store, runId, 2); // 3
    for (const subscriber of staying) await untilRevision(subscriber.events, 3);
    stopListening();
    expect(completesSent).toBe(true);
    await sharedSubscribers(fx.server, staying.length, 'the completed subscriptions left the shared execution');
    await feedWaiters(fx.server, staying.length, 'the completed subscriptions left the feed');

    // Then a single revision, a burst of two in one wake-up (the second takes the pulled
    // route: the first frame is not flushed yet) and another single one.
    commitMarker(fx.store, runId, 3); // 4
    for (const subscriber of staying) await untilRevision(subscriber.events, 4);
    await feedWaiters(fx.server, staying.length, 'every subscription waits again');
    commitMarker(fx.store, runId, 4); // 5
    commitMarker(fx.store, runId, 5); // 6
    for (const subscriber of staying) await untilRevision(subscriber.events, 6);
    await feedWaiters(fx.server, staying.length, 'every subscription waits again');
    commitMarker(fx.store, runId, 6); // 7
    for (const subscriber of staying) await untilRevision(subscriber.events, 7);

    for (const subscriber of staying) expect(revisionsOf(subscriber.events.events)).toEqual([3, 4, 5, 6, 7]);
    // A completed subscription got revision 3 at most (written before its complete was read), nothing after.
    const gotThree = completing.filter((subscriber) => subscriber.events.events.length > 0);
    for (const subscriber of completing) expect(revisionsOf(subscriber.events.events)).toEqual(gotThree.includes(subscriber) ? [3] : []);
    // Completed before the wake-up's later turn reached them: they got nothing at all.
    expect(gotThree.length).toBeLessThan(completing.length);
    // The server neither errored nor completed anything: only `next` frames (and the ack).
    for (const raw of sockets) expect(raw.messages.events.filter((message) => message.type !== 'next' && message.type !== 'connection_ack')).toEqual([]);
    // Revisions 3 (the staying ones at least), 4, 6 and 7 went the direct route; 5 the pulled one.
    const direct = fx.server.sharedExecution.direct - directBefore;
    expect(direct).toBeGreaterThanOrEqual(4 * staying.length);
    expect(direct).toBeLessThanOrEqual(4 * staying.length + gotThree.length);
    console.log(`fan-out direct: ${gotThree.length} of ${completing.length} completed subscriptions got revision 3; ${direct} direct deliveries`);
  });
});
