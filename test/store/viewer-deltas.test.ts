import { describe, expect } from 'vitest';
import { BUMP_TARGETS, VIEWER_RETENTION, type ViewerDeltaRead } from '../../src/store/index.js';
import {
  BUMP,
  claim,
  expectRejectedUnchanged,
  expectStoreError,
  hostSetRunStatus,
  ignoreUpdatesOf,
  reserve,
  sql,
  SUMMARY_REPLAY,
  viewerHead,
  viewerRevisions,
  type TestStore,
} from '../helpers/store-fixtures.js';
import { storeTest as it } from '../helpers/store-test.js';
import { storeInternals } from '../helpers/store-internals.js';
it.beforeEach(({ t }) => {
  reserve(t.store, 'run-1');
});

/** Records `count` one-target revisions through the facade (each its own transaction). */
function record(t: TestStore, count: number): void {
  for (let index = 0; index < count; index += 1) t.store.recordViewerDeltas('run-1', [{ targetType: 'timeline' }]);
}

function read(t: TestStore, after: number): ViewerDeltaRead {
  const result = t.store.readViewerDeltas('run-1', after);
  if (result === undefined) throw new Error('no viewer row');
  return result;
}

const revisionsOf = (result: ViewerDeltaRead) => (result.kind === 'deltas' ? result.batches.map((batch) => batch.presentationRevision) : result.kind);

describe('viewer delta log: recording (docs/STORE-RULES.md §8)', () => {
  it('starts at revision 1 without deltas; each store change adds contiguous revisions with indexes 0..n-1', ({ t }) => {
    expect(viewerHead(t.store, 'run-1')).toEqual({ presentation: 1, retainedFrom: 1 });
    claim(t.store, 'run-1', 'runner-1', 'tok');
    t.store.markWorkflowRunRunning({ runId: 'run-1', claimToken: 'tok' });
    t.store.renewWorkflowRunClaim({ runId: 'run-1', claimToken: 'tok', leaseMs: 1000 });
    hostSetRunStatus(t.store, 'run-1', 'running', t.clock.t);
    t.store.parkWorkflowRun({ runId: 'run-1', claimToken: 'tok' });
    t.store.recordRunEvent({ runId: 'run-1', type: 'node.started' });
    expect(viewerRevisions(t.store, 'run-1').map((row) => [row.revision, row.targets])).toEqual([
      [2, BUMP], // claim
      [3, BUMP], // mark running
      [4, SUMMARY_REPLAY], // renew
      [5, BUMP], // park: bump …
      [6, SUMMARY_REPLAY], // … then summary + replay
      [7, BUMP], // run event
    ]);
    expect(viewerHead(t.store, 'run-1')).toEqual({ presentation: 7, retainedFrom: 1 });
  });

  it('patches start with replace /presentationRevision R on every target (graph too, no /graphRevision); then the draft’s own ops', ({ t }) => {
    claim(t.store, 'run-1');
    const [bump] = viewerRevisions(t.store, 'run-1');
    expect(bump?.patches).toEqual([
      [{ op: 'replace', path: '/presentationRevision', value: 2 }],
      [{ op: 'replace', path: '/presentationRevision', value: 2 }],
      [{ op: 'replace', path: '/presentationRevision', value: 2 }],
      [{ op: 'replace', path: '/presentationRevision', value: 2 }],
    ]);
    expect(BUMP_TARGETS).toEqual([{ targetType: 'summary' }, { targetType: 'graph' }, { targetType: 'replay' }, { targetType: 'inspector', targetKey: 'run' }]);
    const revision = t.store.recordViewerDeltas('run-1', [
      { targetType: 'graph', targetKey: 'node-a', ops: [{ op: 'add', path: '/nodes/a', value: { state: 'done' } }] },
      {
        targetType: 'timeline',
        ops: [
          { op: 'append', path: '/items', value: [1, 2] },
          { op: 'remove', path: '/old' },
        ],
      },
    ]);
    expect(revision).toBe(3);
    const last = viewerRevisions(t.store, 'run-1').at(-1);
    expect(last?.targets).toEqual(['graph/node-a', 'timeline']);
    expect(last?.patches).toEqual([
      [
        { op: 'replace', path: '/presentationRevision', value: 3 },
        { op: 'add', path: '/nodes/a', value: { state: 'done' } },
      ],
      [
        { op: 'replace', path: '/presentationRevision', value: 3 },
        { op: 'append', path: '/items', value: [1, 2] },
        { op: 'remove', path: '/old' },
      ],
    ]);
    const read3 = read(t, 2);
    expect(read3).toEqual({
      kind: 'deltas',
      runId: 'run-1',
      currentRevision: 3,
      retainedFromRevision: 1,
      batches: [
        {
          runId: 'run-1',
          presentationRevision: 3,
          deltas: [
            { deltaIndex: 0, targetType: 'graph', targetKey: 'node-a', patch: last?.patches[0], recordedAt: t.clock.iso() },
            { deltaIndex: 1, targetType: 'timeline', targetKey: '', patch: last?.patches[1], recordedAt: t.clock.iso() },
          ],
        },
      ],
    });
  });

  it('keeps 256 revisions: after 300 recorded revisions retained_from = R - 255 and older rows are deleted', ({ t }) => {
    expect(VIEWER_RETENTION).toBe(256);
    record(t, 256);
    expect(viewerHead(t.store, 'run-1')).toEqual({ presentation: 257, retainedFrom: 2 });
    record(t, 44);
    const current = 301;
    expect(viewerHead(t.store, 'run-1')).toEqual({ presentation: current, retainedFrom: current - 255 });
    const revisions = viewerRevisions(t.store, 'run-1').map((row) => row.revision);
    expect(revisions).toHaveLength(256);
    expect(revisions[0]).toBe(46);
    expect(revisions.at(-1)).toBe(301);
    expect(revisions.every((revision, index) => revision === 46 + index)).toBe(true);
  });

  it('Viewer changes must be recorded inside the durable state transaction', ({ t }) => {
    expectRejectedUnchanged(
      t.store,
      () => storeInternals(t.store).viewer.record('run-1', [{ targetType: 'summary' }], t.clock.t),
      'Viewer changes must be recorded inside the durable state transaction',
    );
  });

  it('Viewer change must name at least one bounded target (storeInternals(store).viewer.record and the facade)', ({ t }) => {
    expectRejectedUnchanged(
      t.store,
      () => t.store.transaction(() => storeInternals(t.store).viewer.record('run-1', [], t.clock.t)),
      'Viewer change must name at least one bounded target',
    );
    expectRejectedUnchanged(t.store, () => t.store.recordViewerDeltas('run-1', []), 'Viewer change must name at least one bounded target', 'validation');
  });

  it('Viewer projection does not exist for workflow run: <runId>; the facade says Workflow run not found', ({ t }) => {
    expectRejectedUnchanged(
      t.store,
      () => t.store.transaction(() => storeInternals(t.store).viewer.record('ghost', [{ targetType: 'summary' }], t.clock.t)),
      'Viewer projection does not exist for workflow run: ghost',
      'integrity',
    );
    expectRejectedUnchanged(t.store, () => t.store.recordViewerDeltas('ghost', [{ targetType: 'summary' }]), 'Workflow run not found: ghost', 'not_found');
  });

  it('Viewer projection revision conflict for workflow run: <runId>; nothing written', ({ t }) => {
    ignoreUpdatesOf(t.store, 'viewer_runs');
    expectRejectedUnchanged(
      t.store,
      () => t.store.recordViewerDeltas('run-1', [{ targetType: 'summary' }]),
      'Viewer projection revision conflict for workflow run: run-1',
      'conflict',
    );
  });

  it('a rolled-back operation leaves no delta and calls no listener; a committed one notifies after commit', ({ t }) => {
    const heard: Array<[string, number]> = [];
    const stop = t.store.onCommit(() => heard.push(['run-1', t.store.viewerHead('run-1')?.currentRevision ?? -1]));
    expect(() =>
      t.store.transaction(() => {
        storeInternals(t.store).viewer.record('run-1', [{ targetType: 'summary' }], t.clock.t);
        throw new Error('abort');
      }),
    ).toThrow('abort');
    expect(viewerRevisions(t.store, 'run-1')).toEqual([]);
    expect(heard).toEqual([]);
    claim(t.store, 'run-1');
    expect(heard).toEqual([['run-1', 2]]);
    stop();
  });

  it('rejects unknown target types and ops on the facade', ({ t }) => {
    expectStoreError(() => t.store.recordViewerDeltas('run-1', [{ targetType: 'nope' as 'summary' }]), 'Unknown viewer target type: nope', 'validation');
    expectStoreError(
      () => t.store.recordViewerDeltas('run-1', [{ targetType: 'summary', ops: [{ op: 'move', path: '/a' } as never] }]),
      'Viewer patch operations must be add, replace, remove or append with a path',
      'validation',
    );
  });
});

describe('viewer delta log: resume by cursor (docs/STORE-RULES.md §8)', () => {
  it.beforeEach(({ t }) => {
    record(t, 299); // current 300, retained from 45
    expect(viewerHead(t.store, 'run-1')).toEqual({ presentation: 300, retainedFrom: 45 });
  });

  it('cursor 0 → snapshot_required with current and retained revisions', ({ t }) => {
    expect(read(t, 0)).toEqual({ kind: 'snapshot_required', runId: 'run-1', currentRevision: 300, retainedFromRevision: 45 });
  });

  it('cursor = current → deltas, empty', ({ t }) => {
    expect(read(t, 300)).toEqual({ kind: 'deltas', runId: 'run-1', currentRevision: 300, retainedFromRevision: 45, batches: [] });
  });

  it('cursor ahead of the run → snapshot_required', ({ t }) => {
    expect(read(t, 301).kind).toBe('snapshot_required');
  });

  it('just inside the window (retained_from - 1) → every retained revision', ({ t }) => {
    const result = read(t, 44);
    expect(result.kind).toBe('deltas');
    const revisions = revisionsOf(result) as number[];
    expect(revisions[0]).toBe(45);
    expect(revisions.at(-1)).toBe(300);
    expect(revisions).toHaveLength(256);
  });

  it('just outside the window (retained_from - 2) → snapshot_required', ({ t }) => {
    expect(read(t, 43)).toEqual({ kind: 'snapshot_required', runId: 'run-1', currentRevision: 300, retainedFromRevision: 45 });
  });

  it('a cursor in the middle → the revisions after it, in order', ({ t }) => {
    expect(revisionsOf(read(t, 297))).toEqual([298, 299, 300]);
  });

  it('a gap in the stored revisions → snapshot_required', ({ t }) => {
    sql(t.store, "DELETE FROM viewer_deltas WHERE run_id = 'run-1' AND presentation_revision = 299");
    expect(read(t, 297).kind).toBe('snapshot_required');
    expect(revisionsOf(read(t, 299))).toEqual([300]);
  });

  it.for([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('Viewer cursor must be a non-negative integer (%s)', (cursor, { t }) => {
    expectStoreError(() => t.store.readViewerDeltas('run-1', cursor), 'Viewer cursor must be a non-negative integer', 'validation');
  });

  it('an unknown run reads as undefined', ({ t }) => {
    expect(t.store.readViewerDeltas('ghost', 1)).toBeUndefined();
  });

  it('stored patches that are not op arrays, or hold unknown ops, are integrity errors', ({ t }) => {
    const setPatch = (text: string) =>
      sql(
        t.store,
        `UPDATE blobs SET content = ?, byte_length = ? WHERE blob_hash =
           (SELECT patch_hash FROM viewer_deltas WHERE run_id = 'run-1' AND presentation_revision = 300)`,
        Buffer.from(text),
        Buffer.byteLength(text),
      );
    setPatch('{"op":"replace"}');
    expectStoreError(() => read(t, 299), 'Stored viewer patch is not an operation array', 'integrity');
    setPatch('[{"op":"move","path":"/a"}]');
    expectStoreError(() => read(t, 299), 'Stored viewer patch holds an unknown operation', 'integrity');
  });
});
