/**
 * Bookkeeping revisions (record bumps) of the viewer-delta log, which the page hides unless
 * asked. Shapes as the store records them (src/store/viewer-deltas.ts): every
 * delta starts with `replace /presentationRevision R` (graph deltas too); `/graphRevision R` is only
 * in graph deltas an older build of this server recorded on its own file.
 */
import { describe, expect, it } from 'vitest';
import { isBookkeeping, ownOps } from '../../../src/server/public/bookkeeping.js';

const marker = (revision: number) => ({ op: 'REPLACE', path: '/presentationRevision', value: revision });
const graphMarker = (revision: number) => ({ op: 'REPLACE', path: '/graphRevision', value: revision });

describe('bookkeeping revisions', () => {
  it('a bump (summary, graph, replay, inspector/run with markers only) is bookkeeping', () => {
    const bump = {
      deltas: [
        { targetType: 'SUMMARY', targetKey: '', patch: [marker(7)] },
        { targetType: 'GRAPH', targetKey: '', patch: [marker(7)] },
        { targetType: 'REPLAY', targetKey: '', patch: [marker(7)] },
        { targetType: 'INSPECTOR', targetKey: 'run', patch: [marker(7)] },
      ],
    };
    expect(isBookkeeping(bump)).toBe(true);
    expect(bump.deltas.map(ownOps)).toEqual([[], [], [], []]);
  });

  it('a graph delta an older build recorded with `/graphRevision R` is still bookkeeping', () => {
    const legacy = { deltas: [{ targetType: 'GRAPH', targetKey: '', patch: [marker(7), graphMarker(7)] }] };
    expect(isBookkeeping(legacy)).toBe(true);
    expect(ownOps(legacy.deltas[0]!)).toEqual([]);
  });

  it('summary + replay without ops (claim renewal, after a bump) is bookkeeping', () => {
    expect(
      isBookkeeping({
        deltas: [
          { targetType: 'SUMMARY', patch: [marker(8)] },
          { targetType: 'REPLAY', patch: [marker(8)] },
        ],
      }),
    ).toBe(true);
  });

  it('a revision with one real operation is not; ownOps keeps exactly the real ones', () => {
    const step = { op: 'REPLACE', path: '/nodes/build/state', value: 'running' };
    const batch = {
      deltas: [
        { targetType: 'SUMMARY', patch: [marker(9)] },
        { targetType: 'GRAPH', targetKey: 'build', patch: [marker(9), step] },
      ],
    };
    expect(isBookkeeping(batch)).toBe(false);
    expect(ownOps(batch.deltas[1]!)).toEqual([step]);
  });
});
