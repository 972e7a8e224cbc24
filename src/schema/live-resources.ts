/**
 * The resource identifiers `@live` queries are invalidated by (docs/GRAPHQL-CONTRACT.md "Queries may
 * carry `@live`"). `@n1ru4l/in-memory-live-query-store` records, while a live query executes,
 * which identifiers its result read; the server's invalidation (src/server/live/live-invalidation.ts)
 * names the identifiers a committed change touches. Both sides build them here.
 *
 * What a live query records:
 * - `Query.<field>` for every root field it selects (the store does this itself);
 * - `Query.workflowRun(runId:"<runId>")` (the store's `indexBy`, {@link LIVE_QUERY_INDEXES});
 * - `Query.node(id:"<global id>")` (the store does this for `id: ID` arguments);
 * - `WorkflowRun:<global id>` for every run whose `id` it selects (the store's default);
 * - `WorkflowRunChain:<rootRunId>` for every lineage field it resolves (parent, rootRun,
 *   children, continuation, restart, latestRun, lineage): {@link chainResourceExtensions}.
 */
import { encodeGlobalID } from '@pothos/plugin-relay';

/** Identifier of one run: `WorkflowRun:<global id>` (the store's `<typename>:<id field>`). */
export function runResourceIdentifier(runId: string): string {
  return `WorkflowRun:${encodeGlobalID('WorkflowRun', runId)}`;
}

/** Identifier of a chain (every run sharing `rootRunId`): `WorkflowRunChain:<rootRunId>`. */
export function chainResourceIdentifier(rootRunId: string): string {
  return `WorkflowRunChain:${rootRunId}`;
}

/** Identifier of `Query.workflowRun(runId:)` for one run id, as the store's `indexBy` builds it. */
export function workflowRunFieldIdentifier(runId: string): string {
  return `Query.workflowRun(runId:"${runId}")`;
}

/** Identifier of `Query.node(id:)` for one run, as the store builds it for `id: ID` arguments. */
export function nodeFieldIdentifier(runId: string): string {
  return `Query.node(id:"${encodeGlobalID('WorkflowRun', runId)}")`;
}

/** Identifier of the run list, `Query.workflowRuns` (any argument). */
export const RUN_LIST_IDENTIFIER = 'Query.workflowRuns';

/** Identifier of the run-list counts, `Query.workflowRunCounts` (any filter). */
export const RUN_COUNTS_IDENTIFIER = 'Query.workflowRunCounts';

/** The store's `indexBy`: `Query.workflowRun` is recorded with its `runId`. */
export const LIVE_QUERY_INDEXES = [{ field: 'Query.workflowRun', args: ['runId'] }];

/**
 * Field extensions of the lineage fields of `WorkflowRun`: resolving one records the chain of
 * the run it is read on, so a run joining or changing in that chain re-executes the query.
 */
export const chainResourceExtensions = {
  liveQuery: { collectResourceIdentifiers: (run: { rootRunId: string }) => chainResourceIdentifier(run.rootRunId) },
};
