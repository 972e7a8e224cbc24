/**
 * One error path for every transport: an internal fault answers the same
 * masked error ("Unexpected error.", INTERNAL_SERVER_ERROR, nothing of the original message)
 * over HTTP, SSE and graphql-ws, and is logged once with the same line, because every
 * graphql-ws operation runs through yoga's envelop (src/server/graphql/graphql-ws.ts).
 */
import { Writable } from 'node:stream';
import type { Client } from 'graphql-ws';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { WorkflowStore } from '../../src/store/index.js';
import { closeAfterSse, reserveRun, subscribeSse, subscribeWs, wsClient, type EventCollector, type StreamResult } from '../helpers/live-fixtures.js';
import { feedWaiters } from '../helpers/server-signals.js';
import { claim, startTestServer, type TestServer } from '../helpers/server-fixture.js';

const FAULT = 'The database connection is not open';

/** What every transport answers for the fault, at `path`. */
function maskedError(path: Array<string | number>, line: number, column: number): Record<string, unknown> {
  return { message: 'Unexpected error.', locations: [{ line, column }], path, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
}

/** The `data:` of each `event: next` frame of an SSE body. */
function sseNextPayloads(text: string): Array<StreamResult<unknown>> {
  return text
    .split('\n\n')
    .filter((frame) => frame.startsWith('event: next\n'))
    .map((frame) => JSON.parse(frame.slice(frame.indexOf('data: ') + 'data: '.length)) as StreamResult<unknown>);
}

/** Replaces `method` of the store with one that throws the fault; returns the undo. */
function breakStore(store: WorkflowStore, method: 'getWorkflowRuns' | 'viewerHead' | 'childIdsOfRuns'): () => void {
  const target = store as unknown as Record<string, unknown>;
  target[method] = () => {
    throw new Error(FAULT);
  };
  return () => {
    delete target[method];
  };
}

describe('an internal fault on HTTP, SSE and graphql-ws', () => {
  let fx: TestServer;
  let client: Client;
  const lines: Array<Record<string, unknown>> = [];
  const undo: Array<() => void> = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        for (const line of chunk.toString('utf8').split('\n')) if (line.length > 0) lines.push(JSON.parse(line) as Record<string, unknown>);
        callback();
      },
    });
    fx = await startTestServer({ logger: pino({ level: 'info' }, sink) });
    client = wsClient(fx.url);
  });
  afterEach(() => {
    for (const restore of undo.splice(0)) restore();
  });
  afterAll(async () => {
    await client.dispose();
    await closeAfterSse(fx);
  });

  /** The 'unexpected error' lines logged since `from`, without the time. */
  function faultLines(from: number): Array<Record<string, unknown>> {
    return lines
      .slice(from)
      .filter((line) => line.msg === 'unexpected error')
      .map(({ time: _time, ...line }) => line);
  }

  /** The line every transport logs for the fault at `path` (the stack is where it was thrown). */
  function expectedLine(path: Array<string | number>): Record<string, unknown> {
    return {
      level: 50,
      pid: process.pid,
      hostname: expect.any(String),
      msg: 'unexpected error',
      err: { type: 'Error', message: FAULT, stack: expect.stringContaining(`Error: ${FAULT}`) },
      path,
    };
  }

  async function onlyResult(collector: EventCollector<StreamResult<unknown>>): Promise<StreamResult<unknown>> {
    await collector.ended();
    expect(collector.error).toBeUndefined();
    expect(collector.events).toHaveLength(1);
    return collector.events[0] as StreamResult<unknown>;
  }

  it('a fault while starting the operation: the same masked error and the same log line on each transport', async () => {
    await reserveRun(fx, 'run-fault');
    // The query loads runs; a subscription starts from the run's viewer head.
    undo.push(breakStore(fx.store, 'getWorkflowRuns'), breakStore(fx.store, 'viewerHead'));
    const errors: Record<string, unknown> = {};
    const logged: Record<string, Array<Record<string, unknown>>> = {};

    let from = lines.length;
    const http = await fx.gql('query Fault {\n  run: workflowRun(runId: "run-fault") { runId }\n}');
    // The query's field is nullable: data stays, with the field null.
    expect({ status: http.status, data: http.data }).toEqual({ status: 200, data: { run: null } });
    errors.http = http.errors;
    logged.http = faultLines(from);

    from = lines.length;
    const subscription = 'subscription Fault {\n  run: workflowRunUpdated(runId: "run-fault") { runId }\n}';
    const sse = subscribeSse(fx.url, subscription);
    try {
      await sse.collector.ended();
    } finally {
      sse.close();
    }
    // yoga answers a stream that fails before its first event without data with HTTP 500; the
    // body is the same single result.
    const failed = sse.collector.error as { status: number; text: string };
    expect(failed.status).toBe(500);
    const sseResults = sseNextPayloads(failed.text);
    expect(sseResults).toHaveLength(1);
    expect(Object.keys(sseResults[0] ?? {})).toEqual(['errors']);
    errors.sse = sseResults[0]?.errors;
    logged.sse = faultLines(from);

    from = lines.length;
    const ws = await onlyResult(subscribeWs(client, subscription).collector);
    expect(Object.keys(ws)).toEqual(['errors']);
    errors.ws = ws.errors;
    logged.ws = faultLines(from);

    const expected = [maskedError(['run'], 2, 3)];
    expect(errors).toEqual({ http: expected, sse: expected, ws: expected });
    expect(JSON.stringify(errors)).not.toContain(FAULT);
    expect(logged).toEqual({ http: [expectedLine(['run'])], sse: [expectedLine(['run'])], ws: [expectedLine(['run'])] });
  });

  it('a fault while executing an event: SSE and graphql-ws answer and log it alike', async () => {
    const runId = 'run-event-fault';
    await reserveRun(fx, runId);
    const subscription = `subscription Children($runId: String!) {\n  workflowRunUpdated(runId: $runId) { runId children { runId } }\n}`;
    const sse = subscribeSse(fx.url, subscription, { runId }, {}, 'sse');
    const ws = subscribeWs(client, subscription, { runId }, 'ws');
    try {
      await feedWaiters(fx.server, 2, 'both subscriptions wait on the feed');
      // `children { runId }` selects only ids: it reads child ids.
      undo.push(breakStore(fx.store, 'childIdsOfRuns'));
      const from = lines.length;
      await claim(fx, runId, 'token-event-fault'); // a summary change: one event for each
      await sse.collector.take(1);
      await ws.collector.take(1);
      const expected = { data: null, errors: [maskedError(['workflowRunUpdated', 'children'], 2, 45)] };
      expect({ sse: sse.collector.events, ws: ws.collector.events }).toEqual({ sse: [expected], ws: [expected] });
      // One line per execution: each subscriber's event ran the selection once (a run record
      // is read per subscriber, so these two events are not shared).
      expect(faultLines(from)).toEqual([expectedLine(['workflowRunUpdated', 'children']), expectedLine(['workflowRunUpdated', 'children'])]);
    } finally {
      sse.close();
      ws.unsubscribe();
    }
  });
});
