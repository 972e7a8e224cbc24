/**
 * The lineage of a run (docs/GRAPHQL-CONTRACT.md): the `WorkflowRun` fields that read its chain
 * (`parent`, `rootRun`, `children`, `continuation`, `restart`, `latestRun`) with their loaders,
 * `WorkflowRun.lineage` (the chain as a `WorkflowRunConnection`) and the
 * `workflowRunLineageUpdated` subscription.
 */
import { dataloaderGetter, pathDataloaderGetter } from '@pothos/plugin-dataloader';
import type { GraphQLResolveInfo } from 'graphql';
import type { LineageKind, WorkflowRunRecord, WorkflowStore } from '../../store/index.js';
import { builder } from '../builder.js';
import type { GraphQLContext } from '../context.js';
import { planKeysetPage, type RunPage } from '../connections.js';
import { LINEAGE_CURSORS } from '../cursors.js';
import { follow, freshLoaders } from '../follow.js';
import { idOnlyRuns, isIdOnly, RunBatch, runIdOnly } from '../id-only-runs.js';
import { chainResourceExtensions } from '../live-resources.js';
import { selectsField } from '../selection.js';
import { pageBatch, primeRuns, selectsIdsOnly, WorkflowRunConnectionRef } from './workflow-run-list.js';
import { LineageKindEnum, RUN_ID_FIELDS, RUN_LINEAGE_ID_FIELDS, selectsOnly, WorkflowRunRef } from './workflow-run.js';

/**
 * The newest run id of each chain, by root run id (`latestRun` of runs without a batch): one
 * statement per batch; the field then loads the runs through the run loader (those of the page
 * are primed), unless it selects only ids.
 */
const latestRunIds = dataloaderGetter<string, string, string>(
  undefined,
  async (rootRunIds, context) => (context as GraphQLContext).store.latestRunIdsOfChains(rootRunIds),
  undefined,
  false,
);

/** What a field returning the run `runId` resolves to: an id-only run when it selects only ids, else the id (loaded). */
function runOrId(runId: string, info: GraphQLResolveInfo): WorkflowRunRecord | string {
  return selectsOnly(info, RUN_ID_FIELDS) ? runIdOnly(runId) : runId;
}

/**
 * The children of each parent run id, oldest first: ids only (one {@link RunBatch}) when the
 * selection on them reads only {@link RUN_LINEAGE_ID_FIELDS}, else whole records. One statement.
 */
function readChildren(store: WorkflowStore, parentRunIds: string[], kind: LineageKind | undefined, idsOnly: boolean): WorkflowRunRecord[][] {
  if (!idsOnly) return store.childrenOfRuns(parentRunIds, kind);
  const batch = new RunBatch(store);
  return store.childIdsOfRuns(parentRunIds, kind).map((children) => children.map((child) => batch.add(child) as unknown as WorkflowRunRecord));
}

type ChildrenArgs = { kind?: LineageKind | null };

/**
 * The children loader of a field, for runs without a batch (whole records, runs of a page under
 * a list): one DataLoader per response path, so each `children(kind:)` selection batches with
 * its own kind and selection (the same at every item of one path); one statement per batch.
 *
 * @param kindOf the lineage kind the field reads (from its arguments, or fixed)
 */
function childrenLoader(kindOf: (args: ChildrenArgs) => LineageKind | undefined) {
  return pathDataloaderGetter<string, WorkflowRunRecord[], string, ChildrenArgs>(
    undefined,
    async (runIds, context, args, info) => readChildren((context as GraphQLContext).store, runIds, kindOf(args), selectsOnly(info, RUN_LINEAGE_ID_FIELDS)),
    undefined,
    false,
    true,
  );
}

const childrenOfAnyKind = childrenLoader((args) => args.kind ?? undefined);
const continuations = childrenLoader(() => 'continuation');
const restarts = childrenLoader(() => 'restart');

/**
 * The children of `run` of a kind: from its batch, synchronously, when it has one (see
 * {@link RunBatch}), else through `loader`.
 */
function childrenOf(
  run: WorkflowRunRecord,
  kind: LineageKind | undefined,
  loader: ReturnType<typeof childrenLoader>,
  args: ChildrenArgs,
  context: GraphQLContext,
  info: GraphQLResolveInfo,
): WorkflowRunRecord[] | Promise<WorkflowRunRecord[]> {
  if (isIdOnly(run) && run.batch !== undefined) return run.batch.childrenOf(run.runId, kind, selectsOnly(info, RUN_LINEAGE_ID_FIELDS));
  return loader(args, context, info).load(run.runId);
}

/** The only child of `run` of a kind (`continuation`, `restart`: at most one), or null. */
function onlyChild(
  run: WorkflowRunRecord,
  kind: LineageKind,
  loader: ReturnType<typeof childrenLoader>,
  context: GraphQLContext,
  info: GraphQLResolveInfo,
): WorkflowRunRecord | null | Promise<WorkflowRunRecord | null> {
  const children = childrenOf(run, kind, loader, {}, context, info);
  return Array.isArray(children) ? (children[0] ?? null) : children.then((list) => list[0] ?? null);
}

builder.objectFields(WorkflowRunRef, (t) => ({
  // Lineage: each read is one batched statement per request (loadable fields and groups).
  parent: t.field({
    extensions: chainResourceExtensions,
    type: WorkflowRunRef,
    nullable: true,
    description: 'The direct parent; null for a root run.',
    resolve: (run, _args, _context, info) => (run.parentRunId === null ? null : runOrId(run.parentRunId, info)),
  }),
  rootRun: t.field({
    extensions: chainResourceExtensions,
    type: WorkflowRunRef,
    description: 'The first run of the chain; itself for a root run.',
    resolve: (run, _args, _context, info) => (run.rootRunId === run.runId && !isIdOnly(run) ? run : runOrId(run.rootRunId, info)),
  }),
  children: t.field({
    extensions: chainResourceExtensions,
    type: [WorkflowRunRef],
    description: 'Direct children, oldest first; optionally only of one lineage kind.',
    args: { kind: t.arg({ type: LineageKindEnum, required: false, description: 'Only children of this lineage kind; all when null.' }) },
    resolve: (run, args, context, info) => childrenOf(run, args.kind ?? undefined, childrenOfAnyKind, args, context, info),
  }),
  continuation: t.field({
    extensions: chainResourceExtensions,
    type: WorkflowRunRef,
    nullable: true,
    description: 'The run that continues this one (at most one).',
    resolve: (run, _args, context, info) => onlyChild(run, 'continuation', continuations, context, info),
  }),
  restart: t.field({
    extensions: chainResourceExtensions,
    type: WorkflowRunRef,
    nullable: true,
    description: 'The run that restarts this one (at most one).',
    resolve: (run, _args, context, info) => onlyChild(run, 'restart', restarts, context, info),
  }),
  latestRun: t.field({
    extensions: chainResourceExtensions,
    type: WorkflowRunRef,
    description: "The newest run of this run's chain (same rootRunId).",
    resolve: (run, _args, context, info) =>
      isIdOnly(run) && run.batch !== undefined
        ? runOrId(run.batch.latestRunIdOf(run.rootRunId), info)
        : latestRunIds(context)
            .load(run.rootRunId)
            .then((runId) => runOrId(runId, info)),
  }),
}));

/**
 * Number of runs of each chain, by root run id (`lineage { totalCount }`): a per-request
 * DataLoader from the dataloader plugin's own getter (a count is no object type, so no loadable
 * field fits), registered with the plugin so that `clearAllDataLoaders` clears it too.
 */
const chainSizes = dataloaderGetter<string, number, string>(
  undefined,
  async (rootRunIds, context) => (context as GraphQLContext).store.chainSizes(rootRunIds),
  undefined,
  false,
);

builder.objectField(WorkflowRunRef, 'lineage', (t) =>
  t.field({
    type: WorkflowRunConnectionRef,
    extensions: chainResourceExtensions,
    description:
      "Every run sharing this run's rootRunId: root first, then by creation. Page forward with first/after or backward with " +
      'last/before (default first 20); first and last at most 100, and not both in one call.',
    args: {
      first: t.arg.int({ required: false, description: 'Page forward: at most this many runs after `after` (0 … 100).' }),
      after: t.arg.string({ required: false, description: 'Cursor of the run the page starts after.' }),
      last: t.arg.int({ required: false, description: 'Page backward: at most this many runs before `before` (0 … 100).' }),
      before: t.arg.string({ required: false, description: 'Cursor of the run the page ends before.' }),
    },
    resolve: (run, args, context, info) => {
      // Arguments are checked now; the page is read only when edges or pageInfo are selected,
      // so `lineage { totalCount }` over a page of runs stays one batched statement.
      const plan = planKeysetPage(args, LINEAGE_CURSORS);
      let page: RunPage | undefined;
      // The feed's head, read before the rows whichever field asks first.
      let changeCursor: string | undefined;
      const head = (): string => (changeCursor ??= context.store.runChangeCursor());
      const wantsHead = selectsField(info, 'changeCursor');
      const idsOnly = selectsIdsOnly(info);
      const read = (): RunPage => {
        if (page === undefined) {
          if (wantsHead) head();
          if (idsOnly) {
            page = plan.page(idOnlyRuns(context.store.lineageIdSlice(run.rootRunId, plan.request), pageBatch(context, info)));
          } else {
            const rows = context.store.lineageSlice(run.rootRunId, plan.request);
            primeRuns(context, rows);
            page = plan.page(rows);
          }
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
        get changeCursor() {
          return head();
        },
        totalCount: () => chainSizes(context).load(run.rootRunId),
      };
    },
  }),
);

builder.subscriptionFields((t) => ({
  workflowRunLineageUpdated: t.field({
    type: WorkflowRunRef,
    description: "Any run of the root's chain that changed or joined it.",
    args: { rootRunId: t.arg.string({ required: true, description: 'Root run id of the chain to follow.' }) },
    subscribe: (_root, args, context) => follow(() => context.feed.followChainUpdates(args.rootRunId)),
    resolve: (run, _args, context) => freshLoaders(run, context),
  }),
}));
