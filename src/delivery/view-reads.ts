/**
 * The reads of a run's view that its followers share (docs/PROTOCOL.md "Following a run's
 * view", docs/OPERATIONS.md "Workers"): one read per follower position and presentation
 * revision, in this process and, through {@link ViewReadPeers}, across the worker processes of
 * one server — the worker that reads a run's view for the others answers their followers too.
 *
 * An event read after positions P at revision R serves every follower at P that needs a
 * revision of at least R' ≤ R: it brings each from P to the positions it carries, whatever woke
 * it. So a cached event is reused while it is new enough, and read again once a later revision
 * was committed; what an event holds never depends on who asked for it.
 */
import type { ViewPositions } from '../store/index.js';
import type { RunViewEvent } from './feed-view.js';

/**
 * The other worker processes of this server, as the change feed sees them: which runs another
 * worker reads, and asking it. The cluster's worker link implements it (src/server/cluster/).
 */
export interface ViewReadPeers {
  /** True when another worker reads `runId`'s view for this one (false: this process reads it). */
  readsElsewhere(runId: string): boolean;
  /**
   * Asks the worker that reads `runId`'s view for the changes after `since` at a revision of at
   * least `atLeast`.
   *
   * @returns the event (`changed`; undefined for a run it does not know), or `unanswered` when
   *   the worker could not answer in time, exited, or found a reset due (a reset is a whole
   *   view: the follower's own process reads it)
   */
  request(runId: string, since: ViewPositions, atLeast: number): Promise<{ event: RunViewEvent | undefined } | 'unanswered'>;
}

/** The revision a follower stands at after `event`. */
export function revisionAfter(event: RunViewEvent): number {
  return event.kind === 'reset' ? event.read.positions.revision : event.positions.revision;
}

/** One cached read: the event, or the answer still to come from a peer. */
interface CachedRead {
  /** The revision the event brings its follower to (for a pending one: the revision asked for). */
  revision: number;
  value: RunViewEvent | Promise<RunViewEvent | undefined>;
}

/** Runs whose reads are kept (a reset holds up to 256 items of each list); the least recently read run is dropped beyond this. */
const MAX_RUNS = 128;

/**
 * Reads of run views by follower positions: the newest read per position of each run, dropped
 * once a newer revision of the run was read at any position (followers left behind read again).
 */
export class ViewReadCache {
  /** runId → positions key → read; a Map in least-recently-read order of runs. */
  private readonly runs = new Map<string, Map<string, CachedRead>>();

  /**
   * The cached read for `key` when it brings a follower to `atLeast` or later (a pending peer
   * answer asked for `atLeast` or later counts); undefined otherwise.
   */
  get(runId: string, key: string, atLeast: number): CachedRead['value'] | undefined {
    const reads = this.runs.get(runId);
    const read = reads?.get(key);
    if (reads === undefined || read === undefined || read.revision < atLeast) return undefined;
    this.runs.delete(runId);
    this.runs.set(runId, reads);
    return read.value;
  }

  /** Keeps `value` for `key`; drops the run's reads at older revisions. */
  set(runId: string, key: string, revision: number, value: CachedRead['value']): void {
    let reads = this.runs.get(runId);
    if (reads === undefined) reads = new Map();
    else this.runs.delete(runId);
    for (const [other, read] of reads) if (read.revision < revision && !(read.value instanceof Promise)) reads.delete(other);
    reads.set(key, { revision, value });
    this.runs.set(runId, reads);
    if (this.runs.size > MAX_RUNS) this.runs.delete(this.runs.keys().next().value as string);
  }

  /** Forgets `key`'s read if it is still `value` (a peer's answer that did not come). */
  forget(runId: string, key: string, value: CachedRead['value']): void {
    const reads = this.runs.get(runId);
    if (reads?.get(key)?.value === value) reads.delete(key);
  }
}
