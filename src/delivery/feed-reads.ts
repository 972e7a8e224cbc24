/**
 * The change feed's shared reads of the durable logs (the read step of src/delivery/index.ts):
 * the viewer-delta log (delta-read-cache.ts), the run change log and the lease expiries
 * (run-change-read-cache.ts). Followers at the same position get one read and the same event
 * objects; the SQL is the store's.
 */
import { DeltaReadCache } from './delta-read-cache.js';
import { RunChangeReadCache, type LeaseExpiryPage, type RunChangePage } from './run-change-read-cache.js';
import type { LeaseExpiryRequest, ViewerDeltaRead, WorkflowStore } from '../store/index.js';

/** The read caches of one feed; replaced (emptied) when a replica's file is reopened. */
export class FeedReads {
  private readonly store: WorkflowStore;
  /** The wake-ups processed: a run-change page is shared within one wake-up. */
  private readonly wakeUps: { readonly ticks: number };
  private deltas: DeltaReadCache;
  private runChanges: RunChangeReadCache;

  constructor(store: WorkflowStore, wakeUps: { readonly ticks: number }) {
    this.store = store;
    this.wakeUps = wakeUps;
    this.deltas = this.newDeltaReadCache();
    this.runChanges = this.newRunChangeReadCache();
  }

  /**
   * Reads the delta log after a cursor like `WorkflowStore.readViewerDeltas`, sharing the read
   * between subscribers at the same cursor (see {@link DeltaReadCache}).
   *
   * @param knownHead a committed revision the caller was woken with, if any
   */
  readDeltas(runId: string, afterRevision: number, limit: number, knownHead?: number): ViewerDeltaRead | undefined {
    return this.deltas.read(runId, afterRevision, limit, knownHead);
  }

  /**
   * Reads the run change log after a position like `WorkflowStore.readRunChanges`, sharing the
   * read and its event objects between followers at the same position during one wake-up (see
   * {@link RunChangeReadCache}).
   *
   * @param afterSeq a position of the log (≥ 0)
   * @param limit at most this many runs
   * @param at the lease clock the records are read at, epoch ms
   */
  readRunChanges(afterSeq: number, limit: number, at: number): RunChangePage {
    return this.runChanges.read(afterSeq, limit, at);
  }

  /**
   * The lease expiries of a window (`WorkflowStore.readLeaseExpiries`), the read and its event
   * objects shared between followers during one wake-up (see {@link RunChangeReadCache}).
   *
   * @param databaseId the database identity the events' cursors carry
   */
  readLeaseExpiries(request: LeaseExpiryRequest, databaseId: string): LeaseExpiryPage {
    return this.runChanges.readLeaseExpiries(request, databaseId);
  }

  /** Empties the caches (a replica's file was replaced: what they hold was read from the old one). */
  reset(): void {
    this.deltas = this.newDeltaReadCache();
    this.runChanges = this.newRunChangeReadCache();
  }

  private newDeltaReadCache(): DeltaReadCache {
    return new DeltaReadCache((runId, afterRevision, limit) => this.store.readViewerDeltas(runId, afterRevision, limit));
  }

  private newRunChangeReadCache(): RunChangeReadCache {
    return new RunChangeReadCache(
      (afterSeq, limit, at) => this.store.readRunChanges(afterSeq, limit, at),
      (request) => this.store.readLeaseExpiries(request),
      () => this.wakeUps.ticks,
    );
  }
}
