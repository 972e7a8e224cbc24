// @ts-check
// The live lineage page: plain browser JavaScript, no framework, no CDN, no build step (the
// typed client it uses is bundled by the server). This
// module wires the page's parts and its controls:
//
// - /app/session.js: the endpoints, the token (open the page as /?token=<token> when the
//   server runs with --token) and the operations of schema/operations/live-page.graphql
//   (validated and linted with the other client operations), split per operation by the
//   server and loaded by /app/operations.js.
// - /app/connection.js: the page's one client, the typed client `pi-workflows-graphql/client`
//   (served bundled for browsers at /app/vendor/client/client.js; it imports the `graphql-ws`
//   package's own browser client from /app/vendor/graphql-ws/): the subscriptions, which it
//   resubscribes after a reconnect with the current cursors (docs/PROTOCOL.md "Reconnect
//   recipe"), its retry policy, and the connection badge; /app/graphql-http.js: the queries over
//   HTTP through the same client, retried while the server is away.
// - /app/chain-list.js: chains from pages of `workflowRuns` ("load more" reaches every run),
//   filtered, grouped by chain, kept fresh by the run-list change feed `workflowRunChanges`
//   (merged by /app/run-list.js); no polling. Follow mode.
// - /app/chain-tree.js: a chain's tree, the root's `lineage` (every page), reloaded on each
//   change the feed `workflowRunChanges(filter: {rootRunId})` reports.
// - /app/run-panel.js and /app/run-view.js: a run, its record (`workflowRunUpdated`) and its
//   raw delta feed (`workflowRunDeltas` with a resume cursor, collapsed, for debugging);
//   bookkeeping revisions (record bumps, /app/bookkeeping.js) hidden unless asked.
// - /app/view-read.js: the run's view (`WorkflowRun.view`, what pi-workflows' own viewer shows)
//   read in one query, then followed by `workflowRunView` from its cursor (each change applied
//   to the page's copy, resumed from the last cursor after a reconnect); /app/view.js draws it with
//   /app/view-header.js (title, status, controls, input, final output or error),
//   /app/view-graph.js (the definition's graph with each node's state; GRAPH deltas from
//   /app/graph-view.js fill in), /app/view-steps.js, /app/view-trace.js (the timeline),
//   /app/view-conversation.js (the chat), /app/view-waiting.js (what it waits for, its
//   questions), /app/view-progress.js (updates, follow-ups); /app/content.js formats values.
// - /app/server-info.js: the header's database line (`GET /health`): which database, read-only or not.
// - /app/stale-timer.js: stale marks (/app/stale.js), a STARTING or RUNNING run without a
//   live claim, also when a shown claim expires.
// - /app/url-selection.js: the selected run is in the URL, /#run=<runId> (/app/url-hash.js);
//   back and forward work.
// - /app/state.js: the state they share; /app/dom.js: small DOM helpers.

import { follow, loadPage, onReconnected, reloadList, renderChains } from '/app/chain-list.js';
import { renderTree } from '/app/chain-tree.js';
import { onReconnected as whenReconnected } from '/app/connection.js';
import { $ } from '/app/dom.js';
import { refreshRecord } from '/app/run-panel.js';
import { renderStats, renderSummary } from '/app/run-view.js';
import { showServerInfo } from '/app/server-info.js';
import { redraw, state } from '/app/state.js';
import { parseHash } from '/app/url-hash.js';
import { openFromHash, watchHash } from '/app/url-selection.js';

redraw.chains = renderChains;
redraw.staleMarks = () => {
  renderChains();
  if (state.chain) renderTree(state.chain.nodes);
  if (state.run) renderSummary(state.run);
};
whenReconnected(onReconnected);
whenReconnected(() => void refreshRecord());
watchHash();

// ---- controls ------------------------------------------------------------------------------

$('follow').addEventListener('change', (event) => {
  state.follow = /** @type {HTMLInputElement} */ (event.target).checked;
  if (state.follow) follow();
});

$('show-bookkeeping').addEventListener('change', (event) => {
  state.showBookkeeping = /** @type {HTMLInputElement} */ (event.target).checked;
  $('feed').classList.toggle('show-bookkeeping', state.showBookkeeping);
  renderStats();
});

$('chains-more').addEventListener('click', () => {
  const list = state.list;
  if (list.hasNextPage) void loadPage(list.generation, list.endCursor);
});

/** @type {ReturnType<typeof setTimeout> | undefined} */
let filterTimer;
$('filters').addEventListener('submit', (event) => event.preventDefault());
$('filters').addEventListener('input', () => {
  clearTimeout(filterTimer);
  filterTimer = setTimeout(() => void reloadList(), 250);
});
$('filters').addEventListener('reset', () => {
  clearTimeout(filterTimer);
  filterTimer = setTimeout(() => void reloadList(), 0);
});

// ---- start ---------------------------------------------------------------------------------

void showServerInfo();
if (parseHash(location.hash).run !== null) void openFromHash();
// The first page at once (no waiting for the socket): the list's change feed then starts from
// the page's changeCursor, so a change committed before the subscription reached the server is
// replayed.
void reloadList();
