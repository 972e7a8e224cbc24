import type { RunDisplay } from '../../../store/index.js';
import { builder } from '../../builder.js';
import { contentOf, RunContentRef } from './run-content.js';

/** What pi-workflows shows a run as (its display status). */
export const RunDisplayStatusEnum = builder.enumType('RunDisplayStatus', {
  description: "What pi-workflows' viewer shows a run as: the durable status, the queue and what is live, reduced to one word.",
  values: {
    RUNNING: { value: 'running', description: 'A worker or the origin session is executing it.' },
    WAITING: { value: 'waiting', description: 'It waits for input or a decision.' },
    PAUSED: { value: 'paused', description: 'Paused by a person.' },
    QUEUED: { value: 'queued', description: 'Queued, not started yet (or parked with nothing live).' },
    COMPLETED: { value: 'completed', description: 'Finished successfully.' },
    FAILED: { value: 'failed', description: 'Finished with an error.' },
    TIMED_OUT: { value: 'timed_out', description: 'Ran out of time.' },
    CANCELLED: { value: 'cancelled', description: 'Cancelled.' },
    AMBIGUOUS: { value: 'ambiguous', description: 'An effect of the run has an unknown outcome: a person must review it.' },
  } as const,
});

/** Who is executing a running run. */
export const RunActivityEnum = builder.enumType('RunActivity', {
  description: 'Who is executing a running run.',
  values: {
    SUPERVISED_WORKER: { value: 'supervised_worker', description: "A worker process supervised by pi-workflows' host." },
    ORIGIN_TURN: { value: 'origin_turn', description: 'A turn of the Pi session that started the run.' },
  } as const,
});

/** What a person may do with a run now. */
export const RunControlEnum = builder.enumType('RunControl', {
  description: 'What a person may do with a run now (pi-workflows’ viewer controls).',
  values: {
    PAUSE: { value: 'pause', description: 'Pause it (pauseWorkflowRun).' },
    RESUME: { value: 'resume', description: 'Resume it (resumeWorkflowRun).' },
    CANCEL: { value: 'cancel', description: 'Cancel it (cancelWorkflowRun).' },
    ANSWER: { value: 'answer', description: 'Answer the question it waits on.' },
    REVIEW: { value: 'review', description: 'Review an effect of unknown outcome.' },
  } as const,
});

/** `RunDisplay`: what pi-workflows' viewer shows of a run's state, and what a person may do. */
export const RunDisplayRef = builder.objectRef<{ runId: string; display: RunDisplay }>('RunDisplay').implement({
  description: "What pi-workflows' viewer shows of a run's state: status, who is executing it, why, and what a person may do now.",
  fields: (t) => ({
    status: t.field({ type: RunDisplayStatusEnum, description: 'The status shown.', resolve: ({ display }) => display.status }),
    activity: t.field({ type: RunActivityEnum, nullable: true, description: 'Who is executing it, when running.', resolve: ({ display }) => display.activity }),
    reason: t.string({
      nullable: true,
      description: 'Why, in words (a pause, the error, what it waits on); over 16 KiB the full text is in reasonContent.',
      resolve: ({ display }) => display.reason,
    }),
    reasonContent: t.field({
      type: RunContentRef,
      nullable: true,
      description: 'The full reason when it was too long to show inline.',
      resolve: ({ runId, display }) => contentOf(runId, display.reasonContent),
    }),
    controls: t.field({ type: [RunControlEnum], description: 'What a person may do now.', resolve: ({ display }) => display.controls }),
  }),
});
