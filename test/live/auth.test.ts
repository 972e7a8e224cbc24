/** With a token: graphql-ws needs {authorization: 'Bearer <token>'} in connection_init (else 4403); SSE needs the header (else 401). */
import { describe, expect } from 'vitest';
import {
  commitMarker,
  DELTAS_SUBSCRIPTION,
  openRawWs,
  revisionsOf,
  subscribeSse,
  subscribeWs,
  untilRevision,
  wsClient,
  type DeltasData,
} from '../helpers/live-fixtures.js';
import { ReserveWorkflowRunDocument } from '../../schema/generated/graphql.js';
import { reserveInput } from '../helpers/server-fixture.js';
import { serverTest } from '../helpers/server-test.js';

const TOKEN = 'live-secret';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const it = serverTest.extend('serverOptions', { scope: 'file' }, { token: TOKEN });

describe('subscription auth', () => {
  const runId = 'run-auth';
  it.beforeAll(async ({ fx }) => {
    const { reserveWorkflowRun } = await fx.data(ReserveWorkflowRunDocument, { input: reserveInput(runId) }, { headers: AUTH });
    expect(reserveWorkflowRun.__typename).toBe('ReserveWorkflowRunSuccess');
  });

  it.for<[string, Record<string, unknown> | undefined]>([
    ['no payload', undefined],
    ['an empty payload', {}],
    ['a wrong token', { authorization: 'Bearer nope' }],
    ['the token without the Bearer scheme', { authorization: TOKEN }],
    ['the token under another key', { Authorization: `Bearer ${TOKEN}` }],
  ])('graphql-ws connection_init with %s: closed with 4403, never acknowledged', async ([, payload], { fx }) => {
    const raw = await openRawWs(fx.url);
    raw.init(payload);
    const closed = await raw.closed;
    expect(closed).toEqual({ code: 4403, reason: 'Forbidden' });
    expect(raw.messages.events.map((message) => message.type)).not.toContain('connection_ack');
  });

  it('a graphql-ws client with a wrong token: its subscription fails with the 4403 close', async ({ fx }) => {
    const client = wsClient(fx.url, { token: 'nope' });
    try {
      const { collector } = subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId, afterRevision: 1 });
      await collector.ended();
      expect(collector.events).toEqual([]);
      expect(collector.error).toMatchObject({ code: 4403 });
    } finally {
      await client.dispose();
    }
  });

  it('a graphql-ws client with the token: acknowledged and served', async ({ fx }) => {
    const client = wsClient(fx.url, { token: TOKEN });
    try {
      // After the run's current revision: other tests of this file commit on the run too.
      const head = fx.store.viewerHead(runId)?.currentRevision as number;
      const { collector } = subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId, afterRevision: head });
      const revision = commitMarker(fx.store, runId, 1);
      await untilRevision(collector, revision);
      expect(revisionsOf(collector.events)).toEqual([revision]);
    } finally {
      await client.dispose();
    }
  });

  it('SSE without the header: 401 with WWW-Authenticate; with a wrong token: 401', async ({ fx }) => {
    const cases: Array<[Record<string, string>, string]> = [
      [{}, 'Unauthorized: send Authorization: Bearer <token>'],
      [
        { authorization: 'Bearer nope' },
        "Unauthorized: the token sent is not accepted: send Authorization: Bearer <token> with the server's --token, a --read-token or a --metadata-token",
      ],
    ];
    for (const [headers, message] of cases) {
      const sse = subscribeSse<DeltasData>(fx.url, DELTAS_SUBSCRIPTION, { runId, afterRevision: 1 }, headers);
      const response = await sse.response;
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(JSON.parse(response.text ?? '')).toEqual({ errors: [{ message }] });
      sse.close();
    }
  });

  it('SSE with the header: served', async ({ fx }) => {
    const head = fx.store.viewerHead(runId)?.currentRevision ?? 0;
    const sse = subscribeSse<DeltasData>(fx.url, DELTAS_SUBSCRIPTION, { runId, afterRevision: head }, AUTH);
    try {
      expect((await sse.response).status).toBe(200);
      const revision = commitMarker(fx.store, runId, 2);
      await untilRevision(sse.collector, revision);
      expect(revisionsOf(sse.collector.events)).toEqual([revision]);
    } finally {
      sse.close();
    }
  });
});
