/**
 * The delivery rules of the per-run and per-chain change feeds (docs/PROTOCOL.md, docs/ARCHITECTURE.md
 * "The change feed"): replay then live, exactly once and in order, snapshot
 * required — each stream an async iterable that the subscription resolvers only call, through
 * `ChangeFeed.followRunDeltas`, `ChangeFeed.followRunUpdates` and
 * `ChangeFeed.followChainUpdates`.
 *
 * Every event is read from the durable log (or the store) after a wake-up of the
 * `ChangeFeed`; nothing is delivered from memory. A stream pulls the next event only
 * when its consumer asked for it, so a slow consumer holds only its cursor.
 */
import type { FeedSource } from './feed-source.js';
import { StoreError, VIEWER_RETENTION, type ViewerDeltaBatch, type WorkflowRunRecord, type WorkflowStore } from '../store/index.js';
import { pullStream } from './pull-stream.js';

/** Revisions read from the log per step of a delta stream. */
const READ_PAGE = 64;

/**
 * "Your cursor cannot be served: reload the run, then continue after `currentRevision`"
 * (docs/STORE-RULES.md §8 "Resume"; docs/GRAPHQL-CONTRACT.md `ViewerSnapshotRequired`). The stream goes on after
 * `currentRevision` by itself.
 */
export interface ViewerSnapshotEvent {
  kind: 'snapshot_required';
  runId: string;
  /** The revision the snapshot stands for; the next batch is `currentRevision + 1`. */
  currentRevision: number;
  /** The oldest revision the log still holds. */
  retainedFromRevision: number;
  /** The run as committed when the snapshot was decided. */
  run: WorkflowRunRecord;
}

/**
 * One event of {@link followRunDeltas}: a presentation revision (the same immutable batch
 * object for every follower at that revision) or a snapshot request.
 */
export type RunDeltaEvent = ViewerDeltaBatch | ViewerSnapshotEvent;

/** Options of every follow stream. */
export interface FollowOptions {
  /** Ends the stream (at once, also while it waits for a commit). */
  signal?: AbortSignal;
}

function notFound(runId: string): StoreError {
  return new StoreError('not_found', `Workflow run not found: ${runId}`);
}

/**
 * A stream driven by `loop` (every follow stream of the feed, `feed-run-changes.ts` too), which
 * must return once `aborted` fires. `aborted` fires when the
 * consumer returns (unsubscribes), when `signal` aborts, or when `loop` ends; so a consumer
 * that leaves while the loop waits on the feed frees its waiter at once. Pulled one value at a
 * time, no buffering: see {@link pullStream} (`pull-stream.ts`).
 */
export function stream<T>(
  signal: AbortSignal | undefined,
  loop: (push: (value: T) => Promise<unknown>, aborted: AbortSignal, handOver: (value: T) => boolean) => Promise<void>,
): AsyncIterableIterator<T> {
  return pullStream<T>(signal, loop);
}

/**
 * The event stream of one run's delta log after a cursor (docs/GRAPHQL-CONTRACT.md `workflowRunDeltas`,
 * docs/PROTOCOL.md): replay, then live; a {@link ViewerSnapshotEvent} when the cursor cannot
 * be served (0, ahead of the run, older than the retained window, or passed by the window while
 * the consumer was slow), then on after its `currentRevision`. Each revision is read from the
 * durable log and yielded once, in order, without gaps.
 *
 * @param afterRevision the last revision the consumer applied; null = live only, from the
 *   run's revision at this call (not at the first pull)
 * @returns the stream (lazy: nothing is read before the first pull)
 * @throws StoreError(validation) `Viewer cursor must be a non-negative integer`;
 *   StoreError(not_found) `Workflow run not found: <runId>` — both at once, from this call
 */
export function followRunDeltas(
  feed: FeedSource,
  store: WorkflowStore,
  runId: string,
  afterRevision: number | null,
  options: FollowOptions = {},
): AsyncIterableIterator<RunDeltaEvent> {
  if (afterRevision !== null && (!Number.isSafeInteger(afterRevision) || afterRevision < 0)) {
    throw new StoreError('validation', 'Viewer cursor must be a non-negative integer', 'afterRevision');
  }
  const head = store.viewerHead(runId);
  if (head === undefined) throw notFound(runId);
  return stream<RunDeltaEvent>(options.signal, async (push, aborted, handOver) => {
    let cursor = afterRevision ?? head.currentRevision;
    let readNow = afterRevision !== null;
    // While waiting live (the direct route, src/delivery/index.ts): a wake-up hands this
    // stream's new revisions over to its consumer at once when the consumer accepts them
    // synchronously (pull-stream.ts `handOver`), the same batches from the same read as below,
    // in order; anything else (a snapshot, a full page, a consumer that is not ready) ends the
    // wait and the loop below reads on.
    const handOverUpTo = (knownHead: number): number | undefined => {
      const read = feed.readDeltas(runId, cursor, READ_PAGE, knownHead);
      if (read === undefined || read.kind === 'snapshot_required' || read.batches.length === READ_PAGE) return undefined;
      // `handOver` refuses once the stream ended (an aborted stream has).
      for (const batch of read.batches) {
        if (!handOver(batch)) return undefined;
        cursor = batch.presentationRevision;
      }
      return cursor;
    };
    while (!aborted.aborted) {
      let knownHead: number | undefined;
      if (!readNow) {
        knownHead = await feed.waitForRevision(runId, cursor, aborted, handOverUpTo);
        if (knownHead === undefined) return;
      }
      readNow = false;
      const read = feed.readDeltas(runId, cursor, READ_PAGE, knownHead);
      if (read === undefined) return;
      if (read.kind === 'snapshot_required') {
        const run = store.getWorkflowRun(runId);
        if (run === undefined) return;
        const { currentRevision, retainedFromRevision } = read;
        await push({ kind: 'snapshot_required', runId, currentRevision, retainedFromRevision, run });
        cursor = currentRevision;
        continue;
      }
      for (const batch of read.batches) {
        if (aborted.aborted) return;
        await push(batch);
        cursor = batch.presentationRevision;
      }
      // A full page may mean more is already committed: read again without waiting.
      readNow = read.batches.length === READ_PAGE;
    }
  });
}

/**
 * The run after each committed change that touches its summary (or after a snapshot), and when
 * the claim it last showed expires without a renewal (docs/PROTOCOL.md "Lease expiry"); live
 * only (docs/GRAPHQL-CONTRACT.md `workflowRunUpdated`). The revisions of one transaction (a park
 * records a bump and a summary revision) are read together and give one event; changes committed
 * while the consumer was busy are coalesced into one event showing the latest state.
 *
 * @returns the stream of run records, each read after the change
 * @throws StoreError(not_found) `Workflow run not found: <runId>`, at once
 */
export function followRunUpdates(feed: FeedSource, store: WorkflowStore, runId: string, options: FollowOptions = {}): AsyncIterableIterator<WorkflowRunRecord> {
  const head = store.viewerHead(runId);
  if (head === undefined) throw notFound(runId);
  // Taken now, at subscribe time: every change after this moment is reported.
  let cursor = head.currentRevision;
  // The expiry of the live claim the subscriber knows of (epoch ms), if any.
  let expiresAt = store.liveLeaseExpiry(runId, Math.max(feed.leaseNow, store.now()));
  return stream<WorkflowRunRecord>(options.signal, async (push, aborted) => {
    while (!aborted.aborted) {
      let knownHead: number | undefined;
      if (expiresAt === undefined) {
        knownHead = await feed.waitForRevision(runId, cursor, aborted);
        if (knownHead === undefined) return;
      } else {
        const woken = await firstOf<number | 'expired'>(aborted, (signal) => [
          feed.waitForRevision(runId, cursor, signal),
          feed.waitForLeaseTime(expiresAt as number, signal).then((reached) => (reached ? ('expired' as const) : undefined)),
        ]);
        if (woken === undefined) return;
        if (woken === 'expired') {
          // No revision since: the lease expired, or was renewed without one (a pi-workflows file).
          const run = store.getWorkflowRuns([runId], feed.leaseNow)[0];
          if (run === undefined) return;
          expiresAt = run.claim === null ? undefined : Date.parse(run.claim.expiresAt);
          if (run.claim === null) await push(run);
          continue;
        }
        knownHead = woken;
      }
      const read = feed.readDeltas(runId, cursor, VIEWER_RETENTION, knownHead);
      if (read === undefined) return;
      let changed = true;
      if (read.kind === 'snapshot_required') {
        cursor = read.currentRevision;
      } else {
        changed = read.batches.some((batch) => batch.deltas.some((delta) => delta.targetType === 'summary'));
        cursor = read.batches.at(-1)?.presentationRevision ?? cursor;
      }
      if (!changed) continue;
      const run = store.getWorkflowRun(runId);
      if (run === undefined) return;
      expiresAt = run.claim === null ? undefined : Date.parse(run.claim.expiresAt);
      await push(run);
    }
  });
}

/**
 * Waits for the first of several waits that share one signal, which is aborted once one of them
 * settled (the others then resolve at once and are ignored); `outer` aborting aborts them all.
 *
 * @returns the first value, or undefined when `outer` aborted or the first value was undefined
 */
async function firstOf<T>(outer: AbortSignal, waits: (signal: AbortSignal) => Array<Promise<T | undefined>>): Promise<T | undefined> {
  if (outer.aborted) return undefined;
  const inner = new AbortController();
  const abort = (): void => inner.abort();
  outer.addEventListener('abort', abort, { once: true });
  try {
    return await Promise.race(waits(inner.signal));
  } finally {
    outer.removeEventListener('abort', abort);
    inner.abort();
  }
}

/**
 * Every run of a chain that got a new revision or joined the chain (a continuation or
 * restart), after each wake-up; oldest first (created at, then run id). Live only (docs/GRAPHQL-CONTRACT.md
 * `workflowRunLineageUpdated`).
 *
 * @param rootRunId must name a root run
 * @returns the stream of run records
 * @throws StoreError(not_found) `Workflow run not found: <rootRunId>`;
 *   StoreError(validation) `Workflow run is not a root run: <rootRunId>` — at once
 */
export function followChainUpdates(
  feed: FeedSource,
  store: WorkflowStore,
  rootRunId: string,
  options: FollowOptions = {},
): AsyncIterableIterator<WorkflowRunRecord> {
  const root = store.getWorkflowRun(rootRunId);
  if (root === undefined) throw notFound(rootRunId);
  if (root.rootRunId !== root.runId) {
    throw new StoreError('validation', `Workflow run is not a root run: ${rootRunId}`, 'rootRunId');
  }
  // Taken now, at subscribe time: every change after this moment is reported.
  let tick = feed.ticks;
  let known = store.chainViewerHeads(rootRunId);
  return stream<WorkflowRunRecord>(options.signal, async (push, aborted) => {
    while (!aborted.aborted) {
      // false once the feed closed (server shutdown): waiting again would return at once.
      if (!(await feed.waitForChange(tick, aborted))) return;
      tick = feed.ticks;
      const heads = store.chainViewerHeads(rootRunId);
      const changed = [...heads].filter(([runId, revision]) => known.get(runId) !== revision).map(([runId]) => runId);
      known = heads;
      if (changed.length === 0) continue;
      const runs = store
        .getWorkflowRuns(changed)
        .filter((run): run is WorkflowRunRecord => run !== undefined)
        .sort((a, b) => (a.createdAt === b.createdAt ? (a.runId < b.runId ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1));
      for (const run of runs) {
        if (aborted.aborted) return;
        await push(run);
      }
    }
  });
}
