import type { ViewerSnapshotEvent } from '../../delivery/index.js';
import { builder } from '../builder.js';
import { WorkflowRunRef } from './workflow-run.js';

/** "Your cursor cannot be served: reload the run, then continue after currentRevision." */
export const ViewerSnapshotRequiredRef = builder.objectRef<ViewerSnapshotEvent>('ViewerSnapshotRequired').implement({
  description:
    'The cursor cannot be served from the retained log (0, ahead of the run, or older than the window): reload the run and continue after currentRevision.',
  isTypeOf: (value) => typeof value === 'object' && value !== null && (value as { kind?: string }).kind === 'snapshot_required',
  fields: (t) => ({
    runId: t.exposeString('runId', { description: 'The run to reload.' }),
    currentRevision: t.exposeInt('currentRevision', { description: 'The revision the reloaded run stands for; the stream goes on after it.' }),
    retainedFromRevision: t.exposeInt('retainedFromRevision', { description: 'The oldest revision the log still holds.' }),
    run: t.field({ type: WorkflowRunRef, description: 'The run as committed at currentRevision.', resolve: (event) => event.run }),
  }),
});
