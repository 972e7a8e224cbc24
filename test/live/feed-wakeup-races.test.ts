/**
 * Missed wake-up races of the change feed with commits made by another connection (seen only
 * through `PRAGMA data_version`): a commit that lands after a subscriber read the state but
 * before the feed's watcher took its baseline must still wake it. The commit is placed exactly
 * in that window by wrapping the store read the subscriber makes last before it waits.
 */
import { afterAll, afterEach, describe, expect } from 'vitest';
import { WorkflowStore } from '../../src/store/index.js';
import { commitMarker, DELTAS_SUBSCRIPTION, range, reserveRun, revisionsOf, subscribeWs, untilRevision, type DeltasData } from '../helpers/live-fixtures.js';
import { feedWaiters } from '../helpers/server-signals.js';
import { serverTest as it } from '../helpers/server-test.js';

/** A guard far above the 25 ms poll interval, far below the test timeout. */
const PICKUP_MS = 5_000;

describe('change feed: commits of another connection inside the wait window', () => {
  let other: WorkflowStore;
  const restore: Array<() => void> = [];
  it.beforeAll(async ({ fx }) => {
    // A second connection to the same file: its commits bypass the server's commit hook.
    other = WorkflowStore.open({ path: fx.dbPath, projectPath: fx.dir });
  });
  afterEach(() => {
    for (const undo of restore.splice(0)) undo();
  });
  afterAll(async () => {
    other.close();
  });

  it('workflowRunDeltas: a commit between the head check and the watcher baseline is delivered', async ({ client, fx }) => {
    const runId = 'run-race-deltas';
    await reserveRun(fx, runId);
    const { collector, unsubscribe } = subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId, afterRevision: 1 });
    restore.push(unsubscribe);
    // One round trip first, so the watcher is opened, stopped, and started again below.
    commitMarker(fx.store, runId, 1); // 2
    await untilRevision(collector, 2);

    // The next time the feed reads the head a wait relies on — before waiting (viewerHead), or
    // at the wake-up whose heads the next wait reuses (viewerHeads) — another connection
    // commits right after.
    const store = fx.store;
    const head = store.viewerHead.bind(store);
    const heads = store.viewerHeads.bind(store);
    let armed = true;
    const commitRightAfter = (): void => {
      armed = false;
      commitMarker(other, runId, 3); // 4, invisible to the commit hook
    };
    store.viewerHead = (id: string) => {
      const answer = head(id);
      if (armed && id === runId && (new Error().stack ?? '').includes('waitForRevision')) commitRightAfter();
      return answer;
    };
    store.viewerHeads = (ids: readonly string[]) => {
      const answer = heads(ids);
      if (armed && ids.includes(runId)) commitRightAfter();
      return answer;
    };
    restore.push(() => {
      store.viewerHead = head;
      store.viewerHeads = heads;
    });
    commitMarker(fx.store, runId, 2); // 3: wakes the subscriber, which then waits after 3
    await untilRevision(collector, 4, PICKUP_MS);
    expect(armed).toBe(false);
    expect(revisionsOf(collector.events)).toEqual(range(2, 4));
  });

  it('workflowRunLineageUpdated: a commit between the chain read and the next wait is emitted', async ({ client, fx }) => {
    const root = 'run-race-lineage';
    await reserveRun(fx, root);
    // Alone on the feed: nobody else keeps its poll timer running.
    await feedWaiters(fx.server, 0, 'no other subscription waits');
    const { collector, unsubscribe } = subscribeWs<{ workflowRunLineageUpdated: { runId: string; presentationRevision: number } }>(
      client,
      'subscription L($root: String!) { workflowRunLineageUpdated(rootRunId: $root) { runId presentationRevision } }',
      { root },
    );
    restore.push(unsubscribe);
    await feedWaiters(fx.server, 1, 'the lineage subscription waits');

    // After the wake-up below, once it loaded the changed runs (before it waits again), another
    // connection commits on the chain.
    const store = fx.store;
    const getWorkflowRuns = store.getWorkflowRuns.bind(store);
    let armed = true;
    store.getWorkflowRuns = (ids: readonly string[]) => {
      const answer = getWorkflowRuns(ids);
      if (armed && ids.includes(root)) {
        armed = false;
        commitMarker(other, root, 2); // 3
      }
      return answer;
    };
    restore.push(() => {
      store.getWorkflowRuns = getWorkflowRuns;
    });
    commitMarker(fx.store, root, 1); // 2
    await collector.take(2, PICKUP_MS);
    expect(armed).toBe(false);
    expect(collector.events.map((result) => result.data?.workflowRunLineageUpdated.presentationRevision)).toEqual([2, 3]);
  });
});
