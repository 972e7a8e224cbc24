/** Subscribing to a run that does not exist is a GraphQL error (NOT_FOUND), not an empty stream. */
import { describe, expect } from 'vitest';
import { DELTAS_SUBSCRIPTION, subscribeSse, subscribeWs, type DeltasData } from '../helpers/live-fixtures.js';
import { serverTest as it } from '../helpers/server-test.js';

describe('workflowRunDeltas on an unknown run', () => {
  it.for([null, 1, 0])('graphql-ws, afterRevision %s: one result with the NOT_FOUND error, then the stream ends', async (afterRevision, { client, fx }) => {
    const { collector } = subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId: 'run-missing', afterRevision });
    await collector.ended();
    expect(collector.error).toBeUndefined();
    expect(collector.events).toHaveLength(1);
    const [result] = collector.events;
    expect(result?.data ?? null).toBeNull();
    expect(result?.errors).toHaveLength(1);
    expect(result?.errors?.[0]).toMatchObject({
      message: 'Workflow run not found: run-missing',
      extensions: { code: 'NOT_FOUND' },
      path: ['workflowRunDeltas'],
    });
    expect(fx.server.feed.waiterCount).toBe(0);
  });

  it('SSE: the same error as the only event, then complete', async ({ fx }) => {
    const sse = subscribeSse<DeltasData>(fx.url, DELTAS_SUBSCRIPTION, { runId: 'run-missing', afterRevision: null });
    try {
      await sse.collector.ended();
      expect(sse.collector.error).toBeUndefined();
      expect(sse.collector.events).toHaveLength(1);
      expect(sse.collector.events[0]?.errors?.[0]).toMatchObject({
        message: 'Workflow run not found: run-missing',
        extensions: { code: 'NOT_FOUND' },
      });
    } finally {
      sse.close();
    }
  });

  it('workflowRunUpdated on an unknown run: the same NOT_FOUND error', async ({ client }) => {
    const { collector } = subscribeWs(client, 'subscription { workflowRunUpdated(runId: "run-missing") { runId } }');
    await collector.ended();
    expect(collector.events).toHaveLength(1);
    expect(collector.events[0]?.errors?.[0]).toMatchObject({
      message: 'Workflow run not found: run-missing',
      extensions: { code: 'NOT_FOUND' },
    });
  });

  it('a negative cursor is BAD_USER_INPUT', async ({ client }) => {
    const { collector } = subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId: 'run-missing', afterRevision: -1 });
    await collector.ended();
    expect(collector.events[0]?.errors?.[0]).toMatchObject({
      message: 'Viewer cursor must be a non-negative integer',
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });
});
