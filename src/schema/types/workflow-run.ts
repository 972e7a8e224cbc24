import { dataloaderGetter } from '@pothos/plugin-dataloader';
import type { GraphQLResolveInfo } from 'graphql';
import type { LineageKind, RunIdOnly, WorkflowRunRecord } from '../../store/index.js';
import { builder } from '../builder.js';
import type { GraphQLContext } from '../context.js';
import { follow, freshLoaders } from '../follow.js';
import { chainResourceExtensions } from '../live-resources.js';
import { selectedFieldsAt } from '../selection.js';
import { ExecutionModeEnum } from './execution-mode.js';
import { LineageKindEnum } from './lineage-kind.js';
import { RunClaimRef } from './run-claim.js';
import { RunQueueStatusEnum } from './run-queue-status.js';
import { WorkflowRunStatusEnum } from './workflow-run-status.js';

/**
 * The `WorkflowRun` fields that read nothing but the run id (issue 15 item 2): `parent`,
 * `rootRun` and `latestRun` selecting no other field answer with a run id alone (no load).
 */
export const RUN_ID_FIELDS: ReadonlySet<string> = new Set(['__typename', 'id', 'runId']);

/**
 * The `WorkflowRun` fields that read nothing but a run's ids (run, root, parent): its own
 * ids, and the lineage fields, which load what they return by those ids (issue 15 item 2). A
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
 * (through fragments; see `selectedFieldsAt`).
 */
export function selectsOnly(info: GraphQLResolveInfo, allowed: ReadonlySet<string>, path: readonly string[] = []): boolean {
  return [...selectedFieldsAt(info, path)].every((name) => allowed.has(name));
}

/** The id-only runs made by {@link idOnlyRuns} (records that are not whole). */
const idOnly = new WeakSet<object>();

/**
 * The loader cache key every id-only run is primed under when a field returns it (the
 * plugin's `cacheResolved` primes every returned run): a symbol no load ever asks for, so a
 * partial record never answers a load of its run id (the first one primed sits there unread).
 */
const ID_ONLY_CACHE_KEY = Symbol('id-only WorkflowRun, never loaded') as unknown as string;

/**
 * Runs of an id-only page as `WorkflowRun` sources (issue 15 item 2). Only the ids are set
 * (run, root, parent): they may be returned only where the selection reads nothing but
 * {@link RUN_LINEAGE_ID_FIELDS}, and they
 * never enter the run loader's cache under their run id (see {@link ID_ONLY_CACHE_KEY}), so a
 * later field or query of the request loads the whole record.
 *
 * @returns the same list, each run typed as a record (only `runId` may be read)
 */
export function idOnlyRuns<Key>(rows: ReadonlyArray<{ run: RunIdOnly; key: Key }>): Array<{ run: WorkflowRunRecord; key: Key }> {
  return rows.map(({ run, key }) => ({ run: idOnlyRun(run), key }));
}

/**
 * One id-only run (see {@link idOnlyRuns}): with root and parent ids it may answer
 * {@link RUN_LINEAGE_ID_FIELDS}; with its run id alone only {@link RUN_ID_FIELDS}.
 */
export function idOnlyRun(run: RunIdOnly | { runId: string }): WorkflowRunRecord {
  const partial = { ...run };
  idOnly.add(partial);
  return partial as WorkflowRunRecord;
}

/** Whether a `WorkflowRun` source is an id-only run rather than a whole record. */
function isIdOnly(run: WorkflowRunRecord): boolean {
  return idOnly.has(run);
}

/**
 * The GraphQL object of a run; its shape is the store's run record. A loadable node
 * (`@pothos/plugin-dataloader`): `node(id)`, `workflowRun(runId)` and every field that returns a
 * run id (`parent`, `rootRun`, `latestRun`) load through one per-request DataLoader over
 * `store.getWorkflowRuns` (one statement per batch, API.md); every run a field returns is primed
 * into it (`cacheResolved`), and so are the rows of a connection page. Subscriptions clear it
 * for every event (`freshLoaders`, src/schema/follow.ts).
 *
 * Its fields that return another type of `types/` (`lineage`, `viewerDeltas`) are added by
 * that type's file, so that imports run one way (the other files import this one). A lineage
 * id that points at a missing run (the store's foreign keys forbid it) reads as null, except
 * where the field selects only ids (issue 15 item 2: answered from the id, without a load).
 * Id-only runs ({@link idOnlyRuns}) are primed under a key no load asks for.
 */
export const WorkflowRunRef = builder.loadableNodeRef('WorkflowRun', {
  id: { resolve: (run: WorkflowRunRecord) => run.runId, description: 'Relay global id: base64 of "WorkflowRun:<runId>"; resolve it with node(id).' },
  load: async (runIds: string[], context: GraphQLContext) => context.store.getWorkflowRuns(runIds).filter((run) => run !== undefined),
  // Results are matched to ids by runId (unknown ids load as null), and cached by it.
  sort: (run: WorkflowRunRecord) => run.runId,
  // Every run a field returns is cached by its run id, except id-only runs (never loaded).
  cacheResolved: (run: WorkflowRunRecord) => (idOnly.has(run) ? ID_ONLY_CACHE_KEY : run.runId),
});

/**
 * The newest run id of each chain, by root run id (`latestRun`): one statement per batch; the
 * field then loads the runs through the run loader (those of the page are primed), unless it
 * selects only ids.
 */
const latestRunIds = dataloaderGetter<string, string, string>(
  undefined,
  async (rootRunIds, context) => (context as GraphQLContext).store.latestRunIdsOfChains(rootRunIds),
  undefined,
  false,
);

/** What a field returning the run `runId` resolves to: an id-only run when it selects only ids, else the id (loaded). */
function runOrId(runId: string, info: GraphQLResolveInfo): WorkflowRunRecord | string {
  return selectsOnly(info, RUN_ID_FIELDS) ? idOnlyRun({ runId }) : runId;
}

/**
 * The parent run id of a loaded child (groups children by parent). The plugin types a loaded
 * value as what a `WorkflowRun` field may return, a run or its id; loads only yield runs.
 */
function parentRunIdOf(child: WorkflowRunRecord | string): string {
  return typeof child === 'string' ? child : (child.parentRunId ?? '');
}

/** The only child of a kind of each run, by run id (`continuation`, `restart`): one statement. */
function onlyChildren(kind: LineageKind) {
  return async (runIds: string[], context: GraphQLContext) => context.store.childrenOfRuns(runIds, kind).flat();
}

WorkflowRunRef.implement({
  description: 'A durable workflow run: its state, its claim, its lineage and its live view revision.',
  fields: (t) => ({
    runId: t.exposeString('runId', { description: "The store's run id." }),
    workflowName: t.exposeString('workflowName', {
      description:
        'Name of the workflow definition the run executes: the name stored with its definition digest by the first run ' +
        'that stored that definition (STORE.md §3.6), which may differ from the workflowName this run was reserved with.',
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
    input: t.field({ type: 'JSON', nullable: true, description: 'The input the run was reserved with, or null.', resolve: (run) => run.input }),
    launchOptions: t.field({
      type: 'JSON',
      nullable: true,
      description: 'The launch options the run was reserved with, or null.',
      resolve: (run) => run.launchOptions,
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
    children: t.loadableGroup({
      extensions: chainResourceExtensions,
      type: WorkflowRunRef,
      description: 'Direct children, oldest first; optionally only of one lineage kind.',
      args: { kind: t.arg({ type: LineageKindEnum, required: false, description: 'Only children of this lineage kind; all when null.' }) },
      // One loader per selection path, so each `children(kind:)` selection batches with its own kind.
      byPath: true,
      // The selection is the same at every item of one path: ids only when it reads no more.
      load: async (runIds: string[], context, args, info) =>
        selectsOnly(info, RUN_LINEAGE_ID_FIELDS)
          ? context.store
              .childIdsOfRuns(runIds, args.kind ?? undefined)
              .flat()
              .map(idOnlyRun)
          : context.store.childrenOfRuns(runIds, args.kind ?? undefined).flat(),
      group: parentRunIdOf,
      resolve: (run) => run.runId,
    }),
    continuation: t.loadable({
      extensions: chainResourceExtensions,
      type: WorkflowRunRef,
      nullable: true,
      description: 'The run that continues this one (at most one).',
      load: onlyChildren('continuation'),
      sort: parentRunIdOf,
      resolve: (run) => run.runId,
    }),
    restart: t.loadable({
      extensions: chainResourceExtensions,
      type: WorkflowRunRef,
      nullable: true,
      description: 'The run that restarts this one (at most one).',
      load: onlyChildren('restart'),
      sort: parentRunIdOf,
      resolve: (run) => run.runId,
    }),
    latestRun: t.field({
      extensions: chainResourceExtensions,
      type: WorkflowRunRef,
      description: "The newest run of this run's chain (same rootRunId).",
      resolve: async (run, _args, context, info) => runOrId(await latestRunIds(context).load(run.rootRunId), info),
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
