/**
 * The viewer deltas of a run (docs/PROTOCOL.md): the target and patch-operation enums, a delta,
 * a revision's batch of deltas, the catch-up read `WorkflowRun.viewerDeltas` (`ViewerDeltaPage`,
 * its kind), the snapshot-required event, and the `workflowRunDeltas` subscription with its event union.
 */
import type { ViewerSnapshotEvent } from '../../delivery/index.js';
import type { ViewerDelta, ViewerDeltaBatch, ViewerPatchOperation } from '../../store/index.js';
import { badUserInput } from '../bad-user-input.js';
import { builder } from '../builder.js';
import { assertContentScope } from '../content-scope.js';
import { toApiError, ValidationError } from '../errors.js';
import { follow, freshLoaders } from '../follow.js';
import { WorkflowRunRef } from './workflow-run.js';

/** viewer_deltas.target_type. */
export const ViewerTargetTypeEnum = builder.enumType('ViewerTargetType', {
  description: 'The part of a live view a delta patches.',
  values: {
    SUMMARY: { value: 'summary', description: 'The run summary.' },
    GRAPH: { value: 'graph', description: 'The workflow graph.' },
    REPLAY: { value: 'replay', description: 'The replay log.' },
    TIMELINE: { value: 'timeline', description: 'The timeline.' },
    CONVERSATION: { value: 'conversation', description: 'The conversation.' },
    INSPECTOR: { value: 'inspector', description: 'The inspector (keyed by what it shows).' },
  } as const,
});

/** Patch operations of a viewer delta. */
export const PatchOpEnum = builder.enumType('PatchOp', {
  description: 'A viewer patch operation.',
  values: {
    ADD: { value: 'add', description: 'Add value at path.' },
    REPLACE: { value: 'replace', description: 'Replace the value at path.' },
    REMOVE: { value: 'remove', description: 'Remove the value at path.' },
    APPEND: { value: 'append', description: 'Append value to the list at path.' },
  } as const,
});

/** One operation of `ViewerDelta.patch`. */
export const ViewerPatchOperationRef = builder.objectRef<ViewerPatchOperation>('ViewerPatchOperation').implement({
  description: 'One JSON-patch-like operation of a delta.',
  fields: (t) => ({
    op: t.field({ type: PatchOpEnum, description: 'What the operation does at path.', resolve: (operation) => operation.op }),
    path: t.exposeString('path', { description: 'JSON-pointer-like path into the target view (e.g. /entries).' }),
    value: t.field({
      type: 'JSON',
      nullable: true,
      description:
        'The value to add, replace or append; null for REMOVE. Content (but for /presentationRevision): null with a FORBIDDEN error ' +
        'for a metadata-scope token.',
      resolve: (operation, _args, context) => {
        if (operation.path !== '/presentationRevision') assertContentScope(context);
        return 'value' in operation ? operation.value : null;
      },
    }),
  }),
});

/** One target of `ViewerDeltaBatch.deltas`. */
export const ViewerDeltaRef = builder.objectRef<ViewerDelta>('ViewerDelta').implement({
  description: 'One target patched by a presentation revision.',
  fields: (t) => ({
    deltaIndex: t.exposeInt('deltaIndex', { description: 'Order within the revision.' }),
    targetType: t.field({ type: ViewerTargetTypeEnum, description: 'The part of the live view patched.', resolve: (delta) => delta.targetType }),
    targetKey: t.exposeString('targetKey', { description: "'' when the target has no key." }),
    patch: t.field({ type: [ViewerPatchOperationRef], description: 'The operations, applied in order.', resolve: (delta) => delta.patch }),
    recordedAt: t.field({ type: 'DateTime', description: 'When the delta was recorded (ISO 8601, UTC).', resolve: (delta) => delta.recordedAt }),
  }),
});

/** One presentation revision of a run with its deltas. */
export const ViewerDeltaBatchRef = builder.objectRef<ViewerDeltaBatch>('ViewerDeltaBatch').implement({
  description: 'All deltas of one presentation revision, in order.',
  isTypeOf: (value) => typeof value === 'object' && value !== null && 'deltas' in value,
  fields: (t) => ({
    runId: t.exposeString('runId', { description: 'The run whose view changed.' }),
    presentationRevision: t.exposeInt('presentationRevision', { description: 'The revision these deltas make (the next cursor).' }),
    deltas: t.field({ type: [ViewerDeltaRef], description: 'Every delta of the revision, in order.', resolve: (batch) => batch.deltas }),
  }),
});

/** "Your cursor cannot be served: reload the run, then continue after currentRevision." */
export const ViewerSnapshotRequiredRef = builder.objectRef<ViewerSnapshotEvent>('ViewerSnapshotRequired').implement({
  description:
    'The cursor cannot be served from the retained log (0, ahead of the run, or older than the window): reload the run and continue after currentRevision.',
  isTypeOf: (value) => typeof value === 'object' && value !== null && (value as { kind?: string }).kind === 'snapshot_required',
  fields: (t) => ({
    runId: t.exposeString('runId', { description: 'The run to reload.' }),
    currentRevision: t.exposeInt('currentRevision', { description: 'The revision the reloaded run stands for; the stream goes on after it.' }),
    retainedFromRevision: t.exposeInt('retainedFromRevision', { description: 'The oldest revision the log still holds.' }),
    run: t.field({ type: WorkflowRunRef, description: 'The run as committed at currentRevision.', resolve: (event) => event.run }),
  }),
});

/** A subscription event of `workflowRunDeltas`. */
export const WorkflowRunDeltaEventRef = builder.unionType('WorkflowRunDeltaEvent', {
  description: 'One presentation revision, or a request to reload from a snapshot.',
  types: [ViewerDeltaBatchRef, ViewerSnapshotRequiredRef],
});

builder.subscriptionField('workflowRunDeltas', (t) =>
  t.field({
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
);

/** What a `ViewerDeltaPage` holds (an enum, not a string). */
export const ViewerDeltaPageKindEnum = builder.enumType('ViewerDeltaPageKind', {
  description: 'What a catch-up read of the delta log answered.',
  values: {
    DELTAS: { value: 'deltas', description: 'batches holds every revision after the cursor, in order (none when the cursor is current).' },
    SNAPSHOT_REQUIRED: {
      value: 'snapshot_required',
      description: 'The cursor cannot be served (0, ahead of the run, or older than the retained window): reload the run; batches is empty.',
    },
  } as const,
});

/** Shape behind `ViewerDeltaPage`: the store's catch-up read, batches empty for a snapshot. */
interface DeltaPageShape {
  kind: 'deltas' | 'snapshot_required';
  currentRevision: number;
  retainedFromRevision: number;
  batches: ViewerDeltaBatch[];
}

const ViewerDeltaPageRef = builder.objectRef<DeltaPageShape>('ViewerDeltaPage').implement({
  description: 'Catch-up read of the delta log after a revision.',
  fields: (t) => ({
    kind: t.field({ type: ViewerDeltaPageKindEnum, description: 'DELTAS, or SNAPSHOT_REQUIRED.', resolve: (page) => page.kind }),
    currentRevision: t.exposeInt('currentRevision', { description: "The run's current revision." }),
    retainedFromRevision: t.exposeInt('retainedFromRevision', { description: 'The oldest revision the log still holds.' }),
    batches: t.field({
      type: [ViewerDeltaBatchRef],
      description: 'Every revision after the cursor, in order; empty for SNAPSHOT_REQUIRED.',
      resolve: (page) => page.batches,
    }),
  }),
});

builder.objectField(WorkflowRunRef, 'viewerDeltas', (t) =>
  t.field({
    type: ViewerDeltaPageRef,
    description: 'Catch-up read of the delta log: every retained revision after afterRevision, or SNAPSHOT_REQUIRED.',
    args: { afterRevision: t.arg.int({ required: true, description: 'The last revision the caller applied (its cursor).' }) },
    resolve: (run, args, context) => {
      let read;
      try {
        read = context.store.readViewerDeltas(run.runId, args.afterRevision);
      } catch (error) {
        const mapped = toApiError(error);
        throw mapped instanceof ValidationError ? badUserInput(mapped.message) : mapped;
      }
      if (read === undefined) return { kind: 'snapshot_required' as const, currentRevision: 1, retainedFromRevision: 1, batches: [] };
      return read.kind === 'deltas' ? read : { ...read, batches: [] };
    },
  }),
);
