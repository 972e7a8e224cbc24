/**
 * The graphql-ws frames of one revision differ only by subscription id: on the direct route
 * the server serialises a shared result once and puts each subscriber's id in front of it
 * (src/delivery/ws-next-frames.ts), on the pulled route graphql-ws writes the message itself. Read as raw text from the socket, every subscriber's frame is
 * the same bytes once its id is cut out, and each frame is exactly what `JSON.stringify` of
 * the graphql-transport-ws message writes — on the direct route of the fan-out and on graphql-ws's
 * own alike.
 */
import { afterAll, describe, expect } from 'vitest';
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
import { feedWaiters } from '../helpers/server-signals.js';
import { serverTest as it } from '../helpers/server-test.js';

/** Ids of every shape a client may pick, including ones JSON must escape. */
const IDS = ['1', 'a-much-longer-subscription-id-0123456789', 'quote"and\\backslash', 'ünïcödé ✓', 'x'];
/** Committed one wake-up per group: 3, then 4 and 5 together (5 takes the pulled route), then 6. */
const COMMIT_GROUPS = [[3], [4, 5], [6]];
const REVISIONS = COMMIT_GROUPS.flat();

describe('fan-out frames', () => {
  const sockets: RawWs[] = [];
  afterAll(() => {
    for (const raw of sockets) raw.ws.close();
  });

  it(`${IDS.length * 2} subscribers on 2 sockets: the frames of each revision are byte-identical except the id`, async ({ fx }) => {
    const runId = 'run-fan-out-frames';
    await reserveRun(fx, runId);
    commitMarker(fx.store, runId, 1); // 2
    const texts: string[][] = [];
    const collectors: Array<EventCollector<StreamResult<DeltasData>>> = [];
    for (let socket = 0; socket < 2; socket += 1) {
      const raw = await openRawWs(fx.url, `frames-${socket}`);
      sockets.push(raw);
      const received: string[] = [];
      texts.push(received);
      raw.ws.on('message', (data) => received.push(String(data)));
      await raw.initAndAck();
      for (const id of IDS) collectors.push(raw.subscribe<DeltasData>(id, DELTAS_SUBSCRIPTION, { runId, afterRevision: 2 }));
    }
    const directBefore = fx.server.sharedExecution.direct;
    for (const group of COMMIT_GROUPS) {
      await feedWaiters(fx.server, IDS.length * 2, 'every subscription waits on the feed');
      for (const revision of group) commitMarker(fx.store, runId, revision - 1);
      for (const collector of collectors) await untilRevision(collector, group.at(-1) as number);
    }
    // Both paths wrote frames: the direct one (shared-event-execution.ts) for 3, 4 and 6, graphql-ws's for 5.
    expect(fx.server.sharedExecution.direct - directBefore).toBe(IDS.length * 2 * 3);

    const nexts = texts.flat().filter((text) => (JSON.parse(text) as { type: string }).type === 'next');
    expect(nexts).toHaveLength(IDS.length * 2 * REVISIONS.length);
    for (const revision of REVISIONS) {
      const frames = nexts.filter((text) => revisionsOf([(JSON.parse(text) as { payload: StreamResult<DeltasData> }).payload])[0] === revision);
      expect(frames).toHaveLength(IDS.length * 2);
      const withoutIds = new Set<string>();
      for (const frame of frames) {
        const message = JSON.parse(frame) as { id: string; type: string; payload: unknown };
        // Exactly the bytes JSON.stringify writes for the message (graphql-ws's own serialisation).
        expect(frame).toBe(JSON.stringify({ id: message.id, type: 'next', payload: message.payload }));
        const idText = `{"id":${JSON.stringify(message.id)},`;
        expect(frame.startsWith(idText)).toBe(true);
        withoutIds.add(frame.slice(idText.length));
      }
      expect(withoutIds.size).toBe(1);
    }
    // Each id got each revision once, in order.
    for (const collector of collectors) {
      expect(revisionsOf(collector.events)).toEqual(REVISIONS);
    }
  });
});
