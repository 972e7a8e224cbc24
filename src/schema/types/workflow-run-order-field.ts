import { builder } from '../builder.js';

/** `enum WorkflowRunOrderField { CREATED_AT UPDATED_AT }` (docs/GRAPHQL-CONTRACT.md "Run-list search and order"). */
export const WorkflowRunOrderFieldEnum = builder.enumType('WorkflowRunOrderField', {
  description: 'What workflowRuns orders by; runs with equal values are ordered by runId, in the same direction.',
  values: {
    CREATED_AT: { value: 'created_at', description: 'WorkflowRun.createdAt: when the run was reserved. Runs never move in this order.' },
    UPDATED_AT: {
      value: 'updated_at',
      description:
        'WorkflowRun.updatedAt: when the run last changed. A run that changes while you page moves to the newest end: paging ' +
        'forward with DESC never returns a run twice, but misses a run that changed after you paged past its old place (a new ' +
        'first page shows it on top); paging forward with ASC misses nothing, but returns a run again, in its new state, near the ' +
        'end when it changed after you saw it. Backward paging (last/before) is the mirror image.',
    },
  } as const,
});
