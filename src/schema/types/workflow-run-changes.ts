/**
 * The run-list change feed (docs/PROTOCOL.md "workflowRunChanges"): a run created or changed, the
 * reset-required event, their union, and the `workflowRunChanges` subscription.
 */
import type { RunChangeEvent } from '../../delivery/index.js';
import { builder } from '../builder.js';
import { follow, freshLoaders } from '../follow.js';
import { storeFilter, WorkflowRunFilterRef } from './workflow-run-list.js';
import { WorkflowRunRef } from './workflow-run.js';

/** A `change` event of the store's run-list change feed (`feed-run-changes.ts`). */
type ChangeEvent = Extract<RunChangeEvent, { kind: 'change' }>;

/** A run created or changed (docs/GRAPHQL-CONTRACT.md `workflowRunChanges`). */
export const WorkflowRunChangeRef = builder.objectRef<ChangeEvent>('WorkflowRunChange').implement({
  description: 'A run created or changed, in its state as committed (a run that changed several times since the cursor comes once, in its latest state).',
  isTypeOf: (value) => typeof value === 'object' && value !== null && (value as { kind?: string }).kind === 'change',
  fields: (t) => ({
    cursor: t.exposeString('cursor', {
      description: 'Opaque, durable position of this change: pass it as workflowRunChanges(after:) to resume after it, also after a server restart.',
    }),
    run: t.field({ type: WorkflowRunRef, description: 'The run as committed by this change (or a later one).', resolve: (event) => event.run }),
  }),
});

/** A `reset_required` event of the store's run-list change feed (`feed-run-changes.ts`). */
type ResetEvent = Extract<RunChangeEvent, { kind: 'reset_required' }>;

/** "Your cursor cannot be replayed: re-query the list, then continue after cursor". */
export const WorkflowRunChangesResetRequiredRef = builder.objectRef<ResetEvent>('WorkflowRunChangesResetRequired').implement({
  description:
    'The cursor cannot be replayed (it belongs to another database, is ahead of it, or is older than what it keeps): re-query the run list, then continue from cursor (the stream goes on after it by itself).',
  isTypeOf: (value) => typeof value === 'object' && value !== null && (value as { kind?: string }).kind === 'reset_required',
  fields: (t) => ({
    cursor: t.exposeString('cursor', { description: 'The position the stream continues after; resume from it after re-querying the list.' }),
  }),
});

/** A subscription event of `workflowRunChanges`. */
export const WorkflowRunChangeEventRef = builder.unionType('WorkflowRunChangeEvent', {
  description: 'A run created or changed, or a request to re-query the list.',
  types: [WorkflowRunChangeRef, WorkflowRunChangesResetRequiredRef],
});

builder.subscriptionField('workflowRunChanges', (t) =>
  t.field({
    type: WorkflowRunChangeEventRef,
    description:
      'Every run created or changed, in commit order, for a filter (docs/PROTOCOL.md "workflowRunChanges"). after null = live only; ' +
      'a cursor replays every run changed after it (once, in its latest state), then goes live; a cursor that cannot be replayed yields ' +
      'WorkflowRunChangesResetRequired first. With a filter, a run that matched its status / queueStatus at an earlier change and no longer ' +
      'matches is still delivered, so a list can drop it.',
    args: {
      filter: t.arg({ type: WorkflowRunFilterRef, required: false, description: 'Only runs matching every given filter, and runs that left it.' }),
      after: t.arg.string({ required: false, description: 'The cursor of the last event applied; null = live only.' }),
    },
    subscribe: (_root, args, context) => follow(() => context.feed.followRunChanges(storeFilter(args.filter), args.after ?? null)),
    resolve: (event, _args, context) => freshLoaders(event, context),
  }),
);
