import type { JsonValue, RunSession, SessionEntryItem, SessionEventItem } from '../../../store/index.js';
import { builder } from '../../builder.js';
import type { RunViewShape, ViewItem } from '../../run-view-pages.js';
import { contentOf, loadSessionEntry, RunContentRef } from './run-content.js';
import { dateOf, resolveViewPage, viewConnection, viewPageArgs } from './view-connection.js';

/** A run's captured session with the view it was read in (its lists page from that snapshot). */
export interface SessionShape {
  view: RunViewShape;
  session: RunSession;
}

/** The binding's string field `name`, or null. */
function bindingText(session: RunSession, name: string): string | null {
  const value: JsonValue | undefined = session.binding?.[name];
  return typeof value === 'string' ? value : null;
}

/** `ToolCall`: a tool call of an assistant message. */
const ToolCallRef = builder.objectRef<{ id: string; name: string; arguments: JsonValue }>('ToolCall').implement({
  description: 'A tool call an assistant message made.',
  fields: (t) => ({
    id: t.string({ description: 'The call id (a toolResult entry answers it by this id).', resolve: (call) => call.id }),
    name: t.string({ description: 'The tool, e.g. read or bash.', resolve: (call) => call.name }),
    arguments: t.field({ type: 'JSON', nullable: true, description: 'The arguments, as the model gave them.', resolve: (call) => call.arguments }),
  }),
});

/** `SessionEntry`: one captured entry of the run's Pi session. */
export const SessionEntryRef = builder.objectRef<ViewItem<SessionEntryItem>>('SessionEntry').implement({
  description:
    "One captured entry of the run's Pi session, in order: a message (user, assistant, toolResult) or a custom message " +
    '(pi-workflows-step prompts). text and toolCalls read the entry (content; null with an error for a metadata-scope token).',
  fields: (t) => ({
    seq: t.int({ description: 'Position in the captured session; cursors page by it.', resolve: (entry) => entry.seq }),
    at: t.field({ type: 'DateTime', description: 'When it was captured.', resolve: (entry) => new Date(entry.at) }),
    entryId: t.string({ description: "The entry's id in the Pi session.", resolve: (entry) => entry.entryId }),
    entryType: t.string({ nullable: true, description: 'message, custom_message, …', resolve: (entry) => entry.entryType }),
    role: t.string({ nullable: true, description: 'The role of a message: user, assistant, toolResult, …', resolve: (entry) => entry.role }),
    customType: t.string({ nullable: true, description: 'The type of a custom message, e.g. pi-workflows-step.', resolve: (entry) => entry.customType }),
    text: t.string({
      nullable: true,
      description: 'The text: a string content, or the text parts of the content joined by newlines.',
      resolve: async (entry, _args, context) => (await loadSessionEntry(context, entry.entry.hash)).text,
    }),
    toolCalls: t.field({
      type: [ToolCallRef],
      nullable: true,
      description: 'The tool calls of an assistant message (empty for other entries).',
      resolve: async (entry, _args, context) => (await loadSessionEntry(context, entry.entry.hash)).toolCalls,
    }),
    toolCallId: t.string({
      nullable: true,
      description: 'The call a toolResult answers.',
      resolve: async (entry, _args, context) => (await loadSessionEntry(context, entry.entry.hash)).toolCallId,
    }),
    toolName: t.string({
      nullable: true,
      description: 'The tool a toolResult comes from.',
      resolve: async (entry, _args, context) => (await loadSessionEntry(context, entry.entry.hash)).toolName,
    }),
    content: t.field({ type: RunContentRef, description: 'The whole entry (JSON).', resolve: (entry) => contentOf(entry.viewRunId, entry.entry) }),
  }),
});

/** `SessionEvent`: one captured event of the run's Pi session (turns, messages, tool executions). */
export const SessionEventRef = builder.objectRef<ViewItem<SessionEventItem>>('SessionEvent').implement({
  description: "One captured event of the run's Pi session, in order: turn, message and tool-execution events.",
  fields: (t) => ({
    seq: t.int({ description: 'Position among the captured events; cursors page by it.', resolve: (event) => event.seq }),
    at: t.field({ type: 'DateTime', description: 'When it was captured.', resolve: (event) => new Date(event.at) }),
    type: t.string({ description: 'The event type, e.g. turn_start, message_end, tool_execution_start.', resolve: (event) => event.type }),
    nodeId: t.string({ nullable: true, description: 'The node it belongs to, if any.', resolve: (event) => event.nodeId }),
    attemptId: t.string({ nullable: true, description: 'The node attempt it belongs to, if any.', resolve: (event) => event.attemptId }),
    turnId: t.string({ nullable: true, description: 'The turn, if any.', resolve: (event) => event.turnId }),
    messageId: t.string({ nullable: true, description: 'The message, if any.', resolve: (event) => event.messageId }),
    toolCallId: t.string({ nullable: true, description: 'The tool call, if any.', resolve: (event) => event.toolCallId }),
    payload: t.field({ type: RunContentRef, description: "The event's payload (JSON).", resolve: (event) => contentOf(event.viewRunId, event.payload) }),
  }),
});

/** `SessionEntryConnection`. */
export const SessionEntryConnectionRef = viewConnection('SessionEntry', SessionEntryRef, 'session entries');
/** `SessionEventConnection`. */
export const SessionEventConnectionRef = viewConnection('SessionEvent', SessionEventRef, 'session events');

/** `RunSession`: the Pi session pi-workflows captured for the run. */
export const RunSessionRef = builder.objectRef<SessionShape>('RunSession').implement({
  description: "The Pi session pi-workflows captured for the run: its binding, the capture's state, and its entries and events.",
  fields: (t) => ({
    segmentId: t.string({ description: 'The capture segment.', resolve: ({ session }) => session.segmentId }),
    piSessionId: t.string({ nullable: true, description: 'The bound Pi session.', resolve: ({ session }) => bindingText(session, 'piSessionId') }),
    cwd: t.string({ nullable: true, description: 'The working directory of the bound session.', resolve: ({ session }) => bindingText(session, 'cwd') }),
    binding: t.field({
      type: 'JSON',
      nullable: true,
      description: 'The whole binding as pi-workflows recorded it.',
      resolve: ({ session }) => session.binding,
    }),
    captureStatus: t.string({ description: 'recording, complete or failed.', resolve: ({ session }) => session.capture.status }),
    integrity: t.string({
      description: "pi-workflows' check of the capture: unavailable, recording, complete, failed or invalid.",
      resolve: ({ session }) => session.integrity.status,
    }),
    integrityDiagnostics: t.stringList({ description: 'What the integrity check found wrong.', resolve: ({ session }) => session.integrity.diagnostics }),
    startedAt: t.field({ type: 'DateTime', description: 'When the capture started.', resolve: ({ session }) => new Date(session.createdAt) }),
    finishedAt: t.field({ type: 'DateTime', nullable: true, description: 'When the capture finished.', resolve: ({ session }) => dateOf(session.finishedAt) }),
    entries: t.field({
      type: SessionEntryConnectionRef,
      description: 'The captured entries: the conversation (messages with roles, text and tool calls).',
      args: viewPageArgs(t.arg),
      resolve: ({ view }, args, context) => resolveViewPage('sessionEntries')(view, args, context),
    }),
    events: t.field({
      type: SessionEventConnectionRef,
      description: 'The captured events (turns, messages, tool executions).',
      args: viewPageArgs(t.arg),
      resolve: ({ view }, args, context) => resolveViewPage('sessionEvents')(view, args, context),
    }),
  }),
});
