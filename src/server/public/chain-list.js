// @ts-check
/**
 * The chain list: pages of `workflowRuns` ("load more" reaches every run), filtered, grouped by
 * chain, kept fresh by the run-list change feed `workflowRunChanges` (merged by
 * /app/run-list.js); no polling. Follow mode picks the chain to show from it.
 */
import { subscribe } from '/app/connection.js';
import { $, $input, badge, el, showError, staleBadge } from '/app/dom.js';
import { gql, isSuperseded } from '/app/graphql-http.js';
import { failureText } from '/app/failure-text.js';
import { refreshTree, selectChain } from '/app/chain-tree.js';
import { selectRun } from '/app/run-panel.js';
import { chainsOf, graphqlFilter, mergeChange, mergePage } from '/app/run-list.js';
import { scheduleStaleRender } from '/app/stale-timer.js';
import { ACTIVE_QUEUE, state } from '/app/state.js';

/** Runs per page of the chain list (the server allows 0 … 100). */
const PAGE_SIZE = 50;

/**
 * @typedef {import('/app/state.js').ListRun} ListRun
 * @typedef {import('/app/state.js').ListFeed} ListFeed
 * @typedef {import('../../../schema/generated/graphql.js').LivePageRunsQuery} LivePageRunsQuery
 * @typedef {import('../../../schema/generated/graphql.js').LivePageRunChangesSubscription} LivePageRunChangesSubscription
 */

/**
 * Keeps the newest state seen of each chain's latest run and size.
 *
 * @param {ListRun} run
 */
function noteChain(run) {
  const root = run.rootRun;
  if (!root?.latestRun) return;
  const known = state.list.chains.get(run.rootRunId);
  const newer = known === undefined || Date.parse(root.latestRun.updatedAt) >= Date.parse(known.latestRun.updatedAt);
  if (newer) state.list.chains.set(run.rootRunId, { latestRun: root.latestRun, runs: Math.max(root.lineage.totalCount, known?.runs ?? 0) });
}

/** @returns {import('/app/run-list.js').ListFilter} the filter the form says */
function readFilter() {
  /** @param {string} id */
  const value = (id) => $input(id).value.trim();
  /** @param {string} id */
  const isoOf = (id) => (value(id) === '' ? null : new Date(value(id)).toISOString());
  return {
    statuses: value('filter-status') === '' ? [] : [value('filter-status')],
    workflowName: value('filter-workflow') === '' ? null : value('filter-workflow'),
    createdAfter: isoOf('filter-from'),
    createdBefore: isoOf('filter-to'),
    search: value('filter-search') === '' ? null : value('filter-search'),
  };
}

/**
 * Starts the list over: the first page with `changeCursor` (the feed's position read before
 * its rows), then the change feed from that position (docs/PROTOCOL.md "A list and its feed"):
 * a change committed in between is replayed, none is missed, and nothing waits for the socket.
 */
export async function reloadList() {
  const list = state.list;
  list.generation += 1;
  const generation = list.generation;
  list.filter = readFilter();
  const [field, direction] = $input('order').value.split(' ');
  list.order = /** @type {import('/app/run-list.js').ListOrder} */ ({ field, direction });
  list.runs = [];
  list.loaded = false;
  list.feed?.unsubscribe?.();
  list.feed = null;
  renderChains();
  await loadPage(generation, null);
}

/**
 * Loads the page after `after` (null: the first page) and merges it into the list.
 *
 * @param {number} generation the list's generation it is for (a newer one drops it)
 * @param {string | null} after
 * @param {{ merge?: boolean }} [options] `merge`: keep the runs listed (default: for a next page)
 */
export async function loadPage(generation, after, { merge = after !== null } = {}) {
  const list = state.list;
  const more = /** @type {HTMLButtonElement} */ ($('chains-more'));
  more.disabled = true;
  try {
    const variables = { first: PAGE_SIZE, after, filter: graphqlFilter(list.filter), orderBy: list.order };
    /** @type {LivePageRunsQuery} */
    const data = await gql('LivePageRuns', variables, { isCurrent: () => generation === list.generation });
    if (generation !== list.generation) return;
    const page = data.workflowRuns;
    const nodes = page.edges.map((edge) => edge.node);
    nodes.forEach(noteChain);
    list.runs = mergePage(merge ? list.runs : [], nodes, list.order);
    list.totalCount = page.totalCount;
    if (after !== null || !merge) {
      list.endCursor = page.pageInfo.endCursor;
      list.hasNextPage = page.pageInfo.hasNextPage;
    }
    list.loaded = true;
    list.failed = false;
    const feed = list.feed;
    if (after === null && feed === null) {
      // The feed from the page's position: a run of the page that changed since may come again
      // (same or newer state: a no-op or an update, run-list.js).
      startListFeed(page.changeCursor);
    } else if (feed !== null && !feed.ready) {
      // After a reset: changes that arrived while the page was on its way, newer states win.
      feed.ready = true;
      for (const run of feed.buffer.splice(0)) applyRunChange(run, { render: false });
    }
    renderChains();
    showError('');
    if (state.follow) follow();
  } catch (error) {
    if (isSuperseded(error)) return;
    if (generation === list.generation && after === null) list.failed = true;
    showError(`Could not load runs: ${failureText(error)}`);
  } finally {
    more.disabled = false;
  }
}

/**
 * After a reconnect the client subscribes again with the feed's variables, whose `after` is the
 * last cursor the page has (the first page's changeCursor, or the last event's): the server
 * replays what changed meanwhile, so nothing is read again. Only a first page that could not be
 * read at all is read now (a read that found no server is still being retried: it goes now).
 */
export function onReconnected() {
  if (state.list.failed) void loadPage(state.list.generation, null);
  // A chain whose first read failed has no feed yet: read it again (it subscribes then).
  if (state.chain !== null && state.chain.unsubscribe === null) void refreshTree({ selectRunId: null, selectLatest: false, historyMode: 'replace' });
}

/**
 * The run-list change feed from `after` (the first page's changeCursor), resumed
 * from its last cursor after a reconnect.
 *
 * @param {string} after
 */
function startListFeed(after) {
  const list = state.list;
  list.feed?.unsubscribe?.();
  // The whole filter: the server also delivers a run that left it (status), so it leaves the list.
  /** @type {ListFeed} */
  const feed = { variables: { filter: graphqlFilter(list.filter), after }, buffer: [], ready: true, unsubscribe: null };
  list.feed = feed;
  feed.unsubscribe = subscribe('LivePageRunChanges', feed.variables, {
    next: (result) => onRunChange(feed, result),
    error: (error) => showError(`Run list subscription: ${error.message}`),
  });
}

/**
 * One event of the run-list change feed: a changed run, or a reset (re-read the list).
 *
 * @param {ListFeed} feed
 * @param {import('/app/connection.js').SubscriptionResult<LivePageRunChangesSubscription>} result
 */
function onRunChange(feed, result) {
  if (state.list.feed !== feed) return;
  const event = /** @type {LivePageRunChangesSubscription} */ (result.data).workflowRunChanges;
  feed.variables.after = event.cursor;
  if (event.__typename === 'WorkflowRunChangesResetRequired') {
    // Too far behind to replay: re-query the list, then continue from the event's cursor.
    feed.buffer = [];
    feed.ready = false;
    state.list.generation += 1;
    void loadPage(state.list.generation, null);
    return;
  }
  const run = /** @type {ListRun} */ (event.run);
  if (!feed.ready) feed.buffer.push(run);
  else applyRunChange(run, { render: true });
}

/**
 * Merges one changed run into the list.
 *
 * @param {ListRun} run
 * @param {{ render: boolean }} options `render`: draw the list (and follow) when it changed
 */
function applyRunChange(run, { render }) {
  const list = state.list;
  noteChain(run);
  const merged = mergeChange(list.runs, run, { filter: list.filter, order: list.order, complete: !list.hasNextPage });
  list.runs = merged.runs;
  if (merged.change === 'added') list.totalCount += 1;
  if (merged.change === 'removed' && !list.runs.some((other) => other.runId === run.runId)) list.totalCount = Math.max(list.runs.length, list.totalCount - 1);
  if (!render || merged.change === 'unchanged' || merged.change === 'ignored') return;
  renderChains();
  if (state.follow) follow();
}

/** Draws the chain list (keyed: an unchanged entry keeps its element). */
export function renderChains() {
  const list = state.list;
  const chains = chainsOf(list.runs);
  const filtered = graphqlFilter(list.filter) !== null;
  // Every page loaded: the list is every matching run (the feed adds the new ones). Before that,
  // the last page's totalCount, moved by the changes since.
  const total = list.hasNextPage ? Math.max(list.totalCount, list.runs.length) : list.runs.length;
  $('chains-empty').hidden = chains.length > 0 || !list.loaded;
  $('chains-empty').textContent = filtered
    ? 'No run matches the filter.'
    : 'No runs yet. For a demo with live runs: npm run demo, then open http://127.0.0.1:4100/ (or reserve a run with a mutation in GraphiQL)';
  $('chains-count').textContent = list.loaded ? `${chains.length} chain${chains.length === 1 ? '' : 's'} · ${list.runs.length} of ${total} runs loaded` : '';
  $('chains-more').hidden = !list.hasNextPage;
  const names = new Set(list.runs.map((run) => run.workflowName));
  $('workflow-names').replaceChildren(...[...names].sort().map((name) => el('option', { value: name })));
  // Keyed update: an entry whose content did not change stays the same element, so a click
  // or hover on it is not lost while the feed reports other runs.
  const existing = new Map([...$('chains').children].map((node) => [/** @type {HTMLElement} */ (node).dataset.root, /** @type {HTMLElement} */ (node)]));
  const nodes = chains.map(({ rootRunId, run, listed }) => {
    const root = run.rootRun;
    const known = list.chains.get(rootRunId);
    const latest = known?.latestRun ?? root.latestRun;
    const size = known?.runs ?? root.lineage.totalCount;
    const stale = staleBadge(latest) ?? staleBadge(run);
    const current = state.chain?.rootRunId === rootRunId ? 'true' : 'false';
    const meta = `${rootRunId} · ${size} run${size === 1 ? '' : 's'} · latest ${latest.runId}${filtered ? ` · ${listed} matching` : ''}`;
    const signature = JSON.stringify([root.workflowName, latest.status, stale?.title ?? null, current, meta]);
    const old = existing.get(rootRunId);
    if (old !== undefined && old.dataset.signature === signature) return old;
    return el(
      'li',
      {
        class: 'chain',
        dataset: { root: rootRunId, latest: latest.runId, status: latest.status, stale: String(stale !== null), signature },
        'aria-current': current,
      },
      el(
        'button',
        { type: 'button', onclick: () => selectChain(rootRunId, { byUser: true }) },
        el('span', { class: 'name' }, root.workflowName),
        el('span', { class: 'badges' }, stale, badge(latest.status)),
        el('span', { class: 'meta mono' }, meta),
      ),
    );
  });
  const container = $('chains');
  nodes.forEach((node, index) => {
    if (container.children[index] !== node) container.insertBefore(node, container.children[index] ?? null);
  });
  while (container.children.length > nodes.length) container.lastElementChild?.remove();
  scheduleStaleRender();
}

/** Follow mode: stay on an active run; else move to the newest active run of any chain. */
export function follow() {
  const chains = chainsOf(state.list.runs).map(({ rootRunId, run }) => ({
    rootRunId,
    latest: state.list.chains.get(rootRunId)?.latestRun ?? run.rootRun.latestRun,
  }));
  const current = chains.find((chain) => chain.rootRunId === state.chain?.rootRunId);
  if (current !== undefined && ACTIVE_QUEUE.has(current.latest.queueStatus)) {
    if (state.run?.runId !== current.latest.runId) selectRun(current.latest.runId);
    return;
  }
  const active = chains.filter((chain) => ACTIVE_QUEUE.has(chain.latest.queueStatus)).sort((a, b) => b.latest.updatedAt.localeCompare(a.latest.updatedAt))[0];
  const target = active ?? (state.chain === null ? chains[0] : undefined);
  if (target !== undefined && target.rootRunId !== state.chain?.rootRunId) void selectChain(target.rootRunId);
}
