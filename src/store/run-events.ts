import { isUniqueViolation } from './connection.js';
import { StoreError } from './errors.js';
import type { StoreContext } from './store-context.js';
import { newEventId, tokenHash } from './values.js';
import { BUMP_TARGETS, type ViewerDeltaDraft } from './viewer-deltas.js';

/** Actor types of events (docs/STORE-RULES.md §3.5). */
export type ActorType = 'session' | 'host' | 'controller' | 'channel' | 'human' | 'policy' | 'control' | 'system';

/** Who caused an event. */
export interface EventActor {
  type: ActorType;
  id: string | null;
  /** Lease generation at the time; 0 or absent is stored as NULL (docs/STORE-RULES.md §3.5). */
  generation?: number;
}

/** The lease fields a transition needs. */
export interface LeaseState {
  resource_id: string;
  generation: number;
  owner_type: string | null;
  owner_id: string | null;
  token_hash: Buffer | null;
  expires_at: number | null;
}

/** Owner type of a run claim: `host` for runner ids starting with `host-`, else `session` (docs/STORE-RULES.md §5). */
export function ownerTypeFor(runnerId: string): 'host' | 'session' {
  return runnerId.startsWith('host-') ? 'host' : 'session';
}

/** The lease owner as an event actor: owner type (or `system` when none), owner id, generation. */
export function ownerActor(lease: LeaseState): EventActor {
  return { type: (lease.owner_type ?? 'system') as ActorType, id: lease.owner_id, generation: lease.generation };
}

/** Reads a resource's lease row. */
export function readLease(context: StoreContext, resourceId: string): LeaseState {
  const lease = context.database.get<LeaseState>(
    'SELECT resource_id, generation, owner_type, owner_id, token_hash, expires_at FROM leases WHERE resource_id = ?',
    resourceId,
  );
  if (lease === undefined) throw new StoreError('integrity', `Lease is missing for resource: ${resourceId}`);
  return lease;
}

/**
 * True iff the lease is owned, has an expiry, its token hash equals SHA-256(token) and it has
 * not expired at `now` (docs/STORE-RULES.md §5 "Claim verification"; generation not compared).
 */
export function leaseVerifies(lease: LeaseState, claimToken: string, now: number): boolean {
  return (
    lease.owner_id !== null &&
    lease.expires_at !== null &&
    lease.token_hash !== null &&
    lease.token_hash.equals(tokenHash(claimToken)) &&
    lease.expires_at > now
  );
}

/**
 * Inserts one event (docs/STORE-RULES.md §3.5) with a JSON payload blob.
 *
 * @param revision the resource revision this event created
 * @param now epoch ms
 */
export function insertEvent(
  context: StoreContext,
  resourceId: string,
  revision: number,
  eventType: string,
  actor: EventActor,
  payload: unknown,
  now: number,
): void {
  const payloadHash = context.blobs.putJson(payload, now);
  context.database.run(
    `INSERT INTO events(event_id, resource_id, resource_revision, event_type, actor_type, actor_id, lease_generation,
       payload_hash, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    newEventId(),
    resourceId,
    revision,
    eventType,
    actor.type,
    actor.id,
    actor.generation === undefined || actor.generation === 0 ? null : actor.generation,
    payloadHash,
    now,
  );
}

/**
 * Bumps a resource's revision by one (compare-and-set) and writes one event at the new
 * revision (docs/PI-WORKFLOWS-FILES.md §4 "Resource bump"), without viewer deltas: the bump of
 * a resource that is not a run (an effect).
 *
 * @param now epoch ms
 * @returns the new resource revision
 * @throws StoreError(integrity) `Resource is missing: <resourceId>`; StoreError(conflict)
 *   `Resource revision conflict`
 */
export function bumpResource(context: StoreContext, resourceId: string, eventType: string, actor: EventActor, payload: unknown, now: number): number {
  const current = context.database.get<{ revision: number }>('SELECT revision FROM resources WHERE resource_id = ?', resourceId);
  if (current === undefined) throw new StoreError('integrity', `Resource is missing: ${resourceId}`);
  const updated = context.database.run(
    'UPDATE resources SET revision = revision + 1, updated_at = ? WHERE resource_id = ? AND revision = ?',
    now,
    resourceId,
    current.revision,
  );
  if (updated.changes !== 1) throw new StoreError('conflict', 'Resource revision conflict');
  const revision = current.revision + 1;
  insertEvent(context, resourceId, revision, eventType, actor, payload, now);
  return revision;
}

/**
 * Bumps a run's resource revision by one (compare-and-set), writes one event at the new
 * revision, and records the bump viewer revision (summary, graph, replay, inspector/run) when
 * the run has a viewer row (docs/STORE-RULES.md §5 "Bump", docs/PI-WORKFLOWS-FILES.md §4). Then records
 * `after` as a second viewer revision when given (docs/STORE-RULES.md §8 table, "bump, then X").
 *
 * @param now epoch ms
 * @returns the new resource revision
 * @throws StoreError(conflict) `Resource revision conflict`
 */
export function bumpRun(
  context: StoreContext,
  run: { run_id: string; resource_id: string },
  eventType: string,
  actor: EventActor,
  payload: unknown,
  now: number,
  after?: readonly ViewerDeltaDraft[],
): number {
  const revision = bumpResource(context, run.resource_id, eventType, actor, payload, now);
  if (context.viewer.head(run.run_id) !== undefined) {
    context.viewer.record(run.run_id, BUMP_TARGETS, now);
    if (after !== undefined) context.viewer.record(run.run_id, after, now);
  }
  return revision;
}

/**
 * Clears the six owner fields of a lease whose token hash and generation match (and, when
 * `requireLiveAt` is given, whose expiry is after it). Generation stays (docs/STORE-RULES.md §5).
 *
 * @returns true when exactly one row was released
 */
export function releaseLease(context: StoreContext, lease: LeaseState, claimToken: string, requireLiveAt?: number): boolean {
  const released = context.database.run(
    `UPDATE leases SET owner_type = NULL, owner_id = NULL, token_hash = NULL, acquired_at = NULL,
       heartbeat_at = NULL, expires_at = NULL
     WHERE resource_id = ? AND token_hash = ? AND generation = ?${requireLiveAt === undefined ? '' : ' AND expires_at > ?'}`,
    ...[lease.resource_id, tokenHash(claimToken), lease.generation, ...(requireLiveAt === undefined ? [] : [requireLiveAt])],
  );
  return released.changes === 1;
}

/** The summary + replay targets recorded after a bump by most transitions (docs/STORE-RULES.md §8). */
export const SUMMARY_REPLAY: readonly ViewerDeltaDraft[] = [{ targetType: 'summary' }, { targetType: 'replay' }];

/**
 * Runs a write that may give an origin session a second active queue entry (a reservation, a
 * claim, or an interaction timeout moving a parked run to `starting`) and turns a violation of
 * the unique index `run_queue_active_session_idx` into a clear conflict (docs/STORE-RULES.md §3.8). The
 * violation is recognised by SQLite's constraint code (`SQLITE_CONSTRAINT_UNIQUE`), and the
 * index by its own predicate: another queue row of the session holds an active status
 * (never by matching the error text). Any other error is rethrown as it is.
 * The error aborts the operation, so its transaction rolls back and nothing is written.
 *
 * @param sessionId the raw origin session of the row being written
 * @param write one statement on `run_queue` (an INSERT or an UPDATE of its status)
 * @returns what `write` returns
 * @throws StoreError(conflict) `Pi session already has an active workflow run: <sessionId>`
 */
export function withActiveSessionSlot<T>(context: StoreContext, sessionId: string, write: () => T): T {
  try {
    return write();
  } catch (error) {
    if (isUniqueViolation(error) && activeSessionSlotTaken(context, sessionId)) {
      throw new StoreError('conflict', `Pi session already has an active workflow run: ${sessionId}`);
    }
    throw error;
  }
}

/** True when a queue row of `sessionId` is in one of the statuses `run_queue_active_session_idx` covers. */
function activeSessionSlotTaken(context: StoreContext, sessionId: string): boolean {
  return (
    context.database.get("SELECT 1 FROM run_queue WHERE origin_session_id = ? AND status IN ('queued', 'starting', 'running') LIMIT 1", sessionId) !== undefined
  );
}
