import type { RunHumanDecision, RunInteractiveRequest } from '../../../store/index.js';
import { builder } from '../../builder.js';
import type { ViewItem } from '../../run-view-pages.js';
import { contentOf, RunContentRef } from './run-content.js';
import { dateOf, viewConnection } from './view-connection.js';

/** `InteractiveRequest`: a question a run's attempt asks (agent, assistant or decision input). */
export const InteractiveRequestRef = builder.objectRef<ViewItem<RunInteractiveRequest>>('InteractiveRequest').implement({
  description: "A question a run's node attempt asks a Pi session (interactive_requests): its kind, the contract an answer must meet, and its state.",
  fields: (t) => ({
    requestId: t.string({ description: 'The request.', resolve: (request) => request.requestId }),
    attemptId: t.string({ description: 'The node attempt that asks.', resolve: (request) => request.attemptId }),
    targetSessionId: t.string({ description: 'The Pi session asked.', resolve: (request) => request.targetSessionId }),
    kind: t.string({ description: 'agent, assistant or decision.', resolve: (request) => request.kind }),
    contract: t.field({
      type: RunContentRef,
      description: 'The contract an answer must meet (JSON).',
      resolve: (request) => contentOf(request.viewRunId, request.contract),
    }),
    revision: t.int({ description: 'The request revision an answer names.', resolve: (request) => request.revision }),
    status: t.string({ description: 'pending, settled or cancelled.', resolve: (request) => request.status }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was asked.', resolve: (request) => new Date(request.createdAt) }),
    updatedAt: t.field({ type: 'DateTime', description: 'When it last changed.', resolve: (request) => new Date(request.updatedAt) }),
    settledAt: t.field({ type: 'DateTime', nullable: true, description: 'When it was answered.', resolve: (request) => dateOf(request.settledAt) }),
  }),
});

type Resolution = NonNullable<RunHumanDecision['resolution']> & { viewRunId: string };

/** `HumanDecisionResolution`: how a human decision was resolved. */
const HumanDecisionResolutionRef = builder.objectRef<Resolution>('HumanDecisionResolution').implement({
  description: 'How a human decision was resolved.',
  fields: (t) => ({
    outcome: t.string({ description: 'accepted, cancelled, …', resolve: (resolution) => resolution.outcome }),
    provenance: t.string({ description: 'Where the resolution came from.', resolve: (resolution) => resolution.provenance }),
    response: t.field({
      type: RunContentRef,
      nullable: true,
      description: 'The response given (JSON).',
      resolve: (resolution) => contentOf(resolution.viewRunId, resolution.response),
    }),
    reason: t.string({ nullable: true, description: 'Why, when given.', resolve: (resolution) => resolution.reason }),
    channel: t.string({ nullable: true, description: 'The channel it came through (e.g. chat).', resolve: (resolution) => resolution.channel }),
    actorId: t.string({ nullable: true, description: 'Who resolved it.', resolve: (resolution) => resolution.actorId }),
    resolvedAt: t.field({ type: 'DateTime', description: 'When.', resolve: (resolution) => new Date(resolution.resolvedAt) }),
  }),
});

/** `HumanDecision`: a decision a run asks a person. */
export const HumanDecisionRef = builder.objectRef<ViewItem<RunHumanDecision>>('HumanDecision').implement({
  description: 'A decision the run asks a person (human_decisions): title, subject, choices, deadline, and its resolution once resolved.',
  fields: (t) => ({
    decisionId: t.string({ description: 'The decision.', resolve: (decision) => decision.decisionId }),
    attemptId: t.string({ description: 'The node attempt that asks.', resolve: (decision) => decision.attemptId }),
    title: t.string({ description: 'The question, in words.', resolve: (decision) => decision.title }),
    audience: t.string({ description: 'Who is asked.', resolve: (decision) => decision.audience }),
    subject: t.field({ type: RunContentRef, description: 'What it is about (JSON).', resolve: (decision) => contentOf(decision.viewRunId, decision.subject) }),
    choices: t.field({ type: RunContentRef, description: 'The choices (JSON).', resolve: (decision) => contentOf(decision.viewRunId, decision.choices) }),
    defaultResponse: t.field({
      type: RunContentRef,
      nullable: true,
      description: 'The response taken at the deadline, if any (JSON).',
      resolve: (decision) => contentOf(decision.viewRunId, decision.defaultResponse),
    }),
    deadlineAt: t.field({ type: 'DateTime', nullable: true, description: 'The deadline, if any.', resolve: (decision) => dateOf(decision.deadlineAt) }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was asked.', resolve: (decision) => new Date(decision.createdAt) }),
    resolution: t.field({
      type: HumanDecisionResolutionRef,
      nullable: true,
      description: 'How it was resolved; null while open.',
      resolve: (decision) => (decision.resolution === null ? null : { ...decision.resolution, viewRunId: decision.viewRunId }),
    }),
  }),
});

/** `InteractiveRequestConnection`. */
export const InteractiveRequestConnectionRef = viewConnection('InteractiveRequest', InteractiveRequestRef, 'interactive requests');
/** `HumanDecisionConnection`. */
export const HumanDecisionConnectionRef = viewConnection('HumanDecision', HumanDecisionRef, 'human decisions');
