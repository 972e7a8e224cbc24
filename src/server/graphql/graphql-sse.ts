import { getOperationAST, GraphQLError, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { createHandler } from 'graphql-sse/lib/use/fetch';
import type { Plugin, YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { PersistedOperations } from '../ops/persisted-operations.js';

/** The header graphql-sse's single-connection mode sends its stream token in. */
export const SSE_TOKEN_HEADER = 'x-graphql-event-stream-token';

/**
 * Whether a request belongs to graphql-sse's single-connection mode (graphql-sse PROTOCOL.md
 * "Single connection mode"): the `PUT` that reserves a stream, and every request naming a
 * reserved stream by its token (header `x-graphql-event-stream-token` or `?token=`): the `GET`
 * that opens the stream, the `POST`s that run operations on it, the `DELETE`s that stop them.
 *
 * Everything else on the GraphQL path stays with yoga: GraphQL over HTTP, and Server-Sent
 * Events in distinct-connections mode (`accept: text/event-stream`, one stream per operation),
 * which yoga serves itself and which is the graphql-sse client's default mode.
 */
export function isSingleConnectionRequest(request: Request): boolean {
  if (request.method === 'PUT') return true;
  if (request.headers.has(SSE_TOKEN_HEADER)) return true;
  return new URL(request.url).searchParams.has('token');
}

/**
 * An error-only result in the shape graphql-sse streams as a result: its handler treats an
 * object as a result only when it has a `data` key (`undefined` here, so the JSON has none).
 */
function errorResult(errors: readonly GraphQLError[]): ExecutionResult {
  return { data: undefined, errors };
}

/**
 * The result without the `extensions.http` yoga puts on its errors (the HTTP status it would
 * answer with), which yoga's own responses strip; undefined when nothing needed it.
 */
export function withoutHttpExtensions(result: ExecutionResult): ExecutionResult | undefined {
  if (result.errors === undefined || !result.errors.some((error) => error.extensions?.http !== undefined)) return undefined;
  return {
    ...result,
    errors: result.errors.map((error) => {
      if (error.extensions?.http === undefined) return error;
      const { http: _http, ...extensions } = error.extensions;
      return new GraphQLError(error.message, {
        nodes: error.nodes ?? null,
        source: error.source ?? null,
        positions: error.positions ?? null,
        path: error.path ?? null,
        originalError: error.originalError ?? null,
        extensions,
      });
    }),
  };
}

/**
 * graphql-sse's single-connection mode on the GraphQL path: one event stream
 * per client carries every operation of that client (browsers allow about six HTTP/1.1
 * connections per host). The protocol (reservations, streams, operation ids, completion) is
 * graphql-sse's own handler (`graphql-sse/lib/use/fetch`); this yoga plugin routes the
 * {@link isSingleConnectionRequest} requests to it and runs each operation through yoga's
 * envelop (`yoga.getEnveloped`): the same parse, validation, query limits, error masking and
 * redaction as HTTP, yoga's SSE and graphql-ws. The request gate in app.ts (token, body size)
 * runs before it.
 *
 * It does the job of `@graphql-yoga/plugin-graphql-sse` (3.24), which takes over every request
 * to its endpoint and answers an operation that fails before execution without its errors: a
 * syntax error 500, a validation error, a limit refusal or a failed subscription 400 "Unable to
 * detect operation AST" (its `{ errors }` lack the `data` key graphql-sse looks for). Here such
 * an operation gets its GraphQL errors on the stream, as in distinct-connections mode.
 *
 * @param endpoint the GraphQL path (requests whose path ends in it, as yoga matches)
 * @param logger where internal errors of the handler are logged (the client gets a plain 500)
 * @param persisted persisted operations (`--persisted-operations`): ids resolve to their
 *   documents, `--only-persisted` refuses other queries, as over HTTP
 */
export function graphqlSsePlugin(endpoint: string, logger: Logger, persisted?: PersistedOperations): Plugin {
  const serverContexts = new WeakMap<Request, Record<string, unknown>>();
  let handler: ((request: Request) => Promise<Response>) | undefined;
  return {
    onYogaInit({ yoga }) {
      const server = yoga as unknown as YogaServerInstance<Record<string, unknown>, Record<string, unknown>>;
      handler = createHandler(
        {
          async onSubscribe(request, params) {
            const enveloped = server.getEnveloped({ ...serverContexts.get(request.raw), request: request.raw, params });
            const text = persisted === undefined ? params.query : persisted.resolve(params);
            if (text instanceof GraphQLError) return errorResult([text]);
            let document: DocumentNode;
            try {
              document = enveloped.parse(text);
            } catch (error) {
              if (error instanceof GraphQLError) return errorResult([error]);
              throw error;
            }
            const errors = enveloped.validate(enveloped.schema, document);
            if (errors.length > 0) return errorResult(errors);
            const operation = getOperationAST(document, params.operationName);
            if (operation == null) {
              return errorResult([new GraphQLError('Could not determine the operation to run: name it with operationName.')]);
            }
            const args: ExecutionArgs = {
              schema: enveloped.schema,
              document,
              contextValue: await enveloped.contextFactory(),
              variableValues: params.variables ?? null,
              operationName: params.operationName ?? null,
            };
            const result = (await (operation.operation === 'subscription' ? enveloped.subscribe(args) : enveloped.execute(args))) as
              ExecutionResult | AsyncIterable<ExecutionResult>;
            return Symbol.asyncIterator in result ? result : { data: undefined, ...result };
          },
          onNext: (_context, _request, result) => withoutHttpExtensions(result as ExecutionResult),
        },
        server.fetchAPI,
      );
    },
    onRequest({ request, serverContext, endResponse, fetchAPI }) {
      const path = request.url.split('?')[0] ?? '';
      if (handler === undefined || !path.endsWith(endpoint) || !isSingleConnectionRequest(request)) return undefined;
      serverContexts.set(request, serverContext as Record<string, unknown>);
      return handler(request).then(endResponse, (error: unknown) => {
        logger.error({ err: error }, 'graphql-sse handler failed');
        endResponse(
          new fetchAPI.Response(JSON.stringify({ errors: [{ message: 'Internal server error' }] }), {
            status: 500,
            headers: { 'content-type': 'application/json' },
          }),
        );
      });
    },
  };
}
