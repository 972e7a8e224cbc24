import { compareCodeUnits } from '../canonical-json.js';
import { filterClause, matchesLineage, sqlRunCount, type FilterSql, type WorkflowRunFilter } from '../run-filter.js';
import { createdAtOf, lowerBound, updatedAtOf, type IndexedRun, type OrderKey, type RunOrderIndex, type UpdatedRun } from './run-order-index.js';
import type { KeyColumns, RunColumns } from '../run-columns.js';
import { DEFAULT_RUN_ORDER, type KeyedRun, type LineageKey, type LineageSliceRequest, type RunKey, type RunSliceRequest } from '../run-slices.js';
import type { StoreContext } from '../store-context.js';

/**
 * The read queries of `run-queries.ts` answered through an in-process {@link RunOrderIndex},
 * for files without this server's lineage indexes: the index gives the
 * order (list, chain, newest of a chain, chain sizes) and the candidates of a page; SQL only
 * fetches the page's rows by primary key, adding the filter parts the index cannot answer
 * (statuses, session, workflow name). Each query refreshes the index and reads in one snapshot.
 */

/**
 * Candidates a filtered list looks at through the index, per row asked for, before it asks SQL
 * for the rest: a filter most runs pass ends within them; a rare one (a status few runs have)
 * is answered by SQL, which narrows it with pi-workflows' own indexes (`runs_status_idx`, …).
 */
const FILTER_CANDIDATES_PER_ROW = 4;

/**
 * The rows of `ids` that exist and pass `where`, by run id, in the given columns (the filter's
 * joins are added for a reading that does not join everything).
 */
function rowsById<Run>(context: StoreContext, ids: string[], where: FilterSql, columns: RunColumns<Run>): Map<string, KeyColumns> {
  const rows = context.database.all<KeyColumns>(
    `${columns.select(where.joins)} WHERE r.run_id IN (SELECT value FROM json_each(?))${where.sql.map((condition) => ` AND ${condition}`).join('')}`,
    JSON.stringify(ids),
    ...where.params,
  );
  return new Map(rows.map((row) => [row.run_id, row]));
}

/** What {@link takeRows} found. */
interface Taken<Key, Run> {
  runs: Array<KeyedRun<Key, Run>>;
  /** The key of the last candidate looked at (undefined when none was). */
  last: Key | undefined;
  /** True when every candidate was looked at. */
  exhausted: boolean;
}

/**
 * Walks `candidates` in order and keeps those whose row exists (and passes `where`), up to
 * `limit`, fetching them by primary key. Without a filter it walks until `limit` rows are found
 * (a candidate without a row means the index is behind a deletion: it is skipped and the index
 * rebuilt next time); with one it looks at no more than `budget` candidates, in one statement.
 * Without a filter, a reading the index answers alone (`columns.fromIndex`, run ids) reads no
 * row: refreshed in the caller's snapshot, the index holds exactly the runs that snapshot sees.
 */
function takeRows<Key, Run>(
  context: StoreContext,
  index: RunOrderIndex,
  candidates: Iterable<{ entry: IndexedRun; key: Key }>,
  limit: number,
  where: FilterSql,
  columns: RunColumns<Run>,
  budget = Number.POSITIVE_INFINITY,
): Taken<Key, Run> {
  const fromIndex = columns.fromIndex;
  if (where.sql.length === 0 && fromIndex !== undefined) {
    const runs: Array<KeyedRun<Key, Run>> = [];
    let last: Key | undefined;
    if (limit <= 0) return { runs, last, exhausted: false };
    for (const candidate of candidates) {
      runs.push({ run: fromIndex(candidate.entry), key: candidate.key });
      last = candidate.key;
      if (runs.length === limit) return { runs, last, exhausted: false };
    }
    return { runs, last, exhausted: true };
  }
  const taken: Array<{ row: KeyColumns; key: Key }> = [];
  const iterator = candidates[Symbol.iterator]();
  let last: Key | undefined;
  let seen = 0;
  let exhausted = false;
  while (taken.length < limit && !exhausted && seen < budget) {
    const chunk: Array<{ entry: IndexedRun; key: Key }> = [];
    const size = where.sql.length === 0 ? limit - taken.length : budget;
    while (chunk.length < size) {
      const next = iterator.next();
      if (next.done === true) {
        exhausted = true;
        break;
      }
      chunk.push(next.value);
    }
    if (chunk.length === 0) break;
    seen += chunk.length;
    const rows = rowsById(
      context,
      chunk.map((candidate) => candidate.entry.runId),
      where,
      columns,
    );
    for (const candidate of chunk) {
      if (taken.length === limit) break;
      last = candidate.key;
      const row = rows.get(candidate.entry.runId);
      if (row !== undefined) taken.push({ row, key: candidate.key });
      else if (where.sql.length === 0) index.markStale();
    }
  }
  const records = columns.toRuns(
    context,
    taken.map((item) => item.row),
  );
  return { runs: records.map((run, position) => ({ run, key: (taken[position] as { key: Key }).key })), last, exhausted };
}

/** The index within one read snapshot, brought up to date first. */
function withIndex<T>(context: StoreContext, index: RunOrderIndex, read: () => T): T {
  return context.database.readSnapshot(() => {
    index.refresh();
    return read();
  });
}

/**
 * Entries of `source` (ascending by (`atOf`, run id)) strictly between `above` and `below` and
 * within the time range `range` (exclusive bounds, epoch ms of the same field), walked down (or
 * up when `upward`).
 */
function* between<T extends { runId: string }>(
  source: readonly T[],
  atOf: (entry: T) => number,
  above: OrderKey | undefined,
  below: OrderKey | undefined,
  upward: boolean,
  range: { after?: number; before?: number } = {},
): Generator<T> {
  let lo = above === undefined ? 0 : lowerBound(source, above, false, atOf);
  let hi = below === undefined ? source.length : lowerBound(source, below, true, atOf);
  // Timestamps are integers: "> after" is ">= after + 1"; run id '' sorts before every id.
  if (range.after !== undefined) lo = Math.max(lo, lowerBound(source, { at: range.after + 1, runId: '' }, true, atOf));
  if (range.before !== undefined) hi = Math.min(hi, lowerBound(source, { at: range.before, runId: '' }, true, atOf));
  if (upward) for (let at = lo; at < hi; at += 1) yield source[at] as T;
  else for (let at = hi - 1; at >= lo; at -= 1) yield source[at] as T;
}

/** Whether an indexed run is within the filter's created range (exclusive bounds). */
function inCreatedRange(entry: IndexedRun, filter: WorkflowRunFilter | undefined): boolean {
  return (
    (filter?.createdAfter === undefined || entry.createdAt > filter.createdAfter) &&
    (filter?.createdBefore === undefined || entry.createdAt < filter.createdBefore)
  );
}

/**
 * `listWorkflowRunSlice` through the index, in any run order: CREATED_AT walks
 * the index's created order (or a chain), UPDATED_AT its updated order (see
 * {@link RunOrderIndex.updatedOrder}); the order's own time range bounds the walk, lineage and
 * the created range are checked in memory. A filter on statuses, session, workflow name,
 * search (or the updated range under CREATED_AT) looks at a few candidates per row through the
 * index, then continues in SQL after the last one it looked at (`sqlSlice`, the plain query).
 */
export function indexedRunSlice<Run>(
  context: StoreContext,
  index: RunOrderIndex,
  filter: WorkflowRunFilter | undefined,
  request: RunSliceRequest,
  limit: number,
  columns: RunColumns<Run>,
  sqlSlice: (request: RunSliceRequest) => Array<KeyedRun<RunKey, Run>>,
): Array<KeyedRun<RunKey, Run>> {
  const order = request.order ?? DEFAULT_RUN_ORDER;
  return withIndex(context, index, () => {
    // In list order `after` comes first: in the ascending arrays it is the upper bound of a
    // descending list and the lower bound of an ascending one.
    const descending = order.direction === 'desc';
    const above = descending ? request.before : request.after;
    const below = descending ? request.after : request.before;
    const upward = descending === request.inverted;
    function* candidates(): Generator<{ entry: IndexedRun; key: RunKey }> {
      if (order.field === 'created_at') {
        const source = filter?.rootRunId === undefined ? index.ordered() : index.chain(filter.rootRunId);
        const range = { after: filter?.createdAfter, before: filter?.createdBefore };
        for (const entry of between(source, createdAtOf, above, below, upward, range)) {
          if (matchesLineage(entry, filter)) yield { entry, key: { at: entry.createdAt, runId: entry.runId } };
        }
        return;
      }
      const source: readonly UpdatedRun[] =
        filter?.rootRunId === undefined
          ? index.updatedOrder()
          : index
              .chain(filter.rootRunId)
              .map((entry) => ({ updatedAt: index.updatedAt(entry.runId) ?? 0, runId: entry.runId, entry }))
              .sort((a, b) => (a.updatedAt !== b.updatedAt ? a.updatedAt - b.updatedAt : compareCodeUnits(a.runId, b.runId)));
      const range = { after: filter?.updatedAfter, before: filter?.updatedBefore };
      for (const { entry, updatedAt } of between(source, updatedAtOf, above, below, upward, range)) {
        if (matchesLineage(entry, filter) && inCreatedRange(entry, filter)) yield { entry, key: { at: updatedAt, runId: entry.runId } };
      }
    }
    const where = filterClause(filter, false, { createdRangeAnswered: true, updatedRangeAnswered: order.field === 'updated_at' });
    if (where.sql.length === 0) return takeRows(context, index, candidates(), limit, where, columns).runs;
    const taken = takeRows(context, index, candidates(), limit, where, columns, Math.max(1, limit) * FILTER_CANDIDATES_PER_ROW);
    if (taken.runs.length === limit || taken.exhausted || taken.last === undefined) return taken.runs;
    const rest = sqlSlice({ ...request, limit: limit - taken.runs.length, ...(request.inverted ? { before: taken.last } : { after: taken.last }) });
    return [...taken.runs, ...rest];
  });
}

/**
 * `countWorkflowRuns` through the index: lineage and the created range are counted in memory;
 * any other part (statuses, session, workflow name, search, updated range) counts in SQL.
 */
export function indexedRunCount(context: StoreContext, index: RunOrderIndex, filter: WorkflowRunFilter | undefined): number {
  const rest = filterClause(filter, false, { createdRangeAnswered: true });
  if (rest.sql.length > 0) return sqlRunCount(context, filterClause(filter));
  return withIndex(context, index, () => {
    const source = filter?.rootRunId === undefined ? index.ordered() : index.chain(filter.rootRunId);
    if (filter?.parentRunId === undefined && filter?.lineageKind === undefined && filter?.createdAfter === undefined && filter?.createdBefore === undefined) {
      return source.length;
    }
    let count = 0;
    for (const entry of source) if (matchesLineage(entry, filter) && inCreatedRange(entry, filter)) count += 1;
    return count;
  });
}

/** `latestRunIdsOfChains` through the index. */
export function indexedLatestRunIds(context: StoreContext, index: RunOrderIndex, rootRunIds: readonly string[]): string[] {
  return withIndex(context, index, () => rootRunIds.map((root) => index.chain(root).at(-1)?.runId ?? root));
}

/** `chainSizes` through the index. */
export function indexedChainSizes(context: StoreContext, index: RunOrderIndex, rootRunIds: readonly string[]): number[] {
  return withIndex(context, index, () => rootRunIds.map((root) => index.chain(root).length));
}

/** The run ids of a chain (root included) through the index. */
export function indexedChainRunIds(context: StoreContext, index: RunOrderIndex, rootRunId: string): string[] {
  return withIndex(context, index, () => index.chain(rootRunId).map((entry) => entry.runId));
}

/** `lineageSlice` through the index: the root, then the chain by (created_at, run id); reversed when inverted. */
export function indexedLineageSlice<Run>(
  context: StoreContext,
  index: RunOrderIndex,
  rootRunId: string,
  request: LineageSliceRequest,
  limit: number,
  columns: RunColumns<Run>,
): Array<KeyedRun<LineageKey, Run>> {
  return withIndex(context, index, () => {
    const { after, before } = request;
    const rootEntry = index.get(rootRunId);
    const root = rootEntry !== undefined && rootEntry.rootRunId === rootEntry.runId ? rootEntry : undefined;
    const rootInSlice = root !== undefined && after === undefined && !(before !== undefined && before.root);
    const tailInSlice = !(before !== undefined && before.root);
    const above = after === undefined || after.root ? undefined : after;
    const below = before === undefined || before.root ? undefined : before;
    const chain = index.chain(rootRunId);
    function* tail(): Generator<{ entry: IndexedRun; key: LineageKey }> {
      if (!tailInSlice) return;
      const lineageBound = (key: typeof above) => (key === undefined ? undefined : { at: key.createdAt, runId: key.runId });
      for (const entry of between(chain, createdAtOf, lineageBound(above), lineageBound(below), !request.inverted)) {
        if (entry.runId !== rootRunId) yield { entry, key: { root: false, createdAt: entry.createdAt, runId: entry.runId } };
      }
    }
    function* candidates(): Generator<{ entry: IndexedRun; key: LineageKey }> {
      const rootCandidate = { entry: root as IndexedRun, key: { root: true } as LineageKey };
      if (rootInSlice && !request.inverted) yield rootCandidate;
      yield* tail();
      if (rootInSlice && request.inverted) yield rootCandidate;
    }
    return takeRows(context, index, candidates(), limit, { sql: [], params: [], joins: [] }, columns).runs;
  });
}
