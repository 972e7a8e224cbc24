// @ts-check
/**
 * Reading the selected run's view: once when the run is opened, then again whenever its
 * viewer deltas say it changed (and after a reconnect). One read at a time per run; changes
 * that come while one is on its way make one more read after it. An answer for another run,
 * or older than the view shown, is dropped.
 *
 * This is the one place that knows how the view is kept fresh: to follow a subscription of the
 * view instead, replace {@link viewChanged}'s re-read with the subscription's `next` calling
 * {@link showView}.
 */
import { gql, isSuperseded } from '/app/graphql-http.js';
import { failureText } from '/app/failure-text.js';
import { state } from '/app/state.js';
import { renderView, showViewError } from '/app/view.js';

/** Changes within this many ms are read once. */
const COALESCE_MS = 80;

/**
 * @typedef {import('/app/state.js').SelectedRun} SelectedRun
 * @typedef {import('../../../schema/generated/graphql.js').LivePageRunViewQuery} LivePageRunViewQuery
 */

/**
 * Shows a view read (or pushed) for `run`, unless another run is selected now or the view
 * shown is newer.
 *
 * @param {SelectedRun} run
 * @param {import('/app/state.js').RunView} view
 */
export function showView(run, view) {
  if (state.run !== run) return;
  if (run.view !== null && view.revision < run.view.revision) return;
  const same = run.view !== null && view.revision === run.view.revision;
  run.view = view;
  if (!same) renderView(run);
}

/**
 * Reads the run's view now (or once the read on its way has answered).
 *
 * @param {SelectedRun} run
 */
export async function readView(run) {
  const reading = run.viewRead;
  if (reading.reading) {
    reading.again = true;
    return;
  }
  reading.reading = true;
  try {
    /** @type {LivePageRunViewQuery} */
    const data = await gql('LivePageRunView', { runId: run.runId }, { isCurrent: () => state.run === run });
    if (data.workflowRun !== null) showView(run, data.workflowRun.view);
  } catch (error) {
    if (!isSuperseded(error) && state.run === run) showViewError(failureText(error));
  } finally {
    reading.reading = false;
    if (reading.again && state.run === run) {
      reading.again = false;
      void readView(run);
    }
  }
}

/**
 * The run's viewer deltas moved on (a revision, a snapshot required): read the view again
 * soon (changes close together are read once).
 *
 * @param {SelectedRun} run
 */
export function viewChanged(run) {
  const reading = run.viewRead;
  if (reading.timer !== null) return;
  reading.timer = setTimeout(() => {
    reading.timer = null;
    if (state.run === run) void readView(run);
  }, COALESCE_MS);
}

/**
 * Stops a pending re-read (the run is no longer selected).
 *
 * @param {SelectedRun} run
 */
export function stopViewReads(run) {
  if (run.viewRead.timer !== null) clearTimeout(run.viewRead.timer);
  run.viewRead.timer = null;
}
