import { GraphQLError, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * Responses never echo what the caller sent (claim tokens included): this module
 * rewrites the two places where graphql-js and yoga would.
 *
 * graphql-js reports a variable that fails coercion as
 * `Variable "$input" got invalid value <the whole value> at "input.field"; <reason>`, echoing
 * the caller's input — claim tokens included — into the response. This rewrites such errors to
 * `Variable "$input" got invalid value at "input.field"; <reason>`: same path, same reason,
 * no value.
 */
export function redactVariableValue(error: GraphQLError): GraphQLError {
  const original = error.originalError;
  if (!error.message.startsWith('Variable "$') || original === undefined || original === null) return error;
  const reason = original.message;
  if (!error.message.endsWith(`; ${reason}`)) return error;
  const head = error.message.slice(0, error.message.length - reason.length - 2);
  const variable = /^Variable "\$[^"]+"/.exec(head)?.[0];
  if (variable === undefined || !head.startsWith(`${variable} got invalid value `)) return error;
  const at = / at "[^"]*"$/.exec(head)?.[0] ?? '';
  // Scalar reasons end with the rejected value ("String cannot represent a non string value: 42").
  const bareReason = reason.replace(/^([A-Za-z]+ cannot represent [^:]*): [\s\S]*$/, '$1.');
  return new GraphQLError(`${variable} got invalid value${at}; ${bareReason}`, {
    nodes: error.nodes ?? null,
    extensions: error.extensions,
  });
}

/** The `extensions.code` of a variable that fails coercion (the code of the same mistake inline is GRAPHQL_VALIDATION_FAILED). */
export const VARIABLE_ERROR_CODE = 'BAD_USER_INPUT';

/**
 * graphql-js reports variable coercion failures (`Variable "$x" got invalid value …`,
 * `… of required type "T!" was not provided.`, `… of non-null type "T!" must not be null.`)
 * with no `extensions.code`; this gives them {@link VARIABLE_ERROR_CODE}, so a client (and the
 * request log) can tell them apart. Only errors without a path (coercion happens before any
 * field runs) and without a code are touched.
 */
export function withVariableErrorCode(error: GraphQLError): GraphQLError {
  if (!error.message.startsWith('Variable "$') || error.path !== undefined || error.extensions?.code !== undefined) return error;
  return new GraphQLError(error.message, { nodes: error.nodes ?? null, extensions: { ...error.extensions, code: VARIABLE_ERROR_CODE } });
}

/**
 * The result with {@link redactVariableValue} and {@link withVariableErrorCode} applied, or
 * undefined when nothing needed it.
 */
export function redactResult(result: ExecutionResult): ExecutionResult | undefined {
  if (result.errors === undefined || !result.errors.some((error) => error.message.startsWith('Variable "$'))) return undefined;
  return { ...result, errors: result.errors.map((error) => withVariableErrorCode(redactVariableValue(error))) };
}

/**
 * Yoga adds `extensions.originalError` to "POST body sent invalid JSON." — the JSON parser's
 * message, which quotes the whole body. This keeps the entry (yoga answers 400 because of it)
 * but replaces its message with one that quotes nothing.
 */
export function withoutOriginalError(result: ExecutionResult): ExecutionResult | undefined {
  const quoting = (error: GraphQLError): boolean => {
    const original = error.extensions?.originalError as { message?: unknown } | undefined;
    return typeof original?.message === 'string' && original.message !== BODY_NOT_JSON;
  };
  if (result.errors === undefined || !result.errors.some(quoting)) return undefined;
  return {
    ...result,
    errors: result.errors.map((error) => {
      if (!quoting(error)) return error;
      const original = error.extensions.originalError as { name?: unknown };
      return new GraphQLError(error.message, {
        nodes: error.nodes ?? null,
        extensions: { ...error.extensions, originalError: { name: original.name, message: BODY_NOT_JSON } },
      });
    }),
  };
}

/** What remains of the JSON parser's message. */
const BODY_NOT_JSON = 'The request body is not valid JSON';

/**
 * A yoga plugin applying {@link redactVariableValue} and {@link withVariableErrorCode} to query,
 * mutation and subscription results, and {@link withoutOriginalError} to every HTTP result.
 */
export function redactErrorsPlugin(): Plugin {
  return {
    onResultProcess: ({ result, setResult }) => {
      if (Array.isArray(result) || Symbol.asyncIterator in result) return;
      const cleaned = withoutOriginalError(result as ExecutionResult);
      if (cleaned !== undefined) setResult(cleaned);
    },
    onExecute: () => ({
      onExecuteDone: ({ result, setResult }) => {
        // A stream (an `@live` query, live-queries.ts): each pushed result.
        if (Symbol.asyncIterator in result) {
          return {
            onNext: ({ result: next, setResult: setNext }) => {
              const redacted = redactResult(next);
              if (redacted !== undefined) setNext(redacted);
            },
          };
        }
        const redacted = redactResult(result);
        if (redacted !== undefined) setResult(redacted);
        return undefined;
      },
    }),
    onSubscribe: () => ({
      onSubscribeResult: ({ result, setResult }) => {
        if (Symbol.asyncIterator in result) return;
        const redacted = redactResult(result);
        if (redacted !== undefined) setResult(redacted);
      },
    }),
  };
}
