// @ts-check
/**
 * The run's progress: its progress updates as bars (label, done of total, unit), its metrics
 * as key/value lines, and the follow-up prompts queued for its origin session. The section
 * hides when there is none.
 */
import { $, badge, el, time } from '/app/dom.js';
import { contentView, fieldsLine, valueOf } from '/app/content.js';

/**
 * @typedef {import('/app/state.js').RunView} RunView
 * @typedef {RunView['updates']['edges'][number]['node']} Update
 */

/**
 * The status a progress bar shows: its own while the run runs; once the run is shown as
 * anything else (waiting, failed, completed …), the run's displayed status instead (an update's
 * last "running" is not what the run does now).
 *
 * @param {unknown} status the update's `status` field
 * @param {RunView} view
 * @returns {string | null}
 */
function progressStatus(status, view) {
  if (typeof status !== 'string') return null;
  if (view.display.status === 'RUNNING') return status;
  return view.display.status.toLowerCase().replaceAll('_', ' ');
}

/**
 * One update: a progress bar, or a metric's fields.
 *
 * @param {Update} update
 * @param {RunView} view
 */
function updateView(update, view) {
  const data = valueOf(update.data);
  const fields = data !== null && typeof data === 'object' && !Array.isArray(data) ? /** @type {Record<string, unknown>} */ (data) : {};
  const done = Number(fields.completed);
  const total = Number(fields.total);
  const head = el('span', { class: 'u-key' }, `${update.nodeId} · ${typeof fields.label === 'string' ? fields.label : update.key}`);
  if (update.type === 'progress' && Number.isFinite(done) && Number.isFinite(total) && total > 0) {
    const status = progressStatus(fields.status, view);
    return el(
      'li',
      { class: 'update progress', dataset: { type: update.type, key: update.key } },
      head,
      el('progress', { max: String(total), value: String(done) }),
      el('span', { class: 'muted' }, `${done} of ${total}${typeof fields.unit === 'string' ? ` ${fields.unit}` : ''}${status === null ? '' : ` · ${status}`}`),
    );
  }
  return el(
    'li',
    { class: 'update', dataset: { type: update.type, key: update.key } },
    head,
    el('span', { class: 'muted' }, ` ${update.type} · ${time(update.at)} · `),
    fieldsLine(data),
  );
}

/**
 * Draws progress, metrics and follow-ups.
 *
 * @param {RunView} view
 */
export function renderProgress(view) {
  const updates = view.updates.edges.map((edge) => edge.node);
  const followUps = view.followUps.edges.map((edge) => edge.node);
  const parts = [
    updates.length > 0
      ? el(
          'ol',
          { class: 'updates' },
          updates.map((update) => updateView(update, view)),
        )
      : null,
    followUps.length > 0 ? el('div', { class: 'field-label' }, `follow-ups (${view.followUps.totalCount})`) : null,
    followUps.length > 0
      ? el(
          'ol',
          { class: 'follow-ups' },
          followUps.map((followUp) =>
            el(
              'li',
              { class: 'follow-up', dataset: { state: followUp.state } },
              badge(followUp.state.toUpperCase()),
              el('span', { class: 'muted' }, ` ${followUp.actorType} · ${time(followUp.createdAt)}`),
              contentView(`follow-up/${followUp.followUpId}`, followUp.prompt),
              followUp.reason ? el('div', { class: 'muted' }, 'why: ', contentView(`follow-up/${followUp.followUpId}/reason`, followUp.reason)) : null,
            ),
          ),
        )
      : null,
  ].filter((node) => node !== null);
  $('progress-box').hidden = parts.length === 0;
  $('progress').replaceChildren(...parts);
}
