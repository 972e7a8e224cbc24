/**
 * The GraphiQL page: compressed (brotli or gzip, as the browser accepts),
 * cacheable (ETag, Cache-Control, 304 on revalidation), and opening with a default query that
 * runs without errors on the demo's data; the demo's runs carry what pi-workflows' engine
 * writes (steps with prompts and outputs, trace events, session entries), read back as the run view.
 */
import { request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DemoHost } from '../../demo/workflow-host.js';
import { mulberry32 } from '../../demo/prng.js';
import { EngineRowWriter } from '../../src/store/engine-rows/index.js';
import { readRunValue, readRunView, type RunView, type ValueRef } from '../../src/store/run-view/index.js';
import { GRAPHIQL_DEFAULT_QUERY, GRAPHIQL_MAX_AGE_S, pickEncoding } from '../../src/server/page/graphiql-page.js';
import { startTestServer, type TestServer } from '../helpers/server-fixture.js';

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** GET with exactly these headers; the body as sent (not decompressed). */
function rawGet(url: string, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { headers }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: Buffer.concat(chunks) }));
      incoming.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('GraphiQL page', () => {
  let fx: TestServer;
  let plain: RawAnswer;
  beforeAll(async () => {
    fx = await startTestServer({ token: 's3cret' });
    plain = await rawGet(fx.url, { accept: 'text/html' });
  });
  afterAll(() => fx.close());

  it('is served without the token, uncompressed to a client that accepts no encoding, with its cache headers', () => {
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['cache-control']).toBe(`public, max-age=${GRAPHIQL_MAX_AGE_S}`);
    expect(plain.headers.vary).toBe('Accept-Encoding');
    expect(plain.headers.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(Number(plain.headers['content-length'])).toBe(plain.body.length);
    expect(plain.body.toString('utf8')).toContain('<title>pi-workflows GraphQL</title>');
  });

  it.each([
    ['br', 'gzip, deflate, br', brotliDecompressSync],
    ['gzip', 'gzip, deflate', gunzipSync],
  ] as const)('is sent %s-compressed to a browser accepting it: the same page, under a third of the size', async (encoding, acceptEncoding, decompress) => {
    const answer = await rawGet(fx.url, { accept: 'text/html', 'accept-encoding': acceptEncoding });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe(encoding);
    expect(answer.headers.etag).toBe(plain.headers.etag);
    expect(decompress(answer.body).equals(plain.body)).toBe(true);
    expect(answer.body.length).toBeLessThan(plain.body.length / 3);
  });

  it('revalidation with the ETag costs a 304 without a body', async () => {
    const answer = await rawGet(fx.url, { accept: 'text/html', 'accept-encoding': 'br', 'if-none-match': String(plain.headers.etag) });
    expect(answer.status).toBe(304);
    expect(answer.body.length).toBe(0);
    expect(answer.headers.etag).toBe(plain.headers.etag);
    const stale = await rawGet(fx.url, { accept: 'text/html', 'if-none-match': '"something-else"' });
    expect(stale.status).toBe(200);
  });

  it('opens with the default query', () => {
    expect(plain.body.toString('utf8')).toContain(JSON.stringify(GRAPHIQL_DEFAULT_QUERY).slice(1, -1));
  });

  it('picks brotli, then gzip, honouring q=0', () => {
    expect(pickEncoding('gzip, deflate, br')).toBe('br');
    expect(pickEncoding('br;q=0, gzip')).toBe('gzip');
    expect(pickEncoding('*')).toBe('br');
    expect(pickEncoding('identity')).toBe('identity');
    expect(pickEncoding(undefined)).toBe('identity');
    expect(pickEncoding('gzip;q=0, br;q=0')).toBe('identity');
  });
});

describe('the default query on the demo', () => {
  let fx: TestServer;
  beforeAll(async () => {
    fx = await startTestServer();
  });
  afterAll(() => fx.close());

  it('runs without errors on what the demo host writes, and shows runs with their chains', async () => {
    const host = new DemoHost(fx.store, mulberry32(7), { chains: 3, prefix: 'd1', intervalMs: 1_000, log: () => undefined });
    for (let step = 0; step < 60; step += 1) {
      await host.step();
      fx.clock.advance(1_000);
    }
    const { status, data, errors } = await fx.gql<
      { workflowRuns: { totalCount: number; edges: Array<{ node: { runId: string; rootRun: { runId: string } } }> } },
      never
    >(GRAPHIQL_DEFAULT_QUERY);
    expect(errors).toBeUndefined();
    expect(status).toBe(200);
    expect(data?.workflowRuns.totalCount).toBeGreaterThan(3);
    expect(data?.workflowRuns.edges.length).toBe(Math.min(10, data?.workflowRuns.totalCount ?? 0));
    expect(data?.workflowRuns.edges.every((edge) => edge.node.runId.startsWith('d1-') && edge.node.rootRun.runId.startsWith('d1-'))).toBe(true);
  });

  it("with the engine-row writer, a demo run's view has steps with prompts and outputs, trace events and session entries", async () => {
    const engine = EngineRowWriter.open({ path: fx.dbPath, clock: fx.clock.now });
    const host = new DemoHost(fx.store, mulberry32(11), { chains: 2, prefix: 'd2', intervalMs: 1_000, log: () => undefined, engine });
    try {
      for (let step = 0; step < 30; step += 1) {
        await host.step();
        fx.clock.advance(1_000);
      }
    } finally {
      engine.close();
    }
    const connection = new Database(fx.dbPath, { readonly: true });
    try {
      const runIds = (
        connection.prepare("SELECT run_id AS runId FROM runs WHERE run_id LIKE 'd2-%' ORDER BY created_at").all() as Array<{ runId: string }>
      ).map((row) => row.runId);
      const views = runIds.map((runId) => readRunView(connection, runId) as RunView);
      const withSteps = views.filter((view) => view.steps.total > 0);
      expect(withSteps.length).toBeGreaterThan(0);
      const view = withSteps[0] as RunView;
      const step = view.steps.items[0];
      expect(step?.prompt).not.toBeNull();
      expect(readRunValue(connection, view.runId, step?.prompt as ValueRef)).toMatch(/^Step \w+ of [a-z-]+ \(d2-c\d+-\d+\): /);
      expect(readRunValue(connection, view.runId, step?.output as ValueRef)).toMatchObject({ step: step?.nodeId });
      expect(view.trace.items.map((event) => event.type)).toEqual(
        expect.arrayContaining(['run_initialized', 'run_started', 'session_bound', 'node_started', 'agent_prompt_sent', 'node_finished']),
      );
      expect(view.sessionEntries.items.map((entry) => entry.role ?? entry.customType)).toEqual(
        expect.arrayContaining(['pi-workflows-step', 'assistant', 'toolResult']),
      );
      expect(view.sessionEvents.total).toBeGreaterThan(0);
      expect(view.session?.binding).toMatchObject({ runId: view.runId, piSessionId: expect.stringMatching(/^demo-d2-s\d$/) });
    } finally {
      connection.close();
    }
  });
});
