/**
 * `lineageSlice` (docs/GRAPHQL-CONTRACT.md `lineage`): keyset slices of a chain in lineage order
 * — the root, then by (created_at, run id) — read from either end, with every run's key. The
 * chain is built within one millisecond, so the order among non-root runs is the run id's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyedRun, LineageKey } from '../../src/store/index.js';
import { claim, openTestStore, reserve, type TestStore } from '../helpers/store-fixtures.js';

let t: TestStore;
const SESSION = { originSessionId: 'session-chain' };

beforeAll(() => {
  t = openTestStore();
  // root ─▶ z-1 ─▶ a-2 ─▶ m-3 (continuations), all at T0.
  reserve(t.store, 'root', SESSION);
  let parent = 'root';
  for (const runId of ['z-1', 'a-2', 'm-3']) {
    claim(t.store, parent);
    t.store.parkWorkflowRun({ runId: parent, claimToken: `token-${parent}` });
    reserve(t.store, runId, { ...SESSION, parentRunId: parent, lineageKind: 'continuation' });
    parent = runId;
  }
  reserve(t.store, 'other', { originSessionId: 'session-other' });
});
afterAll(() => t.close());

const ids = (rows: Array<KeyedRun<LineageKey>>) => rows.map((row) => row.run.runId);
const keyOf = (runId: string): LineageKey => (runId === 'root' ? { root: true } : { root: false, createdAt: t.clock.t, runId });

describe('lineageSlice', () => {
  it('reads the chain from the root end: root first, then by created_at and run id', () => {
    const rows = t.store.lineageSlice('root', { limit: 10, inverted: false });
    expect(ids(rows)).toEqual(['root', 'a-2', 'm-3', 'z-1']);
    expect(rows.map((row) => row.key)).toEqual(['root', 'a-2', 'm-3', 'z-1'].map(keyOf));
    expect(ids(t.store.lineageSlice('root', { limit: 2, inverted: false }))).toEqual(['root', 'a-2']);
    expect(ids(t.store.lineageSlice('root', { after: keyOf('root'), limit: 2, inverted: false }))).toEqual(['a-2', 'm-3']);
    expect(ids(t.store.lineageSlice('root', { after: keyOf('m-3'), limit: 2, inverted: false }))).toEqual(['z-1']);
  });

  it('reads the chain from the newest end (inverted), the root last', () => {
    expect(ids(t.store.lineageSlice('root', { limit: 10, inverted: true }))).toEqual(['z-1', 'm-3', 'a-2', 'root']);
    expect(ids(t.store.lineageSlice('root', { limit: 2, inverted: true }))).toEqual(['z-1', 'm-3']);
    expect(ids(t.store.lineageSlice('root', { before: keyOf('m-3'), limit: 2, inverted: true }))).toEqual(['a-2', 'root']);
    expect(ids(t.store.lineageSlice('root', { before: keyOf('a-2'), limit: 2, inverted: true }))).toEqual(['root']);
    expect(ids(t.store.lineageSlice('root', { before: keyOf('root'), limit: 2, inverted: true }))).toEqual([]);
  });

  it('honours both cursors at once, and a limit of 0', () => {
    const window = { after: keyOf('root'), before: keyOf('z-1') };
    expect(ids(t.store.lineageSlice('root', { ...window, limit: 10, inverted: false }))).toEqual(['a-2', 'm-3']);
    expect(ids(t.store.lineageSlice('root', { ...window, limit: 10, inverted: true }))).toEqual(['m-3', 'a-2']);
    expect(ids(t.store.lineageSlice('root', { limit: 0, inverted: false }))).toEqual([]);
    expect(ids(t.store.lineageSlice('root', { limit: 0, inverted: true }))).toEqual([]);
  });

  it('shows only the chain asked for', () => {
    expect(ids(t.store.lineageSlice('other', { limit: 10, inverted: true }))).toEqual(['other']);
    expect(ids(t.store.lineageSlice('missing', { limit: 10, inverted: false }))).toEqual([]);
  });
});
