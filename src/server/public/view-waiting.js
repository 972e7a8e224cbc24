// @ts-check
/**
 * What the run waits for and the questions it asks: the node it waits on and why, the pending
 * question (its prompt and the answer it expects, the whole contract collapsed), the
 * decisions it asked a person (title, audience, choices, how they were resolved) and every
 * question its attempts asked.
 */
import { $, badge, el, time } from '/app/dom.js';
import { collapsible, fieldsLine, valueOf } from '/app/content.js';

/**
 * @typedef {import('/app/state.js').RunView} RunView
 * @typedef {NonNullable<RunView['pendingRequest']>} Request
 * @typedef {RunView['humanDecisions']['edges'][number]['node']} Decision
 */

/**
 * A question: what it asks and expects, when, its status; the contract collapsed.
 *
 * @param {Request} request
 * @param {string} key
 */
function question(request, key) {
  const value = valueOf(request.contract);
  const body = value !== null && typeof value === 'object' && !Array.isArray(value) ? /** @type {Record<string, unknown>} */ (value) : {};
  const contract = body.contract !== null && typeof body.contract === 'object' ? /** @type {Record<string, unknown>} */ (body.contract) : {};
  const prompt = typeof body.prompt === 'string' ? body.prompt : null;
  const expected = typeof contract.expectedOutput === 'string' ? contract.expectedOutput : null;
  return el(
    'div',
    { class: `question q-${request.status}`, dataset: { requestId: request.requestId, status: request.status } },
    el(
      'div',
      { class: 'q-head' },
      badge(request.status.toUpperCase()),
      el('span', { class: 'muted' }, `${request.kind} question · asked ${time(request.createdAt)}`),
      typeof contract.nodeId === 'string' ? el('span', { class: 't-node' }, contract.nodeId) : null,
    ),
    prompt ? el('div', { class: 'q-prompt text' }, prompt) : null,
    expected ? el('div', { class: 'muted' }, `expects: ${expected}`) : null,
    collapsible(key, el('span', { class: 'muted' }, 'contract'), el('pre', { class: 'json' }, JSON.stringify(value, null, 2))),
  );
}

/**
 * A decision asked of a person.
 *
 * @param {Decision} decision
 */
function decisionView(decision) {
  const choices = valueOf(decision.choices);
  const labels =
    choices !== null && typeof choices === 'object' && !Array.isArray(choices)
      ? Object.entries(choices).map(([name, choice]) => (choice && typeof choice === 'object' && 'label' in choice ? String(choice.label) : name))
      : [fieldsLine(choices)];
  const resolution = decision.resolution;
  return el(
    'div',
    { class: 'question decision', dataset: { decisionId: decision.decisionId } },
    el(
      'div',
      { class: 'q-head' },
      badge(resolution ? resolution.outcome.toUpperCase() : 'OPEN'),
      el(
        'span',
        { class: 'muted' },
        `asks ${decision.audience} · ${time(decision.createdAt)}${decision.deadlineAt ? ` · until ${time(decision.deadlineAt)}` : ''}`,
      ),
    ),
    el('div', { class: 'q-prompt text' }, decision.title),
    el(
      'div',
      { class: 'choices' },
      labels.map((label) => el('span', { class: 'control' }, label)),
    ),
    resolution?.reason ? el('div', { class: 'muted' }, `reason: ${resolution.reason}`) : null,
    collapsible(`decision/${decision.decisionId}`, el('span', { class: 'muted' }, 'choices'), el('pre', { class: 'json' }, JSON.stringify(choices, null, 2))),
  );
}

/**
 * Draws what the run waits for and the questions it asked; the section hides when there is none.
 *
 * @param {RunView} view
 */
export function renderWaiting(view) {
  const pending = view.pendingRequest;
  const others = view.interactiveRequests.edges.map((edge) => edge.node).filter((request) => request.requestId !== pending?.requestId);
  const decisions = view.humanDecisions.edges.map((edge) => edge.node);
  const waiting = view.waitingOn !== null || view.display.status === 'WAITING';
  const parts = [
    waiting
      ? el(
          'p',
          { class: 'waiting-on' },
          el('strong', {}, view.waitingOn ? `Waits on node ${view.waitingOn}` : 'Waits'),
          view.display.reason ? `: ${view.display.reason}` : '',
        )
      : null,
    pending ? question(pending, 'pending-request') : null,
    ...decisions.map(decisionView),
    others.length > 0 ? el('div', { class: 'field-label' }, 'questions asked before') : null,
    ...others.map((request) => question(request, `request/${request.requestId}`)),
  ].filter((node) => node !== null);
  $('waiting-box').hidden = parts.length === 0;
  $('waiting').replaceChildren(...parts);
}
