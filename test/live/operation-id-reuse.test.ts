/**
 * graphql-ws operation ids: `subscribe` c, `complete` c, `subscribe` c in one
 * TCP write runs exactly one stream for c; nothing arrives for an id after its `complete`; nothing
 * is left waiting on the change feed (src/server/graphql/ws-operation-ids.ts).
 */
import { describe, expect } from 'vitest';
import {
  commitMarker,
  DELTAS_SUBSCRIPTION,
  openRawWs,
  pingPong,
  reserveRun,
  revisionOf,
  sendInOneWrite,
  untilRevision,
  type DeltasData,
  type ProtocolMessage,
  type RawWs,
  type StreamResult,
} from '../helpers/live-fixtures.js';
import { feedWaiters, streamsWaiting } from '../helpers/server-signals.js';
import { type TestServer } from '../helpers/server-fixture.js';
import { serverTest as it } from '../helpers/server-test.js';

/** A `subscribe` message for the deltas of `runId` after `afterRevision` (null: live only). */
function subscribeDeltas(id: string, runId: string, afterRevision: number | null): ProtocolMessage {
  return { type: 'subscribe', id, payload: { query: DELTAS_SUBSCRIPTION, variables: { runId, afterRevision } } };
}

/** Every message the server sent for `id`, as `next@<revision>` (or the message type). */
function sentFor(raw: RawWs, id: string): string[] {
  return raw.messages.events
    .filter((message) => message.id === id)
    .map((message) => {
      if (message.type !== 'next') return message.type;
      const event = (message.payload as StreamResult<DeltasData>).data?.workflowRunDeltas;
      return event === undefined ? `next ${JSON.stringify(message.payload)}` : `next@${String(revisionOf(event))}`;
    });
}

/** Resolves once the server sent `next` for `revision` under `id`. */
function untilSent(raw: RawWs, id: string, revision: number): Promise<void> {
  return raw.messages.until(() => sentFor(raw, id).includes(`next@${revision}`), `${id}: next@${revision}`);
}

describe('graphql-ws operation ids', () => {
  const sockets: RawWs[] = [];
  it.afterEach(async ({ fx }) => {
    for (const raw of sockets.splice(0)) {
      raw.ws.close();
      await raw.closed;
    }
    await streamsWaiting(fx.server, { subscribers: 0, waiters: 0 }, 'no stream left (none waits on the feed) once the sockets closed');
  });

  async function connect(fx: TestServer): Promise<RawWs> {
    const raw = await openRawWs(fx.url);
    sockets.push(raw);
    await raw.initAndAck();
    return raw;
  }

  it('subscribe c, complete c, subscribe c in one write: one stream for c, nothing after its complete', async ({ fx }) => {
    const runId = 'run-reuse-starting';
    await reserveRun(fx, runId);
    const raw = await connect(fx);
    sendInOneWrite(raw, [subscribeDeltas('c', runId, null), { type: 'complete', id: 'c' }, subscribeDeltas('c', runId, null)]);
    raw.send(subscribeDeltas('d', runId, null));
    await pingPong(raw); // the server has handled all four messages
    await streamsWaiting(fx.server, { subscribers: 2, waiters: 2 }, 'c and d wait on the feed');

    const first = commitMarker(fx.store, runId, 1);
    await untilSent(raw, 'c', first);
    await untilSent(raw, 'd', first);
    await pingPong(raw);
    expect(sentFor(raw, 'c')).toEqual([`next@${first}`]);
    await feedWaiters(fx.server, 2, 'c and d wait again');

    raw.send({ type: 'complete', id: 'c' });
    await pingPong(raw);
    await streamsWaiting(fx.server, { subscribers: 1, waiters: 1 }, 'only d waits on the feed once c completed');
    const second = commitMarker(fx.store, runId, 2);
    await untilSent(raw, 'd', second);
    await pingPong(raw);
    expect(sentFor(raw, 'c')).toEqual([`next@${first}`]);
    expect(sentFor(raw, 'd')).toEqual([`next@${first}`, `next@${second}`]);
    expect(raw.messages.completed).toBe(false); // the socket stayed open
  });

  it('complete c and subscribe c in one write while c streams: the new c alone continues', async ({ fx }) => {
    const runId = 'run-reuse-streaming';
    await reserveRun(fx, runId);
    const raw = await connect(fx);
    raw.send(subscribeDeltas('c', runId, null));
    await feedWaiters(fx.server, 1, 'c waits on the feed');
    const first = commitMarker(fx.store, runId, 1);
    await untilSent(raw, 'c', first);

    sendInOneWrite(raw, [{ type: 'complete', id: 'c' }, subscribeDeltas('c', runId, first)]);
    await pingPong(raw); // the server has handled both messages
    await streamsWaiting(fx.server, { subscribers: 1, waiters: 1 }, 'the new c waits on the feed');
    const second = commitMarker(fx.store, runId, 2);
    await untilSent(raw, 'c', second);
    await pingPong(raw);
    expect(sentFor(raw, 'c')).toEqual([`next@${first}`, `next@${second}`]);
  });

  it('subscribe c twice without a complete: the socket closes with 4409 and nothing waits', async ({ fx }) => {
    const runId = 'run-reuse-duplicate';
    await reserveRun(fx, runId);
    const raw = await connect(fx);
    sendInOneWrite(raw, [subscribeDeltas('c', runId, null), subscribeDeltas('c', runId, null)]);
    expect(await raw.closed).toEqual({ code: 4409, reason: 'Subscriber for c already exists' });
  });

  it('a replaying subscription completed and reused in one write replays once, for the new cursor only', async ({ fx }) => {
    const runId = 'run-reuse-replay';
    await reserveRun(fx, runId);
    const revisions = [1, 2, 3].map((marker) => commitMarker(fx.store, runId, marker));
    const raw = await connect(fx);
    const stream = raw.subscribe<DeltasData>('e', DELTAS_SUBSCRIPTION, { runId, afterRevision: revisions[2] });
    sendInOneWrite(raw, [{ type: 'complete', id: 'e' }, subscribeDeltas('e', runId, revisions[1] as number)]);
    await untilRevision(stream, revisions[2] as number);
    await streamsWaiting(fx.server, { subscribers: 1, waiters: 1 }, 'the new e waits on the feed');
    await pingPong(raw);
    expect(sentFor(raw, 'e')).toEqual([`next@${String(revisions[2])}`]);
  });
});
