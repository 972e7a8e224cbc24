import type { ViewerDeltaBatch } from '../../store/index.js';
import { badUserInput } from '../bad-user-input.js';
import { builder } from '../builder.js';
import { toApiError, ValidationError } from '../errors.js';
import { ViewerDeltaBatchRef } from './viewer-delta-batch.js';
import { ViewerDeltaPageKindEnum } from './viewer-delta-page-kind.js';
import { WorkflowRunRef } from './workflow-run.js';

/** Shape behind `ViewerDeltaPage`: the store's catch-up read, batches empty for a snapshot. */
interface DeltaPageShape {
  kind: 'deltas' | 'snapshot_required';
  currentRevision: number;
  retainedFromRevision: number;
  batches: ViewerDeltaBatch[];
}

const ViewerDeltaPageRef = builder.objectRef<DeltaPageShape>('ViewerDeltaPage').implement({
  description: 'Catch-up read of the delta log after a revision.',
  fields: (t) => ({
    kind: t.field({ type: ViewerDeltaPageKindEnum, description: 'DELTAS, or SNAPSHOT_REQUIRED.', resolve: (page) => page.kind }),
    currentRevision: t.exposeInt('currentRevision', { description: "The run's current revision." }),
    retainedFromRevision: t.exposeInt('retainedFromRevision', { description: 'The oldest revision the log still holds.' }),
    batches: t.field({
      type: [ViewerDeltaBatchRef],
      description: 'Every revision after the cursor, in order; empty for SNAPSHOT_REQUIRED.',
      resolve: (page) => page.batches,
    }),
  }),
});

builder.objectField(WorkflowRunRef, 'viewerDeltas', (t) =>
  t.field({
    type: ViewerDeltaPageRef,
    description: 'Catch-up read of the delta log: every retained revision after afterRevision, or SNAPSHOT_REQUIRED.',
    args: { afterRevision: t.arg.int({ required: true, description: 'The last revision the caller applied (its cursor).' }) },
    resolve: (run, args, context) => {
      let read;
      try {
        read = context.store.readViewerDeltas(run.runId, args.afterRevision);
      } catch (error) {
        const mapped = toApiError(error);
        throw mapped instanceof ValidationError ? badUserInput(mapped.message) : mapped;
      }
      if (read === undefined) return { kind: 'snapshot_required' as const, currentRevision: 1, retainedFromRevision: 1, batches: [] };
      return read.kind === 'deltas' ? read : { ...read, batches: [] };
    },
  }),
);
