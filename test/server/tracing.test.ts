/**
 * OpenTelemetry tracing (docs/TRACING.md): the span tree of a mutation over real HTTP joined
 * to the caller's `traceparent`, a real OTLP/HTTP receiver getting the spans from the real
 * server process, nothing secret in the exported bytes, and nothing at all when it is off.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { trace, type Context } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type Span,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, test } from 'vitest';
import { ReserveWorkflowRunDocument } from '../../schema/generated/graphql.js';
import { parseServerConfig } from '../../src/server/config.js';
import { tracingSettingsFromEnv } from '../../src/server/ops/tracing.js';
import { createClient } from 'graphql-ws';
import { WebSocket } from 'ws';
import {
  DELTAS_SUBSCRIPTION,
  reserveRun,
  subscribeSse,
  subscribeWs,
  untilRevision,
  WAIT_MS,
  wsClient,
  wsUrlOf,
  type DeltasData,
} from '../helpers/live-fixtures.js';
import { commitMarker } from '../helpers/live-markers.js';
import { feedWaiters } from '../helpers/server-signals.js';
import { reserveInput, startTestServer, type TestServer } from '../helpers/server-fixture.js';
import { spawnService, TSX_IMPORT } from '../helpers/service-process.js';

const SERVER_TOKEN = 'srv-tok-7f3a9c1e5b';
const CLAIM_TOKEN = 'claim-tok-4d2b8e6a0c';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN_ID = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${CALLER_SPAN_ID}-01`;

/** An InMemorySpanExporter behind a SimpleSpanProcessor, and a way to await a span by name. */
class RecordingProcessor implements SpanProcessor {
  readonly exporter = new InMemorySpanExporter();
  private readonly inner = new SimpleSpanProcessor(this.exporter);
  private waiters: { name: string; resolve: () => void }[] = [];
  onStart(span: Span, parentContext: Context): void {
    this.inner.onStart(span, parentContext);
  }
  onEnd(span: ReadableSpan): void {
    this.inner.onEnd(span);
    this.waiters = this.waiters.filter((waiter) => {
      if (waiter.name !== span.name) return true;
      waiter.resolve();
      return false;
    });
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  /** Resolves once a span named `name` ended (at once when one already did). */
  ended(name: string): Promise<void> {
    if (this.exporter.getFinishedSpans().some((span) => span.name === name)) return Promise.resolve();
    return new Promise((done) => this.waiters.push({ name, resolve: done }));
  }
  spans(): ReadableSpan[] {
    return this.exporter.getFinishedSpans();
  }
}

function byName(spans: ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((span) => span.name === name);
  expect(
    found.map((span) => span.name),
    `one span ${name} in ${spans.map((span) => span.name).join(', ')}`,
  ).toEqual([name]);
  return found[0] as ReadableSpan;
}

const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe('tracing on, in-memory exporter', () => {
  test('reserveWorkflowRun over HTTP with a traceparent: HTTP request → operation → parse/validate/execute → store write with the run id, in the caller’s trace', async () => {
    const recorder = new RecordingProcessor();
    const fx = await startTestServer({ token: SERVER_TOKEN, spanProcessor: recorder });
    servers.push(fx);
    const input = reserveInput('run-traced', { claim: { runnerId: 'runner-1', claimToken: CLAIM_TOKEN, leaseMs: 60_000 } });
    const response = await fx.gql(ReserveWorkflowRunDocument, { input }, { headers: { traceparent: TRACEPARENT } });
    expect(response.errors).toBeUndefined();
    expect(response.data?.reserveWorkflowRun.__typename).toBe('ReserveWorkflowRunSuccess');
    await recorder.ended('POST /graphql');

    const spans = recorder.spans();
    expect(spans.map((span) => span.name).sort()).toEqual(
      ['POST /graphql', 'mutation ReserveWorkflowRun', 'graphql.parse', 'graphql.validate', 'graphql.execute', 'pi_workflows.store.write'].sort(),
    );
    for (const span of spans) expect(span.spanContext().traceId).toBe(TRACE_ID);
    const http = byName(spans, 'POST /graphql');
    const operation = byName(spans, 'mutation ReserveWorkflowRun');
    const write = byName(spans, 'pi_workflows.store.write');
    const execute = byName(spans, 'graphql.execute');
    expect(parentOf(http)).toBe(CALLER_SPAN_ID);
    expect(http.attributes).toEqual({ 'http.request.method': 'POST', 'url.path': '/graphql', 'http.response.status_code': 200 });
    expect(parentOf(operation)).toBe(http.spanContext().spanId);
    expect(operation.attributes).toEqual({ 'graphql.operation.type': 'mutation', 'graphql.operation.name': 'ReserveWorkflowRun' });
    for (const name of ['graphql.parse', 'graphql.validate', 'graphql.execute'])
      expect(parentOf(byName(spans, name)), name).toBe(operation.spanContext().spanId);
    expect(parentOf(write)).toBe(execute.spanContext().spanId);
    expect(write.attributes).toEqual({ 'pi_workflows.run_id': 'run-traced' });
    expect(write.status.code).toBe(0); // UNSET: committed
  });

  test('a caller without traceparent starts a new trace; a refused write marks the store write span with its code, not its message', async () => {
    const recorder = new RecordingProcessor();
    const fx = await startTestServer({ spanProcessor: recorder });
    servers.push(fx);
    await fx.data(ReserveWorkflowRunDocument, { input: reserveInput('run-a') });
    await recorder.ended('POST /graphql');
    recorder.exporter.reset();
    // The same id with other parameters and no claim: ConflictError.
    const response = await fx.gql(ReserveWorkflowRunDocument, { input: reserveInput('run-a', { workflowName: 'other' }) });
    expect(response.data?.reserveWorkflowRun.__typename).toBe('ConflictError');
    await recorder.ended('POST /graphql');
    const spans = recorder.spans();
    const http = byName(spans, 'POST /graphql');
    expect(parentOf(http)).toBeUndefined();
    const write = byName(spans, 'pi_workflows.store.write');
    expect(write.attributes).toEqual({ 'error.type': 'CONFLICT' });
    expect(write.status.code).toBe(2); // ERROR
  });
});

describe('tracing on, nothing secret in the spans', () => {
  test('a bad variable value (an Int that is not one) appears in no span, nor does any token: the operation span has the error count and code', async () => {
    const recorder = new RecordingProcessor();
    const fx = await startTestServer({ token: SERVER_TOKEN, spanProcessor: recorder });
    servers.push(fx);
    const input = { ...reserveInput('run-bad'), claim: { runnerId: 'runner-1', claimToken: CLAIM_TOKEN, leaseMs: 'lease-value-3c8d' } };
    const response = await fx.gql(ReserveWorkflowRunDocument, { input } as never, { headers: { traceparent: TRACEPARENT } });
    expect(response.errors?.map((error) => error.extensions?.code)).toEqual(['BAD_USER_INPUT']);
    await recorder.ended('POST /graphql');
    const spans = recorder.spans();
    const dump = JSON.stringify(
      spans.map((span) => ({
        name: span.name,
        attributes: span.attributes,
        events: span.events,
        status: span.status,
        links: span.links,
        resource: span.resource.attributes,
      })),
    );
    for (const secret of ['lease-value-3c8d', CLAIM_TOKEN, SERVER_TOKEN, 'runner-1']) expect(dump.includes(secret), secret).toBe(false);
    const operation = byName(spans, 'mutation ReserveWorkflowRun');
    expect(operation.attributes).toEqual({
      'graphql.operation.type': 'mutation',
      'graphql.operation.name': 'ReserveWorkflowRun',
      'graphql.error.count': 1,
      'graphql.error.codes': ['GRAPHQL_ERROR'],
    });
    expect(operation.status.code).toBe(2);
  });
});

describe('tracing on, subscriptions over graphql-ws', () => {
  test('the operation phases of a graphql-ws subscription share one trace; a commit fanned out to 3 subscribers is one delivery batch span counting 3', async () => {
    const recorder = new RecordingProcessor();
    const fx = await startTestServer({ spanProcessor: recorder });
    servers.push(fx);
    const runId = 'run-fanout';
    await reserveRun(fx, runId);
    const client = wsClient(fx.url);
    try {
      const collectors = [1, 2, 3].map((k) => subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId, afterRevision: null }, `sub-${k}`).collector);
      await feedWaiters(fx.server, 3, 'the 3 subscriptions wait on the feed');
      recorder.exporter.reset();
      const directBefore = fx.server.sharedExecution.direct;
      commitMarker(fx.store, runId, 1); // revision 2
      await Promise.all(collectors.map((collector) => untilRevision(collector, 2)));
      await recorder.ended('graphql.subscription.deliver');
      const batches = recorder.spans().filter((span) => span.name === 'graphql.subscription.deliver');
      expect(batches.map((span) => span.attributes['pi_workflows.deliveries'])).toEqual([3]);
      // Results written straight to the sockets (the direct route, bypassing envelop) count as well as those through envelop.
      const direct = fx.server.sharedExecution.direct - directBefore;
      expect(direct).toBe(3);
      expect(batches[0]?.attributes).toEqual({ 'pi_workflows.deliveries.direct': 3, 'pi_workflows.deliveries.envelop': 0, 'pi_workflows.deliveries': 3 });
      expect(batches[0]?.parentSpanContext).toBeUndefined();
    } finally {
      await client.dispose();
    }
  });

  test('a graphql-ws subscription: parse, validate and subscribe under one "subscription Deltas" operation span, in the trace of the upgrade request\'s traceparent', async () => {
    const recorder = new RecordingProcessor();
    const fx = await startTestServer({ spanProcessor: recorder });
    servers.push(fx);
    await reserveRun(fx, 'run-ws');
    /** A WebSocket whose upgrade request carries the caller's traceparent. */
    class TracedWebSocket extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { headers: { traceparent: TRACEPARENT } });
      }
    }
    const client = createClient({ url: wsUrlOf(fx.url), webSocketImpl: TracedWebSocket, retryAttempts: 0, shouldRetry: () => false, lazyCloseTimeout: 0 });
    try {
      subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId: 'run-ws', afterRevision: null });
      await feedWaiters(fx.server, 1, 'the subscription waits on the feed');
      await recorder.ended('subscription Deltas');
      const spans = recorder
        .spans()
        .filter((span) => !span.name.startsWith('POST') && !span.name.includes('ReserveWorkflowRun') && span.name !== 'pi_workflows.store.write');
      const operation = spans.find((span) => span.name === 'subscription Deltas') as ReadableSpan;
      expect(operation.attributes).toEqual({ 'graphql.operation.type': 'subscription', 'graphql.operation.name': 'Deltas' });
      expect(operation.spanContext().traceId).toBe(TRACE_ID);
      expect(parentOf(operation)).toBe(CALLER_SPAN_ID);
      const phases = spans.filter((span) => span.spanContext().traceId === operation.spanContext().traceId && span !== operation);
      expect(phases.map((span) => [span.name, parentOf(span)])).toEqual([
        ['graphql.parse', operation.spanContext().spanId],
        ['graphql.validate', operation.spanContext().spanId],
        ['graphql.subscribe', operation.spanContext().spanId],
      ]);
    } finally {
      await client.dispose();
    }
  });
});

describe('tracing on, a subscription over SSE', () => {
  test('HTTP request → "subscription Deltas" → parse/validate/subscribe in the caller\'s trace; the event goes out through envelop, counted in a delivery batch span', async () => {
    const recorder = new RecordingProcessor();
    const fx = await startTestServer({ spanProcessor: recorder });
    servers.push(fx);
    const runId = 'run-sse';
    await reserveRun(fx, runId);
    recorder.exporter.reset();
    const sse = subscribeSse<DeltasData>(fx.url, DELTAS_SUBSCRIPTION, { runId, afterRevision: null }, { traceparent: TRACEPARENT });
    try {
      expect((await sse.response).status).toBe(200);
      await feedWaiters(fx.server, 1, 'the SSE subscription waits on the feed');
      commitMarker(fx.store, runId, 1); // revision 2
      await untilRevision(sse.collector, 2);
      await recorder.ended('graphql.subscription.deliver');
    } finally {
      sse.close();
    }
    await recorder.ended('POST /graphql');
    const spans = recorder.spans();
    const http = byName(spans, 'POST /graphql');
    const operation = byName(spans, 'subscription Deltas');
    expect(parentOf(http)).toBe(CALLER_SPAN_ID);
    expect(http.status.code).toBe(0); // the client closing its stream is no server error
    expect(parentOf(operation)).toBe(http.spanContext().spanId);
    for (const name of ['graphql.parse', 'graphql.validate', 'graphql.subscribe']) {
      const phase = byName(spans, name);
      expect(parentOf(phase), name).toBe(operation.spanContext().spanId);
      expect(phase.spanContext().traceId).toBe(TRACE_ID);
    }
    expect(byName(spans, 'graphql.subscription.deliver').attributes).toEqual({
      'pi_workflows.deliveries.direct': 0,
      'pi_workflows.deliveries.envelop': 1,
      'pi_workflows.deliveries': 1,
    });
  });
});

/** A tiny OTLP/HTTP receiver on 127.0.0.1: every POST body, raw, with its path and content type. */
async function otlpReceiver(): Promise<{
  server: Server;
  url: string;
  bodies: { path: string; type: string; body: Buffer }[];
  received: (count: number) => Promise<void>;
}> {
  const bodies: { path: string; type: string; body: Buffer }[] = [];
  let waiter: { count: number; resolve: () => void } | undefined;
  const server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      bodies.push({ path: request.url ?? '', type: String(request.headers['content-type']), body: Buffer.concat(chunks) });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
      if (waiter !== undefined && bodies.length >= waiter.count) waiter.resolve();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    server,
    url,
    bodies,
    received: (count) => (bodies.length >= count ? Promise.resolve() : new Promise<void>((done) => (waiter = { count, resolve: done }))),
  };
}

interface OtlpJsonSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes?: { key: string; value: Record<string, unknown> }[];
}

describe('tracing on, real OTLP/HTTP export from the server process', () => {
  test('the spans reach an OTLP/HTTP JSON receiver; the exported bytes hold neither the --token, nor the claim token, nor any variable value', async () => {
    const receiver = await otlpReceiver();
    const dir = mkdtempSync(join(tmpdir(), 'pi-workflows-otel-'));
    const service = spawnService(
      process.execPath,
      [
        '--import',
        TSX_IMPORT,
        resolve('src/server/main.ts'),
        '--port',
        '0',
        '--db',
        join(dir, 'state.db'),
        '--project',
        dir,
        '--token',
        SERVER_TOKEN,
        '--otel',
      ],
      {
        cwd: dir,
        env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'otel-test-service' },
        label: 'otel-server',
      },
    );
    try {
      const url = await service.listening();
      const input = reserveInput('run-exported', {
        claim: { runnerId: 'runner-secret-name', claimToken: CLAIM_TOKEN, leaseMs: 60_000 },
        input: { task: 'variable-value-9e1f' },
      });
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${SERVER_TOKEN}`, traceparent: TRACEPARENT },
        body: JSON.stringify({ query: ReserveWorkflowRunDocument.toString(), variables: { input } }),
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { data: { reserveWorkflowRun: { __typename: string } } }).data.reserveWorkflowRun.__typename).toBe(
        'ReserveWorkflowRunSuccess',
      );
      // SIGTERM closes the server, which exports what is buffered before exiting.
      expect(await service.stop('SIGTERM')).toBe(0);
      await Promise.race([receiver.received(1), new Promise((_, reject) => setTimeout(() => reject(new Error('no OTLP export')), WAIT_MS).unref())]);

      expect(receiver.bodies.map((body) => [body.path, body.type])).toEqual(receiver.bodies.map(() => ['/v1/traces', 'application/json']));
      const raw = Buffer.concat(receiver.bodies.map((body) => body.body)).toString('utf8');
      for (const secret of [SERVER_TOKEN, CLAIM_TOKEN, 'runner-secret-name', 'variable-value-9e1f', 'workflows/demo.ts', 'session-1']) {
        expect(raw.includes(secret), secret).toBe(false);
      }
      expect(raw).not.toContain('process.command');
      expect(raw).not.toContain('process.executable');

      const payloads = receiver.bodies.map(
        (body) =>
          JSON.parse(body.body.toString('utf8')) as {
            resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] }; scopeSpans: { spans: OtlpJsonSpan[] }[] }[];
          },
      );
      const resourceSpans = payloads.flatMap((payload) => payload.resourceSpans);
      const resourceKeys = [...new Set(resourceSpans.flatMap((entry) => entry.resource.attributes.map((attribute) => attribute.key)))].sort();
      expect(resourceKeys).toEqual(['service.name', 'telemetry.sdk.language', 'telemetry.sdk.name', 'telemetry.sdk.version']);
      expect(resourceSpans[0]?.resource.attributes.find((attribute) => attribute.key === 'service.name')?.value.stringValue).toBe('otel-test-service');
      const spans = resourceSpans.flatMap((entry) => entry.scopeSpans.flatMap((scope) => scope.spans));
      const http = spans.find((span) => span.name === 'POST /graphql');
      const write = spans.find((span) => span.name === 'pi_workflows.store.write');
      expect(http?.parentSpanId).toBe(CALLER_SPAN_ID);
      // The JSON encoding sends ids as hex.
      expect(http?.traceId).toBe(TRACE_ID);
      expect(write?.attributes).toEqual([{ key: 'pi_workflows.run_id', value: { stringValue: 'run-exported' } }]);
      expect(spans.map((span) => span.name).sort()).toEqual(
        ['POST /graphql', 'mutation ReserveWorkflowRun', 'graphql.parse', 'graphql.validate', 'graphql.execute', 'pi_workflows.store.write'].sort(),
      );
    } finally {
      service.kill();
      await new Promise((done) => receiver.server.close(done));
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('off by default', () => {
  test('no flag and no OTEL_* variable: off; what turns it on and off', () => {
    expect(tracingSettingsFromEnv(false, {})).toBeNull();
    expect(tracingSettingsFromEnv(false, { OTEL_SERVICE_NAME: 'x' })).toBeNull();
    expect(tracingSettingsFromEnv(true, {})).toEqual({ protocol: 'http/protobuf' });
    expect(tracingSettingsFromEnv(false, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toEqual({ protocol: 'http/protobuf' });
    expect(tracingSettingsFromEnv(false, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' })).toEqual({ protocol: 'http/protobuf' });
    expect(tracingSettingsFromEnv(false, { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toEqual({ protocol: 'http/json' });
    expect(
      tracingSettingsFromEnv(false, {
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      }),
    ).toEqual({
      protocol: 'http/protobuf',
    });
    expect(tracingSettingsFromEnv(true, { OTEL_TRACES_EXPORTER: 'none' })).toBeNull();
    expect(tracingSettingsFromEnv(true, { OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' })).toBeNull();
    expect(() => tracingSettingsFromEnv(false, { OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow('OTEL_TRACES_EXPORTER must be otlp or none, got "zipkin"');
    expect(() => tracingSettingsFromEnv(true, { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      'OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json, got "grpc"',
    );
  });

  test('--otel turns it on (parseServerConfig); without it and without OTEL_* the config has tracing null', () => {
    // Whatever this run's environment says about OTel is put aside for the test.
    const saved = Object.entries(process.env).filter(([name]) => name.startsWith('OTEL_') || name === 'PI_WORKFLOWS_OTEL');
    for (const [name] of saved) Reflect.deleteProperty(process.env, name);
    try {
      expect(parseServerConfig(['node', 'main.ts', '--otel']).tracing).toEqual({ protocol: 'http/protobuf' });
      expect(parseServerConfig(['node', 'main.ts']).tracing).toBeNull();
    } finally {
      for (const [name, value] of saved) process.env[name] = value;
    }
  });

  test('a server started without tracing makes no span, not even through a global tracer provider', async () => {
    const recorder = new RecordingProcessor();
    const global = new BasicTracerProvider({ spanProcessors: [recorder] });
    trace.setGlobalTracerProvider(global);
    try {
      const fx = await startTestServer({ token: SERVER_TOKEN });
      servers.push(fx);
      const input = reserveInput('run-untraced', { claim: { runnerId: 'runner-1', claimToken: CLAIM_TOKEN, leaseMs: 60_000 } });
      const response = await fx.gql(ReserveWorkflowRunDocument, { input }, { headers: { traceparent: TRACEPARENT } });
      expect(response.data?.reserveWorkflowRun.__typename).toBe('ReserveWorkflowRunSuccess');
      await fx.close();
      servers.splice(servers.indexOf(fx), 1);
      expect(recorder.spans()).toEqual([]);
    } finally {
      trace.disable();
    }
  });
});
