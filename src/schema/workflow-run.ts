import type { WorkflowRunFilter, WorkflowRunRecord } from '../store/index.js';
import { builder } from './builder.js';
import { planKeysetPage } from './connections.js';
import { RUN_CURSORS } from './cursors.js';
import { ExecutionModeEnum, LineageKindEnum, RunQueueStatusEnum, WorkflowRunStatusEnum } from './enums.js';

/** The GraphQL object of a run; its shape is the store's run record. */
export const WorkflowRunRef = builder.objectRef<WorkflowRunRecord>('WorkflowRun');

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

const RunClaimRef = builder.objectRef<NonNullable<WorkflowRunRecord['claim']>>('RunClaim').implement({
  description:
    'A live claim (lease) on a run. A value type without an identity of its own: one lease of one run, replaced whole by the ' +
    'next claim (client caches keep it under its run, README "Client caches"). The claim token and its hash are never exposed.',
  fields: (t) => ({
    ownerId: t.exposeString('ownerId', { description: 'Runner id holding the lease.' }),
    leaseGeneration: t.exposeInt('leaseGeneration', { description: 'Lease generation: +1 on every claim.' }),
    expiresAt: t.field({ type: 'DateTime', description: 'When the lease expires.', resolve: (claim) => claim.expiresAt }),
  }),
});

builder.node(WorkflowRunRef, {
  description: 'A durable workflow run: its state, its claim, its lineage and its live view revision.',
  id: { resolve: (run) => run.runId, description: 'Relay global id: base64 of "WorkflowRun:<runId>"; resolve it with node(id).' },
  loadMany: async (ids, context) => (await context.loaders.run.loadMany(ids)).map((run) => (run instanceof Error ? null : run)),
  fields: (t) => ({
    runId: t.exposeString('runId', { description: "The store's run id." }),
    workflowName: t.exposeString('workflowName', { description: 'Name of the workflow definition the run executes.' }),
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
  }),
});

const WorkflowRunFilterRef = builder.inputType('WorkflowRunFilter', {
  description: 'Filters for workflowRuns; all optional, combined with AND.',
  fields: (t) => ({
    status: t.field({ type: [WorkflowRunStatusEnum], required: false, description: 'Runs in any of these durable states.' }),
    queueStatus: t.field({ type: [RunQueueStatusEnum], required: false, description: 'Runs in any of these scheduling states.' }),
    rootRunId: t.string({ required: false, description: 'Runs of this chain (its root run id).' }),
    parentRunId: t.string({ required: false, description: 'Direct children of this run.' }),
    lineageKind: t.field({ type: LineageKindEnum, required: false, description: 'Children of this kind only (root runs have none).' }),
    originSessionId: t.string({ required: false, description: 'Runs of this Pi session.' }),
    workflowName: t.string({ required: false, description: 'Runs of this workflow.' }),
  }),
});

function storeFilter(filter: typeof WorkflowRunFilterRef.$inferInput | null | undefined): WorkflowRunFilter | undefined {
  if (filter === null || filter === undefined) return undefined;
  const result: WorkflowRunFilter = {};
  if (filter.status != null) result.status = filter.status;
  if (filter.queueStatus != null) result.queueStatus = filter.queueStatus;
  if (filter.rootRunId != null) result.rootRunId = filter.rootRunId;
  if (filter.parentRunId != null) result.parentRunId = filter.parentRunId;
  if (filter.lineageKind != null) result.lineageKind = filter.lineageKind;
  if (filter.originSessionId != null) result.originSessionId = filter.originSessionId;
  if (filter.workflowName != null) result.workflowName = filter.workflowName;
  return result;
}

builder.queryFields((t) => ({
  workflowRun: t.field({
    type: WorkflowRunRef,
    nullable: true,
    description: 'A run by its store run id; null when it does not exist.',
    args: { runId: t.arg.string({ required: true, description: "The store's run id." }) },
    resolve: async (_root, args, context) => (await context.loaders.run.load(args.runId)) ?? null,
  }),
  workflowRuns: t.connection(
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
}));
