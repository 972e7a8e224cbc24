/**
 * The `graphql-sse` client against the real server on `/graphql`, in both of its modes:
 * - single-connection mode (`singleConnection: true`): one reserved event stream carries every
 *   operation of the client (src/server/graphql/graphql-sse.ts); before, its `PUT` reservation got
 *   `405 Method Not Allowed`;
 * - distinct-connections mode (the default): one event stream per operation, served by yoga.
 * Both deliver what graphql-ws delivers for the same commits, stop an operation on unsubscribe,
 * report failing operations as GraphQL errors, and sit behind the token.
 */
import type { IncomingMessage } from 'node:http';
import { createClient, type Client as SseClient } from 'graphql-sse';
import type { Client as WsClient } from 'graphql-ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ClaimWorkflowRunDocument, WorkflowRunDeltasDocument, WorkflowRunDocument, WorkflowRunUpdatedDocument } from '../../schema/generated/graphql.js';
import { closeAfterSse, commitMarker, EventCollector, subscribeWs, wsClient, type StreamResult } from '../helpers/live-fixtures.js';
import { feedWaiters } from '../helpers/server-signals.js';
import { park, snapshotTables, startTestServer, type TestServer } from '../helpers/server-fixture.js';
import { seedRuns } from './client-fixtures.js';

/** Unsubscribes of the running test's streams (each test ends them all). */
const running: Array<() => void> = [];

/** Subscribes through a graphql-sse client; every result is collected. */
function subscribeSseClient<TData>(client: SseClient<boolean>, query: string, variables: Record<string, unknown>, label: string) {
  const collector = new EventCollector<StreamResult<TData>>(label);
  const unsubscribe = client.subscribe<TData>(
    { query, variables },
    {
      next: (value) => collector.push(value as StreamResult<TData>),
      error: (error) => collector.fail(error),
      complete: () => collector.complete(),
    },
  );
  running.push(unsubscribe);
  return { collector, unsubscribe };
}

/** graphql-ws subscription ended with the test. */
function subscribeWsUntilEnd<TData>(client: WsClient, query: string, variables: Record<string, unknown>, label: string) {
  const subscription = subscribeWs<TData>(client, query, variables, label);
  running.push(subscription.unsubscribe);
  return subscription;
}

/** Runs one operation to completion through a graphql-sse client. */
async function once<TData>(client: SseClient<boolean>, query: string, variables: Record<string, unknown> = {}): Promise<Array<StreamResult<TData>>> {
  const { collector } = subscribeSseClient<TData>(client, query, variables, 'once');
  await collector.ended();
  if (collector.error !== undefined) throw collector.error instanceof Error ? collector.error : new Error(JSON.stringify(collector.error));
  return collector.events;
}

/** The HTTP requests the server received, as `METHOD accept`. */
function recordRequests(fx: TestServer): { requests: string[]; stop(): void } {
  const requests: string[] = [];
  const listener = (request: IncomingMessage): void => void requests.push(`${request.method ?? '?'} ${request.headers.accept ?? ''}`);
  fx.server.httpServer.on('request', listener);
  return { requests, stop: () => fx.server.httpServer.off('request', listener) };
}

const MODES = [
  { mode: 'single-connection', singleConnection: true },
  { mode: 'distinct-connections', singleConnection: false },
] as const;

describe('graphql-sse client', () => {
  let fx: TestServer;
  let ws: WsClient;
  const clients: Array<SseClient<boolean>> = [];

  beforeAll(async () => {
    fx = await startTestServer();
    await seedRuns(fx);
    ws = wsClient(fx.url);
  });
  afterEach(async () => {
    for (const stop of running.splice(0)) stop();
    for (const client of clients.splice(0)) client.dispose();
    await feedWaiters(fx.server, 0, 'every subscription of the test left the feed');
  });
  afterAll(async () => {
    await ws.dispose();
    await closeAfterSse(fx);
  });

  function sseClient(singleConnection: boolean, headers?: Record<string, string>): SseClient<boolean> {
    const client = createClient({ url: fx.url, singleConnection, retryAttempts: 0, ...(headers === undefined ? {} : { headers }) });
    clients.push(client);
    return client;
  }

  it('single-connection mode: subscriptions, a query and a mutation share one event stream; events equal graphql-ws', async () => {
    const recorded = recordRequests(fx);
    const client = sseClient(true);
    try {
      const updated = subscribeSseClient(client, WorkflowRunUpdatedDocument.toString(), { runId: 'list-1' }, 'sse updated');
      const deltas = subscribeSseClient(client, WorkflowRunDeltasDocument.toString(), { runId: 'list-1', afterRevision: 1 }, 'sse deltas');
      const wsUpdated = subscribeWsUntilEnd(ws, WorkflowRunUpdatedDocument.toString(), { runId: 'list-1' }, 'ws updated');
      const wsDeltas = subscribeWsUntilEnd(ws, WorkflowRunDeltasDocument.toString(), { runId: 'list-1', afterRevision: 1 }, 'ws deltas');
      await feedWaiters(fx.server, 4, 'the four subscriptions wait on the feed');

      const query = await once<{ workflowRun: { runId: string; status: string } }>(client, 'query One { workflowRun(runId: "list-1") { runId status } }');
      expect(query).toEqual([{ data: { workflowRun: { runId: 'list-1', status: 'QUEUED' } } }]);
      const claimed = await once(client, ClaimWorkflowRunDocument.toString(), {
        input: { runId: 'list-1', runnerId: 'runner-sse', claimToken: 'token-sse', leaseMs: 60_000 },
      });
      expect(claimed[0]?.data).toMatchObject({
        claimWorkflowRun: { __typename: 'ClaimWorkflowRunSuccess', run: { runId: 'list-1', claim: { ownerId: 'runner-sse' } } },
      });
      fx.clock.advance(1_000);
      await park(fx, 'list-1', 'token-sse');
      commitMarker(fx.store, 'list-1', 1);

      for (const collector of [updated.collector, wsUpdated.collector]) await collector.take(2);
      const lastRevision = fx.store.getWorkflowRun('list-1')?.presentationRevision;
      const reached = (events: Array<StreamResult<unknown>>): boolean =>
        events.some(
          (event) => (event.data as { workflowRunDeltas?: { presentationRevision?: number } }).workflowRunDeltas?.presentationRevision === lastRevision,
        );
      await deltas.collector.until(reached, `revision ${String(lastRevision)}`);
      await wsDeltas.collector.until(reached, `revision ${String(lastRevision)}`);
      expect(updated.collector.events).toEqual(wsUpdated.collector.events);
      expect(deltas.collector.events).toEqual(wsDeltas.collector.events);
      expect(updated.collector.events.map((event) => (event.data as { workflowRunUpdated: { queueStatus: string } }).workflowRunUpdated.queueStatus)).toEqual([
        'STARTING',
        'PARKED',
      ]);

      // One event stream for the whole client: the reservation, the stream, one POST per operation.
      expect(recorded.requests.filter((request) => request.endsWith('text/event-stream'))).toEqual(['GET text/event-stream']);
      expect(recorded.requests.filter((request) => request.startsWith('PUT'))).toHaveLength(1);
      expect(recorded.requests.filter((request) => request === 'POST */*')).toHaveLength(2 + 2); // 2 subscriptions, query, mutation

      // Unsubscribing stops that operation on the server (a DELETE); the others go on.
      updated.unsubscribe();
      await feedWaiters(fx.server, 3, 'the unsubscribed operation leaves the feed');
      expect(recorded.requests.filter((request) => request.startsWith('DELETE'))).toHaveLength(1);
      wsUpdated.unsubscribe();
      deltas.unsubscribe();
      wsDeltas.unsubscribe();
      await feedWaiters(fx.server, 0, 'every subscription left the feed');
    } finally {
      recorded.stop();
    }
  });

  it('distinct-connections mode (yoga’s own SSE on /graphql): one event stream per operation; events equal graphql-ws', async () => {
    const recorded = recordRequests(fx);
    const client = sseClient(false);
    try {
      const updated = subscribeSseClient(client, WorkflowRunUpdatedDocument.toString(), { runId: 'list-2' }, 'sse updated');
      const wsUpdated = subscribeWsUntilEnd(ws, WorkflowRunUpdatedDocument.toString(), { runId: 'list-2' }, 'ws updated');
      await feedWaiters(fx.server, 2, 'both subscriptions wait on the feed');
      const run = await once<{ workflowRun: { runId: string } }>(client, WorkflowRunDocument.toString(), { runId: 'list-2' });
      expect(run[0]?.data?.workflowRun.runId).toBe('list-2');
      await once(client, ClaimWorkflowRunDocument.toString(), { input: { runId: 'list-2', runnerId: 'runner-sse', claimToken: 'token-2', leaseMs: 60_000 } });
      fx.clock.advance(1_000);
      await park(fx, 'list-2', 'token-2');
      await updated.collector.take(2);
      await wsUpdated.collector.take(2);
      expect(updated.collector.events).toEqual(wsUpdated.collector.events);
      expect(recorded.requests.filter((request) => request.endsWith('text/event-stream'))).toEqual([
        'POST text/event-stream',
        'POST text/event-stream',
        'POST text/event-stream',
      ]);
      expect(recorded.requests.some((request) => request.startsWith('PUT'))).toBe(false);
      updated.unsubscribe();
      wsUpdated.unsubscribe();
      await feedWaiters(fx.server, 0, 'both subscriptions left the feed');
    } finally {
      recorded.stop();
    }
  });

  it.each(MODES)('$mode: an operation that fails gets its GraphQL errors and changes nothing', async ({ singleConnection }) => {
    const client = sseClient(singleConnection);
    const before = snapshotTables(fx.store);
    expect(await once(client, 'query { ')).toEqual([
      { errors: [{ message: 'Syntax Error: Expected Name, found <EOF>.', locations: [{ line: 1, column: 9 }], extensions: { code: 'GRAPHQL_PARSE_FAILED' } }] },
    ]);
    expect(await once(client, 'query { nope }')).toEqual([
      {
        errors: [
          {
            message: 'Cannot query field "nope" on type "Query". Did you mean "node"?',
            locations: [{ line: 1, column: 9 }],
            extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
          },
        ],
      },
    ]);
    const deep = `query { workflowRun(runId: "x") { ${'parent { '.repeat(12)}runId${' }'.repeat(12)} } }`;
    expect(await once(client, deep)).toEqual([
      {
        errors: [
          {
            message: 'Query depth 14 exceeds the maximum of 12 by 2.',
            extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: { name: 'maxDepth', maximum: 12, found: 14 } },
          },
        ],
      },
    ]);
    expect(await once(client, 'subscription { workflowRunUpdated(runId: "missing") { runId } }')).toEqual([
      {
        errors: [
          {
            message: 'Workflow run not found: missing',
            locations: [{ line: 1, column: 16 }],
            path: ['workflowRunUpdated'],
            extensions: { code: 'NOT_FOUND' },
          },
        ],
      },
    ]);
    expect(snapshotTables(fx.store)).toEqual(before);
  });

  it.each(MODES)('$mode behind the token: refused without it, served with it', async ({ singleConnection }) => {
    const secured = await startTestServer({ token: 's3cret' });
    const refused = createClient({ url: secured.url, singleConnection, retryAttempts: 0 });
    const allowed = createClient({ url: secured.url, singleConnection, retryAttempts: 0, headers: { authorization: 'Bearer s3cret' } });
    try {
      const { collector } = subscribeSseClient(refused, 'query { workflowRuns(first: 1) { totalCount } }', {}, 'refused');
      await collector.ended();
      expect(String(collector.error)).toBe('NetworkError: Server responded with 401: Unauthorized');
      expect(await once(allowed, 'query { workflowRuns(first: 1) { totalCount } }')).toEqual([{ data: { workflowRuns: { totalCount: 0 } } }]);
    } finally {
      refused.dispose();
      allowed.dispose();
      await closeAfterSse(secured);
    }
  });

  it('single-connection mode from an allowed cross-origin page: the preflight allows PUT, DELETE and the stream token header', async () => {
    const page = 'http://localhost:5173';
    const cors = await startTestServer({ corsOrigins: [page] });
    try {
      for (const method of ['PUT', 'DELETE', 'GET', 'POST']) {
        const preflight = await fetch(cors.url, {
          method: 'OPTIONS',
          headers: { origin: page, 'access-control-request-method': method, 'access-control-request-headers': 'x-graphql-event-stream-token' },
        });
        expect(preflight.status).toBe(204);
        expect(preflight.headers.get('access-control-allow-origin')).toBe(page);
        expect(preflight.headers.get('access-control-allow-methods')?.split(', ')).toContain(method);
        expect(preflight.headers.get('access-control-allow-headers')).toBe('x-graphql-event-stream-token');
      }
      const client = createClient({ url: cors.url, singleConnection: true, retryAttempts: 0, headers: { origin: page } });
      try {
        expect(await once(client, 'query { workflowRuns(first: 1) { totalCount } }')).toEqual([{ data: { workflowRuns: { totalCount: 0 } } }]);
      } finally {
        client.dispose();
      }
    } finally {
      await closeAfterSse(cors);
    }
  });

  it('a stream token is no credential: opening another client’s stream needs the bearer token too', async () => {
    const secured = await startTestServer({ token: 's3cret' });
    try {
      const reserve = await fetch(secured.url, { method: 'PUT', headers: { authorization: 'Bearer s3cret' } });
      expect(reserve.status).toBe(201);
      const streamToken = await reserve.text();
      const stolen = await fetch(secured.url, { headers: { accept: 'text/event-stream', 'x-graphql-event-stream-token': streamToken } });
      expect(stolen.status).toBe(401);
      expect(await stolen.json()).toEqual({ errors: [{ message: 'Unauthorized: send Authorization: Bearer <token>' }] });
    } finally {
      await closeAfterSse(secured);
    }
  });
});
