import { GraphQLError } from 'graphql';
import type { GraphQLContext } from './context-types.js';

/**
 * Content is sensitive (docs/OPERATIONS.md "Security"): prompts, outputs, payloads, inputs,
 * viewer-delta values and the conversation can carry code and secrets. A caller with the
 * `metadata` scope reads every other field; each content field answers null with this error.
 */

/** The text of the FORBIDDEN error a `metadata` caller gets for content. */
export const CONTENT_SCOPE_MESSAGE =
  "This token's scope is metadata: the content of runs (inputs, prompts, outputs, payloads, the conversation) is not readable with it";

/**
 * Refuses content to a caller with the `metadata` scope.
 *
 * @throws GraphQLError {@link CONTENT_SCOPE_MESSAGE}, extensions `{ code: 'FORBIDDEN', reason: 'METADATA_SCOPE' }`
 */
export function assertContentScope(context: Pick<GraphQLContext, 'scope'>): void {
  if (context.scope === 'metadata') throw new GraphQLError(CONTENT_SCOPE_MESSAGE, { extensions: { code: 'FORBIDDEN', reason: 'METADATA_SCOPE' } });
}
