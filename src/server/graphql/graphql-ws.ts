import type { IncomingMessage, Server } from 'node:http';
import { GraphQLError, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { CloseCode, handleProtocols, makeServer } from 'graphql-ws';
import type { YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import { WebSocketServer, type VerifyClientCallbackAsync, type WebSocket } from 'ws';
import type { GraphQLContext } from '../../schema/index.js';
import { isAuthorized } from '../http/auth.js';
import type { ServerConfig } from '../config.js';
import type { PersistedOperations } from '../ops/persisted-operations.js';
import type { Tracing } from '../ops/tracing.js';
import { DIRECT_NEXT_KEY, DirectFrames, directNext, formatError, nextPayload, writeBatcher } from '../../delivery/index.js';
import { OperationIdGate } from './ws-operation-ids.js';

/** What graphql-ws hands to the hooks as `ctx.extra`: the socket and its upgrade request. */
export interface GraphQLWsExtra {
  socket: WebSocket;
  request: IncomingMessage;
  /** Call before each write to the socket: groups the writes of one turn (see `writeBatcher`). */
  batch: () => void;
  /** The fan-out's direct frames, one write per turn (ws-next-frames.ts). */
  direct: DirectFrames;
}

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
  /** `ws`'s `verifyClient`: decides, before the upgrade, whether a handshake may proceed. */
  verifyClient?: VerifyClientCallbackAsync;
  /** Persisted operations (`--persisted-operations`): ids resolve to their documents, `--only-persisted` refuses other queries. */
  persisted?: PersistedOperations;
  /**
   * Decides a `connection_init` from the upgrade request and the payload's `authorization`:
   * true acknowledges the connection (and may record its scope); false closes it
   * with 4403. Default: the bearer check against `config.token`.
   */
  authorize?: (request: IncomingMessage, authorization: unknown) => boolean;
  /** The server's tracing, when on: direct writes count in its delivery batch spans (docs/TRACING.md). */
  tracing?: Pick<Tracing, 'countDirect'>;
  /** Extra response headers of the 101 upgrade answer, as `name: value` lines (a worker's name: docs/OPERATIONS.md "Workers"). */
  upgradeHeaders?: readonly string[];
}

/**
 * yoga's enveloped `execute` / `subscribe` of one operation, carried to graphql-ws's `execute`
 * and `subscribe` as the root value (yoga's documented graphql-ws recipe).
 */
interface EnvelopedRoot {
  execute: (args: ExecutionArgs) => Promise<ExecutionResult> | ExecutionResult;
  subscribe: (args: ExecutionArgs) => Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult>;
}

/** The close reason of an internal failure: never the error's own text (it is logged instead). */
const INTERNAL_ERROR_REASON = 'Internal server error';

/**
 * Attaches graphql-ws to `httpServer` on `/graphql`, the same port and path as HTTP (docs/GRAPHQL-CONTRACT.md
 * "Subscriptions", transports). Call it once the server listens, so a listen error (EADDRINUSE)
 * is reported once, by the caller, and not also by the WebSocket server.
 *
 * Every operation runs through yoga's envelop: `onSubscribe`
 * takes yoga's `getEnveloped` (parse with its limits, validate with graphql-armor's rules,
 * context), and graphql-ws executes with the enveloped `execute` / `subscribe`, so error
 * masking, redaction, limits, logging and the shared per-event execution
 * (shared-event-execution.ts) are those of HTTP and SSE.
 *
 * Connection handling: `connection_init` must arrive within 10 s; its payload's
 * `authorization` (`Bearer <token>`) is checked against `config.token` (docs/GRAPHQL-CONTRACT.md "Access"; close
 * 4403 otherwise). Messages above `config.maxBodyBytes` close the socket (1009); the server
 * pings every `config.keepAliveMs` ms and terminates a socket that does not answer within as
 * long. One operation per id at any time (ws-operation-ids.ts). An internal failure closes the
 * socket with 4500 "Internal server error" and is logged.
 *
 * @param yoga the yoga instance whose envelop every operation uses
 * @param logger where internal failures of the socket handling are logged
 * @param options `verifyClient`: the request policy's Host/Origin check of upgrades;
 *   `persisted`: the persisted-operations manifest; `authorize`: the credential check of
 *   `connection_init`
 * @returns the endpoint, to close on shutdown
 */
export function attachGraphQLWs(
  httpServer: Server,
  yoga: YogaServerInstance<Record<string, unknown>, GraphQLContext>,
  config: Pick<ServerConfig, 'token' | 'maxBodyBytes' | 'keepAliveMs'>,
  logger: Logger,
  options: GraphQLWsOptions = {},
): GraphQLWsEndpoint {
  const graphqlWs = makeServer<Record<string, unknown>, GraphQLWsExtra>({
    connectionInitWaitTimeout: 10_000,
    onConnect: (ctx) => {
      const authorization = (ctx.connectionParams as { authorization?: unknown } | undefined)?.authorization;
      return options.authorize === undefined ? isAuthorized(config.token, authorization) : options.authorize(ctx.extra.request, authorization);
    },
    execute: (args) => (args.rootValue as EnvelopedRoot).execute(args),
    // The pulled route's payload (src/delivery/ws-next-frames.ts): errors leave as yoga
    // serialises them on HTTP and SSE, the same bytes as the direct route's frames.
    onNext: (_ctx, _id, _payload, _args, result) => nextPayload(result, formatError),
    onError: (_ctx, _id, _payload, errors) => errors.map(formatError),
    subscribe: (args) => (args.rootValue as EnvelopedRoot).subscribe(args),
    onSubscribe: async (ctx, id, params) => {
      const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
        ...ctx,
        req: ctx.extra.request,
        socket: ctx.extra.socket,
        params,
      });
      const text = options.persisted === undefined ? params.query : options.persisted.resolve(params);
      if (text instanceof GraphQLError) return [text];
      // A document that does not parse (syntax, token limit, nesting) fails this subscription
      // only; thrown, graphql-ws would close the whole socket with 4500.
      let document: DocumentNode;
      try {
        document = parse(text);
      } catch (error) {
        if (error instanceof GraphQLError) return [error];
        throw error;
      }
      const errors = validate(schema, document);
      if (errors.length > 0) return errors;
      const root: EnvelopedRoot = { execute, subscribe };
      const contextValue = await contextFactory();
      const direct = directNext(ctx.extra, id, () => id in ctx.subscriptions);
      (contextValue as unknown as Record<string, unknown>)[DIRECT_NEXT_KEY] = options.tracing === undefined ? direct : options.tracing.countDirect(direct);
      return {
        schema,
        operationName: params.operationName ?? null,
        document,
        variableValues: params.variables ?? null,
        contextValue,
        rootValue: root,
      };
    },
  });

  const wsServer = new WebSocketServer({
    server: httpServer,
    path: '/graphql',
    maxPayload: config.maxBodyBytes,
    handleProtocols,
    ...(options.verifyClient === undefined ? {} : { verifyClient: options.verifyClient }),
  });
  wsServer.on('error', (error) => logger.error({ err: error }, 'graphql-ws: WebSocket server error'));
  const upgradeHeaders = options.upgradeHeaders ?? [];
  if (upgradeHeaders.length > 0) wsServer.on('headers', (headers) => headers.push(...upgradeHeaders));
  wsServer.on('connection', (socket, request) => {
    const fail = (error: unknown, what: string): void => {
      logger.error({ err: error }, `graphql-ws: ${what}`);
      socket.close(CloseCode.InternalServerError, INTERNAL_ERROR_REASON);
    };
    socket.once('error', (error) => fail(error, 'socket error'));
    const stopKeepAlive = keepAlive(socket, config.keepAliveMs);
    let receive: ((data: string) => Promise<void>) | undefined;
    const gate = new OperationIdGate(
      (data) => (receive === undefined ? Promise.resolve() : receive(data).catch((error: unknown) => fail(error, 'message handling failed'))),
      () => socket.readyState === socket.OPEN,
    );
    const batch = writeBatcher(request.socket);
    const closed = graphqlWs.opened(
      {
        protocol: socket.protocol,
        send: (data) =>
          new Promise<void>((resolve, reject) => {
            if (socket.readyState !== socket.OPEN) return resolve();
            batch();
            socket.send(data, (error) => (error ? reject(error) : resolve()));
          }),
        close: (code, reason) => socket.close(code, reason),
        onMessage: (callback) => {
          receive = callback;
          socket.on('message', (data: Buffer) => gate.receive(String(data)));
        },
      },
      { socket, request, batch, direct: new DirectFrames(socket, request.socket) },
    );
    socket.once('close', (code, reason) => {
      stopKeepAlive();
      void closed(code, String(reason));
    });
  });

  let closing: Promise<void> | undefined;
  return {
    close(graceMs) {
      closing ??= (async () => {
        const cut = setTimeout(() => {
          for (const socket of wsServer.clients) socket.terminate();
        }, graceMs);
        try {
          for (const client of wsServer.clients) client.close(1001, 'Going away');
          // Resolves once every socket closed (their operations ended with them).
          await new Promise<void>((resolve) => wsServer.close(() => resolve()));
        } finally {
          clearTimeout(cut);
        }
      })();
      return closing;
    },
  };
}

/**
 * Pings `socket` every `intervalMs` ms and terminates it when no pong arrived `intervalMs` ms
 * after a ping (graphql-ws's own keep-alive; docs/GRAPHQL-CONTRACT.md transports: proxies must not cut idle
 * sockets).
 *
 * The check runs after the event loop's next I/O phase, not in the timer itself: a pong the
 * peer sent in time may still sit unread behind a long turn of the loop (a fan-out to tens of
 * thousands of subscribers), and timers run before I/O is read (at 50,000
 * subscribers, sockets that had answered were cut with 1006).
 *
 * @param intervalMs ms between pings; 0 or Infinity disables the keep-alive
 * @returns stops the keep-alive (call on close)
 */
function keepAlive(socket: WebSocket, intervalMs: number): () => void {
  if (!(intervalMs > 0 && Number.isFinite(intervalMs))) return () => undefined;
  /** A ping is out and its pong has not arrived. */
  let awaitingPong = false;
  const onPong = (): void => {
    awaitingPong = false;
  };
  socket.on('pong', onPong);
  const interval = setInterval(() => {
    if (socket.readyState !== socket.OPEN) return;
    if (awaitingPong) {
      setImmediate(() => {
        if (awaitingPong && socket.readyState === socket.OPEN) socket.terminate();
      });
      return;
    }
    awaitingPong = true;
    socket.ping();
  }, intervalMs);
  return () => {
    clearInterval(interval);
    socket.off('pong', onPong);
  };
}
