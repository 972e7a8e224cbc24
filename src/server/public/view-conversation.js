// @ts-check
/**
 * The conversation captured from the run's Pi session, as a chat: each message a bubble with
 * its role and text, an assistant's tool calls as small cards (tool, arguments in a line, the
 * whole arguments collapsed), a tool result under the call it answers; the step prompts
 * pi-workflows sent as the workflow's bubbles; other entries as a quiet line.
 */
import { $, el, time } from '/app/dom.js';
import { collapsible, fieldsLine } from '/app/content.js';

/** Text longer than this is shown opened on demand. */
const LONG_TEXT = 600;

/**
 * @typedef {NonNullable<import('/app/state.js').RunView['session']>['entries']['edges'][number]['node']} Entry
 */

/**
 * An entry's text, long text collapsed after its beginning.
 *
 * @param {Entry} entry
 */
function textOf(entry) {
  const text = entry.text ?? '';
  if (text === '') return null;
  if (text.length <= LONG_TEXT) return el('div', { class: 'text' }, text);
  return collapsible(
    `entry/${entry.seq}/text`,
    el('span', { class: 'text' }, `${text.slice(0, 200)}… (${text.length} characters)`),
    el('div', { class: 'text' }, text),
  );
}

/**
 * One entry as a chat bubble (or a quiet line).
 *
 * @param {Entry} entry
 */
function bubble(entry) {
  const workflow = entry.entryType === 'custom_message';
  const role = workflow ? 'workflow' : (entry.role ?? entry.entryType ?? 'entry');
  if (!workflow && entry.role === null) {
    return el(
      'li',
      { class: 'chat-note', dataset: { seq: String(entry.seq), role } },
      `${time(entry.at)} ${entry.entryType ?? 'entry'}`,
      entry.text ? ` · ${entry.text}` : '',
    );
  }
  const label = role === 'toolResult' ? `${entry.toolName ?? 'tool'} result` : workflow ? `workflow${entry.customType ? ` · ${entry.customType}` : ''}` : role;
  return el(
    'li',
    { class: `chat chat-${role}`, dataset: { seq: String(entry.seq), role } },
    el('div', { class: 'chat-head' }, el('span', { class: 'chat-role' }, label), el('time', {}, time(entry.at))),
    textOf(entry),
    ...(entry.toolCalls ?? []).map((call) =>
      el(
        'div',
        { class: 'tool-call', dataset: { tool: call.name, callId: call.id } },
        el('span', { class: 'tool-name' }, call.name),
        el('span', { class: 'tool-args' }, fieldsLine(call.arguments)),
        collapsible(
          `entry/${entry.seq}/call/${call.id}`,
          el('span', { class: 'muted' }, 'arguments'),
          el('pre', { class: 'json' }, JSON.stringify(call.arguments, null, 2)),
        ),
      ),
    ),
  );
}

/**
 * Draws the conversation.
 *
 * @param {import('/app/state.js').RunView} view
 */
export function renderConversation(view) {
  const session = view.session;
  if (session === null) {
    $('conversation-count').textContent = '';
    $('conversation').replaceChildren(el('li', { class: 'empty' }, 'No Pi session was captured for this run.'));
    return;
  }
  const entries = session.entries.edges.map((edge) => edge.node);
  const shown = entries.length < session.entries.totalCount ? ` · the newest ${entries.length}` : '';
  $('conversation-count').textContent =
    `${session.entries.totalCount} entries${shown} · capture ${session.captureStatus}${session.integrity !== session.captureStatus ? ` (${session.integrity})` : ''}`;
  $('conversation').replaceChildren(...(entries.length === 0 ? [el('li', { class: 'empty' }, 'Nothing captured yet.')] : entries.map(bubble)));
}
