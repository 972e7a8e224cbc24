/**
 * The connection an `@live` query counts against (docs/PROTOCOL.md "Live queries": at most
 * `--max-live-queries` per connection), read from yoga's context, and the refusal past the limit.
 */
import { GraphQLError } from 'graphql';
import { isSingleConnectionRequest, SSE_TOKEN_HEADER } from '../graphql/graphql-sse.js';

/** What the live-query plugin reads of yoga's context besides `GraphQLContext`. */
export interface TransportContext {
  /** yoga: the fetch Request of an HTTP request (SSE included). */
  request?: Request;
  /** graphql-ws (graphql-ws.ts): the socket of the connection. */
  socket?: object;
  /** graphql-ws: its context's `extra`. */
  extra?: unknown;
  /** The GraphQL request's parameters, extensions included. */
  params?: { extensions?: Record<string, unknown> };
}

/**
 * The connection a live query counts against: the graphql-ws socket; the graphql-sse
 * single-connection stream (its token); else the request itself (an SSE stream of its own).
 * Null for a plain HTTP request, which cannot stream (answered once).
 */
export function connectionOf(context: TransportContext): object | string | null {
  if (context.extra !== undefined && context.socket !== undefined) return context.socket;
  const request = context.request;
  if (request === undefined) return null;
  if (isSingleConnectionRequest(request)) {
    return `sse:${request.headers.get(SSE_TOKEN_HEADER) ?? new URL(request.url).searchParams.get('token') ?? ''}`;
  }
  const accept = request.headers.get('accept') ?? '';
  return accept.includes('text/event-stream') || accept.includes('multipart/mixed') ? request : null;
}

/** The refusal of a live query past the per-connection limit (`LIVE_QUERY_LIMIT`). */
export function tooManyLiveQueries(maximum: number): GraphQLError {
  return new GraphQLError(`Too many live queries on this connection: at most ${maximum} at once. Stop one before starting another.`, {
    extensions: { code: 'LIVE_QUERY_LIMIT', limit: { name: 'maxLiveQueries', maximum } },
  });
}
