// @ts-check
/**
 * Small DOM helpers of the live page: element look-up by id, element building, the badges and
 * times every panel draws, and the error banner. No framework.
 */
import { staleReason } from '/app/stale.js';

/**
 * The page's element with this id.
 *
 * @param {string} id
 * @returns {HTMLElement}
 * @throws Error `no element #<id>` when index.html has none
 */
export function $(id) {
  const node = document.getElementById(id);
  if (node === null) throw new Error(`no element #${id}`);
  return node;
}

/**
 * A form control's element (input or select) with this id.
 *
 * @param {string} id
 * @returns {HTMLInputElement}
 */
export const $input = (id) => /** @type {HTMLInputElement} */ ($(id));

/**
 * @typedef {Node | string | number | null | undefined | false} Child
 * @typedef {Record<string, unknown>} Attributes `class`, `dataset` (an object), `on<event>`
 *   (a listener) or an attribute (`true`: present and empty; null, undefined, false: absent)
 */

/**
 * Builds an element.
 *
 * @param {string} tag
 * @param {Attributes} [attributes]
 * @param {...(Child | Child[])} children text (strings, numbers) or nodes; null, undefined and false are skipped
 * @returns {HTMLElement}
 */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = String(value);
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), /** @type {EventListener} */ (value));
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/**
 * A status badge (`s-<status>` styles it).
 *
 * @param {string} status
 * @param {string} [prefix]
 */
export const badge = (status, prefix = '') => el('span', { class: `badge s-${status}` }, `${prefix}${status}`);

/**
 * The stale mark of a run, or null (see /app/stale.js).
 *
 * @param {import('/app/stale.js').ClaimedRun} run
 * @returns {HTMLElement | null}
 */
export function staleBadge(run) {
  const reason = staleReason(run, Date.now());
  return reason === null ? null : el('span', { class: 'badge stale', title: `stale: ${reason}` }, 'stale');
}

/**
 * The lineage badge of a run: root, continuation or `restart #N`.
 *
 * @param {{ lineageKind: string | null, restartNumber: number }} run
 */
export function kindBadge(run) {
  if (run.lineageKind === 'RESTART') return el('span', { class: 'badge kind restart' }, `restart #${run.restartNumber}`);
  if (run.lineageKind === 'CONTINUATION') return el('span', { class: 'badge kind continuation' }, 'continuation');
  return el('span', { class: 'badge kind' }, 'root');
}

/**
 * The time of day of an ISO timestamp, UTC with milliseconds (`HH:MM:SS.mmm`); '' for none.
 *
 * @param {string | null | undefined} iso
 */
export const time = (iso) => (iso ? new Date(iso).toISOString().slice(11, 23) : '');

/**
 * Shows `message` in the error banner; '' hides it.
 *
 * @param {string} message
 */
export function showError(message) {
  const box = $('error');
  box.textContent = message;
  box.hidden = message === '';
}

/**
 * Puts `node` first in the list `#<id>`, keeping at most `limit` entries.
 *
 * @param {string} id
 * @param {Node} node
 * @param {number} [limit]
 */
export function prependTo(id, node, limit = 50) {
  const list = $(id);
  list.prepend(node);
  while (list.childElementCount > limit) list.lastElementChild?.remove();
}
