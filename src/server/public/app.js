// The live lineage page: plain browser JavaScript, no framework, no CDN, no build step.
//
// - Operations: schema/operations/live-page.graphql (validated and linted with the other
//   client operations), split per operation by the server and loaded by /app/operations.js.
// - Chains: pages of `workflowRuns` ("load more" reaches every run), filtered, grouped by
//   chain, kept fresh by the run-list change feed `workflowRunChanges` (merged by
//   /app/run-list.js); no polling.
// - A chain's tree: the root's `lineage` (every page), reloaded on each change the feed
//   `workflowRunChanges(filter: {rootRunId})` reports.
// - A run: its record (`workflowRunUpdated`), its GRAPH view rebuilt from the viewer deltas
//   (/app/graph-view.js) and its live delta feed (`workflowRunDeltas` with a resume cursor);
//   bookkeeping revisions (record bumps, /app/bookkeeping.js) hidden unless asked.
// - Stale marks (/app/stale.js): a STARTING or RUNNING run without a live claim.
// - The selected run is in the URL: /#run=<runId> (/app/url-hash.js); back and forward work.
//
// Subscriptions go over the `graphql-ws` package's own browser client, which the server serves
// from its node_modules at /app/vendor/graphql-ws/. The client sends every active subscription
// again after a reconnect, with its payload as it is then: the subscriptions' variables carry
// the current cursors, so the streams resume after the last event applied (docs/PROTOCOL.md
// "Reconnect recipe").
//
// Token: when the server runs with --token, open the page as /?token=<token> (kept in
// sessionStorage, removed from the address bar).

import { createClient } from '/app/vendor/graphql-ws/client.js';
import { isBookkeeping, ownOps } from '/app/bookkeeping.js';
import { applyGraphBatch, emptyGraph } from '/app/graph-view.js';
import { loadOperations } from '/app/operations.js';
import { chainsOf, DEFAULT_ORDER, emptyFilter, graphqlFilter, mergeChange, mergePage } from '/app/run-list.js';
import { nextStaleAt, staleReason } from '/app/stale.js';
import { hashWithRun, parseHash } from '/app/url-hash.js';

const params = new URLSearchParams(location.search);
if (params.has('token')) {
  sessionStorage.setItem('pi-workflows-token', params.get('token') ?? '');
  params.delete('token');
  history.replaceState(null, '', `${location.pathname}${params.size > 0 ? `?${params}` : ''}${location.hash}`);
}
const TOKEN = sessionStorage.getItem('pi-workflows-token') || null;
const HTTP_URL = `${location.origin}/graphql`;
const WS_URL = `${location.origin.replace(/^http/, 'ws')}/graphql`;
const OPERATIONS_URL = '/app/operations/live-page.json';
/** Runs per page of the chain list (the server allows 0 … 100). */
const PAGE_SIZE = 50;
const FEED_LIMIT = 300;
/** Revisions replayed when a run is opened: the whole retained window (docs/STORE-RULES.md §8: 256), so the graph view is complete. */
const REPLAY_REVISIONS = 255;

const $ = (id) => document.getElementById(id);

function showError(message) {
  const box = $('error');
  box.textContent = message;
  box.hidden = message === '';
}

// ---- operations ----------------------------------------------------------------------------

let OPS = {};
try {
  OPS = await loadOperations(async (url) => {
    const response = await fetch(url, { headers: { accept: 'application/json' } });
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
    return response.text();
  }, OPERATIONS_URL);
} catch (error) {
  showError(`Could not load the page's operations: ${error.message}`);
}

// ---- GraphQL over HTTP ---------------------------------------------------------------------

async function gql(operationName, variables = {}) {
  const headers = { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' };
  if (TOKEN) headers.authorization = `Bearer ${TOKEN}`;
  const response = await fetch(HTTP_URL, { method: 'POST', headers, body: JSON.stringify({ query: OPS[operationName], operationName, variables }) });
  const body = await response.json().catch(() => ({}));
  if (!response.ok || body.errors) {
    const message = body.errors?.map((error) => error.message).join('; ') || `HTTP ${response.status}`;
    throw new Error(message);
  }
  return body.data;
}

// ---- graphql-ws ----------------------------------------------------------------------------

/** The page pings after this long and gives the server as long again to answer. */
const KEEP_ALIVE_MS = 15_000;

/** What went wrong, from an Error, a list of GraphQL errors or a close event. */
function errorText(error) {
  if (Array.isArray(error)) return error.map((item) => item.message).join('; ');
  if (typeof error?.code === 'number' && 'reason' in error) return `connection closed (code ${error.code}${error.reason ? `: ${error.reason}` : ''})`;
  return error?.message ?? String(error);
}

const connection = { reconnects: 0, everConnected: false, socket: null, pongTimer: null, lastClose: '' };

function showConnection(name, detail = '') {
  const conn = $('conn');
  conn.dataset.state = name;
  conn.dataset.reconnects = String(connection.reconnects);
  const reconnected = connection.reconnects > 0 ? ` (reconnected ×${connection.reconnects})` : '';
  conn.textContent = name === 'live' ? `● live${reconnected}` : name === 'disconnected' ? `○ disconnected — ${detail}` : 'connecting…';
}

const client = createClient({
  url: WS_URL,
  connectionParams: TOKEN ? { authorization: `Bearer ${TOKEN}` } : {},
  // Connected from the start (the badge shows the server's state), and never giving up:
  // 0.5 s, 1 s, 2 s … at most 8 s between attempts, from 0.5 s again once connected.
  lazy: false,
  retryAttempts: Infinity,
  retryWait: async (retries) => {
    const delayMs = Math.min(500 * 2 ** retries, 8000);
    showConnection('disconnected', `${connection.lastClose}; retrying in ${(delayMs / 1000).toFixed(1)} s`);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
  },
  // A server that stops answering pings is treated as gone (graphql-ws's pong-timeout recipe).
  keepAlive: KEEP_ALIVE_MS,
  onNonLazyError: (error) => showConnection('disconnected', `${errorText(error)}; reload the page`),
  on: {
    connecting: () => showConnection('connecting'),
    connected: (socket) => {
      connection.socket = socket;
      const reconnected = connection.everConnected;
      if (reconnected) connection.reconnects += 1;
      connection.everConnected = true;
      showConnection('live');
      if (reconnected) onReconnected();
    },
    closed: (event) => {
      connection.socket = null;
      clearTimeout(connection.pongTimer);
      connection.lastClose = event?.code === 4403 ? 'forbidden: open the page with ?token=…' : `code ${event?.code}`;
      showConnection('disconnected', connection.lastClose);
    },
    ping: (received) => {
      if (received) return;
      clearTimeout(connection.pongTimer);
      connection.pongTimer = setTimeout(() => {
        if (connection.socket?.readyState === WebSocket.OPEN) connection.socket.close(4408, 'Keep-alive timeout');
      }, KEEP_ALIVE_MS);
    },
    pong: (received) => {
      if (received) clearTimeout(connection.pongTimer);
    },
  },
});

/**
 * Subscribes to the page operation `operationName` with `variables`; the client sends the
 * payload again as it is then after every reconnect, so keep `variables` (the same object)
 * current. Returns the unsubscribe function.
 */
function subscribe(operationName, variables, { next, error }) {
  return client.subscribe(
    { query: OPS[operationName], operationName, variables },
    { next, error: (reason) => error(new Error(errorText(reason))), complete: () => {} },
  );
}

// ---- state ---------------------------------------------------------------------------------

const ACTIVE_QUEUE = new Set(['QUEUED', 'STARTING', 'RUNNING', 'PARKED']);

const state = {
  follow: true,
  list: {
    filter: emptyFilter(),
    order: DEFAULT_ORDER,
    runs: [],
    totalCount: 0,
    endCursor: null,
    hasNextPage: false,
    loaded: false,
    generation: 0,
    feed: null, // { variables, buffer, ready, unsubscribe }: started from the first page's changeCursor
    /** The first page could not be read (server unreachable): read it again on the next connect. */
    failed: false,
    /** rootRunId → { latestRun, runs } of the newest state seen of each chain. */
    chains: new Map(),
  },
  chain: null, // { rootRunId, unsubscribe (null until its first lineage page was read), refreshTimer, nodes }
  run: null, // { runId, cursor, initialRevision, unsubscribers, record, view, graph }
  stats: { live: 0, gaps: 0, duplicates: 0, bookkeeping: 0 },
  showBookkeeping: false,
  staleTimer: null,
  /** Epoch ms the stale timer is armed for. */
  staleAt: null,
};

// ---- small DOM helpers ---------------------------------------------------------------------

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const badge = (status, prefix = '') => el('span', { class: `badge s-${status}` }, `${prefix}${status}`);

/** The stale mark of a run, or null (see /app/stale.js). */
function staleBadge(run) {
  const reason = staleReason(run, Date.now());
  return reason === null ? null : el('span', { class: 'badge stale', title: `stale: ${reason}` }, 'stale');
}

function kindBadge(run) {
  if (run.lineageKind === 'RESTART') return el('span', { class: 'badge kind restart' }, `restart #${run.restartNumber}`);
  if (run.lineageKind === 'CONTINUATION') return el('span', { class: 'badge kind continuation' }, 'continuation');
  return el('span', { class: 'badge kind' }, 'root');
}

const time = (iso) => (iso ? new Date(iso).toISOString().slice(11, 23) : '');

// ---- stale marks ---------------------------------------------------------------------------

/**
 * Re-renders when the next shown claim expires, so its run gets its stale mark without any
 * event (a local timer; no request). A pending timer is only ever replaced by an earlier one:
 * every render re-arms it, and one armed for a claim that has just expired must still fire.
 */
function scheduleStaleRender() {
  const runs = [...state.list.runs, ...[...state.list.chains.values()].map((chain) => chain.latestRun), ...(state.chain?.nodes ?? [])];
  if (state.run?.record) runs.push(state.run.record);
  const next = nextStaleAt(runs, Date.now());
  if (next === null || (state.staleTimer !== null && state.staleAt <= next)) return;
  clearTimeout(state.staleTimer);
  state.staleAt = next;
  state.staleTimer = setTimeout(
    () => {
      state.staleTimer = null;
      state.staleAt = null;
      renderChains();
      if (state.chain) renderTree(state.chain.nodes);
      if (state.run) renderSummary(state.run);
    },
    Math.min(next - Date.now() + 20, 2 ** 31 - 1),
  );
}

// ---- the chain list ------------------------------------------------------------------------

/** Keeps the newest state seen of each chain's latest run and size. */
function noteChain(run) {
  const root = run.rootRun;
  if (!root?.latestRun) return;
  const known = state.list.chains.get(run.rootRunId);
  const newer = known === undefined || Date.parse(root.latestRun.updatedAt) >= Date.parse(known.latestRun.updatedAt);
  if (newer) state.list.chains.set(run.rootRunId, { latestRun: root.latestRun, runs: Math.max(root.lineage.totalCount, known?.runs ?? 0) });
}

function readFilter() {
  const value = (id) => $(id).value.trim();
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
async function reloadList() {
  const list = state.list;
  list.generation += 1;
  const generation = list.generation;
  list.filter = readFilter();
  const [field, direction] = $('order').value.split(' ');
  list.order = { field, direction };
  list.runs = [];
  list.loaded = false;
  list.feed?.unsubscribe();
  list.feed = null;
  renderChains();
  await loadPage(generation, null);
}

/** Loads the page after `after` (null: the first page) and merges it into the list. */
async function loadPage(generation, after, { merge = after !== null } = {}) {
  const list = state.list;
  $('chains-more').disabled = true;
  try {
    const data = await gql('LivePageRuns', { first: PAGE_SIZE, after, filter: graphqlFilter(list.filter), orderBy: list.order });
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
    if (generation === list.generation && after === null) list.failed = true;
    showError(`Could not load runs: ${error.message}`);
  } finally {
    $('chains-more').disabled = false;
  }
}

/**
 * After a reconnect graphql-ws subscribes again with the feed's variables, whose `after` is the
 * last cursor the page has (the first page's changeCursor, or the last event's): the server
 * replays what changed meanwhile, so nothing is read again. Only a first page that could not be
 * read at all is read now.
 */
function onReconnected() {
  if (state.list.failed) void loadPage(state.list.generation, null);
  // A chain whose first read failed has no feed yet: read it again (it subscribes then).
  if (state.chain !== null && state.chain.unsubscribe === null) void refreshTree({ selectRunId: null, selectLatest: false, historyMode: 'replace' });
}

/**
 * The run-list change feed from `after` (the first page's changeCursor), resumed
 * from its last cursor after a reconnect.
 */
function startListFeed(after) {
  const list = state.list;
  list.feed?.unsubscribe();
  // The whole filter: the server also delivers a run that left it (status), so it leaves the list.
  const feed = { variables: { filter: graphqlFilter(list.filter), after }, buffer: [], ready: true, unsubscribe: null };
  list.feed = feed;
  feed.unsubscribe = subscribe('LivePageRunChanges', feed.variables, {
    next: (result) => onRunChange(feed, result),
    error: (error) => showError(`Run list subscription: ${error.message}`),
  });
}

function onRunChange(feed, result) {
  if (state.list.feed !== feed) return;
  if (result.errors) {
    showError(result.errors.map((error) => error.message).join('; '));
    return;
  }
  const event = result.data.workflowRunChanges;
  feed.variables.after = event.cursor;
  if (event.__typename === 'WorkflowRunChangesResetRequired') {
    // Too far behind to replay: re-query the list, then continue from the event's cursor.
    feed.buffer = [];
    feed.ready = false;
    state.list.generation += 1;
    void loadPage(state.list.generation, null);
    return;
  }
  if (!feed.ready) feed.buffer.push(event.run);
  else applyRunChange(event.run, { render: true });
}

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

function renderChains() {
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
  const existing = new Map([...$('chains').children].map((node) => [node.dataset.root, node]));
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
  while (container.children.length > nodes.length) container.lastElementChild.remove();
  scheduleStaleRender();
}

/** Follow mode: stay on an active run; else move to the newest active run of any chain. */
function follow() {
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

// ---- one chain: the lineage tree -----------------------------------------------------------

/**
 * Shows a chain; selects its latest run unless `runId` names the run to select.
 * `history`: how the URL records the selection ('push' for a user's choice, 'replace' for
 * follow mode, 'none' when the URL already says it).
 */
function selectChain(rootRunId, { byUser = false, runId = null, history: historyMode = byUser ? 'push' : 'replace' } = {}) {
  if (byUser) setFollow(false);
  if (state.chain?.rootRunId !== rootRunId) {
    state.chain?.unsubscribe?.();
    // The chain's feed starts once its first lineage page was read (refreshTree), from that
    // page's changeCursor.
    const chain = { rootRunId, refreshTimer: null, nodes: [], unsubscribe: null };
    state.chain = chain;
    $('tree-root').textContent = rootRunId;
    renderChains();
  }
  return refreshTree({ selectRunId: runId, selectLatest: runId === null, historyMode });
}

function scheduleTreeRefresh() {
  const chain = state.chain;
  if (chain === null || chain.refreshTimer !== null) return;
  chain.refreshTimer = setTimeout(() => {
    chain.refreshTimer = null;
    if (state.chain === chain) void refreshTree({ selectRunId: null, selectLatest: false, historyMode: 'replace' });
  }, 100);
}

/**
 * Every run of the chain, root first (all pages of `lineage`), and the first page's
 * changeCursor (null for an unknown root).
 */
async function loadChain(rootRunId) {
  const nodes = [];
  let after = null;
  let changeCursor = null;
  for (;;) {
    const data = await gql('LivePageChain', { rootRunId, first: 100, after });
    const lineage = data.workflowRun?.lineage;
    if (!lineage) return { nodes, changeCursor };
    changeCursor ??= lineage.changeCursor;
    nodes.push(...lineage.edges.map((edge) => edge.node));
    if (!lineage.pageInfo.hasNextPage) return { nodes, changeCursor };
    after = lineage.pageInfo.endCursor;
  }
}

/**
 * The chain's runs from the change feed, from `after` (its first lineage page's changeCursor, so
 * a change between that read and the subscription is replayed): any change (or a reset) reloads
 * the tree. The variables keep the last cursor, so a reconnect replays what changed meanwhile.
 */
function subscribeChain(chain, after) {
  const variables = { filter: { rootRunId: chain.rootRunId }, after };
  chain.unsubscribe = subscribe('LivePageRunChanges', variables, {
    next: (result) => {
      if (result.errors) {
        showError(result.errors.map((error) => error.message).join('; '));
        return;
      }
      variables.after = result.data.workflowRunChanges.cursor;
      scheduleTreeRefresh();
    },
    error: (error) => showError(`Chain subscription: ${error.message}`),
  });
}

async function refreshTree({ selectRunId, selectLatest, historyMode }) {
  const chain = state.chain;
  try {
    const { nodes, changeCursor } = await loadChain(chain.rootRunId);
    if (state.chain !== chain) return;
    if (chain.unsubscribe === null) subscribeChain(chain, changeCursor);
    chain.nodes = nodes;
    renderTree(nodes);
    if (selectRunId !== null) {
      selectRun(selectRunId, { history: historyMode });
      return;
    }
    const latest = nodes[nodes.length - 1];
    if (latest !== undefined && (selectLatest || (state.follow && state.run?.runId !== latest.runId))) {
      selectRun(latest.runId, { history: historyMode });
    }
  } catch (error) {
    showError(`Could not load the chain: ${error.message}`);
  }
}

function renderTree(nodes) {
  const children = new Map();
  for (const node of nodes) {
    const key = node.parentRunId ?? '';
    if (!children.has(key)) children.set(key, []);
    children.get(key).push(node);
  }
  const pick = (runId) => {
    setFollow(false);
    selectRun(runId, { history: 'push' });
  };
  const branch = (parentKey) => {
    const list = children.get(parentKey) ?? [];
    if (list.length === 0) return null;
    return el(
      'ul',
      { class: 'tree' },
      list.map((run) => {
        const stale = staleBadge(run);
        return el(
          'li',
          {},
          el(
            'div',
            {
              class: 'run-node',
              tabindex: '0',
              role: 'button',
              'aria-current': state.run?.runId === run.runId ? 'true' : 'false',
              dataset: {
                runId: run.runId,
                kind: (run.lineageKind ?? 'ROOT').toLowerCase(),
                restartNumber: String(run.restartNumber),
                status: run.status,
                queueStatus: run.queueStatus,
                stale: String(stale !== null),
              },
              onclick: () => pick(run.runId),
              onkeydown: (event) => {
                if (event.key === 'Enter') pick(run.runId);
              },
            },
            kindBadge(run),
            el('code', {}, run.runId),
            badge(run.status),
            badge(run.queueStatus, 'queue '),
            stale,
            run.paused ? el('span', { class: 'badge s-WAITING' }, 'paused') : null,
            el('span', { class: 'mono' }, `rev ${run.presentationRevision}`),
            el(
              'span',
              { class: 'detail' },
              run.errorMessage ?? run.statusDetail ?? (run.parentTerminalFingerprint ? `fingerprint ${run.parentTerminalFingerprint.slice(0, 12)}…` : ''),
            ),
          ),
          branch(run.runId),
        );
      }),
    );
  };
  $('tree').replaceChildren(branch('') ?? el('p', { class: 'empty' }, 'No runs.'));
  scheduleStaleRender();
}

// ---- the URL: /#run=<runId> ----------------------------------------------------------------

/** Records the selected run in the URL: a new history entry ('push') or in place ('replace'). */
function writeHash(runId, mode) {
  if (mode === 'none') return;
  const hash = hashWithRun(location.hash, runId);
  if (hash === location.hash) return;
  const url = `${location.pathname}${location.search}${hash}`;
  if (mode === 'push') history.pushState(null, '', url);
  else history.replaceState(null, '', url);
}

/** Opens the run the URL names (first load, back, forward, an edited hash). */
async function openFromHash() {
  const { run: runId } = parseHash(location.hash);
  if (runId === null || runId === state.run?.runId || runId === state.missing) return;
  setFollow(false);
  try {
    const data = await gql('LivePageRun', { runId });
    if (parseHash(location.hash).run !== runId) return;
    if (data.workflowRun === null) {
      showMissing(runId);
      return;
    }
    await selectChain(data.workflowRun.rootRunId, { runId, history: 'none' });
  } catch (error) {
    showError(error.message);
  }
}

/** An unknown run id in the URL: the run panel says so. */
function showMissing(runId) {
  clearRun();
  state.missing = runId;
  $('run-id').textContent = runId;
  $('run-missing').textContent = `Workflow run not found: ${runId}`;
  $('run-missing').hidden = false;
}

window.addEventListener('popstate', () => void openFromHash());
window.addEventListener('hashchange', () => void openFromHash());

// ---- one run: summary, graph, view and the delta feed --------------------------------------

function clearRun() {
  for (const unsubscribe of state.run?.unsubscribers ?? []) unsubscribe();
  state.run = null;
  state.missing = null;
  state.stats = { live: 0, gaps: 0, duplicates: 0, bookkeeping: 0 };
  $('run-missing').hidden = true;
  $('run-id').textContent = '';
  $('run-summary').replaceChildren();
  $('feed').replaceChildren();
  $('timeline').replaceChildren();
  $('conversation').replaceChildren();
  $('graph').replaceChildren();
  $('graph-rev').textContent = '';
  renderStats();
}

function selectRun(runId, { history: historyMode = 'replace' } = {}) {
  writeHash(runId, historyMode);
  if (state.run?.runId === runId) return;
  clearRun();
  const run = {
    runId,
    cursor: null,
    // The delta subscription's variables: `after` follows the cursor, so a resubscribe after a reconnect resumes there.
    deltaVariables: { runId, after: null },
    initialRevision: null,
    unsubscribers: [],
    record: null,
    view: { summary: {} },
    graph: emptyGraph(),
    graphFrom: null,
  };
  state.run = run;
  $('run-id').textContent = runId;
  for (const node of document.querySelectorAll('.run-node')) node.setAttribute('aria-current', String(node.dataset.runId === runId));
  renderGraph(run);
  void startRun(run);
}

async function startRun(run) {
  try {
    // First load: the run's current revision is what the page shows; replay the retained
    // revisions before it (the graph view needs them), then continue live (docs/PROTOCOL.md).
    const data = await gql('LivePageRun', { runId: run.runId });
    if (state.run !== run) return;
    if (data.workflowRun === null) {
      showMissing(run.runId);
      return;
    }
    run.record = data.workflowRun;
    run.initialRevision = data.workflowRun.presentationRevision;
    setCursor(run, Math.max(1, run.initialRevision - REPLAY_REVISIONS));
    run.graphFrom = run.cursor + 1;
    renderSummary(run);
    run.unsubscribers.push(
      subscribe('LivePageDeltas', run.deltaVariables, {
        next: (result) => onDeltaEvent(run, result),
        error: (error) => showError(`Delta subscription: ${error.message}`),
      }),
      subscribe(
        'LivePageRunUpdated',
        { runId: run.runId },
        {
          next: (result) => {
            if (state.run !== run || !result.data) return;
            run.record = result.data.workflowRunUpdated;
            renderSummary(run);
          },
          error: (error) => showError(`Run subscription: ${error.message}`),
        },
      ),
    );
  } catch (error) {
    showError(`Could not load the run: ${error.message}`);
  }
}

/** The last revision applied; also what a resubscribe asks to continue after. */
function setCursor(run, revision) {
  run.cursor = revision;
  run.deltaVariables.after = revision;
}

function onDeltaEvent(run, result) {
  if (state.run !== run) return;
  if (result.errors) {
    showError(result.errors.map((error) => error.message).join('; '));
    return;
  }
  const event = result.data.workflowRunDeltas;
  if (event.__typename === 'ViewerSnapshotRequired') {
    // Reload the record, set the cursor, keep consuming (docs/PROTOCOL.md). The graph view
    // restarts from here: the revisions before are gone.
    setCursor(run, event.currentRevision);
    run.record = event.run;
    run.graph = emptyGraph();
    run.graphFrom = event.currentRevision + 1;
    renderGraph(run);
    renderSummary(run);
    prependFeed(el('li', { class: 'snapshot' }, `snapshot required: current revision ${event.currentRevision}, retained from ${event.retainedFromRevision}`));
    renderStats();
    return;
  }
  const revision = event.presentationRevision;
  if (revision <= run.cursor) {
    state.stats.duplicates += 1; // cannot happen within one subscription; counted to show it
    renderStats();
    return;
  }
  if (revision !== run.cursor + 1) state.stats.gaps += 1;
  setCursor(run, revision);
  const live = revision > run.initialRevision;
  if (live) state.stats.live += 1;
  const bookkeeping = isBookkeeping(event);
  if (bookkeeping) state.stats.bookkeeping += 1;
  const graph = applyGraphBatch(run.graph, event);
  if (graph !== run.graph) {
    run.graph = graph;
    renderGraph(run);
  }
  applyToView(run, event.deltas);
  prependFeed(feedEntry(event, live, bookkeeping));
  renderStats();
}

function applyToView(run, deltas) {
  for (const delta of deltas) {
    for (const op of ownOps(delta)) {
      if (delta.targetType === 'SUMMARY' && op.op === 'REPLACE') run.view.summary[op.path.slice(1)] = op.value;
      if (delta.targetType === 'TIMELINE' && op.op === 'APPEND' && Array.isArray(op.value)) {
        for (const item of op.value)
          prependTo('timeline', el('li', {}, el('span', { class: 'kind' }, `${time(item.at)} ${item.kind ?? ''}`), item.text ?? JSON.stringify(item)));
      }
      if (delta.targetType === 'CONVERSATION' && op.op === 'APPEND' && Array.isArray(op.value)) {
        for (const item of op.value)
          prependTo('conversation', el('li', {}, el('span', { class: 'role' }, `${item.role ?? '?'}:`), item.text ?? JSON.stringify(item)));
      }
    }
  }
  renderSummary(run);
}

function prependTo(id, node) {
  const list = $(id);
  list.prepend(node);
  while (list.childElementCount > 50) list.lastElementChild.remove();
}

/** The run's GRAPH view: its nodes in first-seen order, each with its state. */
function renderGraph(run) {
  const graph = run.graph;
  const from = run.graphFrom !== null && run.graphFrom > 2 ? ` · from revision ${run.graphFrom}` : '';
  $('graph-rev').textContent = graph.revision === null ? '' : `revision ${graph.revision}${from}`;
  $('graph').dataset.revision = graph.revision === null ? '' : String(graph.revision);
  $('graph').replaceChildren(
    ...(graph.nodes.length === 0
      ? [el('li', { class: 'empty' }, 'No graph deltas yet.')]
      : graph.nodes.map((node) =>
          el(
            'li',
            {
              class: `g-node g-${node.state}`,
              dataset: { node: node.name, state: node.state, revision: String(node.revision) },
              title: `${node.name}: ${node.state} since revision ${node.revision}`,
            },
            el('span', { class: 'g-name' }, node.name),
            el('span', { class: 'g-state' }, node.state),
          ),
        )),
  );
}

function describeOp(delta, op) {
  if (delta.targetType === 'GRAPH') {
    const match = /^\/nodes\/([^/]+)\/state$/.exec(op.path);
    if (match && op.op !== 'REMOVE') return `${match[1].replace(/~1/g, '/').replace(/~0/g, '~')} → ${op.value}`;
  }
  if (op.op === 'REMOVE') return `remove ${op.path}`;
  if (op.op === 'APPEND') return `append ${op.path} [${Array.isArray(op.value) ? op.value.length : '?'}]`;
  const value = JSON.stringify(op.value);
  return `${op.op.toLowerCase()} ${op.path} ${value.length > 60 ? `${value.slice(0, 57)}…` : value}`;
}

function feedEntry(batch, live, bookkeeping) {
  const targets = batch.deltas.map((delta) => (delta.targetKey ? `${delta.targetType.toLowerCase()}/${delta.targetKey}` : delta.targetType.toLowerCase()));
  const ops = batch.deltas.flatMap((delta) => ownOps(delta).map((op) => describeOp(delta, op)));
  return el(
    'li',
    {
      class: `${live ? 'live' : 'replayed'}${bookkeeping ? ' bookkeeping' : ''}`,
      dataset: { revision: String(batch.presentationRevision), bookkeeping: String(bookkeeping) },
    },
    el('span', { class: 'rev' }, `#${batch.presentationRevision}`),
    el('time', {}, time(batch.deltas[0]?.recordedAt)),
    el('span', { class: 'targets' }, targets.join(' · ')),
    el('span', { class: 'ops mono' }, bookkeeping ? 'bump (run record changed)' : ops.join('; ')),
  );
}

function prependFeed(node) {
  const feed = $('feed');
  feed.prepend(node);
  while (feed.childElementCount > FEED_LIMIT) feed.lastElementChild.remove();
}

function renderStats() {
  const stats = $('feed-stats');
  const run = state.run;
  stats.dataset.cursor = run?.cursor === null || run === null ? '' : String(run.cursor);
  stats.dataset.live = String(state.stats.live);
  stats.dataset.gaps = String(state.stats.gaps);
  stats.dataset.duplicates = String(state.stats.duplicates);
  stats.dataset.bookkeeping = String(state.stats.bookkeeping);
  const hidden = state.showBookkeeping || state.stats.bookkeeping === 0 ? '' : ` · ${state.stats.bookkeeping} bookkeeping hidden`;
  stats.textContent = run?.cursor ? `cursor ${run.cursor} · ${state.stats.live} live · ${state.stats.gaps} gaps${hidden}` : '';
}

function renderSummary(run) {
  const record = run.record;
  if (record === null) return;
  const view = run.view.summary;
  const stale = staleReason(record, Date.now());
  const rows = [
    ['workflow', `${record.workflowName} (${record.workflowRef})`],
    ['status', [badge(record.status), ' ', badge(record.queueStatus, 'queue '), record.paused ? ' paused' : '']],
    ['stale', stale === null ? null : el('span', { class: 'stale-reason' }, `${stale}: the runner holding it is probably gone`)],
    ['lineage', record.lineageKind ? `${record.lineageKind.toLowerCase()} of ${record.parentRunId} · restart #${record.restartNumber}` : 'root'],
    ['step', view.step !== undefined ? `${view.step}${view.progress !== undefined ? ` · ${view.progress}%` : ''}` : null],
    ['detail', record.statusDetail],
    ['error', record.errorMessage ? `${record.errorCode}: ${record.errorMessage}` : null],
    ['claim', record.claim ? `${record.claim.ownerId} · generation ${record.claim.leaseGeneration} · until ${time(record.claim.expiresAt)}` : 'none'],
    ['session', record.originSessionId],
    ['fingerprint', record.terminalFingerprint ? `${record.terminalFingerprint.slice(0, 16)}…` : null],
    ['revision', String(Math.max(record.presentationRevision, run.cursor ?? 0))],
  ];
  $('run-summary').dataset.stale = String(stale !== null);
  $('run-summary').replaceChildren(
    ...rows.filter(([, value]) => value !== null && value !== undefined).flatMap(([key, value]) => [el('dt', {}, key), el('dd', {}, value)]),
  );
  scheduleStaleRender();
}

// ---- controls and start --------------------------------------------------------------------

function setFollow(on) {
  state.follow = on;
  $('follow').checked = on;
}

$('follow').addEventListener('change', (event) => {
  state.follow = event.target.checked;
  if (state.follow) follow();
});

$('show-bookkeeping').addEventListener('change', (event) => {
  state.showBookkeeping = event.target.checked;
  $('feed').classList.toggle('show-bookkeeping', state.showBookkeeping);
  renderStats();
});

$('chains-more').addEventListener('click', () => {
  const list = state.list;
  if (list.hasNextPage) void loadPage(list.generation, list.endCursor);
});

let filterTimer = null;
$('filters').addEventListener('submit', (event) => event.preventDefault());
$('filters').addEventListener('input', () => {
  clearTimeout(filterTimer);
  filterTimer = setTimeout(() => void reloadList(), 250);
});
$('filters').addEventListener('reset', () => {
  clearTimeout(filterTimer);
  filterTimer = setTimeout(() => void reloadList(), 0);
});

if (parseHash(location.hash).run !== null) void openFromHash();
// The first page at once (no waiting for the socket): the list's change feed then starts from
// the page's changeCursor, so a change committed before the subscription reached the server is
// replayed.
void reloadList();
