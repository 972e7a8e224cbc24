/**
 * The workflow run: its state enums (status, queue status, execution mode, lineage kind), the
 * `WorkflowRun` node with the fields of its own state, the `workflowRun` query and the
 * `workflowRunUpdated` subscription. Its lineage is in workflow-run-lineage.ts, its claim in
 * run-claim.ts, the run list in workflow-run-list.ts.
 */
import type { GraphQLResolveInfo } from 'graphql';
import type { WorkflowRunRecord } from '../../store/index.js';
import { builder } from '../builder.js';
import { assertContentScope } from '../content-scope.js';
import type { GraphQLContext } from '../context.js';
import { follow, freshLoaders } from '../follow.js';
import { isIdOnly } from '../id-only-runs.js';
import { selectedFieldsAt } from '../selection.js';

/** runs.status (docs/STORE-RULES.md §4). */
export const WorkflowRunStatusEnum = builder.enumType('WorkflowRunStatus', {
  description: 'Durable run state (runs.status).',
  values: {
    QUEUED: { value: 'queued', description: 'Reserved, not started yet.' },
    RUNNING: { value: 'running', description: 'Executing.' },
    WAITING: { value: 'waiting', description: 'Waiting for an interaction (input).' },
    COMPLETED: { value: 'completed', description: 'Finished successfully (terminal).' },
    FAILED: { value: 'failed', description: 'Finished with an error (terminal).' },
    TIMED_OUT: { value: 'timed_out', description: 'Ran out of time (terminal).' },
    CANCELLED: { value: 'cancelled', description: 'Cancelled (terminal).' },
  } as const,
});

/** run_queue.status (docs/STORE-RULES.md §4). */
export const RunQueueStatusEnum = builder.enumType('RunQueueStatus', {
  description: 'Scheduling state (run_queue.status): who may execute the run now.',
  values: {
    QUEUED: { value: 'queued', description: 'Waiting for a runner to claim it.' },
    STARTING: { value: 'starting', description: 'Claimed; the runner is starting or resuming it.' },
    RUNNING: { value: 'running', description: 'Executing under its runner.' },
    PARKED: { value: 'parked', description: 'Not executing: released by its runner, waiting for an interaction, or paused.' },
    DONE: { value: 'done', description: 'Finished: completed, or handed on to a continuation.' },
    FAILED: { value: 'failed', description: 'Failed or timed out (errorCode is the run status).' },
    CANCELLED: { value: 'cancelled', description: 'Cancelled.' },
  } as const,
});

/** run_bindings.execution_mode. */
export const ExecutionModeEnum = builder.enumType('ExecutionMode', {
  description: 'Whether a Pi session drives the run (interactive) or not (headless).',
  values: {
    INTERACTIVE: { value: 'interactive', description: 'A Pi session drives the run.' },
    HEADLESS: { value: 'headless', description: 'No session drives the run.' },
  } as const,
});

/** runs.lineage_kind. */
export const LineageKindEnum = builder.enumType('LineageKind', {
  description: 'How a child run relates to its parent.',
  values: {
    CONTINUATION: { value: 'continuation', description: 'The child goes on from where its parent stopped (same restart number).' },
    RESTART: { value: 'restart', description: 'The child runs its terminal parent again (restart number + 1).' },
  } as const,
});

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
 * Its lineage fields (`parent` … `latestRun`, `lineage`: workflow-run-lineage.ts), its claims
 * (`claim`, `expiredClaim`: run-claim.ts) and `viewerDeltas` (viewer-deltas.ts) are added by
 * those files, so that imports run one way (the other files import this one). A lineage
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
    presentationRevision: t.exposeInt('presentationRevision', { description: 'Current viewer revision of the run.' }),
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
}));
