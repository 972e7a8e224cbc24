import type { IncomingMessage, Server } from 'node:http';
import { GraphQLError, type DocumentNode } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type { YogaServerInstance } from 'graphql-yoga';
import { WebSocketServer, type VerifyClientCallbackAsync } from 'ws';
import type { GraphQLContext } from '../schema/index.js';
import { isAuthorized } from './auth.js';
import type { ServerConfig } from './config.js';
import { redactResult } from './redact-errors.js';
import type { PersistedOperations } from './persisted-operations.js';
import { sharedSubscribe } from './shared-subscribe.js';

/** The graphql-ws (graphql-transport-ws) endpoint attached to the HTTP server. */
export interface GraphQLWsEndpoint {
  /**
   * Completes every subscription, sends every socket a close (1001 Going away), closes the
   * WebSocket server. A socket whose peer has not answered the close within `graceMs` is cut
   * (without it, one frozen peer holds shutdown for ws's 30 s close timeout). Idempotent.
   *
   * @param graceMs how long peers get to answer the close, in ms
   */
  close(graceMs: number): Promise<void>;
}

/** Options of {@link attachGraphQLWs} beyond the config. */
export interface GraphQLWsOptions {
  /** `ws`'s `verifyClient`: decides, before the upgrade, whether a handshake may proceed (issue 10.1). */
  verifyClient?: VerifyClientCallbackAsync;
  /** Persisted operations (`--persisted-operations`): ids resolve to their documents, `--only-persisted` refuses other queries. */
  persisted?: PersistedOperations;
  /** Wraps each subscription's event stream (the `/metrics` count of live subscriptions). */
  trackLive?: <T>(stream: AsyncIterable<T>) => AsyncIterable<T>;
}

/**
 * Attaches graphql-ws to `httpServer` on `/graphql`, the same port and path as HTTP (API.md
 * "Subscriptions", transports). Call it once the server listens, so a listen error (EADDRINUSE) is reported once, by the
 * caller, and not also by the WebSocket server.
 *
 * Connection handling: `connection_init` must arrive within 10 s; its payload's
 * `authorization` (`Bearer <token>`) is checked against `config.token` (API.md "Access").
 * Messages above `config.maxBodyBytes` close the socket; the server pings every
 * `config.keepAliveMs` ms.
 *
 * @param yoga the yoga instance whose envelop (parse, validate, context) every operation uses
 * @param options `verifyClient`: the request policy's Host/Origin check of upgrades
 * @returns the endpoint, to close on shutdown
 */
export function attachGraphQLWs(
  httpServer: Server,
  yoga: YogaServerInstance<Record<string, unknown>, GraphQLContext>,
  config: Pick<ServerConfig, 'token' | 'maxBodyBytes' | 'keepAliveMs'>,
  options: GraphQLWsOptions = {},
): GraphQLWsEndpoint {
  const wsServer = new WebSocketServer({
    server: httpServer,
    path: '/graphql',
    maxPayload: config.maxBodyBytes,
    ...(options.verifyClient === undefined ? {} : { verifyClient: options.verifyClient }),
  });
  const wsDisposable = useServer<Record<string, unknown>, { request: IncomingMessage }>(
    {
      connectionInitWaitTimeout: 10_000,
      onConnect: (ctx) => isAuthorized(config.token, (ctx.connectionParams as { authorization?: unknown } | undefined)?.authorization),
      execute: (args) => (args.rootValue as { execute: typeof import('graphql').execute }).execute(args),
      // Each event executes once per operation and variables; every subscriber running it shares the result.
      subscribe: (args) => sharedSubscribe(args, (result) => redactResult(result) ?? result),
      onOperation: (_ctx, _id, _payload, _args, result) =>
        options.trackLive !== undefined && Symbol.asyncIterator in result ? options.trackLive(result) : undefined,
      onSubscribe: async (ctx, _id, params) => {
        const { schema: envelopedSchema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
          ...ctx,
          req: ctx.extra.request,
          socket: ctx.extra.socket,
          params,
        });
        // A document that does not parse (syntax, token limit, nesting) fails this subscription
        // only; thrown, graphql-ws would close the whole socket with 4500.
        const text = options.persisted === undefined ? params.query : options.persisted.resolve(params);
        if (text instanceof GraphQLError) return [text];
        let document: DocumentNode;
        try {
          document = parse(text);
        } catch (error) {
          if (error instanceof GraphQLError) return [error];
          throw error;
        }
        const args = {
          schema: envelopedSchema,
          operationName: params.operationName ?? null,
          document,
          variableValues: params.variables ?? null,
          contextValue: await contextFactory(),
          rootValue: { execute, subscribe },
        };
        const errors = validate(args.schema, args.document);
        if (errors.length > 0) return errors;
        return args;
      },
    },
    wsServer,
    config.keepAliveMs,
  );
  let closing: Promise<void> | undefined;
  return {
    close(graceMs) {
      closing ??= (async () => {
        const cut = setTimeout(() => {
          for (const socket of wsServer.clients) socket.terminate();
        }, graceMs);
        try {
          await wsDisposable.dispose(); // resolves once every socket closed
        } finally {
          clearTimeout(cut);
        }
      })();
      return closing;
    },
  };
}
