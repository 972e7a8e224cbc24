/**
 * Scoped access: `--read-token` gives queries and subscriptions on every transport
 * (HTTP POST and GET, SSE, graphql-ws, graphql-sse) and no mutation — each answers ForbiddenError naming the
 * missing write scope, and the database is unchanged; `--token` keeps every power. The request
 * log line names the scope; no log line shows a token.
 */
import { createHash } from 'node:crypto';
import { createClient as createSseClient } from 'graphql-sse';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseServerConfig } from '../../src/server/config.js';
import { scopeOf } from '../../src/server/http/auth.js';
import { contentDigest, postGraphQL } from '../helpers/fault-fixtures.js';
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
import { httpRequest } from '../helpers/raw-http.js';
import { runCli } from '../helpers/run-cli.js';
import { reserveInput, startTestServer, type TestServer } from '../helpers/server-fixture.js';
import { connectionOf } from '../helpers/store-internals.js';
import { captureLog } from '../helpers/log-capture.js';

const FULL = 'full-s3cret-token';
const READ_A = 'dashboard-read-token';
const READ_B = 'ide-plugin-read-token';
const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
const COUNT = '{ workflowRuns { totalCount } }';
const FORBIDDEN = {
  __typename: 'ForbiddenError',
  code: 'FORBIDDEN',
  message: 'This token has the read scope only; mutations need the write scope',
};
const RESULT = '{ __typename ... on Error { code message } }';
/** Every mutation, as the read-only server tests send them. */
const MUTATIONS: Array<[string, string]> = [
  [
    'reserveWorkflowRun',
    `mutation { reserveWorkflowRun(input: { runId: "sc-new", workflowName: "x", workflowRef: "x.ts", definition: {}, originSessionId: "s-new", claim: { runnerId: "r", claimToken: "t", leaseMs: 1000 } }) ${RESULT} }`,
  ],
  ['restartWorkflowRun', `mutation { restartWorkflowRun(input: { runId: "sc-failed", originSessionId: "session-sc-failed" }) ${RESULT} }`],
  ['claimWorkflowRun', `mutation { claimWorkflowRun(input: { runId: "sc-queued", runnerId: "r", claimToken: "t", leaseMs: 1000 }) ${RESULT} }`],
  ['claimWorkflowRun', `mutation { claimWorkflowRun(input: { runnerId: "r", claimToken: "t", leaseMs: 1000 }) ${RESULT} }`],
  ['parkWorkflowRun', `mutation { parkWorkflowRun(input: { runId: "sc-claimed", claimToken: "t-sc-claimed" }) ${RESULT} }`],
  ['settleWorkflowRun', `mutation { settleWorkflowRun(input: { runId: "sc-claimed", claimToken: "t-sc-claimed", status: COMPLETED }) ${RESULT} }`],
  ['renewWorkflowRunClaim', `mutation { renewWorkflowRunClaim(input: { runId: "sc-claimed", claimToken: "t-sc-claimed", leaseMs: 1000 }) ${RESULT} }`],
  ['markWorkflowRunRunning', `mutation { markWorkflowRunRunning(input: { runId: "sc-claimed", claimToken: "t-sc-claimed" }) ${RESULT} }`],
  ['reportWorkflowRunState', `mutation { reportWorkflowRunState(input: { runId: "sc-claimed", claimToken: "t-sc-claimed", state: WAITING }) ${RESULT} }`],
  ['cancelWorkflowRun', `mutation { cancelWorkflowRun(input: { runId: "sc-claimed", claimToken: "t-sc-claimed" }) ${RESULT} }`],
  ['cancelWorkflowRun', `mutation { cancelWorkflowRun(input: { runId: "sc-queued" }) ${RESULT} }`],
  ['pauseWorkflowRun', `mutation { pauseWorkflowRun(input: { runId: "sc-queued" }) ${RESULT} }`],
  ['resumeWorkflowRun', `mutation { resumeWorkflowRun(input: { runId: "sc-queued" }) ${RESULT} }`],
];

describe('--read-token and --token', () => {
  let fx: TestServer;
  const { lines, logger } = captureLog('trace');

  beforeAll(async () => {
    fx = await startTestServer({ token: FULL, readTokens: [READ_A, READ_B], logger });
    for (const runId of ['sc-queued', 'sc-claimed', 'sc-failed']) {
      const response = await postGraphQL(
        fx.url,
        {
          query: 'mutation R($input: ReserveWorkflowRunInput!) { reserveWorkflowRun(input: $input) { __typename } }',
          variables: {
            input: {
              ...reserveInput(runId, { originSessionId: `session-${runId}` }),
              ...(runId === 'sc-queued' ? {} : { claim: { runnerId: 'r', claimToken: `t-${runId}`, leaseMs: 600_000 } }),
            },
          },
        },
        bearer(FULL),
      );
      expect(response.body?.data).toEqual({ reserveWorkflowRun: { __typename: 'ReserveWorkflowRunSuccess' } });
    }
    const failed = await postGraphQL(
      fx.url,
      { query: 'mutation { settleWorkflowRun(input: { runId: "sc-failed", claimToken: "t-sc-failed", status: FAILED, error: "boom" }) { __typename } }' },
      bearer(FULL),
    );
    expect(failed.body?.data).toEqual({ settleWorkflowRun: { __typename: 'SettleWorkflowRunSuccess' } });
  });
  afterAll(async () => {
    if (fx !== undefined) await closeAfterSse(fx);
  });

  it('a read token queries over HTTP POST and GET; no token or a wrong one gets 401', async () => {
    for (const token of [READ_A, READ_B]) {
      expect((await postGraphQL(fx.url, { query: COUNT }, bearer(token))).body).toEqual({ data: { workflowRuns: { totalCount: 3 } } });
      const get = await fetch(`${fx.url}?query=${encodeURIComponent(COUNT)}`, { headers: { accept: 'application/json', ...bearer(token) } });
      expect(await get.json()).toEqual({ data: { workflowRuns: { totalCount: 3 } } });
    }
    for (const headers of [{}, bearer('wrong'), bearer(`${READ_A}x`), { authorization: READ_A }] as Array<Record<string, string>>) {
      expect((await postGraphQL(fx.url, { query: COUNT }, headers)).status).toBe(401);
    }
  });

  it('a mutation with a read token answers ForbiddenError naming the write scope, over HTTP, SSE and graphql-ws; nothing is written', async () => {
    const before = contentDigest(connectionOf(fx.store));
    const client = wsClient(fx.url, { token: READ_B });
    try {
      for (const [field, query] of MUTATIONS) {
        const post = await postGraphQL(fx.url, { query }, bearer(READ_A));
        expect(post.body?.data, post.text).toEqual({ [field]: FORBIDDEN });
        const sse = subscribeSse(fx.url, query, {}, bearer(READ_A));
        await sse.collector.ended();
        expect(sse.collector.events).toEqual([{ data: { [field]: FORBIDDEN } }]);
        const ws = subscribeWs(client, query);
        await ws.collector.ended();
        expect(ws.collector.events).toEqual([{ data: { [field]: FORBIDDEN } }]);
      }
    } finally {
      await client.dispose();
    }
    expect(contentDigest(connectionOf(fx.store))).toBe(before);
  });

  it('a read token subscribes over SSE and graphql-ws (connection_init) and gets the events', async () => {
    const sse = subscribeSse<DeltasData>(fx.url, DELTAS_SUBSCRIPTION, { runId: 'sc-queued', afterRevision: 1 }, bearer(READ_A));
    const raw = await openRawWs(fx.url);
    await raw.initAndAck(bearer(READ_B));
    const ws = raw.subscribe<DeltasData>('d', DELTAS_SUBSCRIPTION, { runId: 'sc-queued', afterRevision: 1 });
    try {
      expect((await sse.response).status).toBe(200);
      const revision = commitMarker(fx.store, 'sc-queued', 1);
      await untilRevision(sse.collector, revision);
      await untilRevision(ws, revision);
    } finally {
      sse.close();
      raw.ws.close();
    }
  });

  it('graphql-sse, in both of its modes, serves a read token its queries and refuses its mutations', async () => {
    const before = contentDigest(connectionOf(fx.store));
    for (const singleConnection of [true, false]) {
      const client = createSseClient({ url: fx.url, singleConnection, headers: bearer(READ_A), retryAttempts: 0 });
      try {
        const run = async (query: string): Promise<unknown[]> => {
          const results: unknown[] = [];
          await new Promise<void>((resolve, reject) => {
            client.subscribe({ query }, { next: (value) => results.push(value), error: reject, complete: resolve });
          });
          return results;
        };
        expect(await run(COUNT), `singleConnection ${singleConnection}`).toEqual([{ data: { workflowRuns: { totalCount: 3 } } }]);
        expect(await run(MUTATIONS[5]?.[1] as string), `singleConnection ${singleConnection}`).toEqual([{ data: { settleWorkflowRun: FORBIDDEN } }]);
      } finally {
        client.dispose();
      }
    }
    expect(contentDigest(connectionOf(fx.store))).toBe(before);
  });

  it('the full token keeps every power on every transport', async () => {
    const post = await postGraphQL(fx.url, { query: MUTATIONS[4]?.[1] as string }, bearer(FULL));
    expect(post.body?.data).toEqual({ parkWorkflowRun: { __typename: 'ParkWorkflowRunSuccess' } });
    const client = wsClient(fx.url, { token: FULL });
    try {
      const ws = subscribeWs(client, MUTATIONS[2]?.[1] as string);
      await ws.collector.ended();
      expect(ws.collector.events).toEqual([{ data: { claimWorkflowRun: { __typename: 'ClaimWorkflowRunSuccess' } } }]);
    } finally {
      await client.dispose();
    }
    const sse = subscribeSse(fx.url, MUTATIONS[0]?.[1] as string, {}, bearer(FULL));
    await sse.collector.ended();
    expect(sse.collector.events).toEqual([{ data: { reserveWorkflowRun: { __typename: 'ReserveWorkflowRunSuccess' } } }]);
  });

  it('/health shows the database to a read token too', async () => {
    const response = await httpRequest(fx.healthUrl, { headers: bearer(READ_A) });
    expect(JSON.parse(response.text)).toEqual({
      status: 'ok',
      database: {
        path: fx.dbPath,
        kind: 'own',
        readOnly: false,
        quickCheck: 'ok',
        runChanges: { databaseId: fx.store.runChangeHead().databaseId, head: fx.store.runChangeHead().head },
      },
    });
  });

  it('the request log line names the scope; no log line shows a token or its hash', async () => {
    const start = lines.length;
    await postGraphQL(fx.url, { query: COUNT, operationName: null }, bearer(READ_A));
    await postGraphQL(fx.url, { query: 'query Count { workflowRuns { totalCount } }' }, bearer(FULL));
    await postGraphQL(fx.url, { query: COUNT }, bearer('wrong'));
    const requests = lines
      .slice(start)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.msg === 'request' || entry.msg === 'request refused');
    expect(requests.map((entry) => [entry.msg, entry.scope, entry.status])).toEqual([
      ['request', 'read', 200],
      ['request', 'write', 200],
      ['request refused', undefined, 401],
    ]);
  });

  it('no line logged by any of the requests above shows a token or its hash', () => {
    for (const token of [FULL, READ_A, READ_B]) {
      const hash = createHash('sha256').update(token).digest();
      for (const needle of [token, hash.toString('hex'), hash.toString('base64')]) {
        for (const line of lines) expect(line.includes(needle), `log line shows ${needle}: ${line}`).toBe(false);
      }
    }
    expect(lines.length).toBeGreaterThan(0);
  });
});

describe('read tokens without a full token', () => {
  let fx: TestServer;
  beforeAll(async () => {
    fx = await startTestServer({ readTokens: [READ_A] });
  });
  afterAll(async () => {
    if (fx !== undefined) await fx.close();
  });

  it('every request needs a read token, and nothing can be written over GraphQL', async () => {
    expect((await postGraphQL(fx.url, { query: COUNT })).status).toBe(401);
    expect((await postGraphQL(fx.url, { query: COUNT }, bearer(READ_A))).body).toEqual({ data: { workflowRuns: { totalCount: 0 } } });
    const before = contentDigest(connectionOf(fx.store));
    const reserve = await postGraphQL(fx.url, { query: MUTATIONS[0]?.[1] as string }, bearer(READ_A));
    expect(reserve.body?.data).toEqual({ reserveWorkflowRun: FORBIDDEN });
    expect(contentDigest(connectionOf(fx.store))).toBe(before);
  });

  it('/health and /metrics tell an anonymous caller nothing more than on a server with a full token', async () => {
    expect((await httpRequest(fx.healthUrl)).text).toBe('{"status":"ok"}');
    const metricsUrl = fx.url.replace(/\/graphql$/, '/metrics');
    expect((await httpRequest(metricsUrl)).status).toBe(401);
    const withToken = await httpRequest(metricsUrl, { headers: bearer(READ_A) });
    expect(withToken.status).toBe(200);
    expect(withToken.headers['content-type']).toMatch(/^text\/plain/);
  });
});

describe('scopeOf', () => {
  it('maps the Authorization value to a scope; an open server grants write to anyone', () => {
    const credentials = { token: FULL, readTokens: [READ_A, READ_B] };
    expect(scopeOf(credentials, `Bearer ${FULL}`)).toBe('write');
    expect(scopeOf(credentials, `bearer ${READ_A}`)).toBe('read');
    expect(scopeOf(credentials, `BEARER ${READ_B}`)).toBe('read');
    for (const header of [undefined, '', 'Bearer', `Bearer ${FULL} `, `Basic ${FULL}`, READ_A, `Bearer ${READ_A.toUpperCase()}`, ['Bearer', FULL]]) {
      expect(scopeOf(credentials, header), JSON.stringify(header)).toBeNull();
    }
    expect(scopeOf({ token: null, readTokens: [] }, undefined)).toBe('write');
    expect(scopeOf({ token: null, readTokens: [READ_A] }, undefined)).toBeNull();
  });
});

describe('--read-token option', () => {
  const saved = process.env.PI_WORKFLOWS_READ_TOKENS;
  afterEach(() => {
    if (saved === undefined) delete process.env.PI_WORKFLOWS_READ_TOKENS;
    else process.env.PI_WORKFLOWS_READ_TOKENS = saved;
  });

  it('is repeatable, takes a comma-separated environment variable, must differ from --token (an error that quotes neither), and is in --help', () => {
    delete process.env.PI_WORKFLOWS_READ_TOKENS;
    expect(parseServerConfig(['node', 'main']).readTokens).toEqual([]);
    expect(parseServerConfig(['node', 'main', '--read-token', 'a1', '--read-token', 'b2,c3']).readTokens).toEqual(['a1', 'b2', 'c3']);
    process.env.PI_WORKFLOWS_READ_TOKENS = 'e1, e2';
    expect(parseServerConfig(['node', 'main']).readTokens).toEqual(['e1', 'e2']);
    expect(parseServerConfig(['node', 'main', '--read-token', 'cli']).readTokens).toEqual(['cli']);
    const same = runCli(['--token', 'x-secret', '--read-token', 'r-other,x-secret']);
    expect(same.code).toBe(1);
    expect(same.stderr).toBe('error: a --read-token must differ from --token\n');
    const help = runCli(['--help']);
    expect(help.stdout).toContain('--read-token <token>');
    expect(help.stdout).toContain('PI_WORKFLOWS_READ_TOKENS');
  });
});

describe('--metadata-token option', () => {
  const saved = process.env.PI_WORKFLOWS_METADATA_TOKENS;
  afterEach(() => {
    if (saved === undefined) delete process.env.PI_WORKFLOWS_METADATA_TOKENS;
    else process.env.PI_WORKFLOWS_METADATA_TOKENS = saved;
  });

  it('grants the metadata scope; is repeatable, read from the environment, differs from --token and every --read-token, and is in --help', () => {
    const credentials = { token: FULL, readTokens: [READ_A], metadataTokens: ['meta-1'] };
    expect(scopeOf(credentials, 'Bearer meta-1')).toBe('metadata');
    expect(scopeOf(credentials, `Bearer ${READ_A}`)).toBe('read');
    expect(scopeOf({ token: null, readTokens: [], metadataTokens: ['meta-1'] }, undefined)).toBeNull();
    delete process.env.PI_WORKFLOWS_METADATA_TOKENS;
    expect(parseServerConfig(['node', 'main']).metadataTokens).toEqual([]);
    expect(parseServerConfig(['node', 'main', '--metadata-token', 'm1', '--metadata-token', 'm2,m3']).metadataTokens).toEqual(['m1', 'm2', 'm3']);
    process.env.PI_WORKFLOWS_METADATA_TOKENS = 'e1, e2';
    expect(parseServerConfig(['node', 'main']).metadataTokens).toEqual(['e1', 'e2']);
    expect(runCli(['--token', 'x-secret', '--metadata-token', 'x-secret'])).toMatchObject({
      code: 1,
      stderr: 'error: a --metadata-token must differ from --token\n',
    });
    expect(runCli(['--read-token', 'r-1', '--metadata-token', 'r-1'])).toMatchObject({
      code: 1,
      stderr: 'error: a --metadata-token must differ from every --read-token\n',
    });
    const help = runCli(['--help']);
    expect(help.stdout).toContain('--metadata-token <token>');
    expect(help.stdout).toContain('PI_WORKFLOWS_METADATA_TOKENS');
  });
});
