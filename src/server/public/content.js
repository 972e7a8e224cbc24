// @ts-check
/**
 * How the run view's values are drawn: a `RunContent` (prompt, output, error, payload) as text
 * or as a value, JSON pretty-printed inside a collapsed <details>, never raw on the page; flat
 * objects as key/value lists; collapsibles that stay open across re-reads of the view.
 */
import { el } from '/app/dom.js';

/**
 * @typedef {import('/app/dom.js').Child} Child
 * @typedef {{ byteLength: number, mediaType: string, text: string | null }} Content a RunContent as the page reads it
 */

/** The keys of the collapsibles open now (kept across re-renders of one run). */
const openKeys = new Set();

/** Forgets which collapsibles were open (another run is selected). */
export function resetOpen() {
  openKeys.clear();
}

/**
 * A <details> that remembers being open under `key` while the same run is shown.
 *
 * @param {string} key unique within the run's view
 * @param {Child | Child[]} summary
 * @param {...(Child | Child[])} body
 * @returns {HTMLElement}
 */
export function collapsible(key, summary, ...body) {
  const node = el('details', { dataset: { key }, open: openKeys.has(key) }, el('summary', {}, summary), ...body);
  node.addEventListener('toggle', () => {
    if (/** @type {HTMLDetailsElement} */ (node).open) openKeys.add(key);
    else openKeys.delete(key);
  });
  return node;
}

/**
 * A size in words: `52 B`, `3.4 KiB`.
 *
 * @param {number} bytes
 */
export const size = (bytes) => (bytes < 1024 ? `${bytes} B` : bytes < 1048576 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1048576).toFixed(1)} MiB`);

/**
 * The value a content's text stands for: parsed JSON for JSON media, else the text itself.
 *
 * @param {Content} content
 * @returns {unknown}
 */
export function valueOf(content) {
  const text = content.text ?? '';
  if (!content.mediaType.includes('json')) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text; // a JSON string is given as the string itself
  }
}

/** @param {unknown} value */
const isScalar = (value) => value === null || ['string', 'number', 'boolean'].includes(typeof value);

/**
 * A scalar, or a list of scalars, in words; undefined for anything else.
 *
 * @param {unknown} value
 * @returns {string | undefined}
 */
export function inWords(value) {
  if (isScalar(value)) return String(value);
  if (Array.isArray(value) && value.every(isScalar)) return value.map(String).join(', ');
  return undefined;
}

/**
 * The scalar fields of an object in one line (`path: lib/x.rs · lines: 40`), at most `limit`
 * characters; '' for none.
 *
 * @param {unknown} value
 * @param {number} [limit]
 */
export function fieldsLine(value, limit = 140) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return inWords(value) ?? '';
  const parts = Object.entries(value).flatMap(([key, field]) => {
    const words = inWords(field);
    return words === undefined ? [] : [`${key}: ${words}`];
  });
  const line = parts.join(' · ');
  return line.length > limit ? `${line.slice(0, limit - 1)}…` : line;
}

/**
 * A JSON value pretty-printed, collapsed.
 *
 * @param {string} key
 * @param {unknown} value
 * @param {string} [label]
 */
export function jsonDetails(key, value, label = 'JSON') {
  return collapsible(key, el('span', { class: 'muted' }, label), el('pre', { class: 'json' }, JSON.stringify(value, null, 2)));
}

/**
 * A value as the page shows it: text wrapped, a flat object as a key/value list (nested
 * fields collapsed), anything else pretty-printed and collapsed.
 *
 * @param {string} key
 * @param {unknown} value
 * @returns {HTMLElement}
 */
export function valueView(key, value) {
  const words = inWords(value);
  if (words !== undefined) return el('div', { class: 'text' }, words);
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value);
    return el(
      'dl',
      { class: 'kv' },
      entries.flatMap(([field, inner]) => {
        const shown = inWords(inner);
        return [el('dt', {}, field), el('dd', {}, shown ?? jsonDetails(`${key}/${field}`, inner, Array.isArray(inner) ? `${inner.length} items` : 'object'))];
      }),
    );
  }
  return jsonDetails(key, value, Array.isArray(value) ? `${value.length} items` : 'JSON');
}

/**
 * A RunContent as the page shows it (see {@link valueView}); null for none.
 *
 * @param {string} key
 * @param {Content | null | undefined} content
 * @returns {HTMLElement | null}
 */
export function contentView(key, content) {
  if (content === null || content === undefined) return null;
  if (content.text === null) return el('div', { class: 'muted' }, `(${size(content.byteLength)} not readable with this token)`);
  return valueView(key, valueOf(content));
}

/**
 * A labelled field of a step, a request, …: `label` above its content; null when there is none.
 *
 * @param {string} label
 * @param {HTMLElement | null} view
 * @param {string} [kind] a class naming the field (prompt, output, error)
 */
export function field(label, view, kind = '') {
  return view === null
    ? null
    : el('div', { class: `field ${kind}`.trim(), dataset: { field: kind || label } }, el('div', { class: 'field-label' }, label), view);
}

/**
 * How long between two instants, in words (`2 ms`, `1.4 s`, `3 min`); '' when either is missing.
 *
 * @param {string | null | undefined} from
 * @param {string | null | undefined} to
 */
export function duration(from, to) {
  if (!from || !to) return '';
  const ms = Date.parse(to) - Date.parse(from);
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms / 60_000)} min`;
}
