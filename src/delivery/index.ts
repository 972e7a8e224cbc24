/**
 * Subscription delivery: from a commit to a subscriber's socket. The rules a client sees are in
 * docs/PROTOCOL.md; this is where each step is done. One word per step:
 *
 * | step | what happens | file |
 * | --- | --- | --- |
 * | wake-up | a commit is noticed (this process's commit hook; another process's through the `-wal` watch and the store's `data_version` probe, src/store/data-version.ts), or the lease clock's one timer reaches an expiry; the run heads are read once and the due waiters woken, {@link WAKE_CHUNK} per turn | `wake-ups.ts` (the wake-up and the change waiters), `commit-watcher.ts` (the `-wal` watch and `data_version` checks), `lease-clock.ts` (the lease clock and its expiry timer), `revision-waiters.ts` (the revision waiters, their heads, the chunks); `abort-hooks.ts` (one abort listener per signal) |
 * | read | a woken stream reads the durable log after its own cursor, through the feed's shared reads (the SQL is the store's: viewer-deltas.ts, run-change-log.ts) | `feed-follow.ts`, `feed-run-changes.ts`, `feed-view.ts`, `feed-chain.ts`; `feed-reads.ts` (`delta-read-cache.ts`, `run-change-read-cache.ts`), `feed-view-reads.ts` (`view-reads.ts`) |
 * | push | the stream gives each event to its consumer's `next()`, one at a time (a slow consumer holds one event and its cursor) | `pull-stream.ts` |
 * | hand-over | the direct route's synchronous push: feed → stream → consumer → socket, inside the wake-up, no promise per subscriber (`handOver` at every leg) | `revision-waiters.ts` `handOverTo`, `feed-follow.ts` `handOverUpTo`, `pull-stream.ts` `handOver`, `shared-event-execution.ts` (the receiver) |
 * | execution | one GraphQL execution per event object and sharing key (document, operation, the variables the selection reads, scope), inside yoga's envelop | `shared-event-execution.ts`, `event-result-key.ts` |
 * | framing | the graphql-ws `next` message of a result: graphql-ws's own on the pulled route, ours on the direct route (the payload serialised once per result) | `ws-next-frames.ts` |
 *
 * `ChangeFeed` (`change-feed.ts`) is what subscriptions call: its follow streams, composed of the
 * wake-up and read pieces above and its listeners (`feed-listeners.ts`: the delivery lag, the
 * waiter count). The streams reach the feed through `FeedSource` (`feed-source.ts`).
 *
 * The pulled route (every subscription, graphql-ws and SSE; replay, snapshots, results with
 * errors, a busy consumer): wake-up → read → push → the subscriber's `next()` through shared
 * execution (`resultOf`) and yoga's envelop → graphql-ws `onNext` returns the payload
 * (`nextPayload`) and graphql-ws frames the message itself, writes corked per turn
 * (`writeBatcher`); SSE writes the result itself (yoga, graphql-sse).
 *
 * The direct route (graphql-ws `workflowRunDeltas` waiting live, consumer waiting in `next()`,
 * previous frame flushed): wake-up → the waiter's hand-over instead of a resolve
 * (`RevisionWaiters.handOverTo`) → the stream reads and hands each batch over (`handOverUpTo`) →
 * shared execution's receiver takes the group's result synchronously (`syncResultOf`) →
 * `DirectNext.handOver` (`directNext`) → `DirectFrames`: the subscription's head bytes and the
 * result's tail bytes, a connection's frames of one turn in one TCP write. Any leg may refuse
 * (a full page, a snapshot, an asynchronous execution, a result with `errors`, a socket not
 * ready): the wait then resolves and the pulled route reads on from the same cursor, so each
 * revision goes one route or the other, once, in order.
 *
 * One event object per revision: every reader of a revision gets the same immutable batch
 * object (`delta-read-cache.ts`), and followers at one run-change position in one wake-up the
 * same change object (`run-change-read-cache.ts`). Shared execution keys results by that
 * object and framing caches the payload per result object, so a revision is read once,
 * executed once per sharing key and serialised once. A second object for the same revision
 * costs a second execution, never a second delivery: what is delivered is decided by each
 * stream's cursor alone.
 *
 * A duplicate or missing delivery is decided in: the stream's cursor (`feed-follow.ts`,
 * `feed-run-changes.ts`), the wake-up's hand-over rules (`revision-waiters.ts` `handOverTo`: a
 * cursor below the head or a later wake-up resolves instead), the one order of pushed and
 * handed-over values (`pull-stream.ts`), the receiver versus `next()` (`shared-event-execution.ts`
 * `eventResults`), and graphql-ws's operation ids (src/server/graphql/ws-operation-ids.ts).
 *
 * One framing of our own: the direct route's (`directNext`, `DirectFrames`); the pulled route
 * leaves framing to graphql-ws. Measured with the fan-out benchmark (`npm run bench -- --quick
 * --only=fanout`, 1,000 and 5,000 subscribers, server CPU per delivery, two runs each on 2
 * shared cores, load ≈ 10): the direct route 6.0–8.5 µs (two runs); with `ws`'s `send`
 * instead of `DirectFrames` 8.3–11.8 µs (one run: direct frames pay ≈ 30 %); the pulled route
 * alone (direct route off) 27.4–32.8 µs with the former marker splicing (the payload serialised
 * once per result, spliced into the text graphql-ws stringified) and 28.6–33.4 µs without it:
 * within the runs' noise at this payload (one timeline delta), so it was removed.
 *
 * Layering: store → delivery → schema → server. This folder imports only src/store/ (its
 * public index) and graphql libraries; no SQL here (src/store/ holds it).
 */
export { ChangeFeed, type ChangeFeedOptions } from './change-feed.js';
export { WAKE_CHUNK } from './revision-waiters.js';
export type { FollowOptions, RunDeltaEvent, ViewerSnapshotEvent } from './feed-follow.js';
export type { RunChangeEvent } from './feed-run-changes.js';
export type { RunViewChangedEvent, RunViewEvent, RunViewResetEvent } from './feed-view.js';
export type { ViewReadPeers } from './view-reads.js';
export type { ChainEvent } from './feed-chain.js';
export { MALFORMED_CHAIN_CURSOR } from './chain-cursor.js';
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
export { DirectFrames, directNext, formatError, nextPayload, payloadJsonOf, payloadTailOf, writeBatcher, type DirectNextConnection } from './ws-next-frames.js';
