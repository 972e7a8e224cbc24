import { builder } from '../builder.js';
import { follow, freshLoaders } from '../follow.js';
import { WorkflowRunChangeRef } from './workflow-run-change.js';
import { WorkflowRunChangesResetRequiredRef } from './workflow-run-changes-reset-required.js';
import { storeFilter, WorkflowRunFilterRef } from './workflow-run-filter.js';

/** A subscription event of `workflowRunChanges`. */
export const WorkflowRunChangeEventRef = builder.unionType('WorkflowRunChangeEvent', {
  description: 'A run created or changed, or a request to re-query the list.',
  types: [WorkflowRunChangeRef, WorkflowRunChangesResetRequiredRef],
});

builder.subscriptionField('workflowRunChanges', (t) =>
  t.field({
    type: WorkflowRunChangeEventRef,
    description:
      'Every run created or changed, in commit order, for a filter (docs/PROTOCOL.md "workflowRunChanges"). after null = live only; ' +
      'a cursor replays every run changed after it (once, in its latest state), then goes live; a cursor that cannot be replayed yields ' +
      'WorkflowRunChangesResetRequired first. With a filter, a run that matched its status / queueStatus at an earlier change and no longer ' +
      'matches is still delivered, so a list can drop it.',
    args: {
      filter: t.arg({ type: WorkflowRunFilterRef, required: false, description: 'Only runs matching every given filter, and runs that left it.' }),
      after: t.arg.string({ required: false, description: 'The cursor of the last event applied; null = live only.' }),
    },
    subscribe: (_root, args, context) => follow(() => context.feed.followRunChanges(storeFilter(args.filter), args.after ?? null)),
    resolve: (event, _args, context) => freshLoaders(event, context),
  }),
);
