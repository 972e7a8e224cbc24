import { getOperationAST, type DocumentNode, type GraphQLError } from 'graphql';
import { pino, type Logger } from 'pino';
import type { Plugin } from 'graphql-yoga';

/** Creates the server's structured (JSON lines) logger on stdout. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'pi-workflows-graphql' } });
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
 * the caller's credential granted (`read`, `write`; issue 10.11), status, duration in ms, and for a result carrying errors the first error's `errorCode` and, when
 * its message cannot quote variables (parse, validation, bad request), that message as
 * `reason`; a variable coercion error (`errorCode` `BAD_USER_INPUT`) is logged as its variable
 * and path only (issue 14 item 5). `status` is the HTTP status sent: GraphQL over HTTP answers
 * `application/json` clients 200 even for a validation failure (400 for
 * `application/graphql-response+json`), so `errorCode` is what tells a failure apart.
 * `operationName` is the explicit one, else the name of the document's only operation
 * (`query Named { … }`), else null. Variables, headers and bodies are never logged (they may
 * hold claim or bearer tokens).
 *
 * @param scopeOf the scope recorded for a request's server context (null when none was)
 */
export function requestLogPlugin(logger: Logger, scopeOf: (serverContext: Record<string, unknown>) => string | null = () => null): Plugin {
  const started = new WeakMap<Request, number>();
  const operations = new WeakMap<Request, string | null>();
  const failures = new WeakMap<Request, Failure>();
  return {
    onRequest({ request }) {
      started.set(request, performance.now());
    },
    onParams({ params, request }) {
      operations.set(request, params.operationName ?? null);
    },
    onParse({ context }) {
      const request = (context as { request?: Request }).request;
      return ({ result }) => {
        if (request === undefined || typeof result !== 'object' || result === null || (result as DocumentNode).kind !== 'Document') return;
        const explicit = operations.get(request) ?? null;
        const name = getOperationAST(result as DocumentNode, explicit)?.name?.value;
        if (name !== undefined) operations.set(request, name);
      };
    },
    onResultProcess({ request, result }) {
      const failure = failureOf(result);
      if (failure !== undefined) failures.set(request, failure);
    },
    onResponse({ request, response, serverContext }) {
      const start = started.get(request);
      const url = new URL(request.url);
      logger.info(
        {
          method: request.method,
          path: url.pathname,
          operationName: operations.get(request) ?? null,
          scope: scopeOf(serverContext as Record<string, unknown>),
          status: response.status,
          durationMs: start === undefined ? null : Math.round((performance.now() - start) * 1000) / 1000,
          ...failures.get(request),
        },
        'request',
      );
    },
  };
}
