/**
 * The store computes a reservation's definition digest and default source identity from the
 * definition snapshot (STORE.md §13.4, issue 11 item 3: no longer the GraphQL layer's job).
 */
import { describe, expect } from 'vitest';
import { definitionDigest, StoreError } from '../../src/store/index.js';
import { DEFINITION, digestHex, expectStoreError, reserveInput, WORKFLOW_REF } from '../helpers/store-fixtures.js';
import { storeTest as it } from '../helpers/store-test.js';

/** A reservation by snapshot: {@link reserveInput} without digest and source. */
function byDefinition(runId: string) {
  const { definitionDigest: _digest, workflowSource: _source, ...rest } = reserveInput(runId);
  return rest;
}

describe('definition digest (STORE.md §13.4)', () => {
  it('is SHA-256 of the canonical JSON, whatever the key order', () => {
    expect(definitionDigest(DEFINITION)).toBe(digestHex());
    expect(definitionDigest({ b: 1, a: [1, { d: 2, c: 3 }] })).toBe(definitionDigest({ a: [1, { c: 3, d: 2 }], b: 1 }));
  });

  it('refuses what canonical JSON refuses, naming the definition field', () => {
    const error = expectStoreError(() => definitionDigest({ at: new Date(0) }), 'Only plain objects can be stored as canonical JSON', 'validation');
    expect(error).toBeInstanceOf(StoreError);
    expect(error.field).toBe('definition');
  });

  it('reserveFromDefinition stores the digest and the default file source', ({ t }) => {
    const { run, state } = t.store.reserveFromDefinition(byDefinition('run-1'));
    expect(state).toBe('reserved');
    expect(run.definitionDigest).toBe(`sha256:${digestHex()}`);
    expect(run.workflowSource.root).toEqual({ kind: 'file', path: WORKFLOW_REF, hash: digestHex() });
  });

  it('reserveFromDefinition keeps a given source identity', ({ t }) => {
    const source = { kind: 'file', path: 'elsewhere.json', hash: 'b'.repeat(64) };
    const { run } = t.store.reserveFromDefinition({ ...byDefinition('run-2'), workflowSource: source });
    expect(run.definitionDigest).toBe(`sha256:${digestHex()}`);
    expect(run.workflowSource.root).toEqual(source);
  });
});
