// @ts-check
/**
 * The run's steps in run order: each a collapsed entry (node, type, attempt, outcome, how long)
 * that opens on its prompt, output and error.
 */
import { $, badge, el, time } from '/app/dom.js';
import { collapsible, contentView, duration, field } from '/app/content.js';

/** A step outcome as a status badge's status. */
const OUTCOME_BADGE = /** @type {Record<string, string>} */ ({ OK: 'COMPLETED', FAILED: 'FAILED', CANCELLED: 'CANCELLED', TIMED_OUT: 'TIMED_OUT' });

/**
 * Draws the steps.
 *
 * @param {import('/app/state.js').RunView} view
 */
export function renderSteps(view) {
  const steps = view.steps.edges.map((edge) => edge.node);
  const shown = steps.length < view.steps.totalCount ? ` · the newest ${steps.length}` : '';
  $('steps-count').textContent = `${view.steps.totalCount}${shown}`;
  $('steps').replaceChildren(
    ...(steps.length === 0
      ? [el('li', { class: 'empty' }, 'No step yet.')]
      : steps.map((step) => {
          const key = `step/${step.stepIndex}`;
          const carried = step.stepIndex < view.carriedStepCount ? el('span', { class: 'muted' }, ' carried over') : null;
          return el(
            'li',
            { class: `step o-${step.outcome}`, dataset: { step: String(step.stepIndex), node: step.nodeId, outcome: step.outcome } },
            collapsible(
              key,
              [
                el('span', { class: 'step-index' }, `${step.stepIndex + 1}`),
                el('span', { class: 'step-node' }, step.nodeId),
                el('span', { class: 'muted' }, `${step.nodeType}${step.attempt > 1 ? ` · attempt ${step.attempt}` : ''}`),
                badge(OUTCOME_BADGE[step.outcome] ?? step.outcome, ''),
                el('span', { class: 'muted step-time' }, `${time(step.startedAt)} ${duration(step.startedAt, step.finishedAt)}`),
                carried,
              ],
              el(
                'div',
                { class: 'step-body' },
                field('prompt', contentView(`${key}/prompt`, step.prompt), 'prompt'),
                field('output', contentView(`${key}/output`, step.output), 'output'),
                field('error', contentView(`${key}/error`, step.error), 'error'),
                step.prompt === null && step.output === null && step.error === null ? el('p', { class: 'empty' }, 'No prompt, output or error.') : null,
              ),
            ),
          );
        })),
  );
}
