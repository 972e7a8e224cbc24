// @ts-check
/**
 * The head of the selected run's view: its title, the status pi-workflows' viewer shows and
 * why, what a person may do now (its controls), where it is, its input (collapsed), and its
 * end: the final output or the error.
 */
import { $, badge, el, time } from '/app/dom.js';
import { contentView, duration, field, jsonDetails, valueOf } from '/app/content.js';

/** @typedef {import('/app/state.js').RunView} RunView */

/** A control in words (RunControl). */
const CONTROL_WORDS = /** @type {Record<string, string>} */ ({
  ANSWER: 'answer its question',
  CANCEL: 'cancel',
  PAUSE: 'pause',
  RESUME: 'resume',
  REVIEW: 'review an effect of unknown outcome',
});

/**
 * Draws the title, status, reason, controls, place and input.
 *
 * @param {RunView} view
 */
export function renderHead(view) {
  const display = view.display;
  const where = view.waitingOn ? `waiting on ${view.waitingOn}` : view.currentNode ? `on ${view.currentNode}` : null;
  const meta = [
    `${view.workflowName}${view.definition && view.definition.name !== view.workflowName ? ` (definition ${view.definition.name})` : ''}`,
    where,
    view.statusDetail,
    `created ${time(view.createdAt)}`,
    view.finishedAt && !view.live ? `finished ${time(view.finishedAt)} · took ${duration(view.createdAt, view.finishedAt)}` : null,
    view.carriedStepCount > 0 ? `${view.carriedStepCount} steps carried over` : null,
  ].filter(Boolean);
  const input = valueOf(view.input);
  // Only a pending question invites an answer (a run waiting with none pending, e.g. its only
  // question cancelled, offers no ANSWER).
  const pending = view.pendingRequest !== null || view.interactiveRequests.edges.some((edge) => edge.node.status === 'pending');
  const controls = display.controls.filter((control) => control !== 'ANSWER' || pending);
  $('view-head').dataset.status = display.status;
  $('view-head').replaceChildren(
    el(
      'div',
      { class: 'view-title' },
      el('h3', { id: 'run-title' }, view.title ?? view.workflowName),
      badge(display.status),
      view.paused ? el('span', { class: 'badge s-PAUSED' }, 'paused') : null,
      view.possiblyInterrupted
        ? el('span', { class: 'badge stale', title: 'parked and not paused: its worker may have stopped' }, 'possibly interrupted')
        : null,
      display.activity ? el('span', { class: 'badge kind' }, display.activity === 'ORIGIN_TURN' ? 'origin session turn' : 'supervised worker') : null,
    ),
    el('p', { class: 'view-meta' }, meta.join(' · ')),
    el('p', { class: 'view-reason', hidden: !display.reason }, display.reason ?? ''),
    el(
      'p',
      { class: 'controls', id: 'run-controls' },
      el('span', { class: 'muted' }, 'a person may: '),
      controls.length === 0
        ? el('span', { class: 'muted' }, 'nothing now')
        : controls.map((control) => el('span', { class: 'control', dataset: { control } }, CONTROL_WORDS[control] ?? control.toLowerCase())),
    ),
    el(
      'div',
      { class: 'view-input' },
      input !== null && typeof input === 'object' ? jsonDetails('input', input, `input`) : field('input', contentView('input', view.input)),
    ),
  );
}

/**
 * Draws the run's end: its final output, its error, or what is still to come.
 *
 * @param {RunView} view
 */
export function renderResult(view) {
  const output = field('final output', contentView('final-output', view.finalOutput), 'final-output');
  const error = field('error', contentView('error', view.error), 'error');
  const none = output === null && error === null ? el('p', { class: 'empty' }, view.live ? 'Not finished yet.' : 'It ended without a final output.') : null;
  $('result').replaceChildren(...[error, output, none].filter((node) => node !== null));
}
