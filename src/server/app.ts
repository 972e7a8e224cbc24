import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import { ChangeFeed, createSharedEventExecution, type SharedEventExecutionStats } from '../delivery/index.js';
import { schema, type GraphQLContext } from '../schema/index.js';
import type { Clock, WorkflowStore } from '../store/index.js';
import { serveClusterHealth, serveClusterMetrics } from './cluster/serve.js';
import type { WorkerLink } from './cluster/worker-link.js';
import type { ServerConfig } from './config.js';
import { healthReport, serveHealth } from './database/health.js';
import { openStore, startReplicaMode } from './database/open.js';
import { attachGraphQLWs } from './graphql/graphql-ws.js';
import { createGraphQLServer } from './graphql/yoga.js';
import { GrantedScopes, scopeOf, type Credentials } from './http/auth.js';
import { createRequestGate } from './http/gate.js';
import { listen } from './http/listen.js';
import { createRequestPolicy } from './http/request-policy.js';
import { liveQueriesFor, type LiveQueryStats } from './live/live-queries.js';
import { createMcpEndpoint } from './mcp/endpoint.js';
import { createLogger } from './ops/logger.js';
import { createMetrics, serveMetrics } from './ops/metrics.js';
import { persistedOperationsFor } from './ops/persisted-operations.js';
import { tracingFor } from './ops/tracing.js';
import { servePage } from './page/serve-page.js';
import { OPERATIONS_DIR } from './page/static-files.js';
import { serveSchemaSdl } from './http/schema-sdl.js';

/** How long close() lets WebSocket peers answer the close and HTTP requests finish before cutting them, in ms. */
const CLOSE_GRACE_MS = 2_000;

/** A running server. */
export interface RunningServer {
  /** `http://host:port/graphql`. */
  url: string;
  /** The bound port. */
  port: number;
  store: WorkflowStore;
  /** The change feed waking subscriptions. */
  feed: ChangeFeed;
  httpServer: Server;
  yoga: YogaServerInstance<Record<string, unknown>, GraphQLContext>;
  logger: Logger;
  /** Counters of the per-event execution shared between subscribers (shared-event-execution.ts). */
  sharedExecution: SharedEventExecutionStats;
  /** Counters of the `@live` queries (live-queries.ts). */
  liveQueries: LiveQueryStats;
  /**
   * Stops accepting connections; sends every graphql-ws socket a close (1001) and cuts those
   * whose peer has not answered within 2 s; lets in-flight HTTP requests finish for up to 2 s,
   * then cuts them; closes the database; with tracing on, exports the buffered spans (at most 2 s
   * more). Resolves within about 4 s (6 s with tracing). Idempotent.
   */
  close(): Promise<void>;
}

/** Options beyond the config, mostly for tests. */
export interface StartOptions {
  /** Logger to use (default: pino at config.logLevel on stdout). */
  logger?: Logger;
  /** Store clock (default `Date.now`). */
  clock?: Clock;
  /**
   * With `config.tracing` on: the span processor to use instead of the OTLP exporter's batch
   * processor (tests: a SimpleSpanProcessor over an InMemorySpanExporter).
   */
  spanProcessor?: SpanProcessor;
  /**
   * This process is a worker of `--workers N` (docs/OPERATIONS.md "Workers"): `/health` and
   * `/metrics` answer for every worker through the primary, every response carries the header
   * {@link WORKER_HEADER}, process metrics are labelled with the worker id.
   */
  cluster?: WorkerLink;
}

/** Response header naming the worker process that answered (`<id> <pid>`), with `--workers`. */
export const WORKER_HEADER = 'x-pi-workflows-worker';

/**
 * Opens the store and starts the HTTP + WebSocket server on `config.host:config.port`, step by
 * step (each step a function in the folder of its concern: docs/ARCHITECTURE.md "The server").
 *
 * The port is bound before the database is opened, so a listen error leaves the file untouched.
 *
 * @returns the running server once it listens
 * @throws listen errors (EADDRINUSE) before the database is opened; StoreError(integrity) when
 *   the database cannot be opened, after releasing the port; Error for a persisted-operations
 *   manifest that cannot be used (see `loadPersistedOperations`)
 */
export async function startServer(config: ServerConfig, options: StartOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config.logLevel);
  // Read before the database opens: a bad manifest stops the start with nothing to clean up.
  const persisted = persistedOperationsFor(config, schema);
  // Tracing on imports the trace SDK and its exporter here, before the port and the database:
  // an import that fails stops the start with nothing to clean up.
  const tracing = await tracingFor(config.tracing, options.spanProcessor);
  // The port first, the database after; requests are handled once everything is built.
  const httpServer = await listen(config);
  const store = await openStore(config, options.clock, httpServer);
  const feed = new ChangeFeed(store, { pollIntervalMs: config.pollIntervalMs });
  const replica = startReplicaMode(config, store, logger);
  const metrics = createMetrics(store, feed, replica?.status, options.cluster?.id);
  const link = options.cluster;
  const healthSource = { store, dbPath: config.dbPath, replica: replica?.status };
  link?.attach({ health: () => healthReport(healthSource).body.status, registry: metrics.registry, feed });
  const credentials: Credentials = { token: config.token, readTokens: config.readTokens ?? [], metadataTokens: config.metadataTokens ?? [] };
  const scopes = new GrantedScopes();
  const policy = createRequestPolicy({ bindHost: config.host, allowedHosts: config.allowedHosts ?? [], corsOrigins: config.corsOrigins ?? [] });
  // Subscribers share an event's result only within the scope their credential granted.
  const sharedExecution = createSharedEventExecution<GraphQLContext>({ scopeOf: (context) => context.scope });
  const liveQueries = liveQueriesFor(config, feed, logger);
  const yoga = createGraphQLServer({
    store,
    feed,
    readOnly: config.readOnly,
    readOnlyText: replica?.readOnlyText,
    scopes,
    policy,
    logger,
    tracing,
    metrics,
    persisted,
    sharedExecution,
    liveQueries,
  });
  // `/mcp` (docs/MCP.md): its tools run their GraphQL through this yoga with the caller's token.
  const mcp = createMcpEndpoint({
    yoga,
    logger,
    operationsFile: `${OPERATIONS_DIR}/mcp.graphql`,
    persistedOperations: config.persistedOperations ?? null,
    maxBodyBytes: config.maxBodyBytes,
  });
  const gate = createRequestGate({
    maxBodyBytes: config.maxBodyBytes,
    policy,
    credentials,
    scopes,
    logger,
    onRequest: tracing?.httpRequest,
    routes: {
      health: (response, authorized) =>
        link === undefined ? serveHealth(response, authorized, healthSource) : void serveClusterHealth(response, authorized, healthSource, link),
      metrics: (response) => (link === undefined ? serveMetrics(metrics, response) : void serveClusterMetrics(response, link)),
      schemaSdl: serveSchemaSdl,
      mcp: (request, response, scope) => mcp.handle(request, response, scope),
      page: servePage,
      graphql: (request, response) => void yoga.requestListener(request, response),
    },
  });
  if (link === undefined) httpServer.on('request', gate.handle);
  else {
    const worker = `${link.id} ${link.pid}`;
    httpServer.on('request', (request, response) => {
      response.setHeader(WORKER_HEADER, worker);
      gate.handle(request, response);
    });
  }
  // graphql-ws is attached once the port is ours, so a listen error (EADDRINUSE) is reported
  // once, by the caller, and not also by the WebSocket server.
  const graphqlWs = attachGraphQLWs(httpServer, yoga, config, logger, {
    ...(persisted === undefined ? {} : { persisted }),
    ...(tracing === undefined ? {} : { tracing }),
    ...(link === undefined ? {} : { upgradeHeaders: [`${WORKER_HEADER}: ${link.id} ${link.pid}`] }),
    // A foreign Host or Origin gets its HTTP status before the upgrade.
    verifyClient: policy.verifyWebSocketClient((request, refused) => gate.logRefusal(request, refused.status, refused.message)),
    // The connection's scope holds for every operation on it.
    authorize: (request, authorization) => {
      const scope = scopeOf(credentials, authorization);
      if (scope !== null) scopes.grant(request, scope);
      return scope !== null;
    },
  });
  const close = closer(async () => {
    mcp.close();
    liveQueries.close();
    replica?.close();
    feed.close();
    metrics.close();
    await graphqlWs.close(CLOSE_GRACE_MS);
    await closeHttp(httpServer);
    await yoga.dispose();
    store.close();
    // The spans still buffered go out; an exporter that cannot reach its collector does not hold the close past the grace.
    if (tracing !== undefined) await Promise.race([tracing.shutdown().catch(() => undefined), graceElapsed()]);
  });
  const { url, port } = addressOf(httpServer, config.host);
  return { url, port, store, feed, httpServer, yoga, logger, sharedExecution: sharedExecution.stats, liveQueries: liveQueries.stats, close };
}

/** The URL (`http://host:port/graphql`, an IPv6 host in brackets) and bound port of the server. */
function addressOf(httpServer: Server, host: string): { url: string; port: number } {
  const port = (httpServer.address() as AddressInfo).port;
  return { url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/graphql`, port };
}

/**
 * Stops accepting connections: close() also closes idle keep-alive connections (Node >= 19); a
 * connection still busy after the grace period (a slow request, an SSE stream) is cut.
 */
function closeHttp(httpServer: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    httpServer.close(() => resolve());
    setTimeout(() => httpServer.closeAllConnections(), CLOSE_GRACE_MS).unref();
  });
}

/** Resolves after the close grace period (does not hold the process). */
function graceElapsed(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref());
}

/** `close` of a {@link RunningServer}: runs `steps` once; every call returns the same promise. */
function closer(steps: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => (closing ??= steps());
}
