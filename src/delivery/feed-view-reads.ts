/**
 * The change feed's view reads (docs/PROTOCOL.md "Following a run's view", docs/OPERATIONS.md
 * "Workers"): a view follower's next event, read once for every follower at the same positions
 * (view-reads.ts `ViewReadCache`), in this process or, when another worker reads the run's view,
 * in that one.
 */
import { positionsKey, readViewEvent, type RunViewEvent, type ViewChangesRead } from './feed-view.js';
import { revisionAfter, ViewReadCache, type ViewReadPeers } from './view-reads.js';
import type { ViewPositions, WorkflowStore } from '../store/index.js';

/** The view reads of one feed, and its peers when the server has several workers. */
export class FeedViewReads {
  private readonly store: WorkflowStore;
  /** The feed's state: a peer's answer that comes after close is dropped. */
  private readonly wakeUps: { readonly closed: boolean };
  /** The view reads followers share, by run and follower positions (see {@link read}). */
  private readonly viewReads = new ViewReadCache();
  /** The other workers of this server, when it has several (see {@link share}). */
  private peers: ViewReadPeers | undefined;
  /** Reads of a view this process made (not served from {@link viewReads} or by a peer). */
  private readCount = 0;

  constructor(store: WorkflowStore, wakeUps: { readonly closed: boolean }) {
    this.store = store;
    this.wakeUps = wakeUps;
  }

  /**
   * Shares view reads with the other worker processes of this server from now on: a run's
   * view is read by one worker (`peers.readsElsewhere`), whose answers the others' followers
   * take (docs/OPERATIONS.md "Workers").
   */
  share(peers: ViewReadPeers): void {
    this.peers = peers;
  }

  /** How many times this process read a run's view for its followers or a peer's. */
  get readsMade(): number {
    return this.readCount;
  }

  /**
   * A view follower's next event after `since` (`feed-view.ts` `readViewEvent`) at presentation
   * revision `atLeast` or later: one read, and one event object, for every follower at the same
   * positions (`view-reads.ts`), in this process or, when another worker reads the run's view,
   * in that one (then a promise of its answer; a reset, a whole view, is read here).
   */
  readonly read: ViewChangesRead = (runId, since, atLeast) => {
    const key = positionsKey(runId, since);
    const cached = this.viewReads.get(runId, key, atLeast);
    if (cached !== undefined) return cached;
    const peers = this.peers;
    if (since === null || peers === undefined || !peers.readsElsewhere(runId)) return this.readView(runId, since, key);
    const answer: Promise<RunViewEvent | undefined> = peers.request(runId, since, atLeast).then((answered) => {
      if (this.wakeUps.closed) return undefined;
      if (answered === 'unanswered') {
        this.viewReads.forget(runId, key, answer);
        return this.readView(runId, since, key);
      }
      if (answered.event !== undefined) this.viewReads.set(runId, key, revisionAfter(answered.event), answered.event);
      return answered.event;
    });
    this.viewReads.set(runId, key, atLeast, answer);
    return answer;
  };

  /**
   * A peer's request for a view follower's next event (src/server/cluster/): the shared read
   * of {@link read}, read here.
   *
   * @returns the event; `reset` when a whole view is due (the peer reads that itself); undefined for an unknown run
   */
  readForPeer(runId: string, since: ViewPositions, atLeast: number): RunViewEvent | 'reset' | undefined {
    const key = positionsKey(runId, since);
    const cached = this.viewReads.get(runId, key, atLeast);
    const event = cached === undefined || cached instanceof Promise ? this.readView(runId, since, key) : cached;
    return event?.kind === 'reset' ? 'reset' : event;
  }

  /** Reads a follower's next event in this process and keeps it for the others at `key`. */
  private readView(runId: string, since: ViewPositions | null, key: string): RunViewEvent | undefined {
    const event = readViewEvent(this.store, runId, since);
    this.readCount += 1;
    if (event !== undefined) this.viewReads.set(runId, key, revisionAfter(event), event);
    return event;
  }
}
