import type { RunViewChangedEvent, RunViewEvent, RunViewResetEvent } from '../../../delivery/index.js';
import { builder } from '../../builder.js';
import { decodeViewFollowCursor, encodeViewFollowCursor } from '../../cursors.js';
import { follow, freshLoaders } from '../../follow.js';
import { RunStepRef } from './run-step.js';
import { SessionEntryRef, SessionEventRef } from './run-session.js';
import { TraceEventRef } from './trace-event.js';
import { WorkflowUpdateRef } from './run-updates.js';
import { WorkflowRunViewRef } from './workflow-run-view.js';

/**
 * `workflowRunView`: following a run's view (docs/PROTOCOL.md "Following a run's view") — the
 * whole view first (`WorkflowRunViewReset`), then what changed (`WorkflowRunViewChanged`) each
 * time the run's presentation revision moves, each event with the cursor to resume from.
 */

/** `WorkflowRunViewReset`: the whole view; the client (re)starts from it. */
const WorkflowRunViewResetRef = builder.objectRef<RunViewResetEvent>('WorkflowRunViewReset').implement({
  description:
    'The whole view of the run: the first event without a cursor, and whenever more changed than one event carries (a list gained ' +
    'over 256 items): replace your copy with it. Its lists answer their newest page (no arguments).',
  isTypeOf: (value) => (value as RunViewEvent).kind === 'reset',
  fields: (t) => ({
    runId: t.string({ description: 'The run.', resolve: (event) => event.runId }),
    revision: t.int({ description: 'The presentation revision of the view.', resolve: (event) => event.read.head.revision }),
    cursor: t.string({
      description: 'Resume after this event with after: cursor.',
      resolve: (event) => encodeViewFollowCursor(event.runId, event.read.positions),
    }),
    view: t.field({
      type: WorkflowRunViewRef,
      description: 'The view, read in one snapshot at revision.',
      resolve: (event) => ({ runId: event.runId, read: event.read }),
    }),
  }),
});

/** `WorkflowRunViewChanged`: what changed since the client's cursor. */
const WorkflowRunViewChangedRef = builder.objectRef<RunViewChangedEvent>('WorkflowRunViewChanged').implement({
  description:
    'What changed in the view after fromRevision, up to revision (read in one snapshot): the steps, trace events, session entries and ' +
    'events and updates added since — append them — and the head now (view: title, status, display, what it waits for; ' +
    'select its head fields, not its lists). Every revision is covered by exactly one event.',
  isTypeOf: (value) => (value as RunViewEvent).kind === 'changed',
  fields: (t) => ({
    runId: t.string({ description: 'The run.', resolve: (event) => event.runId }),
    fromRevision: t.int({ description: 'The revision the client stood at (exclusive).', resolve: (event) => event.from.revision }),
    revision: t.int({ description: 'The revision this event brings it to (inclusive).', resolve: (event) => event.positions.revision }),
    cursor: t.string({ description: 'Resume after this event with after: cursor.', resolve: (event) => encodeViewFollowCursor(event.runId, event.positions) }),
    view: t.field({
      type: WorkflowRunViewRef,
      description: "The view's head at revision (title, status, display, current node, what it waits for, final output, error).",
      resolve: (event) => ({ runId: event.runId, read: { head: event.head, pages: new Map(), positions: event.positions } }),
    }),
    steps: t.field({
      type: [RunStepRef],
      description: 'Steps added, in run order.',
      resolve: (event) => event.changes.steps.map((item) => ({ ...item, viewRunId: event.runId })),
    }),
    traceEvents: t.field({
      type: [TraceEventRef],
      description: 'Trace events added, in order.',
      resolve: (event) => event.changes.trace.map((item) => ({ ...item, viewRunId: event.runId })),
    }),
    sessionEntries: t.field({
      type: [SessionEntryRef],
      description: 'Captured session entries added (the conversation), in order.',
      resolve: (event) => event.changes.sessionEntries.map((item) => ({ ...item, viewRunId: event.runId })),
    }),
    sessionEvents: t.field({
      type: [SessionEventRef],
      description: 'Captured session events added, in order.',
      resolve: (event) => event.changes.sessionEvents.map((item) => ({ ...item, viewRunId: event.runId })),
    }),
    updates: t.field({
      type: [WorkflowUpdateRef],
      description: 'Updates published (each replaces the one of its type and key).',
      resolve: (event) => event.changes.updates.map((item) => ({ ...item, viewRunId: event.runId })),
    }),
  }),
});

/** A subscription event of `workflowRunView`. */
export const WorkflowRunViewEventRef = builder.unionType('WorkflowRunViewEvent', {
  description: 'The whole view of a run, or what changed in it since the previous event.',
  types: [WorkflowRunViewResetRef, WorkflowRunViewChangedRef],
});

builder.subscriptionField('workflowRunView', (t) =>
  t.field({
    type: WorkflowRunViewEventRef,
    description:
      "Follows a run's view (docs/PROTOCOL.md \"Following a run's view\"): without after, the whole view first; with after (a view's or " +
      "an event's cursor), what changed since. Then, each time the run's presentation revision moves, what changed: exactly once, in " +
      'order, read from the rows (so a commit by pi-workflows itself arrives like one of this server). Resume with the last cursor.',
    args: {
      runId: t.arg.string({ required: true, description: 'The run to follow.' }),
      after: t.arg.string({ required: false, description: "WorkflowRunView.cursor or the last event's cursor; null = the whole view first." }),
    },
    subscribe: (_root, args, context) =>
      follow(() => context.feed.followRunView(args.runId, args.after == null ? null : decodeViewFollowCursor(args.after, args.runId))),
    resolve: (event, _args, context) => freshLoaders(event, context),
  }),
);
