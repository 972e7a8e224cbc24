import { GraphQLError } from 'graphql';
import { isStoreError } from '../store/index.js';
import { builder } from './builder.js';
import { createRunLoaders, type GraphQLContext } from './context.js';
import { WorkflowRunDeltaEventRef } from './viewer.js';
import { WorkflowRunRef } from './workflow-run.js';

/**
 * Starts a follow stream of the store's change feed (src/store/feed-follow.ts holds every
 * delivery rule), turning its refusals into GraphQL errors: an unknown run is `NOT_FOUND`, a
 * bad argument `BAD_USER_INPUT`, with the store's message.
 */
function follow<T>(start: () => T): T {
  try {
    return start();
  } catch (error) {
    if (isStoreError(error) && error.kind === 'not_found') {
      throw new GraphQLError(error.message, { extensions: { code: 'NOT_FOUND' } });
    }
    if (isStoreError(error) && error.kind === 'validation') {
      throw new GraphQLError(error.message, { extensions: { code: 'BAD_USER_INPUT' } });
    }
    throw error;
  }
}

/** Gives every event fresh loaders, so nested fields show the run as committed (issue 4). */
function freshLoaders<T>(event: T, context: GraphQLContext): T {
  context.loaders = createRunLoaders(context.store);
  return event;
}

builder.subscriptionType({ description: 'Live views fed from the durable viewer-delta log.' });

builder.subscriptionFields((t) => ({
  workflowRunDeltas: t.field({
    type: WorkflowRunDeltaEventRef,
    description:
      'One event per presentation revision of the run, exactly once, in order. afterRevision null = live only; a cursor that cannot be served yields ViewerSnapshotRequired first.',
    args: {
      runId: t.arg.string({ required: true, description: 'The run to follow.' }),
      afterRevision: t.arg.int({ required: false, description: 'The last revision the caller applied; null = live only.' }),
    },
    subscribe: (_root, args, context) => follow(() => context.feed.followRunDeltas(args.runId, args.afterRevision ?? null)),
    resolve: (event, _args, context) => freshLoaders(event, context),
  }),
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
