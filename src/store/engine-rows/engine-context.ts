/**
 * What every engine-row module works with, and the two things each engine write does on the
 * run: bump its resource with one trace event (the envelope payload pi's engine stores), and
 * record the viewer revision pi's engine records for it (docs/PI-WORKFLOWS-FILES.md §9).
 */
import { BlobStore } from '../blobs.js';
import type { JsonValue } from '../canonical-json.js';
import type { StateDatabase } from '../database.js';
import { StoreError } from '../errors.js';
import type { Clock } from '../values.js';
import { newEventId } from '../values.js';
import { ViewerDeltaLog, type ViewerDeltaDraft } from '../viewer-deltas.js';
import { graphTarget, traceTailTarget } from './engine-viewer.js';

/** The connection, blobs, viewer log and clock of an engine writer. */
export interface EngineContext {
  readonly database: StateDatabase;
  readonly blobs: BlobStore;
  readonly viewer: ViewerDeltaLog;
  readonly clock: Clock;
}

/** Builds the context of a writer over an open database. */
export function engineContext(database: StateDatabase, clock: Clock): EngineContext {
  const blobs = new BlobStore(database);
  return { database, blobs, viewer: new ViewerDeltaLog(database, blobs), clock };
}

/** Where a trace event happened (pi's trace scopes). */
export type EngineTraceScope = 'run' | 'node' | 'agent' | 'action' | 'session';

/** One engine trace event: its scope, type, node and attempt, and its own payload object. */
export interface EngineTraceDraft {
  scope: EngineTraceScope;
  /** e.g. `run_started`, `node_started`, `agent_prompt_sent`, `node_finished`, `run_completed`. */
  type: string;
  nodeId?: string;
  attemptId?: string;
  payload: { [key: string]: JsonValue };
}

/** A trace event as written: the draft with its position (`seq`, the run resource's revision) and time (epoch ms). */
export interface EngineTraceEvent extends EngineTraceDraft {
  seq: number;
  at: number;
}

/** The run row fields the engine writes need. */
export interface EngineRun {
  runId: string;
  resourceId: string;
  status: string;
  definitionHash: Buffer;
}

/**
 * The run's row.
 *
 * @throws StoreError(not_found) `Workflow run not found: <runId>`
 */
export function requireEngineRun(context: EngineContext, runId: string): EngineRun {
  const run = context.database.get<EngineRun>(
    `SELECT r.run_id AS runId, r.resource_id AS resourceId, r.status, d.definition_hash AS definitionHash
     FROM runs r JOIN workflow_definitions d ON d.definition_digest = r.definition_digest WHERE r.run_id = ?`,
    runId,
  );
  if (run === undefined) throw new StoreError('not_found', `Workflow run not found: ${runId}`);
  return run;
}

/**
 * Runs `fn` in one write transaction (`BEGIN IMMEDIATE`, or joining the open one).
 *
 * @throws StoreError(forbidden) `Controller store is read-only` on a read-only database
 */
export function engineWrite<T>(context: EngineContext, fn: (now: number) => T): T {
  if (context.database.readOnly) throw new StoreError('forbidden', 'Controller store is read-only');
  return context.database.transaction(() => fn(context.clock()));
}

/**
 * Bumps the run's resource (revision + 1, `updated_at`, compare-and-set) and inserts the trace
 * event at the new revision, as pi's engine does: actor `system`, no actor id, no lease
 * generation, payload blob = the envelope `{scope, nodeId?, attemptId?, payload}`.
 *
 * @param now epoch ms
 * @throws StoreError(conflict) `Resource revision conflict`
 */
export function appendTrace(context: EngineContext, run: EngineRun, draft: EngineTraceDraft, now: number): EngineTraceEvent {
  const current = context.database.get<{ revision: number }>('SELECT revision FROM resources WHERE resource_id = ?', run.resourceId);
  if (current === undefined) throw new StoreError('integrity', `Resource is missing: ${run.resourceId}`);
  const updated = context.database.run(
    'UPDATE resources SET revision = revision + 1, updated_at = ? WHERE resource_id = ? AND revision = ?',
    now,
    run.resourceId,
    current.revision,
  );
  if (updated.changes !== 1) throw new StoreError('conflict', 'Resource revision conflict');
  const seq = current.revision + 1;
  // pi's engine persists the run state with every trace event: its updated_at is the event's time.
  context.database.run('UPDATE runs SET updated_at = ? WHERE run_id = ?', now, run.runId);
  const envelope = {
    scope: draft.scope,
    ...(draft.nodeId === undefined ? {} : { nodeId: draft.nodeId }),
    ...(draft.attemptId === undefined ? {} : { attemptId: draft.attemptId }),
    payload: draft.payload,
  };
  context.database.run(
    `INSERT INTO events(event_id, resource_id, resource_revision, event_type, actor_type, actor_id, lease_generation, payload_hash, recorded_at)
     VALUES (?, ?, ?, ?, 'system', NULL, NULL, ?, ?)`,
    newEventId(),
    run.resourceId,
    seq,
    draft.type,
    context.blobs.putJson(envelope, now),
    now,
  );
  return { ...draft, seq, at: now };
}

/**
 * Records the viewer revision of an engine trace event as pi's engine does: target `graph` (key
 * `''`) with the run state now, target `timeline` key `trace:tail` appending the event, then
 * `extra` (each patch starts with `replace /presentationRevision`, added by the log).
 *
 * @param now epoch ms
 * @returns the new presentation revision
 */
export function recordRunDeltas(context: EngineContext, runId: string, event: EngineTraceEvent, now: number, extra: ViewerDeltaDraft[] = []): number {
  return context.viewer.record(runId, [graphTarget(context, runId), traceTailTarget(runId, event), ...extra], now);
}

/** A trace event and its viewer revision in one: {@link appendTrace} then {@link recordRunDeltas}. */
export function traceAndRecord(
  context: EngineContext,
  run: EngineRun,
  draft: EngineTraceDraft,
  now: number,
  extra: ViewerDeltaDraft[] = [],
): { event: EngineTraceEvent; revision: number } {
  const event = appendTrace(context, run, draft, now);
  return { event, revision: recordRunDeltas(context, run.runId, event, now, extra) };
}
