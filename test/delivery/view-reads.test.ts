/**
 * The reads of a run's view its followers share (src/delivery/view-reads.ts): a read serves a
 * follower at the same positions while it brings it to the revision it needs; a newer read of
 * the run drops the older ones; an answer that did not come is forgotten; and the worker that
 * reads a run's view is one of the listening workers, the same one in every worker.
 */
import { describe, expect, it } from 'vitest';
import type { RunViewEvent } from '../../src/delivery/index.js';
import { ViewReadCache } from '../../src/delivery/view-reads.js';
import { viewReaderOf } from '../../src/server/cluster/view-read-link.js';

/** A `changed` event from revision `from` to `to` (only the fields the cache reads are real). */
function changed(from: number, to: number): RunViewEvent {
  const positions = (revision: number) => ({ revision, steps: 0, trace: 0, entries: 0, events: 0, updates: 0 });
  return { kind: 'changed', runId: 'r', from: positions(from), positions: positions(to), head: {} as never, changes: {} as never };
}

describe('ViewReadCache', () => {
  it('serves a read to a follower needing its revision or an older one, not a newer one', () => {
    const cache = new ViewReadCache();
    const event = changed(3, 5);
    cache.set('r', 'r|3', 5, event);
    expect(cache.get('r', 'r|3', 4)).toBe(event);
    expect(cache.get('r', 'r|3', 5)).toBe(event);
    expect(cache.get('r', 'r|3', 6)).toBeUndefined();
    expect(cache.get('r', 'r|4', 5)).toBeUndefined();
  });

  it("a newer read of the run drops its older reads at other positions; another run's stay", () => {
    const cache = new ViewReadCache();
    const old = changed(2, 4);
    const other = changed(1, 9);
    cache.set('r', 'r|2', 4, old);
    cache.set('s', 's|1', 9, other);
    cache.set('r', 'r|4', 6, changed(4, 6));
    expect(cache.get('r', 'r|2', 0)).toBeUndefined();
    expect(cache.get('s', 's|1', 9)).toBe(other);
  });

  it('a pending answer is shared while it is asked for a new enough revision, and forgotten when it did not come', () => {
    const cache = new ViewReadCache();
    const pending = Promise.resolve(changed(3, 5));
    cache.set('r', 'r|3', 5, pending);
    expect(cache.get('r', 'r|3', 5)).toBe(pending);
    cache.forget('r', 'r|3', Promise.resolve(undefined));
    expect(cache.get('r', 'r|3', 5)).toBe(pending);
    cache.forget('r', 'r|3', pending);
    expect(cache.get('r', 'r|3', 5)).toBeUndefined();
  });
});

describe('viewReaderOf', () => {
  it('picks one of the listening workers, the same for the same run and workers; none without workers', () => {
    const workers = [1, 2, 3];
    const readers = Array.from({ length: 300 }, (_, index) => viewReaderOf(`run-${index}`, workers));
    expect(new Set(readers)).toEqual(new Set(workers));
    expect(readers.map((reader, index) => viewReaderOf(`run-${index}`, [...workers]) === reader).every(Boolean)).toBe(true);
    expect(viewReaderOf('run-1', [])).toBeUndefined();
  });
});
