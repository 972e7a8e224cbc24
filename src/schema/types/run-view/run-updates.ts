import type { RunFollowUp, RunSettingsScope, RunUpdate } from '../../../store/index.js';
import { builder } from '../../builder.js';
import type { ViewItem } from '../../run-view-pages.js';
import { contentOf, RunContentRef } from './run-content.js';
import { viewConnection } from './view-connection.js';

/** `WorkflowUpdate`: a progress or metric update a run published (the latest per type and key). */
export const WorkflowUpdateRef = builder.objectRef<ViewItem<RunUpdate>>('WorkflowUpdate').implement({
  description: 'A progress or metric update the run published; the view holds the latest one per type and key, as pi-workflows shows them.',
  fields: (t) => ({
    seq: t.int({ description: 'The run revision it was published at; cursors page by it.', resolve: (update) => update.seq }),
    updateId: t.string({ description: 'The update.', resolve: (update) => update.updateId }),
    at: t.field({ type: 'DateTime', description: 'When it was published.', resolve: (update) => new Date(update.at) }),
    type: t.string({ description: 'progress, metric, …', resolve: (update) => update.type }),
    key: t.string({ description: 'What it measures (an update replaces the one of the same type and key).', resolve: (update) => update.key }),
    nodeId: t.string({ description: 'The node that published it.', resolve: (update) => update.nodeId }),
    attemptId: t.string({ description: 'The attempt that published it.', resolve: (update) => update.attemptId }),
    data: t.field({ type: RunContentRef, description: 'Its data (JSON).', resolve: (update) => contentOf(update.viewRunId, update.data) }),
  }),
});

/** `RunSettingsScope`: settings in force in one scope of the run. */
export const RunSettingsScopeRef = builder.objectRef<ViewItem<RunSettingsScope>>('RunSettingsScope').implement({
  description: 'The settings in force in one scope of the run (the root workflow or a mounted one), with how often they were changed.',
  fields: (t) => ({
    position: t.int({ description: 'Position in pi-workflows’ order (mount path, invocation); cursors page by it.', resolve: (scope) => scope.position }),
    scopeId: t.string({ description: 'The settings scope.', resolve: (scope) => scope.scopeId }),
    mountPath: t.string({ description: 'Empty for the root workflow.', resolve: (scope) => scope.mountPath }),
    invocation: t.int({ description: 'The invocation of a mounted workflow.', resolve: (scope) => scope.invocation }),
    changeNumber: t.int({ description: 'How many changes were accepted.', resolve: (scope) => scope.changeNumber }),
    settings: t.field({ type: RunContentRef, description: 'The settings now (JSON).', resolve: (scope) => contentOf(scope.viewRunId, scope.settings) }),
    initialSettings: t.field({
      type: RunContentRef,
      description: 'The settings it started with (JSON).',
      resolve: (scope) => contentOf(scope.viewRunId, scope.initialSettings),
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When the scope started.', resolve: (scope) => new Date(scope.createdAt) }),
    updatedAt: t.field({ type: 'DateTime', description: 'When it last changed.', resolve: (scope) => new Date(scope.updatedAt) }),
  }),
});

/** `RunFollowUp`: a prompt queued for the run's origin session. */
export const FollowUpRef = builder.objectRef<ViewItem<RunFollowUp>>('RunFollowUp').implement({
  description: "A follow-up prompt queued for the run's origin Pi session (queued, removed or cancelled).",
  fields: (t) => ({
    order: t.int({ description: 'Its place in the queue; cursors page by it.', resolve: (followUp) => followUp.order }),
    followUpId: t.string({ description: 'The follow-up.', resolve: (followUp) => followUp.followUpId }),
    state: t.string({ description: 'queued, removed or cancelled.', resolve: (followUp) => followUp.state }),
    prompt: t.field({ type: RunContentRef, description: 'The prompt (text).', resolve: (followUp) => contentOf(followUp.viewRunId, followUp.prompt) }),
    reason: t.field({
      type: RunContentRef,
      nullable: true,
      description: 'Why it was removed or cancelled (text).',
      resolve: (followUp) => contentOf(followUp.viewRunId, followUp.reason),
    }),
    targetSessionId: t.string({ description: 'The Pi session it is for.', resolve: (followUp) => followUp.targetSessionId }),
    actorType: t.string({ description: 'Who queued it: human, session, …', resolve: (followUp) => followUp.actorType }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was queued.', resolve: (followUp) => new Date(followUp.createdAt) }),
    updatedAt: t.field({ type: 'DateTime', description: 'When it last changed.', resolve: (followUp) => new Date(followUp.updatedAt) }),
  }),
});

/** `WorkflowUpdateConnection`. */
export const WorkflowUpdateConnectionRef = viewConnection('WorkflowUpdate', WorkflowUpdateRef, 'updates');
/** `RunSettingsScopeConnection`. */
export const RunSettingsScopeConnectionRef = viewConnection('RunSettingsScope', RunSettingsScopeRef, 'settings scopes');
/** `RunFollowUpConnection`. */
export const FollowUpConnectionRef = viewConnection('RunFollowUp', FollowUpRef, 'follow-ups');
