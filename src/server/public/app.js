// The live lineage page: plain browser JavaScript, no framework, no CDN, no build step.
//
// - Chains: `workflowRuns` (newest first) polled, grouped by root run.
// - A chain's tree: the root's `lineage`, refreshed on `workflowRunLineageUpdated`.
// - A run's live delta feed: `workflowRunDeltas` with a resume cursor, over the `graphql-ws`
//   package's own browser client, which the server serves from its node_modules at
//   /app/vendor/graphql-ws/. The client sends every active subscription again after a
//   reconnect, with its payload as it is then: the delta subscription's variables carry the
//   current cursor, so the stream resumes after the last revision applied (docs/PROTOCOL.md
//   "Reconnect recipe").
//
// Token: when the server runs with --token, open the page as /?token=<token> (kept in
// sessionStorage, removed from the address bar).

import { createClient } from '/app/vendor/graphql-ws/client.js';

const params = new URLSearchParams(location.search);
if (params.has('token')) {
  sessionStorage.setItem('pi-workflows-token', params.get('token') ?? '');
  params.delete('token');
  history.replaceState(null, '', `${location.pathname}${params.size > 0 ? `?${params}` : ''}${location.hash}`);
}
const TOKEN = sessionStorage.getItem('pi-workflows-token') || null;
const HTTP_URL = `${location.origin}/graphql`;
const WS_URL = `${location.origin.replace(/^http/, 'ws')}/graphql`;
const CHAIN_POLL_MS = 1500;
const FEED_LIMIT = 200;
const REPLAY_REVISIONS = 30;

const $ = (id) => document.getElementById(id);

// ---- GraphQL over HTTP ---------------------------------------------------------------------

async function gql(query, variables = {}) {
  const headers = { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' };
  if (TOKEN) headers.authorization = `Bearer ${TOKEN}`;
  const response = await fetch(HTTP_URL, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
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
      if (connection.everConnected) connection.reconnects += 1;
      connection.everConnected = true;
      showConnection('live');
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
 * Subscribes with `payload` ({query, variables}); the client sends the payload again as it is
 * then after every reconnect, so keep its variables current. Returns the unsubscribe function.
 */
function subscribe(payload, { next, error }) {
  return client.subscribe(payload, { next, error: (reason) => error(new Error(errorText(reason))), complete: () => {} });
}

// ---- operations ----------------------------------------------------------------------------

const CHAINS_QUERY = `query LiveChains($first: Int) {
  workflowRuns(first: $first) {
    totalCount
    edges { node { runId rootRunId rootRun {
      runId workflowName createdAt
      lineage(first: 1) { totalCount }
      latestRun { runId status queueStatus restartNumber lineageKind updatedAt }
    } } }
  }
}`;

const CHAIN_QUERY = `query LiveChain($rootRunId: String!) {
  workflowRun(runId: $rootRunId) {
    runId workflowName
    lineage(first: 100) { totalCount edges { node {
      runId parentRunId lineageKind restartNumber status queueStatus paused statusDetail
      errorCode errorMessage createdAt presentationRevision parentTerminalFingerprint
    } } }
  }
}`;

const RUN_FIELDS = `runId workflowName workflowRef status queueStatus paused statusDetail originSessionId
  errorCode errorMessage createdAt updatedAt startedAt finishedAt parentRunId rootRunId lineageKind
  restartNumber parentTerminalFingerprint terminalFingerprint presentationRevision
  claim { ownerId leaseGeneration expiresAt }`;

const RUN_QUERY = `query LiveRun($runId: String!) { workflowRun(runId: $runId) { ${RUN_FIELDS} } }`;

const DELTAS_SUBSCRIPTION = `subscription LiveDeltas($runId: String!, $after: Int) {
  workflowRunDeltas(runId: $runId, afterRevision: $after) {
    __typename
    ... on ViewerDeltaBatch {
      runId presentationRevision
      deltas { deltaIndex targetType targetKey recordedAt patch { op path value } }
    }
    ... on ViewerSnapshotRequired {
      runId currentRevision retainedFromRevision
      run { runId status queueStatus presentationRevision }
    }
  }
}`;

const RUN_UPDATED_SUBSCRIPTION = `subscription LiveRunUpdated($runId: String!) { workflowRunUpdated(runId: $runId) { ${RUN_FIELDS} } }`;

const LINEAGE_SUBSCRIPTION = `subscription LiveLineage($rootRunId: String!) {
  workflowRunLineageUpdated(rootRunId: $rootRunId) { runId parentRunId lineageKind restartNumber status queueStatus }
}`;

// ---- state ---------------------------------------------------------------------------------

const ACTIVE_QUEUE = new Set(['QUEUED', 'STARTING', 'RUNNING', 'PARKED']);

const state = {
  follow: true,
  chains: [],
  chain: null, // { rootRunId, unsubscribe, refreshTimer }
  run: null, // { runId, cursor, initialRevision, unsubscribers, record, view }
  stats: { live: 0, gaps: 0, duplicates: 0 },
};

function showError(message) {
  const box = $('error');
  box.textContent = message;
  box.hidden = message === '';
}

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

function kindBadge(run) {
  if (run.lineageKind === 'RESTART') return el('span', { class: 'badge kind restart' }, `restart #${run.restartNumber}`);
  if (run.lineageKind === 'CONTINUATION') return el('span', { class: 'badge kind continuation' }, 'continuation');
  return el('span', { class: 'badge kind' }, 'root');
}

const time = (iso) => (iso ? new Date(iso).toISOString().slice(11, 23) : '');

// ---- chains --------------------------------------------------------------------------------

async function refreshChains() {
  try {
    const data = await gql(CHAINS_QUERY, { first: 100 });
    const seen = new Map();
    for (const { node } of data.workflowRuns.edges) {
      if (!seen.has(node.rootRunId)) seen.set(node.rootRunId, node.rootRun);
    }
    state.chains = [...seen.values()];
    $('chains-count').textContent = `${state.chains.length} shown · ${data.workflowRuns.totalCount} runs`;
    renderChains();
    showError('');
    if (state.follow) follow();
  } catch (error) {
    showError(`Could not load runs: ${error.message}`);
  } finally {
    setTimeout(refreshChains, CHAIN_POLL_MS);
  }
}

function renderChains() {
  $('chains-empty').hidden = state.chains.length > 0;
  $('chains').replaceChildren(
    ...state.chains.map((root) =>
      el(
        'li',
        { class: 'chain', dataset: { root: root.runId }, 'aria-current': state.chain?.rootRunId === root.runId ? 'true' : 'false' },
        el(
          'button',
          { type: 'button', onclick: () => selectChain(root.runId, { byUser: true }) },
          el('span', { class: 'name' }, root.workflowName),
          badge(root.latestRun.status),
          el('span', { class: 'meta mono' }, `${root.runId} · ${root.lineage.totalCount} run${root.lineage.totalCount === 1 ? '' : 's'} · latest ${root.latestRun.runId}`),
        ),
      ),
    ),
  );
}

/** Follow mode: stay on an active run; else move to the newest active run of any chain. */
function follow() {
  const current = state.chains.find((root) => root.runId === state.chain?.rootRunId);
  if (current !== undefined && ACTIVE_QUEUE.has(current.latestRun.queueStatus)) {
    if (state.run?.runId !== current.latestRun.runId) selectRun(current.latestRun.runId);
    return;
  }
  const active = state.chains
    .filter((root) => ACTIVE_QUEUE.has(root.latestRun.queueStatus))
    .sort((a, b) => b.latestRun.updatedAt.localeCompare(a.latestRun.updatedAt))[0];
  const target = active ?? (state.chain === null ? state.chains[0] : undefined);
  if (target !== undefined && target.runId !== state.chain?.rootRunId) selectChain(target.runId);
}

// ---- one chain: the lineage tree -----------------------------------------------------------

function selectChain(rootRunId, { byUser = false } = {}) {
  if (byUser) setFollow(false);
  if (state.chain?.rootRunId !== rootRunId) {
    state.chain?.unsubscribe();
    const chain = { rootRunId, refreshTimer: null, nodes: [] };
    chain.unsubscribe = subscribe({ query: LINEAGE_SUBSCRIPTION, variables: { rootRunId } }, {
      next: () => scheduleTreeRefresh(),
      error: (error) => showError(`Lineage subscription: ${error.message}`),
    });
    state.chain = chain;
    $('tree-root').textContent = rootRunId;
    renderChains();
  }
  return refreshTree({ selectLatest: true });
}

function scheduleTreeRefresh() {
  const chain = state.chain;
  if (chain === null || chain.refreshTimer !== null) return;
  chain.refreshTimer = setTimeout(() => {
    chain.refreshTimer = null;
    if (state.chain === chain) void refreshTree({ selectLatest: false });
  }, 100);
}

async function refreshTree({ selectLatest }) {
  const chain = state.chain;
  try {
    const data = await gql(CHAIN_QUERY, { rootRunId: chain.rootRunId });
    if (state.chain !== chain) return;
    const nodes = data.workflowRun?.lineage.edges.map((edge) => edge.node) ?? [];
    chain.nodes = nodes;
    renderTree(nodes);
    const latest = nodes[nodes.length - 1];
    if (latest !== undefined && (selectLatest || (state.follow && state.run?.runId !== latest.runId))) {
      if (state.run?.runId !== latest.runId) selectRun(latest.runId);
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
  const branch = (parentKey) => {
    const list = children.get(parentKey) ?? [];
    if (list.length === 0) return null;
    return el(
      'ul',
      { class: 'tree' },
      list.map((run) =>
        el(
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
              },
              onclick: () => {
                setFollow(false);
                selectRun(run.runId);
              },
              onkeydown: (event) => {
                if (event.key === 'Enter') {
                  setFollow(false);
                  selectRun(run.runId);
                }
              },
            },
            kindBadge(run),
            el('code', {}, run.runId),
            badge(run.status),
            badge(run.queueStatus, 'queue '),
            run.paused ? el('span', { class: 'badge s-WAITING' }, 'paused') : null,
            el('span', { class: 'mono' }, `rev ${run.presentationRevision}`),
            el(
              'span',
              { class: 'detail' },
              run.errorMessage ?? run.statusDetail ?? (run.parentTerminalFingerprint ? `fingerprint ${run.parentTerminalFingerprint.slice(0, 12)}…` : ''),
            ),
          ),
          branch(run.runId),
        ),
      ),
    );
  };
  $('tree').replaceChildren(branch('') ?? el('p', { class: 'empty' }, 'No runs.'));
}

// ---- one run: summary, view and the delta feed ---------------------------------------------

function selectRun(runId) {
  if (state.run?.runId === runId) return;
  for (const unsubscribe of state.run?.unsubscribers ?? []) unsubscribe();
  const run = {
    runId,
    cursor: null,
    // The delta subscription's variables: `after` follows the cursor, so a resubscribe after a reconnect resumes there.
    deltaVariables: { runId, after: null },
    initialRevision: null,
    unsubscribers: [],
    record: null,
    view: { summary: {}, timeline: [], messages: [] },
  };
  state.run = run;
  state.stats = { live: 0, gaps: 0, duplicates: 0 };
  $('run-id').textContent = runId;
  $('feed').replaceChildren();
  $('timeline').replaceChildren();
  $('conversation').replaceChildren();
  renderStats();
  for (const node of document.querySelectorAll('.run-node')) node.setAttribute('aria-current', String(node.dataset.runId === runId));
  void startRun(run);
}

async function startRun(run) {
  try {
    // First load: the run's current revision is what the page shows; replay a few revisions
    // before it so the feed is not empty, then continue live (docs/PROTOCOL.md).
    const data = await gql(RUN_QUERY, { runId: run.runId });
    if (state.run !== run) return;
    if (data.workflowRun === null) throw new Error(`Workflow run not found: ${run.runId}`);
    run.record = data.workflowRun;
    run.initialRevision = data.workflowRun.presentationRevision;
    setCursor(run, Math.max(1, run.initialRevision - REPLAY_REVISIONS));
    renderSummary(run);
    run.unsubscribers.push(
      subscribe({ query: DELTAS_SUBSCRIPTION, variables: run.deltaVariables }, {
        next: (result) => onDeltaEvent(run, result),
        error: (error) => showError(`Delta subscription: ${error.message}`),
      }),
      subscribe({ query: RUN_UPDATED_SUBSCRIPTION, variables: { runId: run.runId } }, {
        next: (result) => {
          if (state.run !== run || !result.data) return;
          run.record = result.data.workflowRunUpdated;
          renderSummary(run);
        },
        error: (error) => showError(`Run subscription: ${error.message}`),
      }),
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
    // Reload from a query, set the cursor, keep consuming (docs/PROTOCOL.md).
    setCursor(run, event.currentRevision);
    prependFeed(el('li', { class: 'snapshot' }, `snapshot required: current revision ${event.currentRevision}, retained from ${event.retainedFromRevision}`));
    void gql(RUN_QUERY, { runId: run.runId }).then((data) => {
      if (state.run === run && data.workflowRun) {
        run.record = data.workflowRun;
        renderSummary(run);
      }
    });
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
  applyToView(run, event.deltas);
  prependFeed(feedEntry(event, live));
  renderStats();
}

function applyToView(run, deltas) {
  for (const delta of deltas) {
    for (const op of delta.patch) {
      if (op.path === '/presentationRevision' || op.path === '/graphRevision') continue;
      if (delta.targetType === 'SUMMARY' && op.op === 'REPLACE') run.view.summary[op.path.slice(1)] = op.value;
      if (delta.targetType === 'TIMELINE' && op.op === 'APPEND' && Array.isArray(op.value)) {
        for (const item of op.value) prependTo('timeline', el('li', {}, el('span', { class: 'kind' }, `${time(item.at)} ${item.kind ?? ''}`), item.text ?? JSON.stringify(item)));
      }
      if (delta.targetType === 'CONVERSATION' && op.op === 'APPEND' && Array.isArray(op.value)) {
        for (const item of op.value) prependTo('conversation', el('li', {}, el('span', { class: 'role' }, `${item.role ?? '?'}:`), item.text ?? JSON.stringify(item)));
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

function describeOp(op) {
  if (op.op === 'REMOVE') return `remove ${op.path}`;
  if (op.op === 'APPEND') return `append ${op.path} [${Array.isArray(op.value) ? op.value.length : '?'}]`;
  const value = JSON.stringify(op.value);
  return `${op.op.toLowerCase()} ${op.path} ${value.length > 60 ? `${value.slice(0, 57)}…` : value}`;
}

function feedEntry(batch, live) {
  const targets = batch.deltas.map((delta) => (delta.targetKey ? `${delta.targetType.toLowerCase()}/${delta.targetKey}` : delta.targetType.toLowerCase()));
  const ops = batch.deltas.flatMap((delta) => delta.patch.filter((op) => op.path !== '/presentationRevision' && op.path !== '/graphRevision').map(describeOp));
  return el(
    'li',
    { class: live ? 'live' : 'replayed', dataset: { revision: String(batch.presentationRevision) } },
    el('span', { class: 'rev' }, `#${batch.presentationRevision}`),
    el('time', {}, time(batch.deltas[0]?.recordedAt)),
    el('span', { class: 'targets' }, targets.join(' · ')),
    el('span', { class: 'ops mono' }, ops.length > 0 ? ops.join('; ') : 'bump (run record changed)'),
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
  stats.textContent = run?.cursor ? `cursor ${run.cursor} · ${state.stats.live} live · ${state.stats.gaps} gaps` : '';
}

function renderSummary(run) {
  const record = run.record;
  if (record === null) return;
  const view = run.view.summary;
  const rows = [
    ['workflow', `${record.workflowName} (${record.workflowRef})`],
    ['status', [badge(record.status), ' ', badge(record.queueStatus, 'queue '), record.paused ? ' paused' : '']],
    ['lineage', record.lineageKind ? `${record.lineageKind.toLowerCase()} of ${record.parentRunId} · restart #${record.restartNumber}` : 'root'],
    ['step', view.step !== undefined ? `${view.step}${view.progress !== undefined ? ` · ${view.progress}%` : ''}` : null],
    ['detail', record.statusDetail],
    ['error', record.errorMessage ? `${record.errorCode}: ${record.errorMessage}` : null],
    ['claim', record.claim ? `${record.claim.ownerId} · generation ${record.claim.leaseGeneration} · until ${time(record.claim.expiresAt)}` : 'none'],
    ['session', record.originSessionId],
    ['fingerprint', record.terminalFingerprint ? `${record.terminalFingerprint.slice(0, 16)}…` : null],
    ['revision', String(Math.max(record.presentationRevision, run.cursor ?? 0))],
  ];
  $('run-summary').replaceChildren(...rows.filter(([, value]) => value !== null && value !== undefined).flatMap(([key, value]) => [el('dt', {}, key), el('dd', {}, value)]));
}

// ---- follow toggle and start ---------------------------------------------------------------

function setFollow(on) {
  state.follow = on;
  $('follow').checked = on;
}

$('follow').addEventListener('change', (event) => {
  state.follow = event.target.checked;
  if (state.follow) follow();
});

const initial = new URLSearchParams(location.hash.slice(1));
if (initial.has('run')) {
  setFollow(false);
  void gql(RUN_QUERY, { runId: initial.get('run') })
    .then((data) => {
      if (data.workflowRun) return selectChain(data.workflowRun.rootRunId).then(() => selectRun(data.workflowRun.runId));
      showError(`Workflow run not found: ${initial.get('run')}`);
    })
    .catch((error) => showError(error.message));
}
void refreshChains();
