import type { WorkflowRunCounts } from '../../store/index.js';
import { builder } from '../builder.js';
import { storeFilter, WorkflowRunFilterRef } from './workflow-run-list.js';
import { RunQueueStatusEnum, WorkflowRunStatusEnum } from './workflow-run.js';

/** `WorkflowRunCounts.byStatus`: one durable status and its count. */
const WorkflowRunStatusCountRef = builder.objectRef<WorkflowRunCounts['byStatus'][number]>('WorkflowRunStatusCount').implement({
  description: 'The number of runs of a filter in one durable status (runs.status).',
  fields: (t) => ({
    status: t.field({ type: WorkflowRunStatusEnum, description: 'The status.', resolve: (entry) => entry.status }),
    count: t.exposeInt('count', { description: 'Runs of the filter in this status (0 included).' }),
  }),
});

/** `WorkflowRunCounts.byQueueStatus`: one scheduling status and its count. */
const RunQueueStatusCountRef = builder.objectRef<WorkflowRunCounts['byQueueStatus'][number]>('RunQueueStatusCount').implement({
  description: 'The number of runs of a filter in one scheduling status (run_queue.status).',
  fields: (t) => ({
    status: t.field({ type: RunQueueStatusEnum, description: 'The queue status.', resolve: (entry) => entry.status }),
    count: t.exposeInt('count', { description: 'Runs of the filter in this queue status (0 included).' }),
  }),
});

/** `workflowRunCounts`: the counts of a run-list filter (docs/GRAPHQL-CONTRACT.md "Run counts"). */
const WorkflowRunCountsRef = builder.objectRef<WorkflowRunCounts>('WorkflowRunCounts').implement({
  description:
    'How many runs a run-list filter matches, in total, per status and per queue status, read in one snapshot. A value type ' +
    '(no identity): client caches keep it under its query field and arguments (docs/GRAPHQL-CONTRACT.md "Run counts").',
  fields: (t) => ({
    total: t.exposeInt('total', { description: 'Runs matching the filter (equals workflowRuns(filter:).totalCount).' }),
    byStatus: t.field({
      type: [WorkflowRunStatusCountRef],
      description: 'One entry per WorkflowRunStatus, every value in the enum order, zeros included; the counts add up to total.',
      resolve: (counts) => counts.byStatus,
    }),
    byQueueStatus: t.field({
      type: [RunQueueStatusCountRef],
      description: 'One entry per RunQueueStatus, every value in the enum order, zeros included; the counts add up to total.',
      resolve: (counts) => counts.byQueueStatus,
    }),
  }),
});

builder.queryField('workflowRunCounts', (t) =>
  t.field({
    type: WorkflowRunCountsRef,
    description:
      'The number of runs workflowRuns(filter:) lists, per status and per queue status, for a list header. With @live it is ' +
      'pushed again whenever a run is created or changes, commits of other processes included (docs/GRAPHQL-CONTRACT.md "Run counts").',
    args: {
      filter: t.arg({ type: WorkflowRunFilterRef, required: false, description: 'The run-list filter (as workflowRuns); none counts every run.' }),
    },
    resolve: (_root, args, context) => context.store.countWorkflowRunsByStatus(storeFilter(args.filter)),
  }),
);
