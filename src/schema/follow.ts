import { GraphQLError } from 'graphql';
import { isStoreError } from '../store/index.js';
import { clearAllDataLoaders } from '@pothos/plugin-dataloader';
import type { GraphQLContext } from './context.js';

/**
 * Starts a follow stream of the change feed (src/delivery/: its index maps every step of
 * delivery), turning its refusals into GraphQL errors: an unknown run is `NOT_FOUND`, a
 * bad argument `BAD_USER_INPUT`, with the store's message. Every subscription's `subscribe`
 * is a call to it.
 *
 * @param start opens the stream (e.g. `() => context.feed.followRunUpdates(runId)`)
 * @returns what `start` returns
 * @throws GraphQLError(NOT_FOUND | BAD_USER_INPUT) with the store's message
 */
export function follow<T>(start: () => T): T {
  try {
    return start();
  } catch (error) {
    if (isStoreError(error) && error.kind === 'not_found') {
      throw new GraphQLError(error.message, { extensions: { code: 'NOT_FOUND' } });
    }
    if (isStoreError(error) && error.kind === 'validation') {
      throw new GraphQLError(error.message, { extensions: { code: 'BAD_USER_INPUT' } });
    }
    throw error;
  }
}

/**
 * Clears the context's DataLoaders (`clearAllDataLoaders`) before an event is executed, so a
 * subscriber never sees a run cached by a previous event: nested fields show the run as
 * committed. Every subscription's `resolve` is a call to it.
 *
 * @returns `event`, unchanged
 */
export function freshLoaders<T>(event: T, context: GraphQLContext): T {
  clearAllDataLoaders(context);
  return event;
}
