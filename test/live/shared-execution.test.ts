/**
 * One revision fanned out to many subscribers executes its selection once per sharing key
 * (document, the variables the selection reads, the caller's scope — not the cursor), whatever
 * the transport; every subscriber still receives it, and nothing stays held once every
 * subscriber has it (src/delivery/shared-event-execution.ts).
 */
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeAfterSse,
  commitMarker,
  DELTAS_SUBSCRIPTION,
  openRawWs,
  range,
  reserveRun,
  revisionsOf,
  sendInOneWrite,
  subscribeSse,
  subscribeWs,
  untilRevision,
  wsClient,
  type DeltasData,
  type EventCollector,
  type ProtocolMessage,
  type RawWs,
  type StreamResult,
} from '../helpers/live-fixtures.js';
import { feedWaiters, sharedSubscribers } from '../helpers/server-signals.js';
import { startTestServer, type TestServer } from '../helpers/server-fixture.js';

/** A short deltas document: 100 subscribe messages fit one TCP read. */
const SHORT_DELTAS =
  'subscription D($runId:String!,$after:Int){workflowRunDeltas(runId:$runId,afterRevision:$after){...on ViewerDeltaBatch{presentationRevision}}}';

/** The deltas document with the deltas included or not: `$withDeltas` is read by the selection. */
const DELTAS_IF = /* GraphQL */ `
  subscription DeltasIf($runId: String!, $after: Int, $withDeltas: Boolean!) {
    workflowRunDeltas(runId: $runId, afterRevision: $after) {
      ... on ViewerDeltaBatch { presentationRevision deltas @include(if: $withDeltas) { targetKey } }
    }
  }
`;

interface ShortData {
  workflowRunDeltas: { presentationRevision: number; deltas?: Array<{ targetKey: string }> };
}

describe('shared execution of subscription events', () => {
  let fx: TestServer;
  const clients: Client[] = [];
  const sockets: RawWs[] = [];
  beforeAll(async () => {
    fx = await startTestServer();
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.dispose()));
    for (const raw of sockets) raw.ws.close();
    await closeAfterSse(fx);
  });

  /** Executions and shares since `before`, and what the server still holds. */
  function sharingSince(before: { executed: number; shared: number }): { executed: number; shared: number } {
    const stats = fx.server.sharedExecution;
    return { executed: stats.executed - before.executed, shared: stats.shared - before.shared };
  }

  function snapshotStats(): { executed: number; shared: number } {
    return { executed: fx.server.sharedExecution.executed, shared: fx.server.sharedExecution.shared };
  }

  it('30 live subscribers over 3 graphql-ws sockets and 3 over SSE: each revision executes once and reaches all 33', async () => {
    const runId = 'run-shared';
    await reserveRun(fx, runId);
    const collectors: Array<EventCollector<StreamResult<DeltasData>>> = [];
    for (let socket = 0; socket < 3; socket += 1) {
      const client = wsClient(fx.url);
      clients.push(client);
      for (let index = 0; index < 10; index += 1) {
        collectors.push(subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId, afterRevision: null }, `s${socket}.${index}`).collector);
      }
    }
    const sse = [0, 1, 2].map((index) => subscribeSse<DeltasData>(fx.url, DELTAS_SUBSCRIPTION, { runId, afterRevision: null }, {}, `sse${index}`));
    try {
      collectors.push(...sse.map((stream) => stream.collector));
      await feedWaiters(fx.server, 33, 'all 33 subscriptions wait on the feed');
      const before = snapshotStats();
      const revision = commitMarker(fx.store, runId, 1);
      for (const collector of collectors) await untilRevision(collector, revision);
      expect(sharingSince(before)).toEqual({ executed: 1, shared: 32 });
      const payloads = collectors.map((collector) => JSON.stringify(collector.events.at(-1)));
      expect(new Set(payloads).size).toBe(1);
      expect(fx.server.sharedExecution.heldResults).toBe(0); // every subscriber has it: dropped
    } finally {
      for (const stream of sse) stream.close();
      await Promise.all(clients.splice(0).map((client) => client.dispose()));
    }
    await sharedSubscribers(fx.server, 0, 'all 33 left');
  });

  it('100 subscribers at 100 different cursors: each revision executes once (20,050 executions before)', async () => {
    const runId = 'run-cursors';
    await reserveRun(fx, runId); // revision 1
    for (let k = 1; k <= 250; k += 1) commitMarker(fx.store, runId, k); // 2 … 251
    const raw = await openRawWs(fx.url, 'cursors');
    sockets.push(raw);
    await raw.initAndAck();
    const messages: ProtocolMessage[] = range(1, 100).map((cursor) => ({
      type: 'subscribe',
      id: `at${cursor}`,
      payload: { query: SHORT_DELTAS, variables: { runId, after: cursor } },
    }));
    const before = snapshotStats();
    // In one write: the server registers all 100 before any of them executes an event.
    sendInOneWrite(raw, messages);
    // connection_ack, then one `next` per subscriber and revision after its cursor.
    const all = await raw.messages.take(1 + 20_050);
    const received = new Map<string, number[]>();
    for (const message of all.slice(1)) {
      expect(message.type).toBe('next');
      const revision = (message.payload as StreamResult<ShortData>).data?.workflowRunDeltas.presentationRevision as number;
      const list = received.get(message.id as string) ?? [];
      list.push(revision);
      received.set(message.id as string, list);
    }
    for (const cursor of range(1, 100)) expect(received.get(`at${cursor}`)).toEqual(range(cursor + 1, 251));
    expect(sharingSince(before)).toEqual({ executed: 250, shared: 20_050 - 250 });
    await feedWaiters(fx.server, 100, 'all 100 caught up and wait on the feed');
    for (const message of messages) raw.send({ type: 'complete', id: message.id as string });
    await sharedSubscribers(fx.server, 0, 'all 100 left');
    expect({ groups: fx.server.sharedExecution.groups, heldResults: fx.server.sharedExecution.heldResults }).toEqual({ groups: 0, heldResults: 0 });
  });

  it('a variable the selection reads separates results; the cursor does not', async () => {
    const runId = 'run-include';
    await reserveRun(fx, runId); // 1
    for (let k = 1; k <= 5; k += 1) commitMarker(fx.store, runId, k); // 2 … 6
    const raw = await openRawWs(fx.url, 'include');
    sockets.push(raw);
    await raw.initAndAck();
    const before = snapshotStats();
    const messages: ProtocolMessage[] = [];
    for (const withDeltas of [true, false]) {
      for (const cursor of [1, 2, 3]) {
        const id = `${String(withDeltas)}@${cursor}`;
        messages.push({ type: 'subscribe', id, payload: { query: DELTAS_IF, variables: { runId, after: cursor, withDeltas } } });
      }
    }
    sendInOneWrite(raw, messages);
    await raw.messages.until((all) => all.filter((message) => message.type === 'next').length === 2 * (5 + 4 + 3), 'every replayed event');
    for (const withDeltas of [true, false]) {
      for (const cursor of [1, 2, 3]) {
        const results = raw.messages.events
          .filter((message) => message.type === 'next' && message.id === `${String(withDeltas)}@${cursor}`)
          .map((message) => (message.payload as StreamResult<ShortData>).data?.workflowRunDeltas);
        expect(results.map((event) => event?.presentationRevision)).toEqual(range(cursor + 1, 6));
        for (const event of results) {
          if (withDeltas) expect(event?.deltas?.[0]?.targetKey).toBe(`k${(event?.presentationRevision as number) - 1}`);
          else expect(event).not.toHaveProperty('deltas');
        }
      }
    }
    // Revisions 2 … 6, once with the deltas and once without.
    expect(sharingSince(before)).toEqual({ executed: 10, shared: 24 - 10 });
    raw.ws.close();
    await sharedSubscribers(fx.server, 0, 'all 6 left');
  });

  it("the caller's scope separates results: a read-token subscriber and a full-token one execute apart", async () => {
    const secured = await startTestServer({ token: 'full-token', readTokens: ['read-token'] });
    const scoped = [
      wsClient(secured.url, { token: 'full-token' }),
      wsClient(secured.url, { token: 'read-token' }),
      wsClient(secured.url, { token: 'read-token' }),
    ];
    try {
      const runId = 'run-scopes';
      await reserveRun(secured, runId);
      const streams = scoped.map(
        (client, index) => subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId, afterRevision: null }, `scope${index}`).collector,
      );
      await feedWaiters(secured.server, 3, 'all three wait on the feed');
      const revision = commitMarker(secured.store, runId, 1);
      for (const stream of streams) await untilRevision(stream, revision);
      // One execution for the full scope, one shared by the two read-scope subscribers.
      expect({ executed: secured.server.sharedExecution.executed, shared: secured.server.sharedExecution.shared }).toEqual({ executed: 2, shared: 1 });
      expect(new Set(streams.map((stream) => JSON.stringify(stream.events)))).toHaveProperty('size', 1);
    } finally {
      await Promise.all(scoped.map((client) => client.dispose()));
      await secured.close();
    }
  });

  it('SSE subscribers at different cursors share with graphql-ws ones', async () => {
    const runId = 'run-mixed';
    await reserveRun(fx, runId); // 1
    const client = wsClient(fx.url);
    clients.push(client);
    const ws = subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId, afterRevision: 1 }, 'ws');
    const sse = subscribeSse<DeltasData>(fx.url, DELTAS_SUBSCRIPTION, { runId, afterRevision: null }, {}, 'sse');
    try {
      await feedWaiters(fx.server, 2, 'both wait on the feed');
      const before = snapshotStats();
      const revision = commitMarker(fx.store, runId, 1);
      await untilRevision(ws.collector, revision);
      await untilRevision(sse.collector, revision);
      expect(revisionsOf(ws.collector.events)).toEqual([revision]);
      expect(sse.collector.events).toEqual(ws.collector.events);
      expect(sharingSince(before)).toEqual({ executed: 1, shared: 1 });
    } finally {
      sse.close();
      ws.unsubscribe();
    }
    await sharedSubscribers(fx.server, 0, 'both left');
  });
});
