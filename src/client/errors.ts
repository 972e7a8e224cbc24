/**
 * The typed client's one error class (docs/IDE.md "The typed client"): what went wrong, in
 * words a user can act on, and a `kind` to switch on.
 */

/**
 * Why a request or a watch failed:
 * - `network`: the server could not be reached (refused, reset, DNS), HTTP only: watches retry
 * - `unauthorized`: 401 on HTTP, or the WebSocket closed 4403 (missing, wrong or read-only token)
 * - `http`: an answer that is not GraphQL (wrong URL, a proxy's error page)
 * - `graphql`: the server answered with GraphQL errors (`errors` holds them)
 * - `closed`: the client was closed, or the WebSocket ended and will not be retried
 * - `aborted`: a request retried while the server was away is no longer wanted (its `isCurrent` said so)
 */
export type WorkflowClientErrorKind = 'network' | 'unauthorized' | 'http' | 'graphql' | 'closed' | 'aborted';

/** One GraphQL error as the server sends it. */
export interface GraphQLErrorLike {
  message: string;
  path?: ReadonlyArray<string | number>;
  extensions?: Record<string, unknown>;
}

/** The error every client call rejects with (and every watch ends with). */
export class WorkflowClientError extends Error {
  override readonly name = 'WorkflowClientError';

  /**
   * @param kind what failed (see {@link WorkflowClientErrorKind})
   * @param message the sentence to show
   * @param details `status`: the HTTP status or WebSocket close code; `errors`: the GraphQL errors
   */
  constructor(
    readonly kind: WorkflowClientErrorKind,
    message: string,
    readonly details: { status?: number; errors?: readonly GraphQLErrorLike[]; cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
  }

  /** The GraphQL errors of a `graphql` error (empty otherwise). */
  get errors(): readonly GraphQLErrorLike[] {
    return this.details.errors ?? [];
  }
}

/** Why a fetch failed, in words: `connection refused` for ECONNREFUSED, and so on (Node's `cause.code`). */
export function networkCause(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  const words: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset',
    ENOTFOUND: 'host not found',
    EAI_AGAIN: 'host name lookup failed',
    ETIMEDOUT: 'timed out',
    EHOSTUNREACH: 'host unreachable',
  };
  if (code !== undefined) return words[code] ?? code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}
