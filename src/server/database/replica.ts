/**
 * Replica mode (`--replica <primary URL>`, docs/DEPLOYMENT.md "Read replicas"): the server serves
 * a read-only copy of the primary's file that another tool (Litestream) keeps up to date. The
 * store follows the file (`ReplicaFollower`: commits applied in place, a copy renamed over the
 * path); this module only measures how far behind the primary the copy is, by polling the
 * primary's `GET /health` for the position of its run change log.
 */
import type { ReplicaFileState, ReplicaFollower } from '../../store/index.js';

/** Default of `--replica-poll-ms`: how often the primary's `/health` is read, ms. */
export const DEFAULT_REPLICA_POLL_MS = 1_000;

/** Most answers of the primary kept while the replica has not reached them (the oldest go first). */
const MAX_MISSING = 10_000;

/** Longest wait for the primary's `/health` answer, ms. */
const PRIMARY_TIMEOUT_MS = 5_000;

/** The `ForbiddenError` text of every mutation on a replica (docs/GRAPHQL-CONTRACT.md "Access"). */
export function replicaReadOnlyMessage(primaryUrl: string): string {
  return `The server is a read-only replica: send mutations to the primary at ${primaryUrl}`;
}

/** What `/health` shows under `replica` (all positions are of the run change log, docs/PROTOCOL.md "workflowRunChanges"). */
export interface ReplicaHealth {
  /** The primary's URL as given to `--replica`. */
  primary: string;
  /** The database id of the file served (the one every change-feed cursor carries). */
  databaseId: string;
  /** The newest run change position of the file served. */
  position: number;
  /** The primary's newest position at its last answer, or null before one. */
  primaryPosition: number | null;
  /** The primary's database id at its last answer, or null. */
  primaryDatabaseId: string | null;
  /** ISO time of the primary's last answer, or null. */
  primaryCheckedAt: string | null;
  /** Why the last look at the primary failed, or null when it answered. */
  primaryError: string | null;
  /**
   * `primaryPosition − position` (0 when the replica is at or past it), or null when unknown
   * (no answer yet, or another database id: the copy is not of that primary).
   */
  positionsBehind: number | null;
  /**
   * Seconds since the primary first reported a position this replica does not hold yet: the
   * oldest change the replica is known to miss is at least this old (it may be older by up to
   * one poll interval, the time between two looks at the primary). 0 while the replica holds
   * the primary's last-read position; null while that is unknown (see {@link positionsBehind}).
   */
  lagSeconds: number | null;
  /** Times the file was replaced (rename) and reopened. */
  reopens: number;
  /** ISO time of the latest reopen, or null. */
  lastReopenAt: string | null;
  /** How long the latest reopen took, ms, or null. */
  lastReopenMs: number | null;
  /** The latest failed reopen's message, or null. */
  reopenError: string | null;
}

/** The replica's view of itself and of its primary. */
export interface ReplicaStatus {
  /** What `/health` shows (see {@link ReplicaHealth}). */
  health(): ReplicaHealth;
  /** Reads the primary's `/health` once now (the timer does the same). */
  pollPrimary(): Promise<void>;
  /** Stops polling. */
  close(): void;
}

/** Options of {@link createReplicaStatus}. */
export interface ReplicaStatusOptions {
  /** The primary's URL (its `/graphql` endpoint or its origin; `/health` is read at its origin). */
  primaryUrl: string;
  /** Bearer token for the primary's `/health` (its details are behind its token), or null. */
  primaryToken: string | null;
  /** How often to poll, ms. */
  pollMs: number;
  /** Epoch ms now. */
  now: () => number;
  /**
   * Told each change of the replica's standing at a look at the primary: `caught-up` (it holds
   * the primary's position), `behind`, or `unknown` (no answer, another database); the server
   * logs them.
   */
  onStanding?: (standing: 'caught-up' | 'behind' | 'unknown', health: ReplicaHealth) => void;
}

/**
 * Starts polling the primary's `/health` every `pollMs` (the timer does not keep the process
 * alive). A primary that does not answer, answers without `database.runChanges`, or is of
 * another database id leaves {@link ReplicaHealth.positionsBehind} null and says why in
 * `primaryError`.
 */
export function createReplicaStatus(follower: ReplicaFollower, options: ReplicaStatusOptions): ReplicaStatus {
  const healthUrl = new URL('/health', options.primaryUrl).toString();
  let primary: { databaseId: string; position: number; at: number } | null = null;
  let primaryError: string | null = null;
  /** False after a look at the primary failed: its last position is then no measure of lag. */
  let primaryAnswered = false;
  /**
   * The primary's answers with a position the replica did not hold yet, oldest first (positions
   * increasing): the first one's time is when the oldest missing change was first seen.
   */
  let missing: Array<{ position: number; at: number }> = [];
  let closed = false;
  let standing: 'caught-up' | 'behind' | 'unknown' | undefined;

  /** Positions behind and lag (see {@link ReplicaHealth}); forgets the answers the replica has reached. */
  function compare(state: ReplicaFileState): { behind: number | null; lagSeconds: number | null } {
    if (primary === null || !primaryAnswered || primary.databaseId !== state.head.databaseId) return { behind: null, lagSeconds: null };
    missing = missing.filter((seen) => seen.position > state.head.head);
    const oldest = missing[0];
    return { behind: Math.max(0, primary.position - state.head.head), lagSeconds: oldest === undefined ? 0 : (options.now() - oldest.at) / 1000 };
  }

  async function pollPrimary(): Promise<void> {
    try {
      const response = await fetch(healthUrl, {
        headers: options.primaryToken === null ? {} : { authorization: `Bearer ${options.primaryToken}` },
        signal: AbortSignal.timeout(PRIMARY_TIMEOUT_MS),
      });
      const body = (await response.json()) as { database?: { runChanges?: { databaseId?: unknown; head?: unknown } } };
      const runChanges = body.database?.runChanges;
      if (typeof runChanges?.databaseId !== 'string' || typeof runChanges.head !== 'number') {
        throw new Error(`answered ${response.status} without database.runChanges (a token for it missing?)`);
      }
      if (primary !== null && primary.databaseId !== runChanges.databaseId) missing = [];
      primary = { databaseId: runChanges.databaseId, position: runChanges.head, at: options.now() };
      primaryError = null;
      primaryAnswered = true;
      const last = missing.at(-1);
      if (last === undefined || runChanges.head > last.position) missing.push({ position: runChanges.head, at: primary.at });
      if (missing.length > MAX_MISSING) missing.shift();
      if (closed) return;
      const state = follower.state();
      compare(state);
      if (primary.databaseId !== state.head.databaseId) {
        primaryError = `the primary serves database ${primary.databaseId}, this replica ${state.head.databaseId}`;
      }
    } catch (error) {
      primaryAnswered = false;
      primaryError = `${healthUrl}: ${(error as Error).message}`;
    }
    if (closed) return;
    const health = status.health();
    const now = health.positionsBehind === null ? 'unknown' : health.positionsBehind === 0 ? 'caught-up' : 'behind';
    if (now !== standing) {
      standing = now;
      options.onStanding?.(now, health);
    }
  }

  const status: ReplicaStatus = {
    health() {
      const state = follower.state();
      const { behind, lagSeconds } = compare(state);
      return {
        primary: options.primaryUrl,
        databaseId: state.head.databaseId,
        position: state.head.head,
        primaryPosition: primary?.position ?? null,
        primaryDatabaseId: primary?.databaseId ?? null,
        primaryCheckedAt: primary === null ? null : new Date(primary.at).toISOString(),
        primaryError,
        positionsBehind: behind,
        lagSeconds,
        reopens: state.reopens,
        lastReopenAt: state.lastReopenAt === null ? null : new Date(state.lastReopenAt).toISOString(),
        lastReopenMs: state.lastReopenMs,
        reopenError: state.lastError,
      };
    },
    pollPrimary,
    close() {
      closed = true;
      clearInterval(timer);
    },
  };
  const timer = setInterval(() => void pollPrimary(), options.pollMs);
  timer.unref();
  void pollPrimary();
  return status;
}
