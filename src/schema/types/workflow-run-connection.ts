import { builder } from '../builder.js';
import { planKeysetPage, type RunPage } from '../connections.js';
import { LINEAGE_CURSORS, RUN_CURSORS } from '../cursors.js';
import { storeFilter, WorkflowRunFilterRef } from './workflow-run-filter.js';
import { WorkflowRunRef } from './workflow-run.js';

/** Shape behind `WorkflowRunConnection`: the relay connection plus a lazy total count. */
export interface RunConnectionShape {
  totalCount: () => number | Promise<number>;
}

/** The connection type shared by `workflowRuns` and `WorkflowRun.lineage`. */
export const WorkflowRunConnectionRef = builder.connectionObject(
  {
    type: WorkflowRunRef,
    name: 'WorkflowRunConnection',
    description: 'A page of workflow runs (Relay cursor connection) with the total count of the whole list.',
    fields: (t) => ({
      totalCount: t.int({
        description: 'Number of runs in the whole list, not just this page.',
        resolve: (connection) => (connection as unknown as RunConnectionShape).totalCount(),
      }),
    }),
  },
  { name: 'WorkflowRunEdge', description: 'One run of a WorkflowRunConnection page with its cursor (Relay edge).' },
);

builder.queryField('workflowRuns', (t) =>
  t.connection(
    {
      type: WorkflowRunRef,
      description:
        'Runs, newest first. Cursors are keyset positions: stable under concurrent inserts. Page forward with first/after or ' +
        'backward with last/before (default first 20); first and last at most 100, and not both in one call.',
      args: { filter: t.arg({ type: WorkflowRunFilterRef, required: false, description: 'Only runs matching every given filter.' }) },
      resolve: (_root, args, context) => {
        const filter = storeFilter(args.filter);
        const plan = planKeysetPage(args, RUN_CURSORS);
        const rows = context.store.listWorkflowRunSlice(filter, plan.request);
        for (const { run } of rows) context.loaders.run.prime(run.runId, run);
        return { ...plan.page(rows), totalCount: () => context.store.countWorkflowRuns(filter) };
      },
    },
    WorkflowRunConnectionRef,
  ),
);

builder.objectField(WorkflowRunRef, 'lineage', (t) =>
  t.field({
    type: WorkflowRunConnectionRef,
    description:
      "Every run sharing this run's rootRunId: root first, then by creation. Page forward with first/after or backward with " +
      'last/before (default first 20); first and last at most 100, and not both in one call.',
    args: {
      first: t.arg.int({ required: false, description: 'Page forward: at most this many runs after `after` (0 … 100).' }),
      after: t.arg.string({ required: false, description: 'Cursor of the run the page starts after.' }),
      last: t.arg.int({ required: false, description: 'Page backward: at most this many runs before `before` (0 … 100).' }),
      before: t.arg.string({ required: false, description: 'Cursor of the run the page ends before.' }),
    },
    resolve: (run, args, context) => {
      // Arguments are checked now; the page is read only when edges or pageInfo are selected,
      // so `lineage { totalCount }` over a page of runs stays one batched statement.
      const plan = planKeysetPage(args, LINEAGE_CURSORS);
      let page: RunPage | undefined;
      const read = (): RunPage => {
        if (page === undefined) {
          const rows = context.store.lineageSlice(run.rootRunId, plan.request);
          for (const member of rows) context.loaders.run.prime(member.run.runId, member.run);
          page = plan.page(rows);
        }
        return page;
      };
      return {
        get edges() {
          return read().edges;
        },
        get pageInfo() {
          return read().pageInfo;
        },
        totalCount: () => context.loaders.chainSize.load(run.rootRunId),
      };
    },
  }),
);
