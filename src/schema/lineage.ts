import type { LineageKey, WorkflowRunRecord } from '../store/index.js';
import { builder } from './builder.js';
import { assertPageArgs, decodeLineageCursor, encodeLineageCursor } from './cursors.js';
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
    args: { kind: t.arg({ type: LineageKindEnum, required: false }) },
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
    description: "Every run sharing this run's rootRunId: root first, then by creation. Pages forward; first at most 100 (default 20).",
    args: { first: t.arg.int({ required: false }), after: t.arg.string({ required: false }) },
    resolve: (run, args, context) => {
      assertPageArgs(args);
      const first = args.first ?? 20;
      const after = args.after == null ? undefined : decodeLineageCursor(args.after);
      // The page is read only when edges or pageInfo are selected, so `lineage { totalCount }`
      // over a page of runs stays one batched statement.
      let page: { edges: Array<{ cursor: string; node: WorkflowRunRecord }>; hasNextPage: boolean } | undefined;
      const read = () => {
        if (page === undefined) {
          const result = context.store.lineagePage(run.rootRunId, first, after);
          result.runs.forEach((member) => context.loaders.run.prime(member.runId, member));
          page = {
            edges: result.runs.map((node, index) => ({ cursor: encodeLineageCursor(result.keys[index] as LineageKey), node })),
            hasNextPage: result.hasNextPage,
          };
        }
        return page;
      };
      return {
        get edges() {
          return read().edges;
        },
        get pageInfo() {
          const { edges, hasNextPage } = read();
          return {
            hasNextPage,
            hasPreviousPage: after !== undefined,
            startCursor: edges[0]?.cursor ?? null,
            endCursor: edges.at(-1)?.cursor ?? null,
          };
        },
        totalCount: () => context.loaders.chainSize.load(run.rootRunId),
      };
    },
  }),
}));
