/**
 * Which browsers and which host names the server answers.
 *
 * - Host: a request must name a host the server answers for — the bound address, `localhost`,
 *   `127.0.0.1`, `[::1]`, or a name given with `--allowed-host`. Anything else is a
 *   DNS-rebinding page (a hostname the attacker controls, resolved to this machine) or a
 *   misdirected request, and gets 421 Misdirected Request (RFC 9110 §15.5.20).
 * - Origin: a request (or WebSocket upgrade) whose `Origin` header is present must come from the
 *   server's own origin (`http://` or `https://` followed by the request's own, allowed, `Host`)
 *   or from an origin given with `--cors-origin`; anything else gets 403 before any GraphQL
 *   runs — including the "simple" requests (`text/plain`, form-encoded) a browser sends without
 *   a preflight. Requests without `Origin` (curl, Node, IDE plugins) are not browser
 *   cross-origin requests and are not affected.
 *
 * The CORS response headers themselves come from yoga's `cors` option, fed by
 * {@link RequestPolicy.corsOptions}.
 */
import type { IncomingMessage } from 'node:http';
import type { CORSOptions } from 'graphql-yoga';

/** The host names every server answers for, besides its bound address. */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** What a check decided: go on, or refuse with this status and message. */
export type PolicyVerdict = { ok: true } | { ok: false; status: 403 | 421; message: string };

/** Settings of {@link createRequestPolicy}, from the server config. */
export interface RequestPolicyOptions {
  /** The bind address (`--host`), answered as a host name too. */
  bindHost: string;
  /** Extra host names (`--allowed-host`), as accepted by {@link parseAllowedHost}. */
  allowedHosts: readonly string[];
  /** Extra browser origins (`--cors-origin`), as accepted by {@link parseCorsOrigin}. */
  corsOrigins: readonly string[];
}

/** The origin and host rules of one server. */
export interface RequestPolicy {
  /**
   * Checks the `Host` and then the `Origin` header of an HTTP request or WebSocket upgrade.
   *
   * @returns `{ok: true}`, or the status (421 for a host, 403 for an origin) and message to refuse with
   */
  check(request: IncomingMessage): PolicyVerdict;
  /**
   * yoga's `cors` option: CORS headers for an allowed `Origin` (reflected, no credentials,
   * preflights cached 10 minutes), none for anything else.
   */
  corsOptions(request: Request): CORSOptions;
  /**
   * The `verifyClient` of the `ws` WebSocket server: refuses an upgrade that {@link check}
   * refuses with its HTTP status, before the upgrade.
   *
   * @param onRefused called with the request and verdict of each refused upgrade (for the log)
   */
  verifyWebSocketClient(
    onRefused: (request: IncomingMessage, verdict: Extract<PolicyVerdict, { ok: false }>) => void,
  ): (info: { req: IncomingMessage }, callback: (accept: boolean, code?: number, message?: string) => void) => void;
}

/**
 * Parses a `--cors-origin` value: an origin exactly as a browser sends it in `Origin`
 * (`scheme://host[:port]`, lower case, no default port, no path, no trailing slash).
 *
 * @returns the origin, unchanged
 * @throws Error with a message that says how to write it, for anything else (`*` included)
 */
export function parseCorsOrigin(value: string): string {
  let origin: string | undefined;
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') origin = url.origin;
  } catch {
    origin = undefined;
  }
  if (origin !== value) {
    throw new Error(
      `"${value}" is not an origin: write it as a browser sends it, scheme://host[:port] without a path or trailing slash` +
        (origin === undefined ? ' (for example http://localhost:5173)' : ` ("${origin}")`),
    );
  }
  return value;
}

/**
 * Parses an `--allowed-host` value: a host name or IP address (IPv6 with or without brackets),
 * without scheme or port. Host names compare case-insensitively.
 *
 * @returns the normalised name: lower case, an IPv6 address in brackets
 * @throws Error naming the expected form for anything else
 */
export function parseAllowedHost(value: string): string {
  const name = normaliseHostName(value);
  if (name === undefined) {
    throw new Error(`"${value}" is not a host name: give a name or IP address without scheme or port (for example my-box.local)`);
  }
  return name;
}

/**
 * Builds the policy of a server.
 *
 * @throws Error when an allowed host or origin does not parse (see {@link parseAllowedHost},
 *   {@link parseCorsOrigin}); the config parser has already refused those with a usage error
 */
export function createRequestPolicy(options: RequestPolicyOptions): RequestPolicy {
  const hosts = new Set<string>(LOOPBACK_HOSTS);
  const bound = normaliseHostName(options.bindHost);
  if (bound !== undefined) hosts.add(bound);
  for (const host of options.allowedHosts) hosts.add(parseAllowedHost(host));
  const origins = new Set(options.corsOrigins.map(parseCorsOrigin));

  /** True when `origin` is listed, or is this server's own origin as reached through `host`. */
  function isAllowedOrigin(origin: string, host: string | undefined): boolean {
    if (origins.has(origin)) return true;
    if (host === undefined || !isAllowedHost(host)) return false;
    const own = host.toLowerCase();
    return origin === `http://${own}` || origin === `https://${own}`;
  }

  function isAllowedHost(hostHeader: string): boolean {
    const name = hostNameOf(hostHeader);
    return name !== undefined && hosts.has(name);
  }

  function check(request: IncomingMessage): PolicyVerdict {
    // No Host at all is only possible over HTTP/1.0 (Node answers 400 to HTTP/1.1 without one):
    // not a browser, so there is nothing to rebind.
    const host = request.headers.host;
    if (host !== undefined && !isAllowedHost(host)) {
      return {
        ok: false,
        status: 421,
        message: `This server does not answer for host "${truncate(host)}"; start it with --allowed-host <name> to allow a name`,
      };
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !isAllowedOrigin(origin, host)) {
      return {
        ok: false,
        status: 403,
        message: `Origin "${truncate(origin)}" is not allowed; start the server with --cors-origin <origin> to allow it`,
      };
    }
    return { ok: true };
  }

  return {
    check,
    corsOptions(request) {
      const origin = request.headers.get('origin');
      if (origin === null || !isAllowedOrigin(origin, request.headers.get('host') ?? undefined)) return false;
      // No `origin` list: yoga reflects the request's Origin (checked just above) with `Vary: Origin`.
      // PUT and DELETE: graphql-sse's single-connection mode reserves a stream and stops operations with them.
      return { credentials: false, methods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'], maxAge: 600 };
    },
    verifyWebSocketClient(onRefused) {
      return (info, callback) => {
        const verdict = check(info.req);
        if (verdict.ok) {
          callback(true);
          return;
        }
        onRefused(info.req, verdict);
        callback(false, verdict.status, verdict.message);
      };
    },
  };
}

/** The host name of a `Host` header (port dropped), normalised; undefined when malformed. */
function hostNameOf(hostHeader: string): string | undefined {
  const match = /^(\[[^\]]*\]|[^:[\]]*)(?::\d{1,5})?$/.exec(hostHeader.trim());
  return match === null ? undefined : normaliseHostName(match[1] as string);
}

/**
 * A host name or IP literal in lower case, IPv6 in brackets; undefined when it is not one
 * (a scheme, port, path, user info or an empty name).
 */
function normaliseHostName(value: string): string | undefined {
  const name = value.trim().toLowerCase();
  if (/^\[[0-9a-f:.]+\]$/.test(name)) return name;
  if (name.includes(':')) return /^[0-9a-f:.]+$/.test(name) && name.split(':').length > 2 ? `[${name}]` : undefined;
  if (!/^[a-z0-9_]([a-z0-9_.-]*[a-z0-9_])?\.?$/.test(name)) return undefined;
  return name;
}

/** A header value cut to 100 characters for a refusal message. */
function truncate(value: string): string {
  return value.length > 100 ? `${value.slice(0, 100)}…` : value;
}
