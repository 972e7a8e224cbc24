import type { ChangeFeed, WorkflowStore } from '../store/index.js';
import { readOnlyMessage } from './errors.js';

/**
 * What the caller's credential may do (issue 10.11): `read` (queries, subscriptions) or `write`
 * (everything). The server decides it from the bearer token (src/server/auth.ts).
 */
export type Scope = 'read' | 'write';

/**
 * The GraphQL context of one request (or of one subscription). Its DataLoaders are the
 * dataloader plugin's, cached per context object (types/workflow-run.ts); subscriptions clear
 * them for every event.
 */
export interface GraphQLContext {
  store: WorkflowStore;
  /**
   * Null when mutations are allowed; else the `ForbiddenError` text every mutation answers (a
   * server started read-only, or one serving a pi-workflows state file of a release it does not
   * write, docs/PI-WORKFLOWS-FILES.md §2).
   */
  readOnly: string | null;
  /** The caller's scope: with `read` every mutation answers ForbiddenError (issue 10.11). */
  scope: Scope;
  /** Wakes subscriptions when the delta log may have changed. */
  feed: ChangeFeed;
}

/**
 * Builds the context of a request.
 *
 * @param readOnly the server's read-only flag; a store opened read-only (a pi-workflows state
 *   file of a release this server does not write is, whatever the flag) refuses mutations too,
 *   with its reason
 * @param feed the server's change feed
 * @param scope the caller's scope (issue 10.11)
 * @param readOnlyText the refusal text instead of {@link readOnlyMessage}'s (a replica names its
 *   primary, docs/DEPLOYMENT.md "Read replicas"); used only when mutations are refused
 */
export function createContext(store: WorkflowStore, readOnly: boolean, feed: ChangeFeed, scope: Scope, readOnlyText?: string): GraphQLContext {
  const refusal = readOnly || store.readOnly ? (readOnlyText ?? readOnlyMessage(store.file)) : null;
  return { store, readOnly: refusal, feed, scope };
}
