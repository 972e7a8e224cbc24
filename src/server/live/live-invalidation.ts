/**
 * What a committed change invalidates among the `@live` queries: the one mapping
 * from the change feed to the live-query store's resource identifiers
 * (src/schema/live-resources.ts builds both sides). One consumer of the feed per server, running
 * while at least one live query does (live-queries.ts starts and stops it).
 *
 * For each changed run (created, claimed, parked, settled, restarted, a viewer revision, in this
 * process or another one): `WorkflowRun:<global id>`, `Query.workflowRun(runId:"<runId>")`,
 * `Query.node(id:"<global id>")`, `WorkflowRunChain:<rootRunId>` (the lineage fields of every run
 * of its chain), the run list `Query.workflowRuns` and its counts `Query.workflowRunCounts`. A change the source cannot name
 * (`'unknown'`) invalidates every root field of `Query`, i.e. every live query.
 */
import type { ChangeFeed } from '../../delivery/index.js';
import {
  chainResourceIdentifier,
  nodeFieldIdentifier,
  RUN_COUNTS_IDENTIFIER,
  RUN_LIST_IDENTIFIER,
  runResourceIdentifier,
  workflowRunFieldIdentifier,
} from '../../schema/live-resources.js';
import type { Logger } from 'pino';

/** A run that changed, as the invalidation needs it. */
export interface RunChange {
  runId: string;
  rootRunId: string;
}

/** Runs that changed in one or more commits, or `'unknown'`: something changed, which runs is not known. */
export type RunChangeBatch = readonly RunChange[] | 'unknown';

/**
 * A stream of committed changes, live only (from the call on), that ends when `signal` aborts
 * or the feed closes.
 */
export type RunChangeSource = (signal: AbortSignal) => AsyncIterable<RunChangeBatch>;

/** What {@link startLiveInvalidation} invalidates: the live-query store's `invalidate`. */
export interface Invalidatable {
  invalidate(identifiers: string[]): unknown;
}

/**
 * The store's run-change feed as the invalidation's source: `ChangeFeed.followRunChanges` with
 * no filter and a null cursor (live only, from the call on; every run created or changed, in
 * commit order, commits by other processes included). A `reset_required` event
 * (not expected on a live-only stream) invalidates everything.
 *
 * @returns a source over `feed`
 */
export function feedRunChanges(feed: ChangeFeed): RunChangeSource {
  return async function* runChanges(signal: AbortSignal): AsyncGenerator<RunChangeBatch> {
    for await (const event of feed.followRunChanges(undefined, null, { signal })) {
      yield event.kind === 'change' ? [{ runId: event.run.runId, rootRunId: event.run.rootRunId }] : 'unknown';
    }
  };
}

/**
 * The resource identifiers a batch of changes invalidates (see the module comment).
 *
 * @param queryFields every root field name of `Query` (for `'unknown'`)
 * @returns identifiers, without duplicates
 */
export function identifiersOf(batch: RunChangeBatch, queryFields: readonly string[]): string[] {
  if (batch === 'unknown') return queryFields.map((field) => `Query.${field}`);
  const identifiers = new Set<string>([RUN_LIST_IDENTIFIER, RUN_COUNTS_IDENTIFIER]);
  for (const change of batch) {
    identifiers.add(runResourceIdentifier(change.runId));
    identifiers.add(workflowRunFieldIdentifier(change.runId));
    identifiers.add(nodeFieldIdentifier(change.runId));
    identifiers.add(chainResourceIdentifier(change.rootRunId));
  }
  return [...identifiers];
}

/**
 * Consumes `source` and invalidates what each batch touches in `store`; batches that arrive in
 * the same turn of the event loop are invalidated together.
 *
 * @returns stops the consumer (idempotent)
 */
export function startLiveInvalidation(source: RunChangeSource, store: Invalidatable, queryFields: readonly string[], logger: Logger): () => void {
  const abort = new AbortController();
  let pending: Set<string> | undefined;
  const flush = (): void => {
    const identifiers = pending;
    pending = undefined;
    if (identifiers !== undefined && !abort.signal.aborted) void store.invalidate([...identifiers]);
  };
  void (async () => {
    try {
      for await (const batch of source(abort.signal)) {
        if (abort.signal.aborted) return;
        if (pending === undefined) {
          pending = new Set();
          setImmediate(flush);
        }
        for (const identifier of identifiersOf(batch, queryFields)) pending.add(identifier);
      }
    } catch (error) {
      logger.error({ err: error }, 'live queries: the change feed failed; live queries are no longer invalidated');
    }
  })();
  return () => abort.abort();
}
