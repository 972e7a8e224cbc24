import type { RunWorkflowMessage, RunWorkflowTurn } from '../../../store/index.js';
import { builder } from '../../builder.js';
import type { ViewItem } from '../../run-view-pages.js';
import { contentOf, RunContentRef } from './run-content.js';
import { dateOf, viewConnection } from './view-connection.js';

/** `RunWorkflowMessage`: a message a run sends its origin Pi session. */
export const WorkflowMessageRef = builder.objectRef<ViewItem<RunWorkflowMessage>>('RunWorkflowMessage').implement({
  description: 'A message the run sends its origin Pi session (workflow_messages): a step prompt, a decision, a notification, …',
  fields: (t) => ({
    order: t.int({ description: "Its place in the session's order; cursors page by it.", resolve: (message) => message.order }),
    workflowMessageId: t.string({ description: 'The message.', resolve: (message) => message.workflowMessageId }),
    targetSessionId: t.string({ description: 'The Pi session it is for.', resolve: (message) => message.targetSessionId }),
    kind: t.string({ description: 'step, decision, notification, terminal or followUp.', resolve: (message) => message.kind }),
    sourceId: t.string({ description: 'The request, decision or follow-up it is about.', resolve: (message) => message.sourceId }),
    status: t.string({ description: 'pending, sent or cancelled.', resolve: (message) => message.status }),
    content: t.field({ type: RunContentRef, description: 'The message content (JSON).', resolve: (message) => contentOf(message.viewRunId, message.content) }),
    piSessionEntryId: t.string({ nullable: true, description: 'The session entry it became, once sent.', resolve: (message) => message.piSessionEntryId }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was queued.', resolve: (message) => new Date(message.createdAt) }),
    updatedAt: t.field({ type: 'DateTime', description: 'When it last changed.', resolve: (message) => new Date(message.updatedAt) }),
  }),
});

/** `RunWorkflowTurn`: a model turn a workflow message started. */
export const WorkflowTurnRef = builder.objectRef<ViewItem<RunWorkflowTurn>>('RunWorkflowTurn').implement({
  description: 'A model turn of the origin Pi session that a workflow message started (workflow_turns).',
  fields: (t) => ({
    workflowTurnId: t.string({ description: 'The turn.', resolve: (turn) => turn.workflowTurnId }),
    workflowMessageId: t.string({ description: 'The message that started it.', resolve: (turn) => turn.workflowMessageId }),
    targetSessionId: t.string({ description: 'The Pi session.', resolve: (turn) => turn.targetSessionId }),
    state: t.string({ description: 'started or ended.', resolve: (turn) => turn.state }),
    stopReason: t.string({ nullable: true, description: 'Why it ended.', resolve: (turn) => turn.stopReason }),
    responseSessionEntryId: t.string({ nullable: true, description: 'The session entry that answered.', resolve: (turn) => turn.responseSessionEntryId }),
    startedAt: t.field({ type: 'DateTime', description: 'When it started.', resolve: (turn) => new Date(turn.startedAt) }),
    endedAt: t.field({ type: 'DateTime', nullable: true, description: 'When it ended.', resolve: (turn) => dateOf(turn.endedAt) }),
  }),
});

/** `RunWorkflowMessageConnection`. */
export const WorkflowMessageConnectionRef = viewConnection('RunWorkflowMessage', WorkflowMessageRef, 'workflow messages');
/** `RunWorkflowTurnConnection`. */
export const WorkflowTurnConnectionRef = viewConnection('RunWorkflowTurn', WorkflowTurnRef, 'workflow turns');
