/**
 * The change feed's follow streams on their own, without GraphQL: the
 * delivery rules of docs/PROTOCOL.md as async iterables of `ChangeFeed`. The subscriptions
 * over real sockets are covered by test/live/.
 */
import { afterEach, describe, expect } from 'vitest';
import { WorkflowStore, type WorkflowRunRecord } from '../../src/store/index.js';
import { ChangeFeed, type RunDeltaEvent } from '../../src/delivery/index.js';
import { claim, expectStoreError, openTestStore, reserve, type TestStore, take } from '../helpers/store-fixtures.js';
import { attachReceiver } from '../../src/delivery/pull-stream.js';
import { storeTest as it } from '../helpers/store-test.js';
let feed: ChangeFeed;
it.beforeEach(({ t }) => {
  feed = new ChangeFeed(t.store, { pollIntervalMs: 25 });
  reserve(t.store, 'run-1');
});
afterEach(() => {
  feed.close();
});

/** One timeline revision of run-1 in its own transaction; returns the new revision. */
const timeline = (t: TestStore): number => t.store.recordViewerDeltas('run-1', [{ targetType: 'timeline' }]);

const label = (event: RunDeltaEvent): number | string =>
  'deltas' in event ? event.presentationRevision : `snapshot@${event.currentRevision}/${event.retainedFromRevision}`;

/**
 * Lets the stream run until it waits: the store is synchronous, so once the microtasks queued
 * before this macrotask ran, a stream that is going to wait has registered its waiter.
 */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('ChangeFeed.followRunDeltas', () => {
  it('replays after the cursor, then goes live: every revision once, in order', async ({ t }) => {
    timeline(t); // 2
    timeline(t); // 3
    const stream = feed.followRunDeltas('run-1', 1);
    expect((await take(stream, 2)).map(label)).toEqual([2, 3]);
    const next = stream.next();
    await settle();
    expect(feed.waiterCount).toBe(1);
    timeline(t); // 4
    timeline(t); // 5
    expect(label((await next).value as RunDeltaEvent)).toBe(4);
    expect((await take(stream, 1)).map(label)).toEqual([5]);
    await stream.return?.();
    expect(feed.waiterCount).toBe(0);
  });

  it('afterRevision null: live from the revision at the call, not at the first pull', async ({ t }) => {
    timeline(t); // 2
    const stream = feed.followRunDeltas('run-1', null);
    timeline(t); // 3: after the call, before the first pull
    expect((await take(stream, 1)).map(label)).toEqual([3]);
    await stream.return?.();
  });

  it('a cursor that cannot be served: a snapshot event with the plain run record first, then on after it', async ({ t }) => {
    timeline(t); // 2
    const stream = feed.followRunDeltas('run-1', 0);
    const [snapshot] = await take(stream, 1);
    expect(snapshot).toEqual({
      kind: 'snapshot_required',
      runId: 'run-1',
      currentRevision: 2,
      retainedFromRevision: 1,
      run: t.store.getWorkflowRun('run-1'),
    });
    timeline(t); // 3
    expect((await take(stream, 1)).map(label)).toEqual([3]);
    await stream.return?.();
  });

  it('every follower at the same revision gets the same batch object (results are shared per event)', async ({ t }) => {
    timeline(t); // 2
    const first = feed.followRunDeltas('run-1', 1);
    const second = feed.followRunDeltas('run-1', 1);
    const [a] = await take(first, 1);
    const [b] = await take(second, 1);
    expect(a).toBe(b);
    await first.return?.();
    await second.return?.();
  });

  it('refuses at the call, before any pull: a negative cursor first, then an unknown run', () => {
    expectStoreError(() => feed.followRunDeltas('ghost', -1), 'Viewer cursor must be a non-negative integer', 'validation');
    expectStoreError(() => feed.followRunDeltas('run-1', 1.5), 'Viewer cursor must be a non-negative integer', 'validation');
    expectStoreError(() => feed.followRunDeltas('ghost', null), 'Workflow run not found: ghost', 'not_found');
    expectStoreError(() => feed.followRunDeltas('ghost', 1), 'Workflow run not found: ghost', 'not_found');
    expect(feed.waiterCount).toBe(0);
  });

  it('the signal ends a waiting stream at once and frees its waiter', async ({ t }) => {
    const abort = new AbortController();
    const stream = feed.followRunDeltas('run-1', 1, { signal: abort.signal });
    const next = stream.next();
    await settle();
    expect(feed.waiterCount).toBe(1);
    abort.abort();
    expect(await next).toEqual({ done: true, value: undefined });
    expect(feed.waiterCount).toBe(0);
    timeline(t);
    expect(await stream.next()).toEqual({ done: true, value: undefined });
  });

  it('an already aborted signal gives an empty stream that never waits', async () => {
    const abort = new AbortController();
    abort.abort();
    const stream = feed.followRunDeltas('run-1', 1, { signal: abort.signal });
    expect(await stream.next()).toEqual({ done: true, value: undefined });
    expect(feed.waiterCount).toBe(0);
  });

  it('a consumer that accepts handed-over revisions gets them inside the wake-up, in order, while the stream keeps waiting; a refused one comes through next()', async ({
    t,
  }) => {
    const stream = feed.followRunDeltas('run-1', 1);
    const received: Array<number | string> = [];
    let budget = Number.POSITIVE_INFINITY;
    attachReceiver(stream, (event) => {
      if (budget <= 0) return false;
      budget -= 1;
      received.push(label(event));
      return true;
    });
    let resolved = false;
    const next = stream.next().then((result) => {
      resolved = true;
      return result;
    });
    await settle();
    expect(feed.waiterCount).toBe(1);
    timeline(t); // 2
    await settle();
    expect(received).toEqual([2]);
    timeline(t); // 3
    timeline(t); // 4: one wake-up, two revisions
    await settle();
    expect(received).toEqual([2, 3, 4]);
    // The stream never left its wait: no next() answered, the same single waiter.
    expect(resolved).toBe(false);
    expect(feed.waiterCount).toBe(1);
    budget = 1;
    timeline(t); // 5: taken
    timeline(t); // 6: refused, so the wait ends and the loop pushes it
    expect(label((await next).value as RunDeltaEvent)).toBe(6);
    expect(received).toEqual([2, 3, 4, 5]);
    await stream.return?.();
    expect(feed.waiterCount).toBe(0);
  });

  it('closing the feed ends every waiting stream', async () => {
    const stream = feed.followRunDeltas('run-1', 1);
    const next = stream.next();
    await settle();
    feed.close();
    expect(await next).toEqual({ done: true, value: undefined });
    expect(feed.waiterCount).toBe(0);
  });
});

describe('ChangeFeed.followRunUpdates', () => {
  it('one run record per commit that touches the summary; other revisions give none', async ({ t }) => {
    const stream = feed.followRunUpdates('run-1');
    const next = stream.next();
    await settle();
    timeline(t); // 2: no summary
    await settle();
    expect(feed.waiterCount).toBe(1);
    t.store.recordViewerDeltas('run-1', [{ targetType: 'summary' }]); // 3
    const run = (await next).value as WorkflowRunRecord;
    expect(run).toEqual(t.store.getWorkflowRun('run-1'));
    expect(run.presentationRevision).toBe(3);
    await stream.return?.();
    expect(feed.waiterCount).toBe(0);
  });

  it('Workflow run not found: <runId>, at the call', () => {
    expectStoreError(() => feed.followRunUpdates('ghost'), 'Workflow run not found: ghost', 'not_found');
  });
});

describe('ChangeFeed.followChainUpdates', () => {
  it('a run that joins the chain and the parent whose revision moved, oldest first (then by run id)', async ({ t }) => {
    reserve(t.store, 'parent', { originSessionId: 'session-parent' });
    claim(t.store, 'parent');
    expect(t.store.parkWorkflowRun({ runId: 'parent', claimToken: 'token-parent' })).toBe(true);
    const stream = feed.followChainUpdates('parent');
    const next = stream.next();
    await settle();
    reserve(t.store, 'parent-2', { parentRunId: 'parent', originSessionId: 'session-parent' });
    const first = (await next).value as WorkflowRunRecord;
    const [second] = await take(stream, 1);
    expect([first.runId, second?.runId]).toEqual(['parent', 'parent-2']);
    expect(second).toEqual(t.store.getWorkflowRun('parent-2'));
    await stream.return?.();
    expect(feed.waiterCount).toBe(0);
  });

  it('refuses at the call: an unknown run, a run that is not a root', ({ t }) => {
    reserve(t.store, 'parent', { originSessionId: 'session-parent' });
    claim(t.store, 'parent');
    t.store.parkWorkflowRun({ runId: 'parent', claimToken: 'token-parent' });
    reserve(t.store, 'parent-2', { parentRunId: 'parent', originSessionId: 'session-parent' });
    expectStoreError(() => feed.followChainUpdates('ghost'), 'Workflow run not found: ghost', 'not_found');
    expectStoreError(() => feed.followChainUpdates('parent-2'), 'Workflow run is not a root run: parent-2', 'validation');
    expect(feed.waiterCount).toBe(0);
  });
});

describe('commits of another connection', () => {
  it('wake a waiter through the -wal file watch, not a poll: the poll interval is ten minutes here', async () => {
    const file = openTestStore({ file: true });
    const slowFeed = new ChangeFeed(file.store, { pollIntervalMs: 600_000 });
    const other = WorkflowStore.open({ path: file.path, projectPath: file.dir });
    try {
      reserve(file.store, 'run-w');
      const head = file.store.viewerHead('run-w')?.currentRevision as number;
      const woken = slowFeed.waitForRevision('run-w', head);
      const committed = other.recordViewerDeltas('run-w', [{ targetType: 'timeline' }]);
      expect(await woken).toBe(committed);
      // Its own commits wake it through the commit hook, as before.
      const again = slowFeed.waitForRevision('run-w', committed);
      const own = file.store.recordViewerDeltas('run-w', [{ targetType: 'timeline' }]);
      expect(await again).toBe(own);
      // And the next commit of the other connection, once the first wake-up's baseline is taken.
      const third = slowFeed.waitForRevision('run-w', own);
      const foreign = other.recordViewerDeltas('run-w', [{ targetType: 'timeline' }]);
      expect(await third).toBe(foreign);
    } finally {
      slowFeed.close();
      other.close();
      file.close();
    }
  });
});
