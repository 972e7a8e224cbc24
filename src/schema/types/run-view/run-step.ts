import type { RunStep, TakenTransition } from '../../../store/index.js';
import { builder } from '../../builder.js';
import type { ViewItem } from '../../run-view-pages.js';
import { contentOf, RunContentRef } from './run-content.js';
import { dateOf, viewConnection } from './view-connection.js';

/** How a step ended (pi-workflows' step outcome). */
export const StepOutcomeEnum = builder.enumType('StepOutcome', {
  description: "How a step ended (pi-workflows' step outcome).",
  values: {
    OK: { value: 'ok', description: 'Finished with an output.' },
    FAILED: { value: 'failed', description: 'Failed with an error.' },
    TIMED_OUT: { value: 'timed_out', description: 'Ran past its deadline.' },
    CANCELLED: { value: 'cancelled', description: 'Cancelled.' },
  } as const,
});

/** `RunStep`: one step of a run and its node attempt, in run order (docs/PI-WORKFLOWS-FILES.md §9). */
export const RunStepRef = builder.objectRef<ViewItem<RunStep>>('RunStep').implement({
  description:
    'One step of a run: a finished attempt of one node (run_steps and node_attempts), in run order. A continuation lists the ' +
    'steps it carries over from its parent first. Prompt, output and error are RunContent: their values are read only when selected.',
  fields: (t) => ({
    stepIndex: t.int({ description: 'Position of the step in the run (0-based); cursors page by it.', resolve: (step) => step.stepIndex }),
    attemptId: t.string({ description: 'The node attempt.', resolve: (step) => step.attemptId }),
    attemptRunId: t.string({
      description: 'The run the attempt ran in: another run for a step a continuation carries over.',
      resolve: (step) => step.attemptRunId,
    }),
    nodeId: t.string({ description: 'The node of the workflow definition.', resolve: (step) => step.nodeId }),
    nodeType: t.string({ description: 'The node type (agent, action, checkpoint, …).', resolve: (step) => step.nodeType }),
    attempt: t.int({ description: 'Attempt number of the node (1 for the first).', resolve: (step) => step.attemptNumber }),
    outcome: t.field({ type: StepOutcomeEnum, description: 'How the step ended.', resolve: (step) => step.outcome }),
    startedAt: t.field({ type: 'DateTime', nullable: true, description: 'When the attempt started.', resolve: (step) => dateOf(step.startedAt) }),
    finishedAt: t.field({ type: 'DateTime', nullable: true, description: 'When the attempt finished.', resolve: (step) => dateOf(step.finishedAt) }),
    deadlineAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: "The attempt's deadline, if it had one.",
      resolve: (step) => dateOf(step.deadlineAt),
    }),
    prompt: t.field({
      type: RunContentRef,
      nullable: true,
      description: 'The prompt the step sent (agent nodes), as text; null when it sent none.',
      resolve: (step) => contentOf(step.viewRunId, step.prompt),
    }),
    output: t.field({
      type: RunContentRef,
      nullable: true,
      description: "The step's output (an override a continuation carries wins); null when it has none.",
      resolve: (step) => contentOf(step.viewRunId, step.output),
    }),
    error: t.field({
      type: RunContentRef,
      nullable: true,
      description: "The step's error text; null when it did not fail.",
      resolve: (step) => contentOf(step.viewRunId, step.error),
    }),
    receipt: t.field({
      type: RunContentRef,
      nullable: true,
      description: "The attempt's receipt (JSON), if any.",
      resolve: (step) => contentOf(step.viewRunId, step.receipt),
    }),
    firstEntryId: t.string({
      nullable: true,
      description: 'The first captured session entry of the step’s conversation, when linked.',
      resolve: (step) => step.conversation?.firstEntryId ?? null,
    }),
    lastEntryId: t.string({
      nullable: true,
      description: 'The last captured session entry of the step’s conversation, when linked.',
      resolve: (step) => step.conversation?.lastEntryId ?? null,
    }),
  }),
});

/** `RunStepConnection`. */
export const RunStepConnectionRef = viewConnection('RunStep', RunStepRef, 'steps');

/** `RunTransition`: a transition the run took between two nodes. */
export const RunTransitionRef = builder.objectRef<TakenTransition>('RunTransition').implement({
  description: 'A transition the run took, from one node to the next (pi-workflows shows it as "from->to").',
  fields: (t) => ({
    from: t.string({ description: 'The node left.', resolve: (transition) => transition.from }),
    to: t.string({ description: 'The node entered.', resolve: (transition) => transition.to }),
  }),
});
