/**
 * `WorkflowRun.viewerDeltas(afterRevision)`: the catch-up read of the delta log after claim
 * and park (docs/STORE-RULES.md §8): kinds, batches per revision, targets, patches.
 */
import { describe, expect } from 'vitest';
import { ViewerDeltasDocument } from '../../schema/generated/graphql.js';
import { claim, park, reserve, reserveInput, T0, type TestServer } from '../helpers/server-fixture.js';
import { serverTest as it } from '../helpers/server-test.js';

const at = (ms: number) => new Date(T0 + ms).toISOString();
const bumpPatch = (revision: number) => [{ op: 'REPLACE', path: '/presentationRevision', value: revision }];

/** Reserves `runId`, then claims and parks it a second apart each: revisions 2 (claim), 3 and 4 (park). */
async function claimedAndParked(fx: TestServer, runId: string): Promise<void> {
  await reserve(fx, reserveInput(runId, { originSessionId: `session-${runId}` }));
  fx.clock.advance(1_000);
  await claim(fx, runId, `token-${runId}`);
  fx.clock.advance(1_000);
  await park(fx, runId, `token-${runId}`);
}

describe('viewerDeltas', () => {
  it('a new run is at revision 1 with an empty log', async ({ fx }) => {
    await reserve(fx, reserveInput('run-new', { originSessionId: 'session-run-new' }));
    const { workflowRun } = await fx.data(ViewerDeltasDocument, { runId: 'run-new', afterRevision: 1 });
    expect(workflowRun).toEqual({
      id: Buffer.from('WorkflowRun:run-new').toString('base64'),
      runId: 'run-new',
      presentationRevision: 1,
      viewerDeltas: { kind: 'DELTAS', currentRevision: 1, retainedFromRevision: 1, batches: [] },
    });
  });

  it('after claim (one bump revision) and park (a bump, then summary and replay) returns each revision in order', async ({ fx }) => {
    // Times relative to the shared clock at the start (other tests of the file move it too).
    const since = fx.clock.t - T0;
    await claimedAndParked(fx, 'run-1');

    const { workflowRun } = await fx.data(ViewerDeltasDocument, { runId: 'run-1', afterRevision: 1 });
    expect(workflowRun?.presentationRevision).toBe(4);
    const bump = (revision: number, recordedAt: string) => ({
      runId: 'run-1',
      presentationRevision: revision,
      deltas: [
        { deltaIndex: 0, targetType: 'SUMMARY', targetKey: '', recordedAt, patch: bumpPatch(revision) },
        { deltaIndex: 1, targetType: 'GRAPH', targetKey: '', recordedAt, patch: bumpPatch(revision) },
        { deltaIndex: 2, targetType: 'REPLAY', targetKey: '', recordedAt, patch: bumpPatch(revision) },
        { deltaIndex: 3, targetType: 'INSPECTOR', targetKey: 'run', recordedAt, patch: bumpPatch(revision) },
      ],
    });
    expect(workflowRun?.viewerDeltas).toEqual({
      kind: 'DELTAS',
      currentRevision: 4,
      retainedFromRevision: 1,
      batches: [
        bump(2, at(since + 1_000)),
        bump(3, at(since + 2_000)),
        {
          runId: 'run-1',
          presentationRevision: 4,
          deltas: [
            { deltaIndex: 0, targetType: 'SUMMARY', targetKey: '', recordedAt: at(since + 2_000), patch: bumpPatch(4) },
            { deltaIndex: 1, targetType: 'REPLAY', targetKey: '', recordedAt: at(since + 2_000), patch: bumpPatch(4) },
          ],
        },
      ],
    });
  });

  it('reads only the revisions after the cursor, none at the current revision', async ({ fx }) => {
    await claimedAndParked(fx, 'run-after');
    const after3 = await fx.data(ViewerDeltasDocument, { runId: 'run-after', afterRevision: 3 });
    expect(after3.workflowRun?.viewerDeltas.batches.map((batch) => batch.presentationRevision)).toEqual([4]);
    const after4 = await fx.data(ViewerDeltasDocument, { runId: 'run-after', afterRevision: 4 });
    expect(after4.workflowRun?.viewerDeltas).toEqual({ kind: 'DELTAS', currentRevision: 4, retainedFromRevision: 1, batches: [] });
  });

  it('answers SNAPSHOT_REQUIRED for cursor 0 and for a cursor ahead of the run', async ({ fx }) => {
    await claimedAndParked(fx, 'run-snapshot');
    for (const afterRevision of [0, 5]) {
      const { workflowRun } = await fx.data(ViewerDeltasDocument, { runId: 'run-snapshot', afterRevision });
      expect(workflowRun?.viewerDeltas).toEqual({ kind: 'SNAPSHOT_REQUIRED', currentRevision: 4, retainedFromRevision: 1, batches: [] });
    }
  });

  it('refuses a negative cursor with a GraphQL error', async ({ fx }) => {
    await reserve(fx, reserveInput('run-negative', { originSessionId: 'session-run-negative' }));
    const response = await fx.gql(ViewerDeltasDocument, { runId: 'run-negative', afterRevision: -1 });
    expect(response.errors?.[0]).toMatchObject({
      message: 'Viewer cursor must be a non-negative integer',
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });
});
