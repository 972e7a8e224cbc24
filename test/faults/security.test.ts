/**
 * Security:
 *
 * - With a token, no query, mutation or subscription gets through without it — HTTP POST and
 *   GET on every path yoga would serve GraphQL on, SSE, graphql-ws — and nothing is written.
 * - Claim tokens (and their SHA-256) never appear in a response, an event, an error or a log
 *   line (the pino logger at trace level, captured in memory), through a whole run life cycle
 *   and its failures.
 * - A read-only server cannot write by any path (HTTP, GET, SSE, graphql-ws; the store and its
 *   connection refuse too), and the database file's bytes stay the same.
 * - The default bind address is loopback only.
 */
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServerConfig } from '../../src/server/config.js';
import { startServer } from '../../src/server/app.js';
import { WorkflowStore } from '../../src/store/index.js';
import { contentDigest, faultTempDir, postGraphQL } from '../helpers/fault-fixtures.js';
import {
  closeAfterSse,
  commitMarker,
  DELTAS_SUBSCRIPTION,
  openRawWs,
  subscribeSse,
  subscribeWs,
  untilRevision,
  wsClient,
  type DeltasData,
} from '../helpers/live-fixtures.js';
import { reserveInput, startTestServer, type TestServer } from '../helpers/server-fixture.js';
import { connectionOf } from '../helpers/store-internals.js';
import { captureLog } from '../helpers/log-capture.js';

const TOKEN = 'bearer-s3cret';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const QUERY = '{ workflowRuns { totalCount } }';
const MUTATION = `mutation { reserveWorkflowRun(input: { runId: "sneaked-in", workflowName: "x", workflowRef: "x.ts", definition: {}, originSessionId: "s" }) { __typename } }`;
const SUBSCRIPTION = 'subscription { workflowRunUpdated(runId: "sec-run") { runId } }';

describe('with a token: nothing gets through without it', () => {
  let fx: TestServer;
  let base: string;
  let before: string;

  beforeAll(async () => {
    fx = await startTestServer({ token: TOKEN });
    base = fx.url.replace(/\/graphql$/, '');
    const reserved = await postGraphQL(
      fx.url,
      {
        query: 'mutation R($input: ReserveWorkflowRunInput!) { reserveWorkflowRun(input: $input) { __typename } }',
        variables: { input: reserveInput('sec-run') },
      },
      AUTH,
    );
    expect(reserved.body?.data).toEqual({ reserveWorkflowRun: { __typename: 'ReserveWorkflowRunSuccess' } });
    before = contentDigest(connectionOf(fx.store));
  });
  afterAll(async () => {
    if (fx !== undefined) await closeAfterSse(fx);
  });

  /** Paths yoga answers GraphQL on (it matches any URL ending in /graphql, and /graphql/). */
  const PATHS = ['/graphql', '/graphql/', '//graphql', '/any/graphql', '/health?via=/graphql', '/?/graphql'];
  const CREDENTIALS: Array<Record<string, string>> = [
    {},
    { authorization: 'Bearer wrong' },
    { authorization: TOKEN },
    { authorization: `Basic ${TOKEN}` },
    { authorization: `Bearer ${TOKEN}x` },
  ];

  it('HTTP POST and GET: 401 for queries, mutations and subscriptions on every GraphQL path; nothing written', async () => {
    let refused = 0;
    for (const path of PATHS) {
      for (const headers of CREDENTIALS) {
        for (const query of [QUERY, MUTATION, SUBSCRIPTION]) {
          for (const accept of ['application/graphql-response+json', 'text/event-stream']) {
            const post = await fetch(base + path, {
              method: 'POST',
              headers: { 'content-type': 'application/json', accept, ...headers },
              body: JSON.stringify({ query }),
            });
            const text = await post.text();
            expect(post.status, `POST ${path} ${JSON.stringify(headers)} ${accept} ${query}: ${text}`).toBe(401);
            expect(text).not.toContain('"data"');
            refused += 1;
            // GET / and GET /health are the page and the health check, not GraphQL.
            if (['/', '/health'].includes(path.split('?')[0] as string)) continue;
            const separator = path.includes('?') ? '&' : '?';
            const get = await fetch(`${base}${path}${separator}query=${encodeURIComponent(query)}`, { headers: { accept, ...headers } });
            const getText = await get.text();
            expect(get.status, `GET ${path} ${JSON.stringify(headers)} ${accept} ${query}: ${getText}`).toBe(401);
            refused += 1;
          }
        }
      }
    }
    expect(refused).toBe((2 * PATHS.length - 2) * CREDENTIALS.length * 3 * 2);
    expect(contentDigest(connectionOf(fx.store))).toBe(before);
    // The control: with the token, the same requests go through.
    for (const path of PATHS) {
      const response = await postGraphQL(base + path, { query: QUERY }, AUTH);
      expect(response.body?.data, path).toEqual({ workflowRuns: { totalCount: 1 } });
    }
  });

  it('SSE: a subscription without the token gets 401 and no event; with it, events', async () => {
    for (const headers of CREDENTIALS) {
      const sse = subscribeSse<DeltasData>(fx.url, DELTAS_SUBSCRIPTION, { runId: 'sec-run' }, headers);
      expect((await sse.response).status).toBe(401);
      sse.close();
    }
    const allowed = subscribeSse<DeltasData>(fx.url, DELTAS_SUBSCRIPTION, { runId: 'sec-run', afterRevision: 1 }, AUTH);
    expect((await allowed.response).status).toBe(200);
    const revision = commitMarker(fx.store, 'sec-run', 1);
    await untilRevision(allowed.collector, revision);
    allowed.close();
    before = contentDigest(connectionOf(fx.store));
  });

  it('graphql-ws: no init, a wrong token or operations before the ack close the socket; nothing runs', async () => {
    const payloads: Array<Record<string, unknown> | undefined> = [
      undefined,
      {},
      { authorization: 'Bearer wrong' },
      { authorization: TOKEN },
      { authorization: ['Bearer', TOKEN] },
      { Authorization: `Bearer ${TOKEN}` },
    ];
    for (const payload of payloads) {
      const raw = await openRawWs(fx.url);
      raw.init(payload);
      // Sent right behind the init: must never run.
      raw.send({ type: 'subscribe', id: 'm', payload: { query: MUTATION } });
      raw.send({ type: 'subscribe', id: 'q', payload: { query: QUERY } });
      const closed = await raw.closed;
      expect([4403, 4401], JSON.stringify(payload)).toContain(closed.code);
      expect(
        raw.messages.events.filter((message) => message.type !== 'connection_ack'),
        JSON.stringify(payload),
      ).toEqual([]);
    }
    // Operations without any connection_init at all.
    const raw = await openRawWs(fx.url);
    raw.send({ type: 'subscribe', id: 'm', payload: { query: MUTATION } });
    expect((await raw.closed).code).toBe(4401);
    // graphql-ws clients with a wrong token: every operation type fails with the close.
    for (const query of [QUERY, MUTATION, SUBSCRIPTION]) {
      const client = wsClient(fx.url, { token: 'wrong' });
      const sub = subscribeWs(client, query, {}, 'wrong-token');
      await sub.collector.ended();
      expect(sub.collector.events).toEqual([]);
      expect((sub.collector.error as { code?: number }).code).toBe(4403);
      await client.dispose();
    }
    expect(contentDigest(connectionOf(fx.store))).toBe(before);
    // The control: with the token a client is served.
    const client = wsClient(fx.url, { token: TOKEN });
    const sub = subscribeWs(client, QUERY, {}, 'right-token');
    await sub.collector.ended();
    expect(sub.collector.events).toEqual([{ data: { workflowRuns: { totalCount: 1 } } }]);
    await client.dispose();
  });
});

describe('claim tokens never leave the server', () => {
  let fx: TestServer;
  const { lines, logger } = captureLog('trace');
  const tokens = Array.from(
    { length: 6 },
    (_, index) => `claim-secret-${index}-${createHash('sha256').update(String(Math.random())).digest('hex').slice(0, 12)}`,
  );
  /** Each token, its SHA-256 as hex and base64: none may show. */
  const forbidden = tokens.flatMap((token) => {
    const hash = createHash('sha256').update(token).digest();
    return [token, hash.toString('hex'), hash.toString('base64')];
  });
  const seen: string[] = [];

  beforeAll(async () => {
    fx = await startTestServer({ logger });
  });
  afterAll(async () => {
    if (fx !== undefined) await closeAfterSse(fx);
  });

  const RUN = '{ runId status queueStatus claim { ownerId leaseGeneration expiresAt } presentationRevision }';
  const RESULT = `{ __typename ... on Error { code message } ... on ValidationError { field } }`;
  async function call(query: string, variables: Record<string, unknown>): Promise<Record<string, unknown> | null | undefined> {
    const response = await postGraphQL(fx.url, { query, variables });
    seen.push(response.text);
    return response.body?.data;
  }

  it('through reserve+claim, claim, park, settle, restart, failures, reads and subscriptions', async () => {
    const [t0, t1, t2, t3, t4, t5] = tokens as [string, string, string, string, string, string];
    const ws = wsClient(fx.url);
    const wsEvents = subscribeWs<DeltasData>(ws, DELTAS_SUBSCRIPTION, { runId: 'leak-run', afterRevision: 0 }, 'ws');
    const reserve = `mutation R($input: ReserveWorkflowRunInput!) { reserveWorkflowRun(input: $input) { __typename ... on ReserveWorkflowRunSuccess { run ${RUN} } } }`;
    const claim = `mutation C($input: ClaimWorkflowRunInput!) { claimWorkflowRun(input: $input) { __typename ... on ClaimWorkflowRunSuccess { run ${RUN} } ... on Error { code message } } }`;
    const park = `mutation P($input: ParkWorkflowRunInput!) { parkWorkflowRun(input: $input) { __typename ... on ParkWorkflowRunSuccess { run ${RUN} } ${RESULT.slice(1, -1)} } }`;
    const settle = `mutation S($input: SettleWorkflowRunInput!) { settleWorkflowRun(input: $input) { __typename ... on SettleWorkflowRunSuccess { run ${RUN} } ${RESULT.slice(1, -1)} } }`;
    const restart = `mutation X($input: RestartWorkflowRunInput!) { restartWorkflowRun(input: $input) { __typename ... on RestartWorkflowRunSuccess { run ${RUN} } ${RESULT.slice(1, -1)} } }`;

    expect(await call(reserve, { input: { ...reserveInput('leak-run'), claim: { runnerId: 'runner-a', claimToken: t0, leaseMs: 60_000 } } })).toMatchObject({
      reserveWorkflowRun: { __typename: 'ReserveWorkflowRunSuccess' },
    });
    const sse = subscribeSse<DeltasData>(fx.url, DELTAS_SUBSCRIPTION, { runId: 'leak-run', afterRevision: 1 });
    // Failures that name the token's run: wrong token, expired style, another runner, oversized.
    for (const input of [
      { runId: 'leak-run', claimToken: t1 },
      { runId: 'leak-run', claimToken: `${t0}x` },
      { runId: 'missing-run', claimToken: t0 },
      { runId: 'leak-run', claimToken: t0.repeat(700) },
    ]) {
      expect((await call(park, { input }))?.parkWorkflowRun).toMatchObject({ __typename: expect.stringMatching(/Error$/) });
    }
    expect((await call(claim, { input: { runId: 'leak-run', runnerId: 'runner-b', claimToken: t1, leaseMs: 60_000 } }))?.claimWorkflowRun).toMatchObject({
      run: null,
    });
    expect((await call(park, { input: { runId: 'leak-run', claimToken: t0 } }))?.parkWorkflowRun).toMatchObject({ __typename: 'ParkWorkflowRunSuccess' });
    expect((await call(claim, { input: { runId: 'leak-run', runnerId: 'runner-b', claimToken: t2, leaseMs: 60_000 } }))?.claimWorkflowRun).toMatchObject({
      run: { claim: { ownerId: 'runner-b', leaseGeneration: 2 } },
    });
    expect((await call(settle, { input: { runId: 'leak-run', claimToken: t3, status: 'COMPLETED' } }))?.settleWorkflowRun).toMatchObject({
      code: 'CLAIM_LOST',
    });
    expect((await call(settle, { input: { runId: 'leak-run', claimToken: t2, status: 'FAILED', error: 'boom' } }))?.settleWorkflowRun).toMatchObject({
      __typename: 'SettleWorkflowRunSuccess',
    });
    expect(
      (await call(restart, { input: { runId: 'leak-run', originSessionId: 'session-1', claim: { runnerId: 'runner-c', claimToken: t4, leaseMs: 60_000 } } }))
        ?.restartWorkflowRun,
    ).toMatchObject({
      __typename: 'RestartWorkflowRunSuccess',
    });
    expect((await call(claim, { input: { runnerId: 'runner-d', claimToken: t5, leaseMs: 60_000 } }))?.claimWorkflowRun).toBeDefined();
    // Malformed requests carrying tokens (the logger must not write variables or bodies).
    await call(claim, { input: { runnerId: 'r', claimToken: t5, leaseMs: 'soon' } });
    await call(`mutation { parkWorkflowRun(input: { runId: "leak-run", claimToken: "${t5}" }) { __typename } `, {});
    // Every read that shows runs and claims.
    await call(
      `{ workflowRuns(first: 100) { edges { node ${RUN} } } workflowRun(runId: "leak-run") { viewerDeltas(afterRevision: 1) { batches { deltas { patch { op path value } } } } } }`,
      {},
    );
    await call('{ __type(name: "RunClaim") { fields { name } } }', {});

    const head = fx.store.getWorkflowRun('leak-run')?.presentationRevision ?? Number.NaN;
    await untilRevision(wsEvents.collector, head);
    await untilRevision(sse.collector, head);
    seen.push(JSON.stringify(wsEvents.collector.events), JSON.stringify(sse.collector.events));
    sse.close();
    await ws.dispose();

    // The malformed requests are the only ones whose error may echo the caller's own document or
    // variables back (graphql-js prints the rejected value); left out of the response check.
    const responses = seen.filter((text) => !text.includes('got invalid value') && !text.includes('Syntax Error'));
    expect(responses.length).toBeGreaterThan(14);
    const stored = connectionOf(fx.store).prepare('SELECT token_hash FROM leases WHERE token_hash IS NOT NULL').all() as Array<{ token_hash: Buffer }>;
    expect(stored.length).toBeGreaterThan(0); // the hashes exist server-side …
    for (const needle of forbidden) {
      // … but no response, event or log line shows a token or a hash.
      for (const text of responses) expect(text.includes(needle), `response shows ${needle}: ${text.slice(0, 300)}`).toBe(false);
      for (const line of lines) expect(line.includes(needle), `log line shows ${needle}: ${line}`).toBe(false);
    }
    expect(lines.length).toBeGreaterThan(10);
  });
});

describe('read-only server', () => {
  let dir: string;
  let dbPath: string;
  let bytes: Buffer;
  let fx: TestServer;

  beforeAll(async () => {
    dir = faultTempDir();
    dbPath = join(dir, 'state.db');
    const writer = await startTestServer({ dbPath });
    for (const runId of ['ro-queued', 'ro-claimed', 'ro-failed']) {
      const response = await postGraphQL(writer.url, {
        query: 'mutation R($input: ReserveWorkflowRunInput!) { reserveWorkflowRun(input: $input) { __typename } }',
        variables: {
          input: {
            ...reserveInput(runId, { originSessionId: `session-${runId}` }),
            ...(runId === 'ro-queued' ? {} : { claim: { runnerId: 'r', claimToken: `t-${runId}`, leaseMs: 600_000 } }),
          },
        },
      });
      expect(response.body?.data).toEqual({ reserveWorkflowRun: { __typename: 'ReserveWorkflowRunSuccess' } });
    }
    const failed = await postGraphQL(writer.url, {
      query: 'mutation { settleWorkflowRun(input: { runId: "ro-failed", claimToken: "t-ro-failed", status: FAILED, error: "boom" }) { __typename } }',
    });
    expect(failed.body?.data).toEqual({ settleWorkflowRun: { __typename: 'SettleWorkflowRunSuccess' } });
    await writer.close(); // checkpoints the WAL into the file
    bytes = readFileSync(dbPath);
    fx = await startTestServer({ dbPath, readOnly: true });
  });
  afterAll(async () => {
    if (fx !== undefined) await closeAfterSse(fx);
    rmSync(dir, { recursive: true, force: true });
  });

  const MUTATIONS: Array<[string, string]> = [
    [
      'reserveWorkflowRun',
      `mutation { reserveWorkflowRun(input: { runId: "ro-new", workflowName: "x", workflowRef: "x.ts", definition: {}, originSessionId: "s-new", claim: { runnerId: "r", claimToken: "t", leaseMs: 1000 } }) { __typename ... on Error { code message } } }`,
    ],
    [
      'restartWorkflowRun',
      `mutation { restartWorkflowRun(input: { runId: "ro-failed", originSessionId: "session-ro-failed" }) { __typename ... on Error { code message } } }`,
    ],
    [
      'claimWorkflowRun',
      `mutation { claimWorkflowRun(input: { runId: "ro-queued", runnerId: "r", claimToken: "t", leaseMs: 1000 }) { __typename ... on Error { code message } } }`,
    ],
    [
      'claimWorkflowRun',
      `mutation { claimWorkflowRun(input: { runnerId: "r", claimToken: "t", leaseMs: 1000 }) { __typename ... on Error { code message } } }`,
    ],
    [
      'parkWorkflowRun',
      `mutation { parkWorkflowRun(input: { runId: "ro-claimed", claimToken: "t-ro-claimed", noProgressDetail: "stuck" }) { __typename ... on Error { code message } } }`,
    ],
    [
      'settleWorkflowRun',
      `mutation { settleWorkflowRun(input: { runId: "ro-claimed", claimToken: "t-ro-claimed", status: COMPLETED }) { __typename ... on Error { code message } } }`,
    ],
  ];
  const FORBIDDEN = { __typename: 'ForbiddenError', code: 'FORBIDDEN', message: 'The server is read-only' };

  it('answers ForbiddenError to every mutation over HTTP, SSE and graphql-ws; GET refuses mutations', async () => {
    for (const [field, query] of MUTATIONS) {
      const post = await postGraphQL(fx.url, { query });
      expect(post.body?.data, post.text).toEqual({ [field]: FORBIDDEN });
      const get = await fetch(`${fx.url}?query=${encodeURIComponent(query)}`);
      expect(get.status).toBe(405);
      const sse = subscribeSse(fx.url, query);
      await sse.collector.ended();
      expect(sse.collector.events).toEqual([{ data: { [field]: FORBIDDEN } }]);
      const client = wsClient(fx.url);
      const ws = subscribeWs(client, query);
      await ws.collector.ended();
      expect(ws.collector.events).toEqual([{ data: { [field]: FORBIDDEN } }]);
      await client.dispose();
    }
  });

  it('refuses writes below GraphQL too: the store and its connection', () => {
    expect(() =>
      fx.store.reserveWorkflowRun({
        runId: 'ro-direct',
        workflowName: 'x',
        workflowSourceRef: 'x',
        workflowSource: { kind: 'file', path: 'x', hash: 'a'.repeat(64) },
        definitionDigest: 'a'.repeat(64),
        definitionSnapshot: {},
        originSessionId: 's',
      }),
    ).toThrow('Controller store is read-only');
    expect(() => fx.store.recordViewerDeltas('ro-queued', [{ targetType: 'summary' }])).toThrow('Controller store is read-only');
    expect(() => fx.store.cancelWorkflowRun({ runId: 'ro-queued' })).toThrow('Controller store is read-only');
    expect(() => connectionOf(fx.store).exec("UPDATE runs SET title = 'x'")).toThrow(/readonly/);
  });

  it('leaves the database file byte for byte as it was', async () => {
    await closeAfterSse(fx);
    expect(readFileSync(dbPath).equals(bytes)).toBe(true);
    const reopened = WorkflowStore.open({ path: dbPath, readOnly: true, projectPath: dir });
    expect(reopened.getWorkflowRun('ro-new')).toBeUndefined();
    expect(reopened.getWorkflowRun('ro-claimed')?.status).toBe('starting');
    reopened.close();
    expect(readFileSync(dbPath).equals(bytes)).toBe(true);
  });
});

describe('bind address', () => {
  it('defaults to loopback only', async () => {
    const saved = process.env.HOST;
    delete process.env.HOST;
    try {
      const config = parseServerConfig(['node', 'x']);
      expect(config.host).toBe('127.0.0.1');
      const dir = faultTempDir();
      const server = await startServer(
        { ...config, dbPath: join(dir, 'state.db'), port: 0, projectPath: dir, logLevel: 'silent' },
        { logger: pino({ level: 'silent' }) },
      );
      try {
        expect((server.httpServer.address() as AddressInfo).address).toBe('127.0.0.1');
        expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/graphql$/);
      } finally {
        await server.close();
        rmSync(dir, { recursive: true, force: true });
      }
    } finally {
      if (saved !== undefined) process.env.HOST = saved;
    }
  });
});
