import { GraphQLError } from 'graphql';
import type { WorkflowRunRecord } from '../../../store/index.js';
import { builder } from '../../builder.js';
import type { RunViewShape } from '../../run-view-pages.js';
import { encodeViewFollowCursor } from '../../cursors.js';
import { planRunView } from '../../run-view-plan.js';
import { selectsField } from '../../selection.js';
import { WorkflowRunRef, WorkflowRunStatusEnum } from '../workflow-run.js';
import { contentOf, RunContentRef } from './run-content.js';
import { RunDisplayRef } from './run-display.js';
import { HumanDecisionConnectionRef, InteractiveRequestConnectionRef, InteractiveRequestRef } from './run-questions.js';
import { RunSessionRef } from './run-session.js';
import { RunStepConnectionRef, RunStepRef, RunTransitionRef } from './run-step.js';
import { FollowUpConnectionRef, RunSettingsScopeConnectionRef, WorkflowUpdateConnectionRef } from './run-updates.js';
import { TraceEventConnectionRef } from './trace-event.js';
import { dateOf, resolveViewPage, viewPageArgs } from './view-connection.js';
import { RunSourceRef, WorkflowDefinitionRef } from './workflow-definition.js';
import { WorkflowMessageConnectionRef, WorkflowTurnConnectionRef } from './workflow-messages.js';

/**
 * `WorkflowRunView` and `WorkflowRun.view`: what pi-workflows' own viewer shows of a run, computed
 * from the rows of the file as pi-workflows computes it (docs/PI-WORKFLOWS-FILES.md §9), on both
 * kinds of file. One `view` is read in one snapshot — its head and every page its selection
 * asks for (`planRunView`) — and carries the presentation revision it reflects; large values are
 * `RunContent`, read only when selected (docs/GRAPHQL-CONTRACT.md "The run view").
 */
export const WorkflowRunViewRef = builder.objectRef<RunViewShape>('WorkflowRunView').implement({
  description:
    "What pi-workflows' own viewer shows of a run, computed from the file's rows as pi-workflows computes it: title, input, " +
    'final output or error, what a person may do now, the definition, the steps with prompts and outputs, the trace, the captured ' +
    'Pi session, updates, settings, follow-ups, and the questions it asks. Read in one snapshot at `revision`; every list is a ' +
    'Relay connection that pages from either end.',
  fields: (t) => ({
    runId: t.string({ description: 'The run.', resolve: (view) => view.runId }),
    revision: t.int({
      description: 'The presentation revision this view reflects (viewer_runs.presentation_revision): every part of it was read at this revision.',
      resolve: (view) => view.read.head.revision,
    }),
    cursor: t.string({
      description:
        'Where this view stands (its revision and the last item of each growing list): subscribe to workflowRunView with after: cursor ' +
        'to get what changes from here, missing and repeating nothing (docs/PROTOCOL.md "Following a run\'s view").',
      resolve: (view) => {
        if (view.read.positions === null)
          throw new GraphQLError('The view was read without its cursor: read it again', { extensions: { code: 'VIEW_CHANGED' } });
        return encodeViewFollowCursor(view.runId, view.read.positions);
      },
    }),
    traceSeq: t.int({ description: "The run's last trace position (its resource revision).", resolve: (view) => view.read.head.state.traceSeq }),
    title: t.string({ nullable: true, description: "The run's title, if it has one.", resolve: (view) => view.read.head.state.title }),
    workflowName: t.string({ description: 'The workflow name.', resolve: (view) => view.read.head.state.workflowName }),
    status: t.field({
      type: WorkflowRunStatusEnum,
      description: 'The durable status (runs.status).',
      resolve: (view) => view.read.head.state.status as 'queued',
    }),
    paused: t.boolean({ description: 'Paused by a person.', resolve: (view) => view.read.head.state.paused }),
    statusDetail: t.string({ nullable: true, description: 'The status in words.', resolve: (view) => view.read.head.state.statusDetail }),
    input: t.field({ type: RunContentRef, description: "The run's input (JSON).", resolve: (view) => contentOf(view.runId, view.read.head.state.input) }),
    finalOutput: t.field({
      type: RunContentRef,
      nullable: true,
      description: "The run's final output; null until it completes with one.",
      resolve: (view) => contentOf(view.runId, view.read.head.state.finalOutput),
    }),
    error: t.field({
      type: RunContentRef,
      nullable: true,
      description: "The run's own error text; null unless it failed.",
      resolve: (view) => contentOf(view.runId, view.read.head.state.error),
    }),
    createdAt: t.field({
      type: 'DateTime',
      description: 'When the run was created (pi-workflows shows it as its start).',
      resolve: (view) => new Date(view.read.head.state.createdAt),
    }),
    updatedAt: t.field({ type: 'DateTime', description: 'When it last changed.', resolve: (view) => new Date(view.read.head.state.updatedAt) }),
    finishedAt: t.field({ type: 'DateTime', nullable: true, description: 'When it finished.', resolve: (view) => dateOf(view.read.head.state.finishedAt) }),
    display: t.field({
      type: RunDisplayRef,
      description: "What pi-workflows' viewer shows of its state and what a person may do now.",
      resolve: (view) => ({ runId: view.runId, display: view.read.head.display }),
    }),
    live: t.boolean({ description: 'Shown as running or waiting.', resolve: (view) => view.read.head.live }),
    possiblyInterrupted: t.boolean({
      description: 'Parked and not paused: its worker may have stopped.',
      resolve: (view) => view.read.head.possiblyInterrupted,
    }),
    definition: t.field({
      type: WorkflowDefinitionRef,
      nullable: true,
      description:
        'The definition snapshot it executes; null when the stored snapshot is not a pi-workflows definition snapshot ' +
        '(a run reserved through this API with a definition of another form).',
      resolve: (view) => view.read.head.definition,
    }),
    sources: t.field({
      type: [RunSourceRef],
      description: 'Where its workflow (and each mounted one) comes from.',
      resolve: (view) => view.read.head.state.sources,
    }),
    currentNode: t.string({ nullable: true, description: 'The node a running run is on.', resolve: (view) => view.read.head.state.currentNode }),
    currentAttemptId: t.string({
      nullable: true,
      description: 'The open node attempt.',
      resolve: (view) => view.read.head.state.activeAttempt?.attemptId ?? null,
    }),
    currentNodeStartedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the open attempt started.',
      resolve: (view) => dateOf(view.read.head.state.activeAttempt?.startedAt ?? null),
    }),
    currentNodeDeadlineAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: "The open attempt's deadline.",
      resolve: (view) => dateOf(view.read.head.state.activeAttempt?.deadlineAt ?? null),
    }),
    waitingOn: t.string({ nullable: true, description: 'The node a waiting run waits on.', resolve: (view) => view.read.head.state.waitingOn }),
    pendingRequest: t.field({
      type: InteractiveRequestRef,
      nullable: true,
      description: 'The question the run waits on an answer to, if any.',
      resolve: (view) => (view.read.head.pendingRequest === null ? null : { ...view.read.head.pendingRequest, viewRunId: view.runId }),
    }),
    carriedStepCount: t.int({
      description: 'Steps carried over from the parent run (a continuation’s); they come first.',
      resolve: (view) => view.read.head.state.carriedStepCount,
    }),
    steps: t.field({
      type: RunStepConnectionRef,
      description: 'The steps in run order, each with its node, attempt, outcome, times, prompt, output and error.',
      args: viewPageArgs(t.arg),
      resolve: (view, args, context) => resolveViewPage('steps')(view, args, context),
    }),
    graphSteps: t.field({
      type: [RunStepRef],
      description: 'The latest step of each node (what the graph shows per node).',
      resolve: (view) => view.read.head.graphSteps.map((step) => ({ ...step, viewRunId: view.runId })),
    }),
    takenTransitions: t.field({
      type: [RunTransitionRef],
      description: 'The transitions the run took, in order.',
      resolve: (view) => view.read.head.takenTransitions,
    }),
    trace: t.field({
      type: TraceEventConnectionRef,
      description: "The run's trace events in order (queue and engine events).",
      args: viewPageArgs(t.arg),
      resolve: (view, args, context) => resolveViewPage('trace')(view, args, context),
    }),
    session: t.field({
      type: RunSessionRef,
      nullable: true,
      description: 'The Pi session captured for the run; null when none was bound.',
      resolve: (view) => (view.read.head.session === null ? null : { view, session: view.read.head.session }),
    }),
    updates: t.field({
      type: WorkflowUpdateConnectionRef,
      description: 'Progress and metric updates (the latest per type and key).',
      args: viewPageArgs(t.arg),
      resolve: (view, args, context) => resolveViewPage('updates')(view, args, context),
    }),
    settings: t.field({
      type: RunSettingsScopeConnectionRef,
      description: 'The settings in force, per scope.',
      args: viewPageArgs(t.arg),
      resolve: (view, args, context) => resolveViewPage('settings')(view, args, context),
    }),
    followUps: t.field({
      type: FollowUpConnectionRef,
      description: "Follow-up prompts queued for the run's origin session.",
      args: viewPageArgs(t.arg),
      resolve: (view, args, context) => resolveViewPage('followUps')(view, args, context),
    }),
    interactiveRequests: t.field({
      type: InteractiveRequestConnectionRef,
      description: 'The questions its attempts asked, pending or answered.',
      args: viewPageArgs(t.arg),
      resolve: (view, args, context) => resolveViewPage('interactiveRequests')(view, args, context),
    }),
    humanDecisions: t.field({
      type: HumanDecisionConnectionRef,
      description: 'The decisions it asked a person, open or resolved.',
      args: viewPageArgs(t.arg),
      resolve: (view, args, context) => resolveViewPage('humanDecisions')(view, args, context),
    }),
    workflowMessages: t.field({
      type: WorkflowMessageConnectionRef,
      description: 'Messages it sent its origin Pi session.',
      args: viewPageArgs(t.arg),
      resolve: (view, args, context) => resolveViewPage('workflowMessages')(view, args, context),
    }),
    workflowTurns: t.field({
      type: WorkflowTurnConnectionRef,
      description: 'Model turns its messages started.',
      args: viewPageArgs(t.arg),
      resolve: (view, args, context) => resolveViewPage('workflowTurns')(view, args, context),
    }),
  }),
});

builder.objectField(WorkflowRunRef, 'view', (t) =>
  t.field({
    type: WorkflowRunViewRef,
    description:
      "What pi-workflows' own viewer shows of this run (title, steps with prompts and outputs, trace, conversation, questions), " +
      'read in one snapshot with the presentation revision it reflects (docs/GRAPHQL-CONTRACT.md "The run view").',
    resolve: (run: WorkflowRunRecord, _args, context, info) => {
      const read = context.store.readRunView(run.runId, { pages: planRunView(info), positions: selectsField(info, 'cursor') });
      if (read === null) throw new GraphQLError(`Workflow run not found: ${run.runId}`, { extensions: { code: 'NOT_FOUND' } });
      return { runId: run.runId, read };
    },
  }),
);
