/**
 * The store computes a reservation's definition digest and default source identity from the
 * definition snapshot (docs/STORE-RULES.md §13.4: no longer the GraphQL layer's job).
 */
import { describe, expect } from 'vitest';
import { definitionDigest, StoreError } from '../../src/store/index.js';
import {
  DEFINITION,
  digestHex,
  expectNoWrite,
  expectRejectedUnchanged,
  reserveInput,
  rowOf,
  WORKFLOW_REF,
  expectStoreError,
  type TestStore,
} from '../helpers/store-fixtures.js';
import { reserveAsOlderBuild } from '../helpers/older-canonical-form.js';
import { connectionOf } from '../helpers/store-internals.js';
import { storeTest as it } from '../helpers/store-test.js';

/** A reservation by snapshot: {@link reserveInput} without digest and source. */
function byDefinition(runId: string) {
  const { definitionDigest: _digest, workflowSource: _source, ...rest } = reserveInput(runId);
  return rest;
}

describe('definition digest (docs/STORE-RULES.md §13.4)', () => {
  it('is SHA-256 of the canonical JSON, whatever the key order', () => {
    expect(definitionDigest(DEFINITION)).toBe(digestHex());
    expect(definitionDigest({ b: 1, a: [1, { d: 2, c: 3 }] })).toBe(definitionDigest({ a: [1, { c: 3, d: 2 }], b: 1 }));
  });

  it('refuses what canonical JSON refuses, naming the definition field', () => {
    const error = expectStoreError(() => definitionDigest({ at: new Date(0) }), 'Only plain objects can be stored as canonical JSON', 'validation');
    expect(error).toBeInstanceOf(StoreError);
    expect(error.field).toBe('definition');
  });

  it('reserveWorkflowRun without a digest stores the digest and the default file source', ({ t }) => {
    const { run, state } = t.store.reserveWorkflowRun(byDefinition('run-1'));
    expect(state).toBe('reserved');
    expect(run.definitionDigest).toBe(`sha256:${digestHex()}`);
    expect(run.workflowSource.root).toEqual({ kind: 'file', path: WORKFLOW_REF, hash: digestHex() });
  });

  describe('a run an older build stored with keys in code-unit order (docs/PI-WORKFLOWS-FILES.md §8)', () => {
    const definition = { name: 'numbered', steps: { 10: 'deploy', 2: 'build' } };
    const input = { 10: 'ten', 2: 'two' };
    const launchOptions = { retries: { 3: true, 20: false } };
    const claimRequest = { runnerId: 'runner-1', claimToken: 'tok-1', leaseMs: 30_000 };
    const retry = () => ({ ...byDefinition('run-1'), definitionSnapshot: definition, input, launchOptions });

    /** run-1 reserved and claimed exactly as the older build stored it. */
    function olderRun(t: TestStore): string {
      const legacy = reserveAsOlderBuild(
        t.store,
        { runId: 'run-1', workflowName: 'demo', workflowSourceRef: WORKFLOW_REF, definition, input, launchOptions, originSessionId: 'session-run-1' },
        claimRequest,
        t.clock.t,
      );
      expect(legacy).not.toBe(definitionDigest(definition));
      expect(rowOf(t.store, 'run_sources', 'run-1').source_revision).toBe(legacy);
      expect(connectionOf(t.store).prepare('SELECT CAST(content AS TEXT) AS text FROM blobs b JOIN runs r ON r.input_hash = b.blob_hash').get()).toEqual({
        text: '{"10":"ten","2":"two"}',
      });
      return legacy;
    }

    it('an identical retry with a claim adopts it, writing nothing', ({ t }) => {
      const legacy = olderRun(t);
      const adopted = expectNoWrite(t.store, () => t.store.reserveWorkflowRun(retry(), { ...claimRequest, claimToken: 'tok-2' }));
      expect(adopted.state).toBe('adopted');
      expect(adopted.run.definitionDigest).toBe(`sha256:${legacy}`);
      expect(adopted.run.input).toEqual(input);
    });

    it('a retry with another definition, input or launch options still conflicts', ({ t }) => {
      olderRun(t);
      for (const change of [{ definitionSnapshot: { ...definition, name: 'other' } }, { input: { 2: 'two' } }, { launchOptions: { retries: { 3: true } } }]) {
        expectRejectedUnchanged(
          t.store,
          () => t.store.reserveWorkflowRun({ ...retry(), ...change }, claimRequest),
          'Workflow run preparation conflicts: run-1',
          'conflict',
        );
      }
    });

    it('a new run of the same definition is stored under the canonical digest', ({ t }) => {
      olderRun(t);
      const { run } = t.store.reserveWorkflowRun({ ...retry(), runId: 'run-2', originSessionId: 'session-run-2' });
      expect(run.definitionDigest).toBe(`sha256:${definitionDigest(definition)}`);
    });
  });

  it('reserveWorkflowRun without a digest keeps a given source identity', ({ t }) => {
    const source = { kind: 'file', path: 'elsewhere.json', hash: 'b'.repeat(64) };
    const { run } = t.store.reserveWorkflowRun({ ...byDefinition('run-2'), workflowSource: source });
    expect(run.definitionDigest).toBe(`sha256:${digestHex()}`);
    expect(run.workflowSource.root).toEqual(source);
  });
});
