import { getOperationAST, type DocumentNode, type GraphQLError } from 'graphql';
import { pino, type Logger } from 'pino';
import type { Plugin } from 'graphql-yoga';

/**
 * Creates the server's structured (JSON lines) logger on stdout.
 *
 * @param fields added to every line (a worker's `worker` id and `pid`, the primary's `role`: docs/OPERATIONS.md "Workers")
 */
export function createLogger(level: string, fields: Record<string, unknown> = {}): Logger {
  return pino({ level, base: { service: 'pi-workflows-graphql', ...fields } });
}

/**
 * Error codes whose messages describe the document or the request's shape, never variable
 * values, so the log may quote them (a variable coercion error, `BAD_USER_INPUT`, quotes the
 * value: a claim token could be in it).
 */
const QUOTABLE_CODES = new Set(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_REQUEST']);
/**
 * The head of graphql-js's variable coercion errors (code `BAD_USER_INPUT`, given in
 * redact-errors.ts): which variable, and the path inside it, or the whole message when it names
 * only the variable and its type (not provided, null); the rest of a message, which may quote
 * the value, is not logged.
 */
const VARIABLE_ERROR =
  /^Variable "\$\w+" (?:got invalid value(?: at "[\w.[\]]*")?|of required type "[^"]*" was not provided\.|of non-null type "[^"]*" must not be null\.)/;
/** Longest `reason` logged, in characters. */
const MAX_REASON_LENGTH = 300;

/** What a failed request's result says, for the log line. */
interface Failure {
  errorCode: string | null;
  reason: string | null;
}

/** The first error of a single result that carries errors, as `{errorCode, reason}`; undefined otherwise. */
function failureOf(result: unknown): Failure | undefined {
  if (typeof result !== 'object' || result === null || Array.isArray(result) || Symbol.asyncIterator in result) return undefined;
  const errors = (result as { errors?: readonly GraphQLError[] }).errors;
  const first = errors?.[0];
  if (first === undefined) return undefined;
  const code = first.extensions?.code;
  const errorCode = typeof code === 'string' ? code : null;
  // A variable error (code BAD_USER_INPUT, redact-errors.ts) logs its variable and path, never the value.
  const variable = first.path === undefined ? (VARIABLE_ERROR.exec(first.message)?.[0] ?? null) : null;
  let reason: string | null = variable;
  if (variable === null && errorCode !== null && QUOTABLE_CODES.has(errorCode)) reason = first.message.slice(0, MAX_REASON_LENGTH);
  return { errorCode, reason };
}

/**
 * A yoga plugin that logs one line per HTTP request: method, path, operation name, the scope
 * the caller's credential granted (`read`, `write`), status, duration in ms, and for a result carrying errors the first error's `errorCode` and, when
 * its message cannot quote variables (parse, validation, bad request), that message as
 * `reason`; a variable coercion error (`errorCode` `BAD_USER_INPUT`) is logged as its variable
 * and path only. `status` is the HTTP status sent: GraphQL over HTTP answers
 * `application/json` clients 200 even for a validation failure (400 for
 * `application/graphql-response+json`), so `errorCode` is what tells a failure apart.
 * `operationName` is the explicit one, else the name of the document's only operation
 * (`query Named { … }`), else null. Variables, headers and bodies are never logged (they may
 * hold claim or bearer tokens).
 *
 * @param scopeOf the scope recorded for a request's server context (null when none was)
 */
export function requestLogPlugin(logger: Logger, scopeOf: (serverContext: Record<string, unknown>) => string | null = () => null): Plugin {
  // What each request needs for its line, kept only while `info` is enabled (a
  // server at level warn or silent does no per-request bookkeeping).
  const requests = new WeakMap<Request, { start: number; path: string; operationName: string | null; failure?: Failure }>();
  return {
    onRequest({ request, url }) {
      if (logger.isLevelEnabled('info')) requests.set(request, { start: performance.now(), path: url.pathname, operationName: null });
    },
    onParams({ params, request }) {
      const entry = requests.get(request);
      if (entry !== undefined) entry.operationName = params.operationName ?? null;
    },
    onParse({ context }) {
      const request = (context as { request?: Request }).request;
      const entry = request === undefined ? undefined : requests.get(request);
      if (entry === undefined) return undefined;
      return ({ result }) => {
        if (typeof result !== 'object' || result === null || (result as DocumentNode).kind !== 'Document') return;
        const name = getOperationAST(result as DocumentNode, entry.operationName)?.name?.value;
        if (name !== undefined) entry.operationName = name;
      };
    },
    onResultProcess({ request, result }) {
      const entry = requests.get(request);
      if (entry === undefined) return;
      const failure = failureOf(result);
      if (failure !== undefined) entry.failure = failure;
    },
    onResponse({ request, response, serverContext }) {
      if (!logger.isLevelEnabled('info')) return;
      // A request another plugin answered before this one's onRequest ran still gets its line.
      const entry = requests.get(request);
      logger.info(
        {
          method: request.method,
          path: entry?.path ?? new URL(request.url).pathname,
          operationName: entry?.operationName ?? null,
          scope: scopeOf(serverContext as Record<string, unknown>),
          status: response.status,
          durationMs: entry === undefined ? null : Math.round((performance.now() - entry.start) * 1000) / 1000,
          ...entry?.failure,
        },
        'request',
      );
    },
  };
}
