/**
 * Following a chain on the server (docs/PROTOCOL.md "Following a chain"; docs/GRAPHQL-CONTRACT.md
 * `workflowRunChainDeltas`), called through `ChangeFeed.followChain`: the viewer deltas of the
 * chain's current latest run, and a `moved` event when a continuation or a restart becomes the
 * latest run, after which the stream follows that run.
 *
 * Each step, after a wake-up of the feed (any commit, this process's or another's): first the
 * revisions of the run followed after the cursor, read from the durable log, in order, each once
 * (a `snapshot_required` when the cursor cannot be served); then, when the chain's latest run is
 * another one, `moved` with that run as of its current revision (record and revision read in one
 * snapshot), and the stream goes on after that revision. Every event carries a cursor naming the
 * run and the revision it leaves the follower at (`chain-cursor.ts`), so a resume with it neither
 * misses nor repeats anything: the remaining revisions of the run it names, then the move if the
 * chain moved meanwhile (straight to the latest run, however many runs joined since).
 */
import { StoreError, type LineageKind, type ViewerDeltaBatch, type WorkflowRunRecord, type WorkflowStore } from '../store/index.js';
import { decodeChainCursor, encodeChainCursor } from './chain-cursor.js';
import { stream, type FollowOptions } from './feed-follow.js';
import type { FeedSource } from './feed-source.js';

/** Revisions read from the log per step. */
const READ_PAGE = 64;

/** One event of {@link followChain}. */
export type ChainEvent =
  /** One revision of the run followed (the same batch object as `workflowRunDeltas` delivers). */
  | { kind: 'chain_batch'; cursor: string; batch: ViewerDeltaBatch }
  /**
   * Reload `run` (as of `currentRevision`) and go on after it: the first event without a cursor,
   * or when the cursor cannot be served from the retained log.
   */
  | { kind: 'chain_snapshot_required'; cursor: string; runId: string; currentRevision: number; retainedFromRevision: number; run: WorkflowRunRecord }
  /**
   * A continuation or restart became the chain's latest run: the stream follows it from
   * `currentRevision` (`run` is that run as of it).
   */
  | { kind: 'chain_moved'; cursor: string; fromRunId: string; runId: string; lineageKind: LineageKind; currentRevision: number; run: WorkflowRunRecord };

/**
 * The chain of `runId` (any of its runs), followed from `after` (see the module comment).
 *
 * @param after a cursor of a previous event, or null: the first event is then a
 *   `chain_snapshot_required` of the chain's latest run
 * @returns the stream (lazy: nothing is read before the first pull)
 * @throws StoreError(not_found) `Workflow run not found: <runId>`; StoreError(validation, field
 *   `after`) `MALFORMED_CHAIN_CURSOR`, or `Chain cursor names a run of another chain: <runId>` —
 *   all at once, from this call
 */
export function followChain(
  feed: FeedSource,
  store: WorkflowStore,
  runId: string,
  after: string | null,
  options: FollowOptions = {},
): AsyncIterableIterator<ChainEvent> {
  const decoded = after === null ? undefined : decodeChainCursor(after);
  const named = store.getWorkflowRun(runId);
  if (named === undefined) throw new StoreError('not_found', `Workflow run not found: ${runId}`);
  const rootRunId = named.rootRunId;
  const latestRun = (): string => store.latestRunIdsOfChains([rootRunId])[0] ?? rootRunId;
  let current = latestRun();
  /** The last revision of `current` the follower has; undefined: it needs a snapshot. */
  let cursor: number | undefined;
  if (decoded !== undefined) {
    const cursorRun = store.getWorkflowRun(decoded.runId);
    if (cursorRun !== undefined && cursorRun.rootRunId !== rootRunId) {
      throw new StoreError('validation', `Chain cursor names a run of another chain: ${decoded.runId}`, 'after');
    }
    // A run this file does not hold (another database): reload from a snapshot of the latest run.
    if (cursorRun !== undefined) {
      current = decoded.runId;
      cursor = decoded.revision;
    }
  }
  // The tick before the first read: a commit after it wakes the stream.
  let tick = feed.ticks;
  const cursorOf = (run: string, revision: number): string => encodeChainCursor({ runId: run, revision });
  return stream<ChainEvent>(options.signal, async (push, aborted) => {
    let readNow = true;
    while (!aborted.aborted) {
      // false once the feed closed (server shutdown): waiting again would return at once.
      if (!readNow && !(await feed.waitForChange(tick, aborted))) return;
      tick = feed.ticks;
      readNow = false;
      // The head read now: the shared read cache serves what it holds up to a head it is told of.
      const read = cursor === undefined ? undefined : feed.readDeltas(current, cursor, READ_PAGE, store.viewerHead(current)?.currentRevision);
      if (cursor === undefined || read === undefined || read.kind === 'snapshot_required') {
        const head = store.runAtViewerHead(current);
        if (head === undefined) return;
        const { currentRevision, retainedFromRevision, run } = head;
        await push({ kind: 'chain_snapshot_required', cursor: cursorOf(current, currentRevision), runId: current, currentRevision, retainedFromRevision, run });
        cursor = currentRevision;
      } else {
        for (const batch of read.batches) {
          if (aborted.aborted) return;
          await push({ kind: 'chain_batch', cursor: cursorOf(current, batch.presentationRevision), batch });
          cursor = batch.presentationRevision;
        }
        if (read.batches.length === READ_PAGE) {
          readNow = true;
          continue;
        }
      }
      const latest = latestRun();
      if (latest !== current && !aborted.aborted) {
        const head = store.runAtViewerHead(latest);
        if (head === undefined) return;
        const { currentRevision, run } = head;
        const fromRunId = current;
        current = latest;
        cursor = currentRevision;
        await push({
          kind: 'chain_moved',
          cursor: cursorOf(latest, currentRevision),
          fromRunId,
          runId: latest,
          lineageKind: run.lineageKind ?? 'continuation',
          currentRevision,
          run,
        });
        // The new run may already have revisions after the one the move stands for.
        readNow = true;
      }
    }
  });
}
