// @ts-check
/**
 * Drawing the selected run's record (the summary) and the raw delta feed's entries and counters
 * (collapsed, for debugging). Reads the state; changes only the DOM. The run's view is drawn by
 * /app/view.js.
 */
import { ownOps } from '/app/bookkeeping.js';
import { $, badge, el, prependTo, time } from '/app/dom.js';
import { staleReason } from '/app/stale.js';
import { scheduleStaleRender } from '/app/stale-timer.js';
import { state } from '/app/state.js';

/** Entries the delta feed keeps. */
const FEED_LIMIT = 300;

/**
 * @typedef {import('/app/state.js').SelectedRun} SelectedRun
 * @typedef {import('/app/bookkeeping.js').Delta & { recordedAt?: string }} Delta
 * @typedef {import('/app/bookkeeping.js').PatchOp} PatchOp
 * @typedef {{ presentationRevision: number, deltas: Delta[] }} DeltaBatch
 */

/**
 * One patch operation in a few words (`build → running`, `append /items [2]`, …).
 *
 * @param {Delta} delta
 * @param {PatchOp} op
 * @returns {string}
 */
function describeOp(delta, op) {
  if (delta.targetType === 'GRAPH') {
    const match = /^\/nodes\/([^/]+)\/state$/.exec(op.path);
    if (match && op.op !== 'REMOVE') return `${(match[1] ?? '').replace(/~1/g, '/').replace(/~0/g, '~')} → ${op.value}`;
  }
  if (op.op === 'REMOVE') return `remove ${op.path}`;
  if (op.op === 'APPEND') return `append ${op.path} [${Array.isArray(op.value) ? op.value.length : '?'}]`;
  const value = JSON.stringify(op.value);
  return `${op.op.toLowerCase()} ${op.path} ${value.length > 60 ? `${value.slice(0, 57)}…` : value}`;
}

/**
 * The delta feed's entry of one revision.
 *
 * @param {DeltaBatch} batch
 * @param {boolean} live received live (after the revision the run was opened at)
 * @param {boolean} bookkeeping a record bump only (/app/bookkeeping.js)
 */
export function feedEntry(batch, live, bookkeeping) {
  const targets = batch.deltas.map((delta) => (delta.targetKey ? `${delta.targetType.toLowerCase()}/${delta.targetKey}` : delta.targetType.toLowerCase()));
  const ops = batch.deltas.flatMap((delta) => ownOps(delta).map((op) => describeOp(delta, op)));
  return el(
    'li',
    {
      class: `${live ? 'live' : 'replayed'}${bookkeeping ? ' bookkeeping' : ''}`,
      dataset: { revision: String(batch.presentationRevision), bookkeeping: String(bookkeeping) },
    },
    el('span', { class: 'rev' }, `#${batch.presentationRevision}`),
    el('time', {}, time(batch.deltas[0]?.recordedAt)),
    el('span', { class: 'targets' }, targets.join(' · ')),
    el('span', { class: 'ops mono' }, bookkeeping ? 'bump (run record changed)' : ops.join('; ')),
  );
}

/**
 * Puts an entry first in the delta feed.
 *
 * @param {Node} node
 */
export function prependFeed(node) {
  prependTo('feed', node, FEED_LIMIT);
}

/** The feed's counters: cursor, live, gaps, duplicates, bookkeeping (also as data attributes). */
export function renderStats() {
  const stats = $('feed-stats');
  const run = state.run;
  stats.dataset.cursor = run?.cursor === null || run === null ? '' : String(run.cursor);
  stats.dataset.live = String(state.stats.live);
  stats.dataset.gaps = String(state.stats.gaps);
  stats.dataset.duplicates = String(state.stats.duplicates);
  stats.dataset.bookkeeping = String(state.stats.bookkeeping);
  const hidden = state.showBookkeeping || state.stats.bookkeeping === 0 ? '' : ` · ${state.stats.bookkeeping} bookkeeping hidden`;
  stats.textContent = run?.cursor ? `cursor ${run.cursor} · ${state.stats.live} live · ${state.stats.gaps} gaps${hidden}` : '';
}

/**
 * The run's summary: its record (queue, lineage, claim) and its stale mark.
 *
 * @param {SelectedRun} run
 */
export function renderSummary(run) {
  const record = run.record;
  if (record === null) return;
  const stale = staleReason(record, Date.now());
  /** @type {Array<[string, import('/app/dom.js').Child | import('/app/dom.js').Child[]]>} */
  const rows = [
    ['workflow', `${record.workflowName} (${record.workflowRef})`],
    ['status', [badge(record.status), ' ', badge(record.queueStatus, 'queue '), record.paused ? ' paused' : '']],
    ['stale', stale === null ? null : el('span', { class: 'stale-reason' }, `${stale}: the runner holding it is probably gone`)],
    ['lineage', record.lineageKind ? `${record.lineageKind.toLowerCase()} of ${record.parentRunId} · restart #${record.restartNumber}` : 'root'],
    ['detail', record.statusDetail],
    ['error', record.errorMessage ? `${record.errorCode}: ${record.errorMessage}` : null],
    ['claim', record.claim ? `${record.claim.ownerId} · generation ${record.claim.leaseGeneration} · until ${time(record.claim.expiresAt)}` : 'none'],
    ['session', record.originSessionId],
    ['fingerprint', record.terminalFingerprint ? `${record.terminalFingerprint.slice(0, 16)}…` : null],
    ['revision', String(Math.max(record.presentationRevision, run.cursor ?? 0))],
  ];
  $('run-summary').dataset.stale = String(stale !== null);
  $('run-summary').replaceChildren(
    ...rows.filter(([, value]) => value !== null && value !== undefined).flatMap(([key, value]) => [el('dt', {}, key), el('dd', {}, value)]),
  );
  scheduleStaleRender();
}
