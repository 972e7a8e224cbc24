/**
 * One revision fanned out to many graphql-ws subscribers running the same operation executes
 * its selection once; every subscriber still receives it (src/server/shared-subscribe.ts).
 */
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedExecutionStats } from '../../src/server/shared-subscribe.js';
import {
  commitMarker,
  DELTAS_SUBSCRIPTION,
  reserveRun,
  subscribeWs,
  untilRevision,
  waitUntil,
  wsClient,
  type DeltasData,
  type EventCollector,
  type StreamResult,
} from '../helpers/live-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server-fixture.js';

describe('shared execution of subscription events', () => {
  let fx: TestServer;
  const clients: Client[] = [];
  beforeAll(async () => {
    fx = await startTestServer();
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.dispose()));
    await fx.close();
  });

  it('30 live subscribers over 3 sockets: each revision executes once and reaches all 30', async () => {
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
    await waitUntil(() => fx.server.feed.waiterCount === 30, 'all 30 subscriptions wait on the feed');
    const before = { ...sharedExecutionStats };
    const revision = commitMarker(fx.store, runId, 1);
    for (const collector of collectors) await untilRevision(collector, revision);
    expect(sharedExecutionStats.executed - before.executed).toBe(1);
    expect(sharedExecutionStats.shared - before.shared).toBe(29);
    const payloads = collectors.map((collector) => JSON.stringify(collector.events.at(-1)));
    expect(new Set(payloads).size).toBe(1);
  });
});
