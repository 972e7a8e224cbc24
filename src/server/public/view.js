// @ts-check
/**
 * Draws the selected run's view (what pi-workflows' own viewer shows): its head, graph,
 * result, what it waits for, progress, steps, conversation and timeline, each by its module.
 */
import { $, el } from '/app/dom.js';
import { resetOpen } from '/app/content.js';
import { renderConversation } from '/app/view-conversation.js';
import { renderGraph } from '/app/view-graph.js';
import { renderHead, renderResult } from '/app/view-header.js';
import { renderProgress } from '/app/view-progress.js';
import { renderSteps } from '/app/view-steps.js';
import { renderTrace } from '/app/view-trace.js';
import { renderWaiting } from '/app/view-waiting.js';

/** The panes a view fills (emptied when another run is selected). */
const PANES = ['view-head', 'result', 'waiting', 'progress', 'steps', 'conversation', 'timeline', 'steps-count', 'conversation-count', 'timeline-count'];

/**
 * Draws `run.view` (the graph also when there is no view yet: its viewer deltas).
 *
 * @param {import('/app/state.js').SelectedRun} run
 */
export function renderView(run) {
  renderGraph(run);
  const view = run.view;
  if (view === null) return;
  renderHead(view);
  renderResult(view);
  renderWaiting(view);
  renderProgress(view);
  renderSteps(view);
  renderConversation(view);
  renderTrace(view);
}

/**
 * Says the view could not be read (e.g. a token that may not read content): the record and
 * the deltas are still shown.
 *
 * @param {string} message
 */
export function showViewError(message) {
  $('view-head').replaceChildren(el('p', { class: 'missing' }, `Could not read the run's view: ${message}`));
}

/** Empties every pane of the view (no run, or another run selected). */
export function clearView() {
  resetOpen();
  for (const id of PANES) $(id).replaceChildren();
  $('view-head').dataset.status = '';
  $('waiting-box').hidden = true;
  $('progress-box').hidden = true;
  $('graph').replaceChildren();
  $('graph-rev').textContent = '';
}
