import type { WorkflowStore } from '../store/index.js';
import type { ChangeFeed } from '../delivery/index.js';

/*
 * The GraphQL context's types, apart from `context.ts` (which builds it) so that `errors.ts`
 * can name them without importing the module that imports it.
 */

/**
 * What the caller's credential may do: `metadata` (queries and subscriptions without the content
 * of runs: prompts, outputs, payloads, the conversation answer null with a FORBIDDEN error),
 * `read` (queries, subscriptions) or `write` (everything). The server decides it from the bearer
 * token (src/server/http/auth.ts; docs/OPERATIONS.md "Security").
 */
export type Scope = 'metadata' | 'read' | 'write';

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
  /** The caller's scope: with `read` every mutation answers ForbiddenError. */
  scope: Scope;
  /** Wakes subscriptions when the delta log may have changed. */
  feed: ChangeFeed;
}
