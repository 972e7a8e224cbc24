/**
 * Subscription delivery (map written below, after the renames).
 */
export { ChangeFeed, WAKE_CHUNK, type ChangeFeedOptions } from './change-feed.js';
export type { FollowOptions, RunDeltaEvent, ViewerSnapshotEvent } from './feed-follow.js';
export type { RunChangeEvent } from './feed-run-changes.js';
export {
  createSharedEventExecution,
  DEFAULT_MAX_RESULTS_PER_GROUP,
  DIRECT_NEXT_KEY,
  onResultsEnd,
  type DirectNext,
  type SharedEventExecution,
  type SharedEventExecutionOptions,
  type SharedEventExecutionStats,
} from './shared-event-execution.js';
export { eventResultKey, variablesReadPerEvent } from './event-result-key.js';
