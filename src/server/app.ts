import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import { ReplicaFollower, WorkflowStore, type Clock } from '../store/index.js';
import { ChangeFeed } from '../delivery/index.js';
import { createContext, schema, type GraphQLContext } from '../schema/index.js';
import { GrantedScopes, scopeOf, type Credentials } from './http/auth.js';
import { DEFAULT_LIVE_THROTTLE_MS, DEFAULT_MAX_LIVE_QUERIES, type ServerConfig } from './config.js';
import { createLogger, requestLogPlugin } from './ops/logger.js';
import { graphqlSsePlugin } from './graphql/graphql-sse.js';
import { GRAPHIQL_DEFAULT_QUERY, serveGraphiQLPage } from './page/graphiql-page.js';
import { createMetrics } from './ops/metrics.js';
import { loadPersistedOperations } from './ops/persisted-operations.js';
import { attachGraphQLWs } from './graphql/graphql-ws.js';
import { maskedErrorsOptions } from './ops/mask-errors.js';
import { queryLimitPlugins } from './graphql/query-limits.js';
import { redactErrorsPlugin } from './ops/redact-errors.js';
import { ACCEPTED_POST_TYPES, unsupportedContentType } from './http/content-type.js';
import { answerThenClose, declaredBodyLength, LINGER_MAX_BYTES, readBodyUpTo, setPreReadBody } from './http/request-body.js';
import { createRequestPolicy } from './http/request-policy.js';
import { createLiveQueries, type LiveQueryStats } from './live/live-queries.js';
import { feedRunChanges } from './live/live-invalidation.js';
import { createSharedEventExecution, type SharedEventExecutionStats } from '../delivery/shared-event-execution.js';
import { OPERATIONS_DIR, serveStaticFile } from './page/static-files.js';
import { createMcpEndpoint, MCP_PATH } from './mcp/endpoint.js';
import { SCHEMA_SDL_PATH, serveSchemaSdl } from './http/schema-sdl.js';
import { createTracing, type Tracing } from './ops/tracing.js';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { databaseKindHealth } from './database/state-file.js';
import { createReplicaStatus, DEFAULT_REPLICA_POLL_MS, replicaReadOnlyMessage, type ReplicaStatus } from './database/replica.js';

/** How long close() lets WebSocket peers answer the close and HTTP requests finish before cutting them, in ms. */
const CLOSE_GRACE_MS = 2_000;

/** The GraphiQL page's title. */
const GRAPHIQL_TITLE = 'pi-workflows GraphQL';

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
}

/**
 * Opens the store and starts the HTTP + WebSocket server on `config.host:config.port`.
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
  const persisted =
    config.persistedOperations == null
      ? undefined
      : loadPersistedOperations(config.persistedOperations, schema, { onlyPersisted: config.onlyPersisted === true });
  // The port first, the database after: a start that cannot bind (EADDRINUSE) never opens the
  // file, so it writes nothing to it (no migration, no blob prune, no WAL). Requests are only
  // handled once everything below is built (the 'request' listener is attached last).
  const httpServer = createServer();
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(config.port, config.host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  let store: WorkflowStore;
  try {
    store = WorkflowStore.open({
      path: config.dbPath,
      readOnly: config.readOnly,
      replica: config.replica != null,
      projectPath: config.projectPath,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    });
  } catch (error) {
    // Nothing is left open by a start that failed (the caller may go on, e.g. with another port).
    await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    throw error;
  }
  const feed = new ChangeFeed(store, { pollIntervalMs: config.pollIntervalMs });
  // Off (undefined) unless config.tracing: then no span, no hook, no per-event work (docs/TRACING.md).
  const tracing: Tracing | undefined =
    config.tracing == null ? undefined : createTracing(config.tracing, options.spanProcessor === undefined ? {} : { spanProcessor: options.spanProcessor });
  // Replica mode (docs/DEPLOYMENT.md "Read replicas"): the store follows the file, this measures the lag.
  let follower: ReplicaFollower | undefined;
  let replica: ReplicaStatus | undefined;
  if (config.replica != null) {
    follower = new ReplicaFollower(store, {
      intervalMs: config.pollIntervalMs,
      onReopen: (ms) => logger.info({ database: config.dbPath, ms: Math.round(ms * 10) / 10 }, 'replica file replaced: reopened'),
      onError: (error) => logger.warn({ database: config.dbPath, reason: error.message }, 'replica file replaced but not reopened'),
    });
    replica = createReplicaStatus(follower, {
      primaryUrl: config.replica,
      primaryToken: config.primaryToken ?? null,
      pollMs: config.replicaPollMs ?? DEFAULT_REPLICA_POLL_MS,
      now: () => store.now(),
      onStanding: (standing, health) => {
        const fields = { position: health.position, primaryPosition: health.primaryPosition, primaryError: health.primaryError };
        if (standing === 'unknown') logger.warn(fields, 'replica: primary position unknown');
        else logger.info(fields, standing === 'caught-up' ? 'replica caught up with the primary' : 'replica behind the primary');
      },
    });
  }
  const readOnlyText = config.replica == null ? undefined : replicaReadOnlyMessage(config.replica);
  const metrics = createMetrics(store, feed, replica);
  const credentials: Credentials = { token: config.token, readTokens: config.readTokens ?? [] };
  const scopes = new GrantedScopes();
  const policy = createRequestPolicy({ bindHost: config.host, allowedHosts: config.allowedHosts ?? [], corsOrigins: config.corsOrigins ?? [] });
  // Subscribers share an event's result only within the scope their credential granted.
  const sharedExecution = createSharedEventExecution<GraphQLContext>({ scopeOf: (context) => context.scope });
  // `@live` queries, invalidated by the change feed.
  const liveQueries = createLiveQueries({
    throttleMs: config.liveThrottleMs ?? DEFAULT_LIVE_THROTTLE_MS,
    maxPerConnection: config.maxLiveQueriesPerConnection ?? DEFAULT_MAX_LIVE_QUERIES,
    changes: feedRunChanges(feed),
    queryFields: Object.keys(schema.getQueryType()?.getFields() ?? {}),
    logger,
  });
  const yoga = createYoga<Record<string, unknown>, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    graphiql: { title: GRAPHIQL_TITLE, subscriptionsProtocol: 'WS', defaultQuery: GRAPHIQL_DEFAULT_QUERY },
    renderGraphiQL,
    logging: false,
    // The gate in `handle` caps every body at config.maxBodyBytes before yoga gets the request
    // (a declared Content-Length over it, or a chunked body crossing it, is answered 413), so
    // yoga's own 25 MB limit, which pipes every POST body through a counting TransformStream,
    // is off: one limit, the configured one, and no per-request stream.
    maxRequestBodySize: false,
    maskedErrors: maskedErrorsOptions(logger),
    // Only allowed origins reach yoga (the gate in `handle` refuses the others); this sets their headers.
    cors: (request) => policy.corsOptions(request),
    // The scope the gate (HTTP) or connection_init (graphql-ws) granted this request; none
    // recorded (nothing that runs GraphQL gets here without one) reads as `read`.
    context: (initial) => createContext(store, config.readOnly, feed, scopes.of(initial.req) ?? 'read', readOnlyText),
    // GraphQL over HTTP's persisted-document id (yoga refuses unknown body keys otherwise).
    ...(persisted === undefined ? {} : { extraParamNames: ['documentId'] }),
    plugins: [
      ...(tracing === undefined ? [] : [tracing.plugin]),
      metrics.plugin(),
      requestLogPlugin(logger, (serverContext) => scopes.of(serverContext.req) ?? null),
      redactErrorsPlugin(),
      ...queryLimitPlugins(),
      ...(persisted === undefined ? [] : [persisted.plugin()]),
      graphqlSsePlugin('/graphql', logger, persisted),
      sharedExecution.plugin,
      liveQueries.plugin,
    ],
  });

  // `/mcp` (docs/MCP.md): its tools run their GraphQL through this yoga with the caller's token.
  const mcp = createMcpEndpoint({
    yoga,
    logger,
    operationsFile: `${OPERATIONS_DIR}/mcp.graphql`,
    persistedOperations: config.persistedOperations ?? null,
    maxBodyBytes: config.maxBodyBytes,
  });

  function handle(request: IncomingMessage, response: ServerResponse): void {
    tracing?.httpRequest(request, response);
    // Host and Origin first, for every path: a DNS-rebinding or cross-site page gets nothing.
    const verdict = policy.check(request);
    if (!verdict.ok) {
      refuse(request, response, verdict.status, verdict.message);
      return;
    }
    // No body is read past the cap, on any path.
    const length = declaredBodyLength(request);
    if (length === 'chunked') {
      void readBodyUpTo(request, config.maxBodyBytes).then((body) => {
        if (body === 'aborted') return;
        if (body === 'too-large') {
          refuse(request, response, 413, `Request body larger than ${config.maxBodyBytes} bytes`, {}, 0);
          return;
        }
        setPreReadBody(request, body);
        route(request, response);
      });
      return;
    }
    if (length > config.maxBodyBytes) {
      refuse(request, response, 413, `Request body larger than ${config.maxBodyBytes} bytes`, {}, Math.min(length, LINGER_MAX_BYTES));
      return;
    }
    route(request, response);
  }

  /** Serves a request whose body is within the cap (announced, or already read). */
  function route(request: IncomingMessage, response: ServerResponse): void {
    const path = (request.url ?? '/').split('?')[0];
    const scope = scopeOf(credentials, request.headers.authorization);
    if (path === '/health' && request.method === 'GET') {
      health(response, scope !== null);
      return;
    }
    if (path === '/metrics' && request.method === 'GET') {
      // Any accepted token (full or read) reads the metrics.
      if (scope === null) {
        refuse(request, response, 401, 'Unauthorized: send Authorization: Bearer <token>', { 'www-authenticate': 'Bearer' });
        return;
      }
      void metrics.render().then(({ body, contentType }) => {
        response.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
        response.end(body);
      });
      return;
    }
    if (path === SCHEMA_SDL_PATH && scope === null) {
      refuse(request, response, 401, 'Unauthorized: send Authorization: Bearer <token>', { 'www-authenticate': 'Bearer' });
      return;
    }
    if (serveSchemaSdl(request, response, path)) return; // the SDL, for IDEs (docs/IDE.md)
    if (path === MCP_PATH) {
      if (scope === null) refuse(request, response, 401, 'Unauthorized: send Authorization: Bearer <token>', { 'www-authenticate': 'Bearer' });
      else {
        scopes.grant(request, scope);
        mcp.handle(request, response, scope);
      }
      return;
    }
    if (serveStaticFile(request, response)) return; // the live lineage page: GET / and /app/*
    if (isGraphiQLPage(request) && path === '/graphql') {
      void serveGraphiQLPage(request, response, GRAPHIQL_TITLE, '/graphql'); // compressed and cacheable
      return;
    }
    // Every request yoga gets is gated, whatever its path: yoga serves GraphQL not only on
    // /graphql but on /graphql/, //graphql and any URL ending in /graphql (query string included).
    // Only the GraphiQL page (a GET asking for HTML, which yoga answers without executing) is open.
    // A CORS preflight carries no credentials and runs nothing (yoga's CORS plugin answers it).
    if (scope !== null) {
      scopes.grant(request, scope);
    } else if (!isGraphiQLPage(request) && request.method !== 'OPTIONS') {
      refuse(request, response, 401, 'Unauthorized: send Authorization: Bearer <token>', { 'www-authenticate': 'Bearer' });
      return;
    }
    const unsupported = request.method === 'POST' ? unsupportedContentType(request.headers['content-type']) : undefined;
    if (unsupported !== undefined) {
      refuse(request, response, 415, unsupported, { 'accept-post': ACCEPTED_POST_TYPES.join(', ') });
      return;
    }
    void yoga.requestListener(request, response);
  }

  /**
   * Answers a request refused before GraphQL (host, origin, auth, size) with a JSON error, and
   * logs it. A body within the cap is read and discarded, keeping the connection; a larger or
   * unread one is answered first, then drained up to `drainBytes` and the connection closed
   * (see {@link answerThenClose}).
   *
   * @param drainBytes for a body over the cap or of unknown length: how much of it may still be
   *   read; default the cap
   */
  function refuse(
    request: IncomingMessage,
    response: ServerResponse,
    status: number,
    message: string,
    headers: Record<string, string> = {},
    drainBytes = config.maxBodyBytes,
  ): void {
    const body = JSON.stringify({ errors: [{ message }] });
    const length = declaredBodyLength(request);
    logRefusal(request, status, message);
    if (request.complete || (length !== 'chunked' && length <= config.maxBodyBytes)) {
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(body);
      request.resume();
      return;
    }
    answerThenClose(request, response, status, { 'content-type': 'application/json', ...headers }, body, drainBytes);
  }

  function logRefusal(request: IncomingMessage, status: number, reason: string): void {
    logger.info({ method: request.method, path: (request.url ?? '/').split('?')[0], status, reason }, 'request refused');
  }

  /**
   * `GET /health`: 200 `{status: 'ok' | 'degraded', database}` or 503 `{status: 'unavailable',
   * database}`; `database.runChanges` is the run change log's `{databaseId, head}` (what a replica
   * compares itself with), and a replica adds `replica` (see `ReplicaHealth`). When a token is set, a caller without one (full or read) sees only `{status}`:
   * the database path and checks are for token holders.
   */
  function health(response: ServerResponse, authorized: boolean): void {
    let body: { status: string; database: Record<string, unknown>; replica?: unknown };
    let status = 200;
    try {
      const quickCheck = store.quickCheck();
      const { databaseId, head } = store.runChangeHead();
      body = {
        status: quickCheck === 'ok' ? 'ok' : 'degraded',
        database: { path: config.dbPath, ...databaseKindHealth(store), quickCheck, runChanges: { databaseId, head } },
        ...(replica === undefined ? {} : { replica: replica.health() }),
      };
    } catch (error) {
      status = 503;
      body = { status: 'unavailable', database: { path: config.dbPath, error: (error as Error).message } };
    }
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(authorized ? body : { status: body.status }));
  }

  httpServer.on('request', handle);
  // graphql-ws is attached once the port is ours, so a listen error (EADDRINUSE) is reported
  // once, by the caller, and not also by the WebSocket server.
  const graphqlWs = attachGraphQLWs(httpServer, yoga, config, logger, {
    ...(persisted === undefined ? {} : { persisted }),
    ...(tracing === undefined ? {} : { tracing }),
    // A foreign Host or Origin gets its HTTP status before the upgrade.
    verifyClient: policy.verifyWebSocketClient((request, refused) => logRefusal(request, refused.status, refused.message)),
    // The connection's scope holds for every operation on it.
    authorize: (request, authorization) => {
      const scope = scopeOf(credentials, authorization);
      if (scope !== null) scopes.grant(request, scope);
      return scope !== null;
    },
  });
  const port = (httpServer.address() as AddressInfo).port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}/graphql`;

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      mcp.close();
      liveQueries.close();
      replica?.close();
      follower?.close();
      feed.close();
      metrics.close();
      await graphqlWs.close(CLOSE_GRACE_MS);
      await new Promise<void>((resolve) => {
        // close() also closes idle keep-alive connections (Node >= 19); a connection still busy
        // after the grace period (a slow request, an SSE stream) is cut.
        httpServer.close(() => resolve());
        setTimeout(() => httpServer.closeAllConnections(), CLOSE_GRACE_MS).unref();
      });
      await yoga.dispose();
      store.close();
      // The spans still buffered go out; an exporter that cannot reach its collector does not hold the close past the grace.
      if (tracing !== undefined)
        await Promise.race([tracing.shutdown().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref())]);
    })();
    return closing;
  };

  return { url, port, store, feed, httpServer, yoga, logger, sharedExecution: sharedExecution.stats, liveQueries: liveQueries.stats, close };
}

function isGraphiQLPage(request: IncomingMessage): boolean {
  return request.method === 'GET' && (request.headers.accept ?? '').includes('text/html');
}
