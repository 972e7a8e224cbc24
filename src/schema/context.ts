import type { WorkflowStore } from '../store/index.js';
import type { ChangeFeed } from '../delivery/index.js';
import type { GraphQLContext, Scope } from './context-types.js';
import { readOnlyMessage } from './errors.js';

export type { GraphQLContext, Scope } from './context-types.js';

/**
 * Builds the context of a request.
 *
 * @param readOnly the server's read-only flag; a store opened read-only (a pi-workflows state
 *   file of a release this server does not write is, whatever the flag) refuses mutations too,
 *   with its reason
 * @param feed the server's change feed
 * @param scope the caller's scope
 * @param readOnlyText the refusal text instead of {@link readOnlyMessage}'s (a replica names its
 *   primary, docs/DEPLOYMENT.md "Read replicas"); used only when mutations are refused
 */
export function createContext(store: WorkflowStore, readOnly: boolean, feed: ChangeFeed, scope: Scope, readOnlyText?: string): GraphQLContext {
  const refusal = readOnly || store.readOnly ? (readOnlyText ?? readOnlyMessage(store.file)) : null;
  return { store, readOnly: refusal, feed, scope };
}
