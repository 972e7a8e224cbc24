// @ts-check
/**
 * Following the selected run's view (docs/PROTOCOL.md "Following a run's view"): read once with
 * a query (`LivePageRunView`, with the view's cursor), then followed by the subscription
 * `workflowRunView(runId, after: cursor)` (`LivePageViewFollow`), no query per revision. A
 * `WorkflowRunViewChanged` is applied to the page's copy (steps, trace events and session
 * entries appended, updates replaced by type and key, the head replaced); a
 * `WorkflowRunViewReset` replaces the copy. The subscription's variables keep the last cursor,
 * so the client's resubscribe after a reconnect resumes there: nothing missed or repeated.
 *
 * The lists no event carries (follow-ups, questions, decisions) are read again
 * (`LivePageRunQuestions`) when an event says they may have changed: another pending question,
 * another status or node waited on, or a trace event about a question, decision or follow-up.
 */
import { subscribe } from '/app/connection.js';
import { showError } from '/app/dom.js';
import { gql, isSuperseded } from '/app/graphql-http.js';
import { failureText } from '/app/failure-text.js';
import { state } from '/app/state.js';
import { renderView, showViewError } from '/app/view.js';

/** The newest items the page keeps of each list (the query's page size). */
const LIST_LIMIT = 256;

/** Trace event types that may come with a change of the follow-ups, questions or decisions. */
const QUESTION_TRACE = /interact|request|decision|follow|answer|question|human/i;

/**
 * @typedef {import('/app/state.js').SelectedRun} SelectedRun
 * @typedef {import('/app/state.js').RunView} RunView
 * @typedef {import('../../../schema/generated/graphql.js').LivePageRunViewQuery} LivePageRunViewQuery
 * @typedef {import('../../../schema/generated/graphql.js').LivePageRunQuestionsQuery} LivePageRunQuestionsQuery
 * @typedef {import('../../../schema/generated/graphql.js').LivePageViewFollowSubscription} LivePageViewFollowSubscription
 * @typedef {LivePageViewFollowSubscription['workflowRunView']} ViewEvent
 * @typedef {Extract<ViewEvent, { __typename: 'WorkflowRunViewChanged' }>} ViewChanged
 */

/**
 * How the selected run's view is followed: the subscription's variables (`after`: the last
 * cursor applied), its unsubscribe function (null until the first read answered), whether that
 * read is on its way, and the re-reads of the lists no event carries.
 *
 * @typedef {{ variables: { runId: string, after: string | null }, unsubscribe: (() => void) | null, reading: boolean,
 *   questions: { reading: boolean, again: boolean, revision: number } }} ViewFollow
 */

/**
 * A new run's follow state (nothing read yet).
 *
 * @param {string} runId
 * @returns {ViewFollow}
 */
export function newViewFollow(runId) {
  return { variables: { runId, after: null }, unsubscribe: null, reading: false, questions: { reading: false, again: false, revision: -1 } };
}

/**
 * Shows a view read (or pushed) for `run`, unless another run is selected now or the view
 * shown is newer.
 *
 * @param {SelectedRun} run
 * @param {RunView} view
 */
export function showView(run, view) {
  if (state.run !== run) return;
  if (run.view !== null && view.revision < run.view.revision) return;
  run.view = view;
  renderView(run);
}

/**
 * Reads the run's view and follows it from there; does nothing while that read is on its way
 * or once the view is followed (a reconnect resumes the subscription by itself).
 *
 * @param {SelectedRun} run
 */
export async function readView(run) {
  const follow = run.viewFollow;
  if (follow.reading || follow.unsubscribe !== null) return;
  follow.reading = true;
  try {
    /** @type {LivePageRunViewQuery} */
    const data = await gql('LivePageRunView', { runId: run.runId }, { isCurrent: () => state.run === run });
    if (state.run !== run || data.workflowRun === null) return;
    const { cursor, ...view } = data.workflowRun.view;
    follow.variables.after = cursor;
    follow.questions.revision = view.revision;
    showView(run, view);
    follow.unsubscribe = subscribe('LivePageViewFollow', follow.variables, {
      next: (result) => onViewEvent(run, result.data),
      error: (error) => {
        follow.unsubscribe = null; // the next reconnect reads the view again
        if (state.run === run) showError(`View subscription: ${error.message}`);
      },
    });
  } catch (error) {
    if (!isSuperseded(error) && state.run === run) showViewError(failureText(error));
  } finally {
    follow.reading = false;
  }
}

/**
 * One event of the run's view subscription.
 *
 * @param {SelectedRun} run
 * @param {LivePageViewFollowSubscription | undefined} data
 */
function onViewEvent(run, data) {
  if (state.run !== run || !data) return;
  const event = data.workflowRunView;
  run.viewFollow.variables.after = event.cursor;
  if (event.__typename === 'WorkflowRunViewReset') {
    run.view = event.view;
    run.viewFollow.questions.revision = event.revision;
    renderView(run);
    return;
  }
  const before = run.view;
  if (before === null) return; // cannot happen: the subscription starts from a view read
  run.view = applyViewChange(before, event);
  renderView(run);
  if (questionsMayHaveChanged(before, event)) void readQuestions(run);
}

/**
 * The list `connection` with the items of `items` after its last one (by `position`) appended;
 * the newest {@link LIST_LIMIT} kept.
 *
 * @template T
 * @template {{ totalCount: number, edges: Array<{ node: T }> }} C
 * @param {C} connection
 * @param {T[]} items
 * @param {(item: T) => number} position
 * @returns {C}
 */
function appended(connection, items, position) {
  const lastEdge = connection.edges.at(-1);
  const last = lastEdge === undefined ? -Infinity : position(lastEdge.node);
  const fresh = items.filter((item) => position(item) > last);
  if (fresh.length === 0) return connection;
  const edges = [...connection.edges, ...fresh.map((node) => ({ node }))].slice(-LIST_LIMIT);
  return { ...connection, totalCount: connection.totalCount + fresh.length, edges };
}

/**
 * The list `connection` with each item of `items` replacing the one of the same key (in its
 * place), or appended.
 *
 * @template T
 * @template {{ totalCount: number, edges: Array<{ node: T }> }} C
 * @param {C} connection
 * @param {T[]} items
 * @param {(item: T) => string} key
 * @returns {C}
 */
function replaced(connection, items, key) {
  if (items.length === 0) return connection;
  const byKey = new Map(connection.edges.map((edge) => [key(edge.node), edge]));
  let added = 0;
  for (const node of items) {
    if (!byKey.has(key(node))) added += 1;
    byKey.set(key(node), { node });
  }
  return { ...connection, totalCount: connection.totalCount + added, edges: [...byKey.values()].slice(-LIST_LIMIT) };
}

/**
 * The view `view` after a `WorkflowRunViewChanged`: its lists with the event's items, its head
 * the event's.
 *
 * @param {RunView} view
 * @param {ViewChanged} event
 * @returns {RunView}
 */
export function applyViewChange(view, event) {
  const head = event.view;
  const entries = view.session?.entries ?? { totalCount: 0, edges: [] };
  const session = head.session === null ? view.session : { ...head.session, entries: appended(entries, event.sessionEntries, (entry) => entry.seq) };
  const pending = head.pendingRequest;
  return {
    ...view,
    ...head,
    steps: appended(view.steps, event.steps, (step) => step.stepIndex),
    trace: appended(view.trace, event.traceEvents, (traceEvent) => traceEvent.seq),
    session,
    updates: replaced(view.updates, event.updates, (update) => `${update.type}\u0000${update.key}`),
    // The pending question is in the head: the list of questions has it too.
    interactiveRequests: pending === null ? view.interactiveRequests : replaced(view.interactiveRequests, [pending], (request) => request.requestId),
  };
}

/**
 * Whether the follow-ups, questions or decisions may have changed with `event` (no event
 * carries them).
 *
 * @param {RunView} before
 * @param {ViewChanged} event
 * @returns {boolean}
 */
function questionsMayHaveChanged(before, event) {
  const head = event.view;
  return (
    (before.pendingRequest?.requestId ?? null) !== (head.pendingRequest?.requestId ?? null) ||
    before.display.status !== head.display.status ||
    before.waitingOn !== head.waitingOn ||
    event.traceEvents.some((traceEvent) => QUESTION_TRACE.test(traceEvent.type))
  );
}

/**
 * Reads the run's follow-ups, questions and decisions again (one read at a time; asked again
 * meanwhile, once more after it) and shows them unless an answer of a later revision was shown.
 *
 * @param {SelectedRun} run
 */
async function readQuestions(run) {
  const reading = run.viewFollow.questions;
  if (reading.reading) {
    reading.again = true;
    return;
  }
  reading.reading = true;
  try {
    /** @type {LivePageRunQuestionsQuery} */
    const data = await gql('LivePageRunQuestions', { runId: run.runId }, { isCurrent: () => state.run === run });
    const lists = data.workflowRun?.view;
    if (state.run !== run || run.view === null || lists === undefined || lists.revision < reading.revision) return;
    reading.revision = lists.revision;
    run.view = { ...run.view, followUps: lists.followUps, interactiveRequests: lists.interactiveRequests, humanDecisions: lists.humanDecisions };
    renderView(run);
  } catch (error) {
    if (!isSuperseded(error) && state.run === run) showError(`Could not read the run's questions: ${failureText(error)}`);
  } finally {
    reading.reading = false;
    if (reading.again && state.run === run) {
      reading.again = false;
      void readQuestions(run);
    }
  }
}

/**
 * Stops following the run's view (another run is selected).
 *
 * @param {SelectedRun} run
 */
export function stopFollowingView(run) {
  run.viewFollow.unsubscribe?.();
  run.viewFollow.unsubscribe = null;
}
