import type { WorkflowRunRecord } from '../store/index.js';
import { builder } from './builder.js';
import { planKeysetPage, type RunPage } from './connections.js';
import { LINEAGE_CURSORS } from './cursors.js';
import { LineageKindEnum } from './enums.js';
import { WorkflowRunConnectionRef, WorkflowRunRef } from './workflow-run.js';
import type { GraphQLContext } from './context.js';

async function loadRun(context: GraphQLContext, runId: string): Promise<WorkflowRunRecord> {
  const run = await context.loaders.run.load(runId);
  if (run === undefined) throw new Error(`Lineage points at a missing run: ${runId}`);
  return run;
}

async function onlyChild(context: GraphQLContext, run: WorkflowRunRecord, kind: 'continuation' | 'restart') {
  const children = await context.loaders.children.load({ runId: run.runId, kind });
  return children[0] ?? null;
}

builder.objectFields(WorkflowRunRef, (t) => ({
  parent: t.field({
    type: WorkflowRunRef,
    nullable: true,
    description: 'The direct parent; null for a root run.',
    resolve: (run, _args, context) => (run.parentRunId === null ? null : loadRun(context, run.parentRunId)),
  }),
  rootRun: t.field({
    type: WorkflowRunRef,
    description: 'The first run of the chain; itself for a root run.',
    resolve: (run, _args, context) => (run.rootRunId === run.runId ? run : loadRun(context, run.rootRunId)),
  }),
  children: t.field({
    type: [WorkflowRunRef],
    description: 'Direct children, oldest first; optionally only of one lineage kind.',
    args: { kind: t.arg({ type: LineageKindEnum, required: false, description: 'Only children of this lineage kind; all when null.' }) },
    resolve: (run, args, context) => context.loaders.children.load({ runId: run.runId, kind: args.kind ?? null }),
  }),
  continuation: t.field({
    type: WorkflowRunRef,
    nullable: true,
    description: 'The run that continues this one (at most one).',
    resolve: (run, _args, context) => onlyChild(context, run, 'continuation'),
  }),
  restart: t.field({
    type: WorkflowRunRef,
    nullable: true,
    description: 'The run that restarts this one (at most one).',
    resolve: (run, _args, context) => onlyChild(context, run, 'restart'),
  }),
  latestRun: t.field({
    type: WorkflowRunRef,
    description: "The newest run of this run's chain (same rootRunId).",
    resolve: async (run, _args, context) => loadRun(context, await context.loaders.latestRunId.load(run.rootRunId)),
  }),
  lineage: t.field({
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
}));
