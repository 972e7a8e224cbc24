import type { ViewerDelta, ViewerDeltaBatch, ViewerPatchOperation, ViewerSnapshotEvent } from '../store/index.js';
import { builder } from './builder.js';
import { PatchOpEnum, ViewerDeltaPageKindEnum, ViewerTargetTypeEnum } from './enums.js';
import { badUserInput } from './bad-user-input.js';
import { toApiError, ValidationError } from './errors.js';
import { WorkflowRunRef } from './workflow-run.js';

const ViewerPatchOperationRef = builder.objectRef<ViewerPatchOperation>('ViewerPatchOperation').implement({
  description: 'One JSON-patch-like operation of a delta.',
  fields: (t) => ({
    op: t.field({ type: PatchOpEnum, description: 'What the operation does at path.', resolve: (operation) => operation.op }),
    path: t.exposeString('path', { description: 'JSON-pointer-like path into the target view (e.g. /entries).' }),
    value: t.field({
      type: 'JSON',
      nullable: true,
      description: 'The value to add, replace or append; null for REMOVE.',
      resolve: (operation) => ('value' in operation ? operation.value : null),
    }),
  }),
});

const ViewerDeltaRef = builder.objectRef<ViewerDelta>('ViewerDelta').implement({
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

builder.objectFields(WorkflowRunRef, (t) => ({
  viewerDeltas: t.field({
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
}));
