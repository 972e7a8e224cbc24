import { builder } from '../builder.js';
import { follow, freshLoaders } from '../follow.js';
import { ViewerDeltaBatchRef } from './viewer-delta-batch.js';
import { ViewerSnapshotRequiredRef } from './viewer-snapshot-required.js';

/** A subscription event of `workflowRunDeltas`. */
export const WorkflowRunDeltaEventRef = builder.unionType('WorkflowRunDeltaEvent', {
  description: 'One presentation revision, or a request to reload from a snapshot.',
  types: [ViewerDeltaBatchRef, ViewerSnapshotRequiredRef],
});

builder.subscriptionField('workflowRunDeltas', (t) =>
  t.field({
    type: WorkflowRunDeltaEventRef,
    description:
      'One event per presentation revision of the run, exactly once, in order. afterRevision null = live only; a cursor that cannot be served yields ViewerSnapshotRequired first.',
    args: {
      runId: t.arg.string({ required: true, description: 'The run to follow.' }),
      afterRevision: t.arg.int({ required: false, description: 'The last revision the caller applied; null = live only.' }),
    },
    subscribe: (_root, args, context) => follow(() => context.feed.followRunDeltas(args.runId, args.afterRevision ?? null)),
    resolve: (event, _args, context) => freshLoaders(event, context),
  }),
);
