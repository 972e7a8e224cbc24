import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  defaultTextMapGetter,
  trace,
  type Context,
  type Span,
  type TextMapPropagator,
  type Tracer,
} from '@opentelemetry/api';
import type { SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { getOperationAST, GraphQLError, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { traceStoreWrites } from '../../schema/tracing.js';
import type { DirectNext } from '../../delivery/index.js';
import { lazyImport } from './lazy-import.js';

/**
 * Opt-in OpenTelemetry tracing (docs/TRACING.md): spans for HTTP requests, GraphQL operations
 * (parse, validate, execute/subscribe), store writes (with the run id) and subscription
 * delivery batches, exported over OTLP/HTTP. Off by default; what turns it on is
 * {@link tracingSettingsFromEnv} (the `--otel` flag or the standard `OTEL_*` variables).
 *
 * What is exported never holds a token, a claim token, a variable value or the document text:
 * spans carry only the names and fixed attributes set here (method, known path, status code,
 * operation type and name, error codes, run ids, counts), the resource only `service.*`,
 * `telemetry.sdk.*` and what `OTEL_RESOURCE_ATTRIBUTES` names — no process detector (its
 * `process.command_args` would carry `--token`).
 *
 * The trace SDK and the OTLP exporters (with their protobuf and metrics dependencies) are
 * imported when a server turns tracing on ({@link tracingFor}), not with this module: with
 * tracing off none of them is loaded.
 */

/** The OTLP/HTTP encodings the exporter speaks (`OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`). */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** How tracing is set up, once on. */
export interface TracingSettings {
  /** OTLP/HTTP encoding; default `http/protobuf` (the OTel SDK's default). */
  protocol: OtlpProtocol;
}

/** The service name of the resource when `OTEL_SERVICE_NAME` (or `service.name` in `OTEL_RESOURCE_ATTRIBUTES`) does not name one. */
export const DEFAULT_SERVICE_NAME = 'pi-workflows-graphql';

function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/**
 * Decides whether tracing is on (docs/TRACING.md "Turning it on"):
 * - `OTEL_SDK_DISABLED=true` turns it off, whatever else is set;
 * - `OTEL_TRACES_EXPORTER=none` turns it off; `otlp` turns it on; any other value is an error;
 * - else it is on with `flag` (`--otel` / `PI_WORKFLOWS_OTEL=true`), or when
 *   `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set;
 * - else off.
 *
 * @returns the settings, or null for off
 * @throws Error naming the variable for an exporter other than `otlp`/`none` or a protocol other
 *   than `http/protobuf`/`http/json` (`grpc` is not supported)
 */
export function tracingSettingsFromEnv(flag: boolean, env: NodeJS.ProcessEnv = process.env): TracingSettings | null {
  if (envValue(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return null;
  const exporter = envValue(env, 'OTEL_TRACES_EXPORTER')?.toLowerCase();
  if (exporter !== undefined && exporter !== 'otlp' && exporter !== 'none') {
    throw new Error(`OTEL_TRACES_EXPORTER must be otlp or none, got "${exporter}"`);
  }
  if (exporter === 'none') return null;
  const on =
    flag ||
    exporter === 'otlp' ||
    envValue(env, 'OTEL_EXPORTER_OTLP_ENDPOINT') !== undefined ||
    envValue(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') !== undefined;
  if (!on) return null;
  const protocolVariable =
    envValue(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') === undefined ? 'OTEL_EXPORTER_OTLP_PROTOCOL' : 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL';
  const protocol = envValue(env, protocolVariable) ?? 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw new Error(`${protocolVariable} must be http/protobuf or http/json, got "${protocol}"`);
  }
  return { protocol };
}

/** A server's tracing: its tracer, the yoga plugin, the HTTP and delivery-batch spans. */
export interface Tracing {
  tracer: Tracer;
  /** Add to yoga's `plugins`: parse, validate, execute/subscribe spans, operation spans on HTTP. */
  plugin: Plugin;
  /**
   * Starts the `HTTP <method>` span of a request, a child of the caller's `traceparent` when
   * the request carries a valid one; ends it when the response finishes or the connection closes.
   */
  httpRequest(request: IncomingMessage, response: ServerResponse): void;
  /** Wraps a graphql-ws subscriber's direct writer so that its hand-overs count in the delivery batch spans. */
  countDirect(direct: DirectNext): DirectNext;
  /** Exports the spans still buffered and stops the exporter (on server close). */
  shutdown(): Promise<void>;
}

/** Options of {@link createTracing}. */
export interface TracingOptions {
  /** The span processor (tests: a SimpleSpanProcessor over an InMemorySpanExporter); default a BatchSpanProcessor over the OTLP exporter. */
  spanProcessor?: SpanProcessor;
}

/** The trace SDK's modules, imported by the first server that turns tracing on. */
const loadTraceSdk = lazyImport('the OpenTelemetry trace SDK (@opentelemetry/sdk-trace-base, resources, core)', async () => {
  const [sdk, resources, core] = await Promise.all([
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/core'),
  ]);
  return { sdk, resources, core };
});

/** The OTLP/HTTP exporter class of each encoding, imported by the first server that exports with it. */
const loadOtlpExporter: Record<OtlpProtocol, () => Promise<new () => SpanExporter>> = {
  'http/protobuf': lazyImport(
    'the OTLP trace exporter (@opentelemetry/exporter-trace-otlp-proto)',
    async () => (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter,
  ),
  'http/json': lazyImport(
    'the OTLP trace exporter (@opentelemetry/exporter-trace-otlp-http)',
    async () => (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter,
  ),
};

/** The trace context a request's headers carry (`traceparent`, `tracestate`), or the root context. */
function callerContext(propagator: TextMapPropagator, headers: IncomingHttpHeaders | undefined): Context {
  return headers === undefined ? ROOT_CONTEXT : propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
}

/** The paths named in HTTP span names and `url.path`; any other path is left out (it could be anything). */
const KNOWN_PATHS = new Set(['/graphql', '/health', '/metrics', '/']);

/**
 * Builds the tracing of one server (its own tracer provider: nothing global is registered),
 * importing the trace SDK and the exporter of `settings.protocol` first if no server of the
 * process has yet (concurrent starts share one import).
 *
 * @param settings from {@link tracingSettingsFromEnv}; the OTLP exporter reads the rest of its
 *   configuration (endpoint, headers, timeout, compression) from the standard `OTEL_EXPORTER_OTLP_*` variables
 * @throws Error naming the package when the SDK or the exporter cannot be imported
 */
export async function createTracing(settings: TracingSettings, options: TracingOptions = {}): Promise<Tracing> {
  const { sdk, resources, core } = await loadTraceSdk();
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': DEFAULT_SERVICE_NAME }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const processor = options.spanProcessor ?? new sdk.BatchSpanProcessor(new (await loadOtlpExporter[settings.protocol]())());
  const provider = new sdk.BasicTracerProvider({ resource, spanProcessors: [processor] });
  const propagator = new core.W3CTraceContextPropagator();
  const tracer = provider.getTracer('pi-workflows-graphql');

  /** The HTTP span's context per request. */
  const httpContexts = new WeakMap<IncomingMessage, Context>();
  /** Per GraphQL context object: its operation span. */
  const operations = new WeakMap<object, OperationSpan>();

  function startOperation(graphqlContext: object, endsWithPhases: boolean): OperationSpan {
    const req = (graphqlContext as { req?: IncomingMessage }).req;
    const parent = (req === undefined ? undefined : httpContexts.get(req)) ?? callerContext(propagator, req?.headers);
    const span = tracer.startSpan('graphql.operation', { kind: SpanKind.INTERNAL }, parent);
    const operation = { span, context: trace.setSpan(parent, span), endsWithPhases, ended: false };
    operations.set(graphqlContext, operation);
    return operation;
  }

  /**
   * The parent of an operation's phases: its operation span. Yoga's HTTP pipeline opens it
   * (`operation` below); graphql-ws and graphql-sse call envelop's phases themselves, so the
   * first phase opens it, and it ends with execute/subscribe, a parse that throws or a
   * validation that fails ({@link endOperation}).
   */
  function parentOf(graphqlContext: object): Context {
    return (operations.get(graphqlContext) ?? startOperation(graphqlContext, true)).context;
  }

  /** Ends an operation span the phases opened (see {@link parentOf}); once. */
  function endOperation(graphqlContext: object, failed: boolean): void {
    const operation = operations.get(graphqlContext);
    if (operation === undefined || !operation.endsWithPhases || operation.ended) return;
    operation.ended = true;
    if (failed) operation.span.setStatus({ code: SpanStatusCode.ERROR });
    operation.span.end();
  }

  /** Runs `wrapped` inside a child span of the operation; ends it when `wrapped` returns or settles. */
  function phase<T>(name: string, graphqlContext: object, wrapped: () => T, last: boolean, onSpan?: (span: Span, context: Context) => void): T {
    const parent = parentOf(graphqlContext);
    const span = tracer.startSpan(name, { kind: SpanKind.INTERNAL }, parent);
    onSpan?.(span, trace.setSpan(parent, span));
    return endAfter(span, wrapped, (failed) => {
      if (last || failed) endOperation(graphqlContext, failed);
    });
  }

  /** Names the operation span (and the phase span) after the operation, and marks result errors by their codes. */
  function describe(graphqlContext: object, document: Parameters<typeof getOperationAST>[0], operationName: string | null | undefined): void {
    const operation = operations.get(graphqlContext);
    const ast = getOperationAST(document, operationName);
    if (operation === undefined || ast == null) return;
    operation.span.updateName(ast.name === undefined ? ast.operation : `${ast.operation} ${ast.name.value}`);
    operation.span.setAttribute('graphql.operation.type', ast.operation);
    if (ast.name !== undefined) operation.span.setAttribute('graphql.operation.name', ast.name.value);
  }

  const executeSpans = new WeakMap<object, Span>();

  function markErrors(graphqlContext: object, result: ExecutionResult): void {
    const errors = result.errors;
    if (errors === undefined || errors.length === 0) return;
    // The code as thrown; graphql-js's own errors (variable coercion, null in a non-null field) have none yet: GRAPHQL_ERROR.
    const codes = [...new Set(errors.map((error) => codeOf(error)))];
    for (const span of [executeSpans.get(graphqlContext), operations.get(graphqlContext)?.span]) {
      if (span === undefined) continue;
      span.setAttribute('graphql.error.count', errors.length);
      span.setAttribute('graphql.error.codes', codes);
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
  }

  const deliveries = new DeliveryBatches(tracer);

  const plugin: Plugin = {
    instrumentation: {
      // Yoga's HTTP pipeline (GET/POST, incremental over SSE): one operation span around it all.
      operation: ({ context }, wrapped) => endAfter(startOperation(context, false).span, wrapped),
      parse: ({ context }, wrapped) => phase('graphql.parse', context, wrapped, false),
      validate: ({ context }, wrapped) => phase('graphql.validate', context, wrapped, false),
      execute: ({ context }, wrapped) =>
        phase('graphql.execute', context, wrapped, true, (span, spanContext) => {
          executeSpans.set(context, span);
          traceStoreWrites(context, tracer, spanContext);
        }),
      subscribe: ({ context }, wrapped) => phase('graphql.subscribe', context, wrapped, true, (span) => executeSpans.set(context, span)),
    },
    onValidate({ context }) {
      return ({ valid }) => {
        if (!valid) endOperation(context, true);
      };
    },
    onExecute({ args }) {
      describe(args.contextValue as object, args.document, args.operationName);
      return {
        onExecuteDone({ result }) {
          if (!isAsyncIterable(result)) markErrors(args.contextValue as object, result);
        },
      };
    },
    onSubscribe({ args }) {
      describe(args.contextValue as object, args.document, args.operationName);
      return {
        onSubscribeResult: () => ({ onNext: () => deliveries.delivered('envelop') }),
      };
    },
  };

  return {
    tracer,
    plugin,
    httpRequest(request, response) {
      const path = (request.url ?? '/').split('?')[0] ?? '/';
      const known = KNOWN_PATHS.has(path);
      const method = request.method ?? 'GET';
      const parent = callerContext(propagator, request.headers);
      const span = tracer.startSpan(
        known ? `${method} ${path}` : method,
        { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, ...(known ? { 'url.path': path } : {}) } },
        parent,
      );
      httpContexts.set(request, trace.setSpan(parent, span));
      let ended = false;
      const end = (): void => {
        if (ended) return;
        ended = true;
        span.setAttribute('http.response.status_code', response.statusCode);
        // A client that closes a stream (SSE) early is no server error: only a 5xx is.
        if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      };
      response.once('finish', end);
      response.once('close', end);
    },
    countDirect(direct) {
      return {
        ready: () => direct.ready(),
        handOver: (result) => {
          deliveries.delivered('direct');
          direct.handOver(result);
        },
      };
    },
    shutdown: () => provider.shutdown(),
  };
}

/** An operation span and whether its phases end it (graphql-ws, graphql-sse) or yoga's HTTP pipeline does. */
interface OperationSpan {
  span: Span;
  /** The context holding {@link span}: the phases' parent. */
  context: Context;
  endsWithPhases: boolean;
  ended: boolean;
}

/**
 * Calls `wrapped` and ends `span` when it returns, throws or (for a promise) settles; a failure
 * sets status error. `after` runs once the span ended, with whether it failed.
 */
function endAfter<T>(span: Span, wrapped: () => T, after?: (failed: boolean) => void): T {
  const finish = (failed: boolean): void => {
    if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
    after?.(failed);
  };
  let result: T;
  try {
    result = wrapped();
  } catch (error) {
    finish(true);
    throw error;
  }
  if (typeof (result as { then?: unknown } | undefined)?.then === 'function') {
    return (result as Promise<unknown>).then(
      (value) => {
        finish(false);
        return value;
      },
      (error: unknown) => {
        finish(true);
        throw error;
      },
    ) as T;
  }
  finish(false);
  return result;
}

/** An error's `extensions.code`; else `INTERNAL_SERVER_ERROR` for a thrown error the server masks, `GRAPHQL_ERROR` for graphql-js's own. */
function codeOf(error: GraphQLError): string {
  const code = error.extensions?.code;
  if (typeof code === 'string') return code;
  return error.originalError == null || error.originalError instanceof GraphQLError ? 'GRAPHQL_ERROR' : 'INTERNAL_SERVER_ERROR';
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof (value as { [Symbol.asyncIterator]?: unknown } | null)?.[Symbol.asyncIterator] === 'function';
}

/**
 * One `graphql.subscription.deliver` span per delivery batch: the subscription results handed
 * to subscribers in one turn of the event loop (a change-feed wake-up fans out in chunks, one
 * turn each), with the counts of results that went straight to a socket (`direct`) and through
 * envelop. One span per batch, whatever the number of subscribers; a counter per result.
 */
class DeliveryBatches {
  private span: Span | undefined;
  private direct = 0;
  private envelop = 0;

  constructor(private readonly tracer: Tracer) {}

  delivered(path: 'direct' | 'envelop'): void {
    if (this.span === undefined) {
      this.span = this.tracer.startSpan('graphql.subscription.deliver', { kind: SpanKind.INTERNAL }, ROOT_CONTEXT);
      setImmediate(this.end);
    }
    if (path === 'direct') this.direct += 1;
    else this.envelop += 1;
  }

  private readonly end = (): void => {
    const span = this.span;
    if (span === undefined) return;
    span.setAttribute('pi_workflows.deliveries.direct', this.direct);
    span.setAttribute('pi_workflows.deliveries.envelop', this.envelop);
    span.setAttribute('pi_workflows.deliveries', this.direct + this.envelop);
    span.end();
    this.span = undefined;
    this.direct = 0;
    this.envelop = 0;
  };
}

/**
 * The server's tracing for its settings (`config.tracing`): undefined when off, so no span, no
 * hook, no per-event work and no trace SDK or exporter imported (docs/TRACING.md).
 *
 * @param spanProcessor instead of the OTLP exporter's batch processor (tests)
 * @throws Error naming the package when tracing is on and the SDK or the exporter cannot be imported
 */
export async function tracingFor(settings: TracingSettings | null | undefined, spanProcessor?: SpanProcessor): Promise<Tracing | undefined> {
  if (settings == null) return undefined;
  return createTracing(settings, spanProcessor === undefined ? {} : { spanProcessor });
}
