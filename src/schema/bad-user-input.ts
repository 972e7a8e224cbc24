import { GraphQLError } from 'graphql';

/** How much of a malformed argument an error message may quote, in characters. */
const QUOTED_PREFIX_LENGTH = 16;

/**
 * A GraphQL error for a bad query argument (global id, cursor, page size), not masked by the
 * server: `extensions.code` is `BAD_USER_INPUT`. Has no dependency on the schema builder, so
 * the builder's own options can use it.
 */
export function badUserInput(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } });
}

/**
 * At most the first 16 characters of a value the caller sent, with `…` when cut: all that an
 * error message quotes of it (a 100 KB id was echoed in full).
 */
export function quotedPrefix(value: string): string {
  return value.length <= QUOTED_PREFIX_LENGTH ? value : `${value.slice(0, QUOTED_PREFIX_LENGTH)}…`;
}
