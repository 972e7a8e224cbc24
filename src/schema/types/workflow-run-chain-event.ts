import type { ChainEvent } from '../../delivery/index.js';
import { builder } from '../builder.js';
import { follow, freshLoaders } from '../follow.js';
import { ViewerDeltaBatchRef } from './viewer-deltas.js';
import { LineageKindEnum, WorkflowRunRef } from './workflow-run.js';

type Of<K extends ChainEvent['kind']> = Extract<ChainEvent, { kind: K }>;
const kindIs =
  (kind: ChainEvent['kind']) =>
  (value: unknown): boolean =>
    typeof value === 'object' && value !== null && (value as { kind?: string }).kind === kind;
const CURSOR =
  'Opaque cursor naming the run followed and the revision this event leaves you at: pass it as after: to resume (docs/PROTOCOL.md "Following a chain").';

/** One revision of the chain's latest run (docs/GRAPHQL-CONTRACT.md `workflowRunChainDeltas`). */
const WorkflowRunChainBatchRef = builder.objectRef<Of<'chain_batch'>>('WorkflowRunChainBatch').implement({
  description: 'One presentation revision of the run the chain follow is on (its latest run), exactly once, in order.',
  isTypeOf: kindIs('chain_batch'),
  fields: (t) => ({
    cursor: t.exposeString('cursor', { description: CURSOR }),
    batch: t.field({
      type: ViewerDeltaBatchRef,
      description: 'The revision and its deltas (batch.runId is the run followed).',
      resolve: (event) => event.batch,
    }),
  }),
});

/** Reload the run followed, then go on after currentRevision. */
const WorkflowRunChainSnapshotRequiredRef = builder.objectRef<Of<'chain_snapshot_required'>>('WorkflowRunChainSnapshotRequired').implement({
  description:
    'Reload the run followed from `run` (as of currentRevision), then apply the batches after it: the first event without a cursor, or when ' +
    'the cursor cannot be served from the retained log.',
  isTypeOf: kindIs('chain_snapshot_required'),
  fields: (t) => ({
    cursor: t.exposeString('cursor', { description: CURSOR }),
    runId: t.exposeString('runId', { description: 'The run followed.' }),
    currentRevision: t.exposeInt('currentRevision', { description: 'The revision `run` stands for; the stream goes on after it.' }),
    retainedFromRevision: t.exposeInt('retainedFromRevision', { description: 'The oldest revision the log still holds for the run.' }),
    run: t.field({ type: WorkflowRunRef, description: 'The run as of currentRevision (nested fields load fresh).', resolve: (event) => event.run }),
  }),
});

/** A continuation or restart became the chain's latest run: the follow moved to it. */
const WorkflowRunChainMovedRef = builder.objectRef<Of<'chain_moved'>>('WorkflowRunChainMoved').implement({
  description:
    "A continuation or restart was reserved and is now the chain's latest run: the follow moved to it. Show `run` (as of currentRevision); " +
    'the batches that follow are its revisions after currentRevision. Revisions of fromRunId after this event are not delivered.',
  isTypeOf: kindIs('chain_moved'),
  fields: (t) => ({
    cursor: t.exposeString('cursor', { description: CURSOR }),
    fromRunId: t.exposeString('fromRunId', { description: 'The run the follow was on.' }),
    runId: t.exposeString('runId', { description: 'The run it follows from now on (the latest run of the chain).' }),
    lineageKind: t.field({ type: LineageKindEnum, description: 'How the new run joined the chain.', resolve: (event) => event.lineageKind }),
    currentRevision: t.exposeInt('currentRevision', { description: 'The revision `run` stands for; the stream goes on after it.' }),
    run: t.field({ type: WorkflowRunRef, description: 'The new run as of currentRevision.', resolve: (event) => event.run }),
  }),
});

/** An event of `workflowRunChainDeltas`. */
const WorkflowRunChainEventRef = builder.unionType('WorkflowRunChainEvent', {
  description: 'A revision of the latest run of a chain, a snapshot to reload from, or a move to a new latest run.',
  types: [WorkflowRunChainBatchRef, WorkflowRunChainSnapshotRequiredRef, WorkflowRunChainMovedRef],
});

builder.subscriptionField('workflowRunChainDeltas', (t) =>
  t.field({
    type: WorkflowRunChainEventRef,
    description:
      'Follows a chain (named by any of its runs): the viewer deltas of its latest run, and WorkflowRunChainMoved when a continuation or ' +
      'restart becomes the latest run, then the deltas of that run. after null: a snapshot of the latest run first. Every event has a cursor; ' +
      'resuming with it misses and repeats nothing (docs/PROTOCOL.md "Following a chain").',
    args: {
      runId: t.arg.string({ required: true, description: 'Any run of the chain to follow.' }),
      after: t.arg.string({ required: false, description: 'The cursor of the last event applied; null to start from a snapshot.' }),
    },
    subscribe: (_root, args, context) => follow(() => context.feed.followChain(args.runId, args.after ?? null)),
    resolve: (event, _args, context) => freshLoaders(event, context),
  }),
);
