// @ts-check
/**
 * One chain: its lineage tree (every page of the root's `lineage`), reloaded on each change
 * the feed `workflowRunChanges(filter: {rootRunId})` reports.
 */
import { subscribe } from '/app/connection.js';
import { $, badge, el, kindBadge, showError, staleBadge } from '/app/dom.js';
import { gql, isSuperseded } from '/app/graphql-http.js';
import { failureText } from '/app/failure-text.js';
import { selectRun } from '/app/run-panel.js';
import { scheduleStaleRender } from '/app/stale-timer.js';
import { redraw, setFollow, state } from '/app/state.js';

/**
 * @typedef {import('/app/state.js').Chain} Chain
 * @typedef {import('/app/state.js').TreeRun} TreeRun
 * @typedef {import('/app/run-panel.js').HistoryMode} HistoryMode
 * @typedef {import('../../../schema/generated/graphql.js').LivePageChainQuery} LivePageChainQuery
 * @typedef {import('../../../schema/generated/graphql.js').LivePageRunChangesSubscription} LivePageRunChangesSubscription
 * @typedef {{ selectRunId: string | null, selectLatest: boolean, historyMode: HistoryMode }} RefreshOptions
 *   `selectRunId`: the run to select once read; `selectLatest`: select the chain's latest run
 */

/**
 * Shows a chain; selects its latest run unless `runId` names the run to select.
 * `history`: how the URL records the selection ('push' for a user's choice, 'replace' for
 * follow mode, 'none' when the URL already says it).
 *
 * @param {string} rootRunId
 * @param {{ byUser?: boolean, runId?: string | null, history?: HistoryMode }} [options]
 * @returns {Promise<void>} settles once the tree was read (or could not be: the banner says so)
 */
export function selectChain(rootRunId, { byUser = false, runId = null, history: historyMode = byUser ? 'push' : 'replace' } = {}) {
  if (byUser) setFollow(false);
  if (state.chain?.rootRunId !== rootRunId) {
    state.chain?.unsubscribe?.();
    // The chain's feed starts once its first lineage page was read (refreshTree), from that
    // page's changeCursor.
    /** @type {Chain} */
    const chain = { rootRunId, refreshTimer: null, nodes: [], unsubscribe: null };
    state.chain = chain;
    $('tree-root').textContent = rootRunId;
    redraw.chains();
  }
  return refreshTree({ selectRunId: runId, selectLatest: runId === null, historyMode });
}

/**
 * No chain selected: the tree pane empties and says why; the chain list marks none.
 *
 * @param {string} message what the tree pane says instead
 */
export function clearChain(message) {
  const chain = state.chain;
  if (chain !== null) {
    chain.unsubscribe?.();
    if (chain.refreshTimer !== null) clearTimeout(chain.refreshTimer);
  }
  state.chain = null;
  $('tree-root').textContent = '';
  $('tree').replaceChildren(el('p', { class: 'empty' }, message));
  redraw.chains();
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
 *
 * @param {Chain} chain
 * @returns {Promise<{ nodes: TreeRun[], changeCursor: string | null }>}
 * @throws WorkflowClientError `aborted` (/app/graphql-http.js isSuperseded) when another chain was selected while a read waited for the server
 */
async function loadChain(chain) {
  const { rootRunId } = chain;
  /** @type {TreeRun[]} */
  const nodes = [];
  /** @type {string | null} */
  let after = null;
  /** @type {string | null} */
  let changeCursor = null;
  for (;;) {
    /** @type {LivePageChainQuery} */
    const data = await gql('LivePageChain', { rootRunId, first: 100, after }, { isCurrent: () => state.chain === chain });
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
 *
 * @param {Chain} chain
 * @param {string | null} after
 */
function subscribeChain(chain, after) {
  const variables = { filter: { rootRunId: chain.rootRunId }, after };
  chain.unsubscribe = subscribe('LivePageRunChanges', variables, {
    next: (/** @type {import('/app/connection.js').SubscriptionResult<LivePageRunChangesSubscription>} */ result) => {
      variables.after = /** @type {LivePageRunChangesSubscription} */ (result.data).workflowRunChanges.cursor;
      scheduleTreeRefresh();
    },
    error: (error) => showError(`Chain subscription: ${error.message}`),
  });
}

/**
 * Reads the selected chain again and draws it; subscribes to its changes after its first read.
 *
 * @param {RefreshOptions} options
 */
export async function refreshTree({ selectRunId, selectLatest, historyMode }) {
  const chain = state.chain;
  if (chain === null) return;
  try {
    const { nodes, changeCursor } = await loadChain(chain);
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
    if (isSuperseded(error)) return;
    showError(`Could not load the chain: ${failureText(error)}`);
  }
}

/**
 * Draws the chain as a tree: each run under its parent, with its kind, statuses, stale mark,
 * revision and detail.
 *
 * @param {TreeRun[]} nodes root first
 */
export function renderTree(nodes) {
  /** @type {Map<string, TreeRun[]>} */
  const children = new Map();
  for (const node of nodes) {
    const key = node.parentRunId ?? '';
    const siblings = children.get(key) ?? [];
    siblings.push(node);
    children.set(key, siblings);
  }
  /** @param {string} runId */
  const pick = (runId) => {
    setFollow(false);
    selectRun(runId, { history: 'push' });
  };
  /**
   * @param {string} parentKey
   * @returns {HTMLElement | null}
   */
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
              onkeydown: (/** @type {KeyboardEvent} */ event) => {
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
