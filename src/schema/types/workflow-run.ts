import { dataloaderGetter, pathDataloaderGetter } from '@pothos/plugin-dataloader';
import type { GraphQLResolveInfo } from 'graphql';
import type { LineageKind, WorkflowRunRecord, WorkflowStore } from '../../store/index.js';
import { builder } from '../builder.js';
import { assertContentScope } from '../content-scope.js';
import type { GraphQLContext } from '../context.js';
import { follow, freshLoaders } from '../follow.js';
import { isIdOnly, RunBatch, runIdOnly } from '../id-only-runs.js';
import { chainResourceExtensions } from '../live-resources.js';
import { selectedFieldsAt } from '../selection.js';
import { ExecutionModeEnum } from './execution-mode.js';
import { LineageKindEnum } from './lineage-kind.js';
import { RunClaimRef } from './run-claim.js';
import { RunQueueStatusEnum } from './run-queue-status.js';
import { WorkflowRunStatusEnum } from './workflow-run-status.js';

/**
 * The `WorkflowRun` fields that read nothing but the run id: `parent`,
 * `rootRun` and `latestRun` selecting no other field answer with a run id alone (no load).
 */
export const RUN_ID_FIELDS: ReadonlySet<string> = new Set(['__typename', 'id', 'runId']);

/**
 * The `WorkflowRun` fields that read nothing but a run's ids (run, root, parent): its own
 * ids, and the lineage fields, which load what they return by those ids. A
 * connection whose nodes, or `children` whose runs, select no other field read ids only.
 */
export const RUN_LINEAGE_ID_FIELDS: ReadonlySet<string> = new Set([
  ...RUN_ID_FIELDS,
  'rootRunId',
  'parentRunId',
  'parent',
  'rootRun',
  'children',
  'continuation',
  'restart',
  'latestRun',
  'lineage',
]);

/**
 * Whether the selection at `path` below the resolved field reads only fields of `allowed`
 * (through fragments; see `selectedFieldsAt`). Answered once per field of a request (not per item of a list).
 */
export function selectsOnly(info: GraphQLResolveInfo, allowed: ReadonlySet<string>, path: readonly string[] = []): boolean {
  for (const name of selectedFieldsAt(info, path)) {
    if (!allowed.has(name)) return false;
  }
  return true;
}

/**
 * The loader cache key every id-only run is primed under when a field returns it (the
 * plugin's `cacheResolved` primes every returned run): a symbol no load ever asks for, so a
 * partial record never answers a load of its run id (the first one primed sits there unread).
 */
const ID_ONLY_CACHE_KEY = Symbol('id-only WorkflowRun, never loaded') as unknown as string;

/**
 * The GraphQL object of a run; its shape is the store's run record. A loadable node
 * (`@pothos/plugin-dataloader`): `node(id)`, `workflowRun(runId)` and every field that returns a
 * run id (`parent`, `rootRun`, `latestRun`) load through one per-request DataLoader over
 * `store.getWorkflowRuns` (one statement per batch, docs/GRAPHQL-CONTRACT.md); every run a field returns is primed
 * into it (`cacheResolved`), and so are the rows of a connection page. Subscriptions clear it
 * for every event (`freshLoaders`, src/schema/follow.ts).
 *
 * Its fields that return another type of `types/` (`lineage`, `viewerDeltas`) are added by
 * that type's file, so that imports run one way (the other files import this one). A lineage
 * id that points at a missing run (the store's foreign keys forbid it) reads as null, except
 * where the field selects only ids (answered from the id, without a load).
 * Id-only runs (`IdOnlyRun`, src/schema/id-only-runs.ts) are primed under a key no load asks
 * for; the lineage fields of those read together as a batch resolve from the batch (`RunBatch`).
 */
export const WorkflowRunRef = builder.loadableNodeRef('WorkflowRun', {
  id: { resolve: (run: WorkflowRunRecord) => run.runId, description: 'Relay global id: base64 of "WorkflowRun:<runId>"; resolve it with node(id).' },
  load: async (runIds: string[], context: GraphQLContext) => context.store.getWorkflowRuns(runIds).filter((run) => run !== undefined),
  // Results are matched to ids by runId (unknown ids load as null), and cached by it.
  sort: (run: WorkflowRunRecord) => run.runId,
  // Every run a field returns is cached by its run id, except id-only runs (never loaded).
  cacheResolved: (run: WorkflowRunRecord) => (isIdOnly(run) ? ID_ONLY_CACHE_KEY : run.runId),
});

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

WorkflowRunRef.implement({
  description: 'A durable workflow run: its state, its claim, its lineage and its live view revision.',
  fields: (t) => ({
    runId: t.exposeString('runId', { description: "The store's run id." }),
    workflowName: t.exposeString('workflowName', {
      description:
        'Name of the workflow definition the run executes: the name stored with its definition digest by the first run ' +
        'that stored that definition (docs/STORE-RULES.md §3.6), which may differ from the workflowName this run was reserved with.',
    }),
    workflowRef: t.exposeString('workflowSourceRef', { description: 'Source ref given at launch (runs.workflow_ref).' }),
    status: t.field({ type: WorkflowRunStatusEnum, description: 'Durable run state (runs.status).', resolve: (run) => run.runStateStatus }),
    queueStatus: t.field({ type: RunQueueStatusEnum, description: 'Scheduling state (run_queue.status).', resolve: (run) => run.status }),
    paused: t.exposeBoolean('paused', { description: 'True while the run is paused (it keeps its state and resumes later).' }),
    statusDetail: t.exposeString('statusDetail', {
      nullable: true,
      description: 'Free-form detail of the current status (a waiting reason, an error summary), or null.',
    }),
    executionMode: t.field({
      type: ExecutionModeEnum,
      description: 'Whether a Pi session drives the run (INTERACTIVE) or not (HEADLESS).',
      resolve: (run) => run.executionMode,
    }),
    originSessionId: t.exposeString('originSessionId', { nullable: true, description: 'Null for headless runs.' }),
    input: t.field({
      type: 'JSON',
      nullable: true,
      description: 'The input the run was reserved with, or null. Content: null with a FORBIDDEN error for a metadata-scope token.',
      resolve: (run, _args, context) => {
        assertContentScope(context);
        return run.input;
      },
    }),
    launchOptions: t.field({
      type: 'JSON',
      nullable: true,
      description: 'The launch options the run was reserved with, or null. Content: null with a FORBIDDEN error for a metadata-scope token.',
      resolve: (run, _args, context) => {
        assertContentScope(context);
        return run.launchOptions;
      },
    }),
    errorCode: t.exposeString('errorCode', { nullable: true, description: 'From the queue row.' }),
    errorMessage: t.exposeString('errorMessage', { nullable: true, description: 'From the queue row.' }),
    createdAt: t.field({ type: 'DateTime', description: 'When the run was reserved (ISO 8601, UTC).', resolve: (run) => run.createdAt }),
    updatedAt: t.field({ type: 'DateTime', description: 'When the run last changed (ISO 8601, UTC).', resolve: (run) => run.updatedAt }),
    startedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the run first started executing; null before that.',
      resolve: (run) => run.startedAt,
    }),
    finishedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the run reached a terminal state; null before that.',
      resolve: (run) => run.finishedAt,
    }),
    parentRunId: t.exposeString('parentRunId', { nullable: true, description: 'Run id of the direct parent; null for a root run.' }),
    rootRunId: t.exposeString('rootRunId', { description: 'Equals runId for a root run.' }),
    lineageKind: t.field({
      type: LineageKindEnum,
      nullable: true,
      description: 'Null exactly when parent is null.',
      resolve: (run) => run.lineageKind,
    }),
    restartNumber: t.exposeInt('restartNumber', {
      description: "0 for a root; +1 per restart; a continuation keeps its parent's.",
    }),
    parentTerminalFingerprint: t.exposeString('parentTerminalFingerprint', {
      nullable: true,
      description: '64 lowercase hex characters; set exactly on restarts.',
    }),
    terminalFingerprint: t.exposeString('terminalFingerprint', {
      nullable: true,
      description: 'For a run in a terminal state: the fingerprint a restart of it must carry; null otherwise.',
    }),
    claim: t.field({
      type: RunClaimRef,
      nullable: true,
      description: 'The live claim, or null.',
      resolve: (run) => run.claim,
    }),
    expiredClaim: t.field({
      type: RunClaimRef,
      nullable: true,
      description:
        'The claim whose lease expired without a renewal or a release (its runner is still recorded), or null: ' +
        'when it expires the run-list change feed and `workflowRunUpdated` deliver the run with `claim: null` and this set ' +
        '(docs/PROTOCOL.md "Lease expiry"). A stale mark can name when the lease expired.',
      resolve: (run) => run.expiredClaim,
    }),
    presentationRevision: t.exposeInt('presentationRevision', { description: 'Current viewer revision of the run.' }),
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
  }),
});

builder.queryField('workflowRun', (t) =>
  t.field({
    type: WorkflowRunRef,
    nullable: true,
    description: 'A run by its store run id; null when it does not exist.',
    args: { runId: t.arg.string({ required: true, description: "The store's run id." }) },
    resolve: (_root, args) => args.runId,
  }),
);

builder.subscriptionFields((t) => ({
  workflowRunUpdated: t.field({
    type: WorkflowRunRef,
    description: 'The run after each change recorded for it (its summary changed).',
    args: { runId: t.arg.string({ required: true, description: 'The run to follow.' }) },
    subscribe: (_root, args, context) => follow(() => context.feed.followRunUpdates(args.runId)),
    resolve: (run, _args, context) => freshLoaders(run, context),
  }),
  workflowRunLineageUpdated: t.field({
    type: WorkflowRunRef,
    description: "Any run of the root's chain that changed or joined it.",
    args: { rootRunId: t.arg.string({ required: true, description: 'Root run id of the chain to follow.' }) },
    subscribe: (_root, args, context) => follow(() => context.feed.followChainUpdates(args.rootRunId)),
    resolve: (run, _args, context) => freshLoaders(run, context),
  }),
}));
