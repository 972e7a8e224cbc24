/**
 * `GET /metrics` against the real server: Prometheus text format, behind the
 * token; GraphQL requests and latency by operation; live subscriptions by transport (graphql-ws,
 * yoga's SSE, graphql-sse single connection) up and down again; the change-feed lag of every
 * delivered event; SQLite busy retries and WAL size from the store.
 */
import { statSync } from 'node:fs';
import { createClient as createSseClient } from 'graphql-sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkflowRunDocument, WorkflowRunUpdatedDocument } from '../../schema/generated/graphql.js';
import { closeAfterSse, EventCollector, subscribeSse, subscribeWs, wsClient, yieldToEventLoop, type StreamResult } from '../helpers/live-fixtures.js';
import { feedWaiters, sharedSubscribers } from '../helpers/server-signals.js';
import { claim, reserve, reserveInput, startTestServer, type TestServer } from '../helpers/server-fixture.js';
import { storeInternals } from '../helpers/store-internals.js';

/** Fetches /metrics (with the token when given). */
async function scrape(fx: TestServer, token?: string): Promise<{ status: number; contentType: string | null; text: string }> {
  const response = await fetch(fx.url.replace(/\/graphql$/, '/metrics'), { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
  return { status: response.status, contentType: response.headers.get('content-type'), text: await response.text() };
}

/** The value of one sample (`name{labels} value`), or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels)
    .map(([key, value]) => `${key}="${value}"`)
    .join(',');
  const prefix = `${name}${wanted === '' ? '' : `{${wanted}}`} `;
  const line = text.split('\n').find((candidate) => candidate.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('/metrics', () => {
  let fx: TestServer;
  beforeAll(async () => {
    fx = await startTestServer();
    await reserve(fx, reserveInput('run-1'));
  });
  afterAll(() => closeAfterSse(fx));

  it('Prometheus text format with every family described', async () => {
    const { status, contentType, text } = await scrape(fx);
    expect(status).toBe(200);
    expect(contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    for (const family of [
      'pi_workflows_graphql_requests_total',
      'pi_workflows_graphql_request_duration_seconds',
      'pi_workflows_live_subscriptions',
      'pi_workflows_change_feed_lag_seconds',
      'pi_workflows_sqlite_busy_retries_total',
      'pi_workflows_sqlite_wal_bytes',
      'process_cpu_seconds_total',
    ]) {
      expect(text).toMatch(new RegExp(`^# HELP ${family} \\S`, 'm'));
      expect(text).toMatch(new RegExp(`^# TYPE ${family} (counter|gauge|histogram)$`, 'm'));
    }
  });

  it('counts requests and latency by operation name and type; names come from the document when operationName is absent', async () => {
    const before = await scrape(fx);
    const count = (text: string, labels: Record<string, string>): number => sample(text, 'pi_workflows_graphql_requests_total', labels) ?? 0;
    await fx.gql(WorkflowRunDocument, { runId: 'run-1' }); // sends operationName
    await fx.gql(WorkflowRunDocument, { runId: 'run-1' }, { operationName: null }); // named only in the document
    await fx.gql('{ workflowRuns(first: 1) { totalCount } }');
    await fx.gql('query Broken {');
    const after = await scrape(fx);
    expect(
      count(after.text, { operation: 'WorkflowRun', type: 'query', status: '200' }) -
        count(before.text, { operation: 'WorkflowRun', type: 'query', status: '200' }),
    ).toBe(2);
    expect(
      count(after.text, { operation: '(anonymous)', type: 'query', status: '200' }) -
        count(before.text, { operation: '(anonymous)', type: 'query', status: '200' }),
    ).toBe(1);
    expect(
      count(after.text, { operation: '(none)', type: '(none)', status: '400' }) - count(before.text, { operation: '(none)', type: '(none)', status: '400' }),
    ).toBe(1);
    const histogramCount = (text: string): number =>
      sample(text, 'pi_workflows_graphql_request_duration_seconds_count', { operation: 'WorkflowRun', type: 'query' }) ?? 0;
    expect(histogramCount(after.text) - histogramCount(before.text)).toBe(2);
  });

  it('live subscriptions by transport go up and down; the feed lag is observed once per delivered event', async () => {
    const gauge = (text: string, transport: string): number | undefined => sample(text, 'pi_workflows_live_subscriptions', { transport });
    const lagCount = (text: string): number => sample(text, 'pi_workflows_change_feed_lag_seconds_count') ?? 0;
    const idle = await scrape(fx);
    expect([gauge(idle.text, 'graphql-ws'), gauge(idle.text, 'sse'), gauge(idle.text, 'graphql-sse-single')]).toEqual([0, 0, 0]);

    const ws = wsClient(fx.url);
    const single = createSseClient({ url: fx.url, singleConnection: true, retryAttempts: 0 });
    const query = WorkflowRunUpdatedDocument.toString();
    const overWs = subscribeWs(ws, query, { runId: 'run-1' }, 'ws');
    const overSse = subscribeSse(fx.url, query, { runId: 'run-1' }, {}, 'sse');
    const overSingle = new EventCollector<StreamResult<unknown>>('single');
    const stopSingle = single.subscribe(
      { query, variables: { runId: 'run-1' } },
      { next: (value) => overSingle.push(value as StreamResult<unknown>), error: (error) => overSingle.fail(error), complete: () => overSingle.complete() },
    );
    try {
      await feedWaiters(fx.server, 3, 'three subscriptions wait on the feed');
      const open = await scrape(fx);
      expect([gauge(open.text, 'graphql-ws'), gauge(open.text, 'sse'), gauge(open.text, 'graphql-sse-single')]).toEqual([1, 1, 1]);

      await claim(fx, 'run-1', 'token-1');
      await overWs.collector.take(1);
      await overSse.collector.take(1);
      await overSingle.take(1);
      expect(lagCount((await scrape(fx)).text) - lagCount(open.text)).toBe(3);
    } finally {
      overWs.unsubscribe();
      overSse.close();
      stopSingle();
    }
    await feedWaiters(fx.server, 0, 'the subscriptions left');
    // yoga ends an aborted SSE stream on a later turn: each stream leaves the shared execution
    // when it ends; the gauge drops in the same promise chain, settled by the next macrotask.
    await sharedSubscribers(fx.server, 0, 'every stream ended on the server');
    await yieldToEventLoop();
    const closed = await scrape(fx);
    expect([gauge(closed.text, 'graphql-ws'), gauge(closed.text, 'sse'), gauge(closed.text, 'graphql-sse-single')]).toEqual([0, 0, 0]);
    single.dispose();
    await ws.dispose();
  });

  it('SQLite busy retries and WAL size come from the store', async () => {
    storeInternals(fx.store).database.beginRetries = 7;
    const { text } = await scrape(fx);
    expect(sample(text, 'pi_workflows_sqlite_busy_retries_total')).toBe(7);
    expect(sample(text, 'pi_workflows_sqlite_wal_bytes')).toBe(statSync(`${fx.dbPath}-wal`).size);
    expect(sample(text, 'pi_workflows_sqlite_wal_bytes')).toBeGreaterThan(0);
  });
});

describe('/metrics behind the token', () => {
  let fx: TestServer;
  beforeAll(async () => {
    fx = await startTestServer({ token: 's3cret' });
  });
  afterAll(() => fx.close());

  it('401 without it (also for a browser asking for HTML), 200 with it', async () => {
    const url = fx.url.replace(/\/graphql$/, '/metrics');
    const anonymous = await fetch(url);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    expect(await anonymous.json()).toEqual({ errors: [{ message: 'Unauthorized: send Authorization: Bearer <token>' }] });
    expect((await fetch(url, { headers: { accept: 'text/html' } })).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    const allowed = await scrape(fx, 's3cret');
    expect(allowed.status).toBe(200);
    expect(allowed.text).toContain('# TYPE pi_workflows_live_subscriptions gauge');
  });
});
