import type { WorkflowRunRecord } from '../../store/index.js';
import { builder } from '../builder.js';
import type { GraphQLContext } from '../context.js';
import { follow, freshLoaders } from '../follow.js';
import { ExecutionModeEnum } from './execution-mode.js';
import { LineageKindEnum } from './lineage-kind.js';
import { RunClaimRef } from './run-claim.js';
import { RunQueueStatusEnum } from './run-queue-status.js';
import { WorkflowRunStatusEnum } from './workflow-run-status.js';

/**
 * The GraphQL object of a run; its shape is the store's run record. Its fields that return
 * another type of `types/` (`lineage`, `viewerDeltas`) are added by that type's file, so that
 * imports run one way (the other files import this one).
 */
export const WorkflowRunRef = builder.objectRef<WorkflowRunRecord>('WorkflowRun');

async function loadRun(context: GraphQLContext, runId: string): Promise<WorkflowRunRecord> {
  const run = await context.loaders.run.load(runId);
  if (run === undefined) throw new Error(`Lineage points at a missing run: ${runId}`);
  return run;
}

async function onlyChild(context: GraphQLContext, run: WorkflowRunRecord, kind: 'continuation' | 'restart') {
  const children = await context.loaders.children.load({ runId: run.runId, kind });
  return children[0] ?? null;
}

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
    // Lineage: each read goes through a per-request loader, one SQL statement per batch.
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
  }),
});

builder.queryField('workflowRun', (t) =>
  t.field({
    type: WorkflowRunRef,
    nullable: true,
    description: 'A run by its store run id; null when it does not exist.',
    args: { runId: t.arg.string({ required: true, description: "The store's run id." }) },
    resolve: async (_root, args, context) => (await context.loaders.run.load(args.runId)) ?? null,
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
