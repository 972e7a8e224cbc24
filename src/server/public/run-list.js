// @ts-check
/**
 * The page's run list: pages of `workflowRuns` merged with the run-list change
 * feed. Pure functions over plain arrays; the page keeps the list in one order and one filter.
 *
 * - A change event carries a run in its latest state; the list keeps, for each run id, the
 *   newest state it has seen (by `updatedAt`, then `presentationRevision`), so a page that
 *   arrives after an event never moves a run backwards, and an event repeating a state the list
 *   holds (the feed replays from the page's `changeCursor`) is a no-op.
 * - The filter is matched here too: the feed also delivers a run that left the filter (its
 *   status changed), and such a run leaves the list.
 * - A run that sorts after the last loaded run while more pages exist is not inserted: the next
 *   page brings it (no hole, no duplicate).
 */

/**
 * @typedef {{ runId: string, rootRunId: string, workflowName: string, status: string,
 *   createdAt: string, updatedAt: string, presentationRevision: number }} ListRun
 * @typedef {{ statuses: string[], workflowName: string | null, createdAfter: string | null,
 *   createdBefore: string | null, search: string | null }} ListFilter
 * @typedef {{ field: 'CREATED_AT' | 'UPDATED_AT', direction: 'ASC' | 'DESC' }} ListOrder
 */

/** Newest created first: the server's default order. */
export const DEFAULT_ORDER = Object.freeze(/** @type {ListOrder} */ ({ field: 'CREATED_AT', direction: 'DESC' }));

/** @returns {ListFilter} a filter matching every run */
export function emptyFilter() {
  return { statuses: [], workflowName: null, createdAfter: null, createdBefore: null, search: null };
}

/**
 * Lower-cases A-Z only, as the server's `search` does (API: "ignoring ASCII case").
 *
 * @param {string} text
 * @returns {string}
 */
function asciiLower(text) {
  return text.replace(/[A-Z]/g, (char) => char.toLowerCase());
}

/**
 * Whether a run matches the filter, as the server's `WorkflowRunFilter` does: every given
 * part must hold; `createdAfter`/`createdBefore` are exclusive bounds (ISO; "strictly
 * after/before"); `search` is a substring of `runId` or `workflowName` ignoring ASCII case.
 *
 * @param {ListRun} run
 * @param {ListFilter} filter
 * @returns {boolean}
 */
export function matchesFilter(run, filter) {
  if (filter.statuses.length > 0 && !filter.statuses.includes(run.status)) return false;
  if (filter.workflowName !== null && run.workflowName !== filter.workflowName) return false;
  const created = Date.parse(run.createdAt);
  if (filter.createdAfter !== null && !(created > Date.parse(filter.createdAfter))) return false;
  if (filter.createdBefore !== null && !(created < Date.parse(filter.createdBefore))) return false;
  if (filter.search !== null && filter.search !== '') {
    const needle = asciiLower(filter.search);
    if (!asciiLower(run.runId).includes(needle) && !asciiLower(run.workflowName).includes(needle)) return false;
  }
  return true;
}

/**
 * The `WorkflowRunFilter` variables of the filter (the list query's and the change feed's).
 *
 * @param {ListFilter} filter
 * @returns {Record<string, unknown> | null} null when nothing is filtered
 */
export function graphqlFilter(filter) {
  /** @type {Record<string, unknown>} */
  const out = {};
  if (filter.statuses.length > 0) out.status = filter.statuses;
  if (filter.workflowName !== null) out.workflowName = filter.workflowName;
  if (filter.createdAfter !== null) out.createdAfter = filter.createdAfter;
  if (filter.createdBefore !== null) out.createdBefore = filter.createdBefore;
  if (filter.search !== null && filter.search !== '') out.search = filter.search;
  return Object.keys(out).length === 0 ? null : out;
}

/**
 * Sort order of two runs: negative when `a` comes first. Ties on the timestamp go by run id
 * in the same direction.
 *
 * @param {ListRun} a
 * @param {ListRun} b
 * @param {ListOrder} order
 * @returns {number}
 */
export function compareRuns(a, b, order) {
  const key = order.field === 'UPDATED_AT' ? 'updatedAt' : 'createdAt';
  const difference = Date.parse(a[key]) - Date.parse(b[key]) || (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0);
  return order.direction === 'ASC' ? difference : -difference;
}

/**
 * Whether `incoming` is at least as new as `current` (same run): later `updatedAt`, or the
 * same with a presentation revision not lower.
 *
 * @param {ListRun} current
 * @param {ListRun} incoming
 * @returns {boolean}
 */
export function isNotOlder(current, incoming) {
  const difference = Date.parse(incoming.updatedAt) - Date.parse(current.updatedAt);
  if (difference !== 0) return difference > 0;
  return incoming.presentationRevision >= current.presentationRevision;
}

/**
 * Inserts a run at its sorted place (the list is sorted by `order`).
 *
 * @template {ListRun} R
 * @param {R[]} list
 * @param {R} run
 * @param {ListOrder} order
 * @returns {R[]}
 */
function insertSorted(list, run, order) {
  const index = list.findIndex((other) => compareRuns(run, other, order) < 0);
  return index === -1 ? [...list, run] : [...list.slice(0, index), run, ...list.slice(index)];
}

/**
 * Merges one change event's run into the list.
 *
 * @template {ListRun} R
 * @param {R[]} list sorted by `order`
 * @param {R} run the run in its latest state
 * @param {{ filter: ListFilter, order: ListOrder, complete: boolean }} view `complete`: every
 *   page is loaded (no next page)
 * @returns {{ runs: R[], change: 'added' | 'updated' | 'removed' | 'unchanged' | 'ignored' }} the
 *   new list (`list` itself when unchanged or ignored) and what happened: `unchanged` for the
 *   state the list already holds (same `updatedAt` and `presentationRevision`), `ignored` for an
 *   older one or a run the list does not take
 */
export function mergeChange(list, run, { filter, order, complete }) {
  const index = list.findIndex((other) => other.runId === run.runId);
  const current = index === -1 ? undefined : list[index];
  if (current !== undefined && !isNotOlder(current, run)) return { runs: list, change: 'ignored' };
  // The state the list holds, again (a feed resumed from a page's changeCursor replays a run the
  // page already shows): nothing changes.
  if (current !== undefined && isNotOlder(run, current)) return { runs: list, change: 'unchanged' };
  const without = index === -1 ? list : [...list.slice(0, index), ...list.slice(index + 1)];
  const last = without[without.length - 1];
  const outsideWindow = !complete && last !== undefined && compareRuns(run, last, order) > 0;
  if (!matchesFilter(run, filter) || outsideWindow) {
    return current === undefined ? { runs: list, change: 'ignored' } : { runs: without, change: 'removed' };
  }
  return { runs: insertSorted(without, run, order), change: current === undefined ? 'added' : 'updated' };
}

/**
 * Merges a page of the list query: runs already listed keep their newer state; the result is
 * sorted by `order`.
 *
 * @template {ListRun} R
 * @param {R[]} list
 * @param {R[]} page
 * @param {ListOrder} order
 * @returns {R[]}
 */
export function mergePage(list, page, order) {
  const byId = new Map(list.map((run) => [run.runId, run]));
  for (const run of page) {
    const current = byId.get(run.runId);
    if (current === undefined || isNotOlder(current, run)) byId.set(run.runId, run);
  }
  return [...byId.values()].sort((a, b) => compareRuns(a, b, order));
}

/**
 * The chains of the listed runs, in list order: each chain once, with its first listed run
 * and how many of its runs are listed.
 *
 * @template {ListRun} R
 * @param {R[]} runs
 * @returns {Array<{ rootRunId: string, run: R, listed: number }>}
 */
export function chainsOf(runs) {
  /** @type {Map<string, { rootRunId: string, run: R, listed: number }>} */
  const chains = new Map();
  for (const run of runs) {
    const chain = chains.get(run.rootRunId);
    if (chain === undefined) chains.set(run.rootRunId, { rootRunId: run.rootRunId, run, listed: 1 });
    else chain.listed += 1;
  }
  return [...chains.values()];
}
