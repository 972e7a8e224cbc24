/**
 * Marker revisions of the live tests and the events the API shows for them. No test-runner
 * import: the cross-process child writer commits the very same markers.
 */
import type { ViewerPatchOperation, WorkflowStore } from '../../src/store/index.js';

/** A patch operation as the API shows it. */
export interface ApiPatchOperation {
  op: 'ADD' | 'APPEND' | 'REMOVE' | 'REPLACE';
  path: string;
  value: unknown;
}

/** A delta as the API shows it. */
export interface ApiDelta {
  deltaIndex: number;
  targetType: string;
  targetKey: string;
  recordedAt: string;
  patch: ApiPatchOperation[];
}

/** A `workflowRunDeltas` event. */
export type DeltaEvent =
  | { __typename: 'ViewerDeltaBatch'; runId: string; presentationRevision: number; deltas: ApiDelta[] }
  | {
      __typename: 'ViewerSnapshotRequired';
      runId: string;
      currentRevision: number;
      retainedFromRevision: number;
      run: { runId: string; presentationRevision: number };
    };

/** The own ops of the marker revision `k` committed by {@link commitMarker}. */
export function markerOps(k: number, payload?: string): ViewerPatchOperation[] {
  return [
    { op: 'append', path: '/entries', value: [{ k }] },
    { op: 'replace', path: '/last', value: payload === undefined ? { k } : { k, payload } },
  ];
}

/**
 * Commits one revision on `runId`: a `timeline` delta keyed `k<k>` with {@link markerOps}, and
 * (every third marker) a second `conversation` delta, so batches differ in shape.
 *
 * @returns the new revision
 */
export function commitMarker(store: WorkflowStore, runId: string, k: number, payload?: string): number {
  const drafts: Array<{ targetType: 'timeline' | 'conversation'; targetKey: string; ops: ViewerPatchOperation[] }> = [
    { targetType: 'timeline', targetKey: `k${k}`, ops: markerOps(k, payload) },
  ];
  if (k % 3 === 0) drafts.push({ targetType: 'conversation', targetKey: '', ops: [{ op: 'remove', path: `/draft/${k}` }] });
  return store.recordViewerDeltas(runId, drafts);
}

/** The deltas the API shows for marker `k` committed at `revision` (recordedAt left out). */
export function expectedMarkerDeltas(revision: number, k: number, payload?: string): Array<Omit<ApiDelta, 'recordedAt'>> {
  const revisionOp: ApiPatchOperation = { op: 'REPLACE', path: '/presentationRevision', value: revision };
  const deltas: Array<Omit<ApiDelta, 'recordedAt'>> = [
    {
      deltaIndex: 0,
      targetType: 'TIMELINE',
      targetKey: `k${k}`,
      patch: [
        revisionOp,
        { op: 'APPEND', path: '/entries', value: [{ k }] },
        { op: 'REPLACE', path: '/last', value: payload === undefined ? { k } : { k, payload } },
      ],
    },
  ];
  if (k % 3 === 0) {
    deltas.push({ deltaIndex: 1, targetType: 'CONVERSATION', targetKey: '', patch: [revisionOp, { op: 'REMOVE', path: `/draft/${k}`, value: null }] });
  }
  return deltas;
}

/** A batch event without the recordedAt values (for exact comparison). */
export function withoutRecordedAt(event: DeltaEvent): unknown {
  if (event.__typename !== 'ViewerDeltaBatch') return event;
  return { ...event, deltas: event.deltas.map(({ recordedAt: _recordedAt, ...delta }) => delta) };
}

/** The expected batch event of marker `k` at `revision`, comparable to {@link withoutRecordedAt}. */
export function expectedMarkerBatch(runId: string, revision: number, k: number, payload?: string): unknown {
  return { __typename: 'ViewerDeltaBatch', runId, presentationRevision: revision, deltas: expectedMarkerDeltas(revision, k, payload) };
}
