import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { ChangeFeed, SharedEventExecution } from '../../delivery/index.js';
import { createContext, schema, type GraphQLContext } from '../../schema/index.js';
import type { WorkflowStore } from '../../store/index.js';
import type { GrantedScopes } from '../http/auth.js';
import type { RequestPolicy } from '../http/request-policy.js';
import type { LiveQueries } from '../live/live-queries.js';
import { requestLogPlugin } from '../ops/logger.js';
import { maskedErrorsOptions } from '../ops/mask-errors.js';
import type { ServerMetrics } from '../ops/metrics.js';
import type { PersistedOperations } from '../ops/persisted-operations.js';
import { redactErrorsPlugin } from '../ops/redact-errors.js';
import type { Tracing } from '../ops/tracing.js';
import { GRAPHIQL_DEFAULT_QUERY, GRAPHIQL_SUBSCRIPTIONS_PROTOCOL, renderGraphiQL } from '../page/graphiql-page.js';
import { GRAPHIQL_TITLE } from '../page/serve-page.js';
import { compiledExecutionEnabled, compiledExecutionPlugins } from './compiled-execution.js';
import { graphqlSsePlugin } from './graphql-sse.js';
import { queryLimitPlugins } from './query-limits.js';

/** What {@link createGraphQLServer} wires together. */
export interface GraphQLServerParts {
  store: WorkflowStore;
  feed: ChangeFeed;
  /** `--read-only`: every mutation answers `ForbiddenError`. */
  readOnly: boolean;
  /** The `ForbiddenError` text of mutations on a replica, when in replica mode. */
  readOnlyText: string | undefined;
  /** The scopes the gate (HTTP) or `connection_init` (graphql-ws) granted. */
  scopes: GrantedScopes;
  policy: RequestPolicy;
  logger: Logger;
  tracing: Tracing | undefined;
  metrics: ServerMetrics;
  persisted: PersistedOperations | undefined;
  sharedExecution: SharedEventExecution;
  liveQueries: LiveQueries;
}

/**
 * The yoga instance every transport runs through (HTTP, SSE, graphql-sse's single connection,
 * graphql-ws): the schema, the context, and the envelop plugins in order — tracing, metrics,
 * the request log, redaction, query limits, persisted operations, graphql-sse, the shared
 * per-event execution of subscriptions (src/delivery/) and `@live` queries.
 */
export function createGraphQLServer(parts: GraphQLServerParts): YogaServerInstance<Record<string, unknown>, GraphQLContext> {
  const { store, feed, readOnly, readOnlyText, scopes, policy, logger, tracing, metrics, persisted, sharedExecution, liveQueries } = parts;
  return createYoga<Record<string, unknown>, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    graphiql: { title: GRAPHIQL_TITLE, subscriptionsProtocol: GRAPHIQL_SUBSCRIPTIONS_PROTOCOL, defaultQuery: GRAPHIQL_DEFAULT_QUERY },
    renderGraphiQL,
    logging: false,
    // The gate (src/server/http/gate.ts) caps every body at config.maxBodyBytes before yoga gets
    // the request (a declared Content-Length over it, or a chunked body crossing it, is answered
    // 413), so yoga's own 25 MB limit, which pipes every POST body through a counting
    // TransformStream, is off: one limit, the configured one, and no per-request stream.
    maxRequestBodySize: false,
    maskedErrors: maskedErrorsOptions(logger),
    // Only allowed origins reach yoga (the gate refuses the others); this sets their headers.
    cors: (request) => policy.corsOptions(request),
    // The scope the gate (HTTP) or connection_init (graphql-ws) granted this request; none
    // recorded (nothing that runs GraphQL gets here without one) reads as `read`.
    context: (initial) => createContext(store, readOnly, feed, scopes.of(initial.req) ?? 'read', readOnlyText),
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
      ...compiledExecutionPlugins(compiledExecutionEnabled()),
      sharedExecution.plugin,
      liveQueries.plugin,
    ],
  });
}
