import type { TraceEvent } from '../../../store/index.js';
import { builder } from '../../builder.js';
import type { ViewItem } from '../../run-view-pages.js';
import { contentOf, RunContentRef } from './run-content.js';
import { viewConnection } from './view-connection.js';

/** What a trace event is about (pi-workflows' trace scope). */
export const TraceScopeEnum = builder.enumType('TraceScope', {
  description: "What a trace event is about (pi-workflows' trace scope).",
  values: {
    RUN: { value: 'run', description: 'The run, its queue entry and its lease.' },
    NODE: { value: 'node', description: 'A node attempt.' },
    AGENT: { value: 'agent', description: 'An agent node’s model work.' },
    ACTION: { value: 'action', description: 'An action node.' },
    SESSION: { value: 'session', description: 'The captured Pi session.' },
  } as const,
});

/** `TraceEvent`: one event of a run's trace (docs/PI-WORKFLOWS-FILES.md §9). */
export const TraceEventRef = builder.objectRef<ViewItem<TraceEvent>>('TraceEvent').implement({
  description:
    "One event of a run's trace, in order: the queue's own events (run.queued, lease.claimed, run.queue_running, …) and the " +
    "engine's (run_started, node_started, node_finished, run_completed, …), as pi-workflows' viewer shows them.",
  fields: (t) => ({
    seq: t.int({ description: "Position in the run's trace (the run resource's revision); cursors page by it.", resolve: (event) => event.seq }),
    at: t.field({ type: 'DateTime', description: 'When it was recorded.', resolve: (event) => new Date(event.at) }),
    scope: t.field({ type: TraceScopeEnum, description: 'What it is about.', resolve: (event) => event.scope }),
    type: t.string({ description: 'The event type, e.g. node_finished or lease.claimed.', resolve: (event) => event.type }),
    nodeId: t.string({ nullable: true, description: 'The node it concerns, if any.', resolve: (event) => event.nodeId }),
    attemptId: t.string({ nullable: true, description: 'The node attempt it concerns, if any.', resolve: (event) => event.attemptId }),
    eventId: t.string({ description: 'The event row’s id.', resolve: (event) => event.eventId }),
    actorType: t.string({ description: 'Who recorded it: session, host, control, system, …', resolve: (event) => event.actorType }),
    actorId: t.string({ nullable: true, description: 'The actor’s id, if any.', resolve: (event) => event.actorId }),
    payload: t.field({
      type: RunContentRef,
      nullable: true,
      description: "The event's payload as pi-workflows shows it ({} for the queue's own events); null when the event has none.",
      resolve: (event) => contentOf(event.viewRunId, event.payload),
    }),
  }),
});

/** `TraceEventConnection`. */
export const TraceEventConnectionRef = viewConnection('TraceEvent', TraceEventRef, 'trace events');
