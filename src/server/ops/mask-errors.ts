import { GraphQLError } from 'graphql';
import { maskError, type YogaMaskedErrorOpts } from 'graphql-yoga';
import type { Logger } from 'pino';

/** The answer of every unexpected error, on every transport (yoga's default text). */
export const UNEXPECTED_ERROR_MESSAGE = 'Unexpected error.';

/**
 * yoga's `maskedErrors` options: an unexpected error — anything but a
 * GraphQLError raised on purpose (NOT_FOUND, BAD_USER_INPUT, …) — answers
 * {@link UNEXPECTED_ERROR_MESSAGE} with `extensions.code` `INTERNAL_SERVER_ERROR`, on HTTP, SSE
 * and graphql-ws alike (they all run through yoga's envelop), and never carries the original
 * message, not even with `NODE_ENV=development`.
 *
 * Each unexpected error is logged once, at error level: `{"msg":"unexpected error","err":{type,
 * message, stack},"path":[…]}` (`path`: the GraphQL response path, or null). Once: a subscription
 * event's result is shared by its subscribers (shared-event-execution.ts) and masked for each of
 * them, so the masked error is remembered per original error object.
 *
 * @param logger where the line goes
 * @returns the options for `createYoga({ maskedErrors })`
 */
export function maskedErrorsOptions(logger: Logger): YogaMaskedErrorOpts {
  const masked = new WeakMap<object, Error>();
  return {
    errorMessage: UNEXPECTED_ERROR_MESSAGE,
    isDev: false,
    maskError(error, message) {
      const key = typeof error === 'object' && error !== null ? error : undefined;
      const known = key === undefined ? undefined : masked.get(key);
      if (known !== undefined) return known;
      const answer = maskError(error, message, false);
      if (answer !== error) {
        const original = error instanceof GraphQLError && error.originalError != null ? error.originalError : error;
        logger.error({ err: original, path: error instanceof GraphQLError ? (error.path ?? null) : null }, 'unexpected error');
      }
      if (key !== undefined) masked.set(key, answer);
      return answer;
    },
  };
}
