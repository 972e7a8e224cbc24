// @ts-check
/**
 * The run's trace as a timeline, oldest first: the queue's events and the engine's, each with
 * its time, type, node and who recorded it; its payload in a line of its scalar fields, the
 * whole payload collapsed.
 */
import { $, el, time } from '/app/dom.js';
import { collapsible, fieldsLine, valueOf } from '/app/content.js';

/**
 * Draws the timeline.
 *
 * @param {import('/app/state.js').RunView} view
 */
export function renderTrace(view) {
  const events = view.trace.edges.map((edge) => edge.node);
  const shown = events.length < view.trace.totalCount ? ` · the newest ${events.length}` : '';
  $('timeline-count').textContent = `${view.trace.totalCount} events${shown}`;
  $('timeline').replaceChildren(
    ...(events.length === 0
      ? [el('li', { class: 'empty' }, 'No event yet.')]
      : events.map((event) => {
          const payload = event.payload === null ? null : valueOf(event.payload);
          const line = fieldsLine(payload);
          const head = [
            el('time', {}, time(event.at)),
            el('span', { class: `t-type t-${event.scope}` }, event.type),
            event.nodeId ? el('span', { class: 't-node' }, event.nodeId) : null,
            el('span', { class: 'muted' }, event.actorType),
          ];
          const hasDetail = payload !== null && typeof payload === 'object' && Object.keys(payload).length > 0;
          return el(
            'li',
            { class: 't-event', dataset: { seq: String(event.seq), type: event.type } },
            hasDetail
              ? collapsible(
                  `trace/${event.seq}`,
                  [...head, line ? el('span', { class: 't-line' }, line) : null],
                  el('pre', { class: 'json' }, JSON.stringify(payload, null, 2)),
                )
              : el('div', { class: 't-head' }, ...head, line && payload !== null && typeof payload !== 'object' ? el('span', { class: 't-line' }, line) : null),
          );
        })),
  );
}
