// @ts-check
/**
 * One run: selecting it (and recording it in the URL), its first load, its record's
 * subscription and its live delta feed with a resume cursor (docs/PROTOCOL.md "Reconnect
 * recipe"); its view read once, then followed by its subscription (/app/view-read.js). Drawing is
 * /app/run-view.js (record, feed) and /app/view.js (the view).
 */
import { isBookkeeping } from '/app/bookkeeping.js';
import { subscribe } from '/app/connection.js';
import { $, el, showError } from '/app/dom.js';
import { applyGraphBatch, emptyGraph } from '/app/graph-view.js';
import { gql, isSuperseded } from '/app/graphql-http.js';
import { failureText } from '/app/failure-text.js';
import { feedEntry, prependFeed, renderStats, renderSummary } from '/app/run-view.js';
import { state } from '/app/state.js';
import { hashWithRun } from '/app/url-hash.js';
import { clearView } from '/app/view.js';
import { renderGraph } from '/app/view-graph.js';
import { newViewFollow, readView, stopFollowingView } from '/app/view-read.js';

/** Revisions replayed when a run is opened: the whole retained window (docs/STORE-RULES.md §8: 256), so the graph view is complete. */
const REPLAY_REVISIONS = 255;

/**
 * @typedef {import('/app/state.js').SelectedRun} SelectedRun
 * @typedef {import('/app/run-view.js').Delta} Delta
 * @typedef {import('../../../schema/generated/graphql.js').LivePageRunQuery} LivePageRunQuery
 * @typedef {import('../../../schema/generated/graphql.js').LivePageRunUpdatedSubscription} LivePageRunUpdatedSubscription
 * @typedef {{ __typename: 'ViewerDeltaBatch', presentationRevision: number, deltas: Delta[] }} DeltaBatchEvent
 * @typedef {{ __typename: 'ViewerSnapshotRequired', currentRevision: number, retainedFromRevision: number,
 *   run: import('/app/state.js').RunRecord }} SnapshotRequiredEvent
 * @typedef {{ workflowRunDeltas: DeltaBatchEvent | SnapshotRequiredEvent }} DeltaEventData
 * @typedef {'push' | 'replace' | 'none'} HistoryMode how the URL records a selection
 */

/**
 * Records the selected run in the URL: a new history entry ('push') or in place ('replace').
 *
 * @param {string} runId
 * @param {HistoryMode} mode
 */
function writeHash(runId, mode) {
  if (mode === 'none') return;
  const hash = hashWithRun(location.hash, runId);
  if (hash === location.hash) return;
  const url = `${location.pathname}${location.search}${hash}`;
  if (mode === 'push') history.pushState(null, '', url);
  else history.replaceState(null, '', url);
}

/** Empties the run panel and ends the run's subscriptions. */
export function clearRun() {
  for (const unsubscribe of state.run?.unsubscribers ?? []) unsubscribe();
  if (state.run !== null) stopFollowingView(state.run);
  state.run = null;
  state.missing = null;
  state.stats = { live: 0, gaps: 0, duplicates: 0, bookkeeping: 0 };
  $('run-missing').hidden = true;
  $('run-id').textContent = '';
  $('run-summary').replaceChildren();
  $('feed').replaceChildren();
  clearView();
  renderStats();
}

/**
 * An unknown run id in the URL: the run panel says so.
 *
 * @param {string} runId
 */
export function showMissing(runId) {
  clearRun();
  state.missing = runId;
  $('run-id').textContent = runId;
  $('run-missing').textContent = `Workflow run not found: ${runId}`;
  $('run-missing').hidden = false;
}

/**
 * Selects a run: the URL names it, the panel shows it, its feeds start.
 *
 * @param {string} runId
 * @param {{ history?: HistoryMode }} [options] how the URL records it (default 'replace')
 */
export function selectRun(runId, { history: historyMode = 'replace' } = {}) {
  writeHash(runId, historyMode);
  if (state.run?.runId === runId) return;
  clearRun();
  /** @type {SelectedRun} */
  const run = {
    runId,
    cursor: null,
    // The delta subscription's variables: `after` follows the cursor, so a resubscribe after a reconnect resumes there.
    deltaVariables: { runId, after: null },
    initialRevision: null,
    unsubscribers: [],
    record: null,
    view: null,
    viewFollow: newViewFollow(runId),
    graph: emptyGraph(),
    graphFrom: null,
  };
  state.run = run;
  $('run-id').textContent = runId;
  for (const node of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('.run-node'))) {
    node.setAttribute('aria-current', String(node.dataset.runId === runId));
  }
  renderGraph(run);
  void startRun(run);
}

/**
 * First load: the run's current revision is what the page shows; replay the retained
 * revisions before it (the graph view needs them), then continue live (docs/PROTOCOL.md).
 *
 * @param {SelectedRun} run
 */
async function startRun(run) {
  try {
    /** @type {LivePageRunQuery} */
    const data = await gql('LivePageRun', { runId: run.runId }, { isCurrent: () => state.run === run });
    if (state.run !== run) return;
    if (data.workflowRun === null) {
      showMissing(run.runId);
      return;
    }
    run.record = data.workflowRun;
    run.initialRevision = data.workflowRun.presentationRevision;
    setCursor(run, Math.max(1, run.initialRevision - REPLAY_REVISIONS));
    run.graphFrom = /** @type {number} */ (run.cursor) + 1;
    renderSummary(run);
    void readView(run);
    run.unsubscribers.push(
      subscribe('LivePageDeltas', run.deltaVariables, {
        next: (result) => onDeltaEvent(run, result),
        error: (error) => showError(`Delta subscription: ${error.message}`),
      }),
      subscribe(
        'LivePageRunUpdated',
        { runId: run.runId },
        {
          next: (/** @type {import('/app/connection.js').SubscriptionResult<LivePageRunUpdatedSubscription>} */ result) => {
            if (state.run !== run || !result.data) return;
            run.record = result.data.workflowRunUpdated;
            renderSummary(run);
          },
          error: (error) => showError(`Run subscription: ${error.message}`),
        },
      ),
    );
  } catch (error) {
    if (isSuperseded(error)) return;
    showError(`Could not load the run: ${failureText(error)}`);
  }
}

/**
 * Reads the selected run's record again (after a reconnect: `workflowRunUpdated` does not
 * replay what changed while the page was away; the delta feed does, by its cursor). A record
 * older than the one shown (the subscription was quicker) is dropped.
 */
export async function refreshRecord() {
  const run = state.run;
  if (run === null || run.record === null) return; // not loaded yet: its first read is on its way
  try {
    /** @type {LivePageRunQuery} */
    const data = await gql('LivePageRun', { runId: run.runId }, { isCurrent: () => state.run === run });
    const record = data.workflowRun;
    if (state.run !== run || record === null || run.record === null) return;
    if (record.presentationRevision < run.record.presentationRevision) return;
    run.record = record;
    renderSummary(run);
    void readView(run); // only when its first read failed: a followed view resumes by itself
  } catch (error) {
    if (isSuperseded(error)) return;
    showError(`Could not load the run: ${failureText(error)}`);
  }
}

/**
 * The last revision applied; also what a resubscribe asks to continue after.
 *
 * @param {SelectedRun} run
 * @param {number} revision
 */
function setCursor(run, revision) {
  run.cursor = revision;
  run.deltaVariables.after = revision;
}

/**
 * One event of the run's delta feed: a revision (applied once, in order) or a snapshot
 * required.
 *
 * @param {SelectedRun} run
 * @param {import('/app/connection.js').SubscriptionResult<DeltaEventData>} result
 */
function onDeltaEvent(run, result) {
  if (state.run !== run) return;
  const event = /** @type {DeltaEventData} */ (result.data).workflowRunDeltas;
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
  const cursor = /** @type {number} */ (run.cursor);
  if (revision <= cursor) {
    state.stats.duplicates += 1; // cannot happen within one subscription; counted to show it
    renderStats();
    return;
  }
  if (revision !== cursor + 1) state.stats.gaps += 1;
  setCursor(run, revision);
  const live = revision > /** @type {number} */ (run.initialRevision);
  if (live) state.stats.live += 1;
  const bookkeeping = isBookkeeping(event);
  if (bookkeeping) state.stats.bookkeeping += 1;
  const graph = applyGraphBatch(run.graph, event);
  if (graph !== run.graph) {
    run.graph = graph;
    renderGraph(run);
  }
  prependFeed(feedEntry(event, live, bookkeeping));
  renderStats();
}
