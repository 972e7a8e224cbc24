/**
 * Bearer credentials and their scopes (docs/GRAPHQL-CONTRACT.md "Access").
 *
 * - `--token` grants the `write` scope: every query, subscription and mutation.
 * - Each `--read-token` grants the `read` scope: queries and subscriptions; a mutation answers
 *   `ForbiddenError` naming the missing `write` scope.
 * - Each `--metadata-token` grants the `metadata` scope: the `read` scope without the content of
 *   runs (prompts, outputs, payloads, the conversation answer null with a FORBIDDEN error).
 * - With no credential configured the server is open: every caller has `write`.
 *
 * Presented tokens are compared in constant time (SHA-256 of both sides, every configured token
 * compared, no early exit) and never logged.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** What a credential may do: `metadata` (`read` without runs' content), `read` (queries, subscriptions) or `write` (everything). */
export type Scope = 'metadata' | 'read' | 'write';

/** The credentials a server accepts. */
export interface Credentials {
  /** The full token (`--token`), or null. */
  token: string | null;
  /** Read-only tokens (`--read-token`). */
  readTokens: readonly string[];
  /** Metadata tokens (`--metadata-token`); default none. */
  metadataTokens?: readonly string[];
}

/**
 * The scope an `Authorization` value grants: `Bearer <token>`, the scheme name in any case
 * (RFC 7235 §2.1), the token exactly.
 *
 * @param header the Authorization header (or the graphql-ws connection_init payload's `authorization`), if any
 * @returns `write` for the full token, or for anyone when no credential is configured; `read`
 *   for a read token; `metadata` for a metadata token; null when the header carries no accepted token
 */
export function scopeOf(credentials: Credentials, header: unknown): Scope | null {
  const metadataTokens = credentials.metadataTokens ?? [];
  if (credentials.token === null && credentials.readTokens.length === 0 && metadataTokens.length === 0) return 'write';
  if (typeof header !== 'string') return null;
  const match = /^bearer +(.*)$/i.exec(header);
  if (match === null) return null;
  const given = digest(match[1] as string);
  // Every configured token is compared, so the time taken says nothing about which matched.
  let scope: Scope | null = null;
  for (const token of metadataTokens) {
    if (timingSafeEqual(given, digest(token))) scope = 'metadata';
  }
  for (const token of credentials.readTokens) {
    if (timingSafeEqual(given, digest(token))) scope = 'read';
  }
  if (credentials.token !== null && timingSafeEqual(given, digest(credentials.token))) scope = 'write';
  return scope;
}

/** The 401 answer to a request that sent no `Authorization` header. */
export const UNAUTHORIZED_NO_TOKEN = 'Unauthorized: send Authorization: Bearer <token>';
/** The 401 answer to a request whose `Authorization` carries no accepted token. */
export const UNAUTHORIZED_WRONG_TOKEN =
  "Unauthorized: the token sent is not accepted: send Authorization: Bearer <token> with the server's --token, a --read-token or a --metadata-token";

/**
 * The text of a 401: whether an `Authorization` header was sent at all (never what it held).
 *
 * @param header the request's Authorization header, if any
 */
export function unauthorizedMessage(header: unknown): string {
  return typeof header === 'string' && header.trim() !== '' ? UNAUTHORIZED_WRONG_TOKEN : UNAUTHORIZED_NO_TOKEN;
}

/**
 * Compares a presented `Authorization` value with `Bearer <token>` in constant time.
 *
 * @param header the Authorization header (or WebSocket payload `authorization`), if any
 * @returns true when no token is configured, or when the header carries it
 */
export function isAuthorized(token: string | null, header: unknown): boolean {
  return scopeOf({ token, readTokens: [] }, header) !== null;
}

/**
 * The scope granted to each authorized HTTP request or WebSocket connection, keyed by its Node
 * request (the HTTP request, or the WebSocket upgrade request): the request gate and graphql-ws
 * `onConnect` record it; the GraphQL context and the request log read it.
 */
export class GrantedScopes {
  private readonly scopes = new WeakMap<object, Scope>();

  /** Records the scope of `request` (an HTTP request or a WebSocket upgrade request). */
  grant(request: IncomingMessage, scope: Scope): void {
    this.scopes.set(request, scope);
  }

  /**
   * @param request the Node request of a yoga server context (`req`), if any
   * @returns its recorded scope, or undefined when none was recorded
   */
  of(request: unknown): Scope | undefined {
    return typeof request === 'object' && request !== null ? this.scopes.get(request) : undefined;
  }
}

/** SHA-256 of a token: equal-length values, so `timingSafeEqual` never sees differing lengths. */
function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}
