import type { LeaseExpiryPage, RunChangePage } from './run-change-read-cache.js';
import type { LeaseExpiryRequest, ViewerDeltaRead } from '../store/index.js';

/**
 * What the feed's streams (`feed-follow.ts`, `feed-run-changes.ts`) use of the `ChangeFeed`
 * that calls them: its shared reads and its wake-ups. Types only, so that those modules need not
 * import `change-feed.ts`, which imports them; `ChangeFeed` is one.
 */
export interface FeedSource {
  /** Number of wake-ups processed (`ChangeFeed.ticks`). */
  readonly ticks: number;
  /** The delta log after a cursor, the read shared between subscribers (`ChangeFeed.readDeltas`). */
  readDeltas(runId: string, afterRevision: number, limit: number, knownHead?: number): ViewerDeltaRead | undefined;
  /** The run change log after a position, the read shared between followers (`ChangeFeed.readRunChanges`). */
  readRunChanges(afterSeq: number, limit: number, at?: number): RunChangePage;
  /** Lease expiries of a window, the read shared between followers (`ChangeFeed.readLeaseExpiries`). */
  readLeaseExpiries(request: LeaseExpiryRequest, databaseId: string): LeaseExpiryPage;
  /** The lease clock, epoch ms (`ChangeFeed.leaseNow`). */
  readonly leaseNow: number;
  /** True once the lease clock reached `at`; false on abort or close (`ChangeFeed.waitForLeaseTime`). */
  waitForLeaseTime(at: number, signal?: AbortSignal): Promise<boolean>;
  /** The run's revision once above `after`, or a hand-over instead; undefined on abort or close (`ChangeFeed.waitForRevision`). */
  waitForRevision(runId: string, after: number, signal?: AbortSignal, handOver?: (head: number) => number | undefined): Promise<number | undefined>;
  /** True once a wake-up after `sinceTick` was processed; false on abort or close (`ChangeFeed.waitForChange`). */
  waitForChange(sinceTick: number, signal?: AbortSignal): Promise<boolean>;
}
