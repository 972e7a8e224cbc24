/**
 * The request's choice of `@live` result format (docs/PROTOCOL.md "Live queries"): full results
 * by default, JSON-patch results (live-json-patch.ts) when `extensions.livePatch` is
 * `"json-patch"`; any other value is refused.
 */
import { GraphQLError } from 'graphql';

/** The request extension that asks for JSON-patch results, and its one accepted value. */
export const LIVE_PATCH_EXTENSION = 'livePatch';
export const LIVE_PATCH_JSON_PATCH = 'json-patch';

/** The refusal of an unknown `extensions.livePatch` value (`BAD_USER_INPUT`). */
export function unknownLivePatch(value: unknown): GraphQLError {
  return new GraphQLError(
    `Unknown extensions.${LIVE_PATCH_EXTENSION} ${JSON.stringify(value)}: use "${LIVE_PATCH_JSON_PATCH}" for JSON-patch results, or leave it out for full results.`,
    { extensions: { code: 'BAD_USER_INPUT' } },
  );
}
