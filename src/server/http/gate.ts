import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { MCP_PATH } from '../mcp/endpoint.js';
import { isGraphiQLPage } from '../page/serve-page.js';
import { scopeOf, unauthorizedMessage, type Credentials, type GrantedScopes, type Scope } from './auth.js';
import { ACCEPTED_POST_TYPES, unsupportedContentType } from './content-type.js';
import { answerThenClose, declaredBodyLength, LINGER_MAX_BYTES, readBodyUpTo, setPreReadBody } from './request-body.js';
import type { RequestPolicy } from './request-policy.js';
import { SCHEMA_SDL_PATH } from './schema-sdl.js';

/** Where the gate hands a request once it passed, each answered by the file of its concern. */
export interface GateRoutes {
  /** `GET /health` (database/health.ts); `authorized`: an accepted token was sent, or none is set. */
  health(response: ServerResponse, authorized: boolean): void;
  /** `GET /metrics`, for any accepted token (ops/metrics.ts). */
  metrics(response: ServerResponse): void;
  /** `GET /schema.graphql`, the printed SDL for IDEs, for any accepted token (schema-sdl.ts): true when it answered. */
  schemaSdl(request: IncomingMessage, response: ServerResponse, path: string): boolean;
  /** `/mcp`, for any accepted token, its scope granted (mcp/endpoint.ts, docs/MCP.md). */
  mcp(request: IncomingMessage, response: ServerResponse, scope: Scope): void;
  /** The pages (page/serve-page.ts): true when it answered. */
  page(request: IncomingMessage, response: ServerResponse, path: string): boolean;
  /** Everything else: GraphQL (yoga), once the scope is granted. */
  graphql(request: IncomingMessage, response: ServerResponse): void;
}

/** Options of {@link createRequestGate}. */
export interface RequestGateOptions {
  /** The body cap, bytes (`--max-body-bytes`). */
  maxBodyBytes: number;
  /** Host and Origin checks (request-policy.ts). */
  policy: RequestPolicy;
  /** The accepted tokens (auth.ts). */
  credentials: Credentials;
  /** Where a request's granted scope is recorded for the GraphQL context (auth.ts). */
  scopes: GrantedScopes;
  logger: Logger;
  /** Called first with every request (tracing's HTTP span), when tracing is on. */
  onRequest?: ((request: IncomingMessage, response: ServerResponse) => void) | undefined;
  routes: GateRoutes;
}

/** The HTTP gate: every request passes it before anything answers (docs/OPERATIONS.md, docs/GRAPHQL-CONTRACT.md "Access"). */
export interface RequestGate {
  /** The HTTP server's `request` listener. */
  handle(request: IncomingMessage, response: ServerResponse): void;
  /** Logs a refusal (the WebSocket upgrade check logs its refusals through it too). */
  logRefusal(request: IncomingMessage, status: number, reason: string): void;
}

/**
 * The gate, in order: Host and Origin (every path: a DNS-rebinding or cross-site page gets
 * nothing), the body cap (no body is read past it: a declared length over it, or a chunked body
 * crossing it, is answered 413), then `/health`, `/metrics`, `/schema.graphql` and `/mcp` (a
 * token each), the pages, and GraphQL
 * with a token (full or read: its scope is granted for the context), a POST of an accepted
 * content type (415 otherwise). A refused request gets a JSON `{errors: [{message}]}` and is
 * logged.
 */
export function createRequestGate(options: RequestGateOptions): RequestGate {
  const { maxBodyBytes, policy, credentials, scopes, logger, routes } = options;

  function handle(request: IncomingMessage, response: ServerResponse): void {
    options.onRequest?.(request, response);
    // Host and Origin first, for every path: a DNS-rebinding or cross-site page gets nothing.
    const verdict = policy.check(request);
    if (!verdict.ok) {
      refuse(request, response, verdict.status, verdict.message);
      return;
    }
    // No body is read past the cap, on any path.
    const length = declaredBodyLength(request);
    if (length === 'chunked') {
      void readBodyUpTo(request, maxBodyBytes).then((body) => {
        if (body === 'aborted') return;
        if (body === 'too-large') {
          refuse(request, response, 413, `Request body larger than ${maxBodyBytes} bytes`, {}, 0);
          return;
        }
        setPreReadBody(request, body);
        route(request, response);
      });
      return;
    }
    if (length > maxBodyBytes) {
      refuse(request, response, 413, `Request body larger than ${maxBodyBytes} bytes`, {}, Math.min(length, LINGER_MAX_BYTES));
      return;
    }
    route(request, response);
  }

  /** Serves a request whose body is within the cap (announced, or already read). */
  function route(request: IncomingMessage, response: ServerResponse): void {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const scope: Scope | null = scopeOf(credentials, request.headers.authorization);
    if (path === '/health' && request.method === 'GET') {
      routes.health(response, scope !== null);
      return;
    }
    if (path === '/metrics' && request.method === 'GET') {
      // Any accepted token (full or read) reads the metrics.
      if (scope === null) {
        refuse(request, response, 401, unauthorizedMessage(request.headers.authorization), { 'www-authenticate': 'Bearer' });
        return;
      }
      routes.metrics(response);
      return;
    }
    if (path === SCHEMA_SDL_PATH && scope === null) {
      refuse(request, response, 401, unauthorizedMessage(request.headers.authorization), { 'www-authenticate': 'Bearer' });
      return;
    }
    if (routes.schemaSdl(request, response, path)) return; // the SDL, for IDEs (docs/IDE.md)
    if (path === MCP_PATH) {
      if (scope === null) refuse(request, response, 401, unauthorizedMessage(request.headers.authorization), { 'www-authenticate': 'Bearer' });
      else {
        scopes.grant(request, scope);
        routes.mcp(request, response, scope);
      }
      return;
    }
    if (routes.page(request, response, path)) return; // the live lineage page, the GraphiQL page
    // Every request yoga gets is gated, whatever its path: yoga serves GraphQL not only on
    // /graphql but on /graphql/, //graphql and any URL ending in /graphql (query string included).
    // Only the GraphiQL page (a GET asking for HTML, which yoga answers without executing) is open.
    // A CORS preflight carries no credentials and runs nothing (yoga's CORS plugin answers it).
    if (scope !== null) {
      scopes.grant(request, scope);
    } else if (!isGraphiQLPage(request) && request.method !== 'OPTIONS') {
      refuse(request, response, 401, unauthorizedMessage(request.headers.authorization), { 'www-authenticate': 'Bearer' });
      return;
    }
    const unsupported = request.method === 'POST' ? unsupportedContentType(request.headers['content-type']) : undefined;
    if (unsupported !== undefined) {
      refuse(request, response, 415, unsupported, { 'accept-post': ACCEPTED_POST_TYPES.join(', ') });
      return;
    }
    routes.graphql(request, response);
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
    drainBytes = maxBodyBytes,
  ): void {
    const body = JSON.stringify({ errors: [{ message }] });
    const length = declaredBodyLength(request);
    logRefusal(request, status, message);
    if (request.complete || (length !== 'chunked' && length <= maxBodyBytes)) {
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

  return { handle, logRefusal };
}
