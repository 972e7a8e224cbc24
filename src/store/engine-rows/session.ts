/**
 * A run's captured Pi session as pi-workflows' engine writes it (`writeSessionBinding`,
 * `appendSessionEntry`, `appendSessionEventBatch`, `writeSessionCapture`): the run's own
 * segment (`segment-` + 40 hex of SHA-256 of `runId` NUL) with its `session` resource,
 * `session_entries`, `session_events`, and the viewer revisions of each.
 *
 * Not written: attempt-scoped segments and `viewer_session_checkpoints` (pi records a checkpoint
 * of the reduced session every 256 events; our own file has no such table). Keep a capture
 * under 256 events.
 */
import type { JsonValue } from '../canonical-json.js';
import { StoreError } from '../errors.js';
import { runSegmentId } from '../run-view/index.js';
import { iso, newEventId, resourceIdFor } from '../values.js';
import { appendTrace, engineWrite, requireEngineRun, type EngineContext } from './engine-context.js';
import type { EngineWriteResult } from './run-lifecycle.js';
import { graphTarget, tailPatch, traceTailTarget } from './engine-viewer.js';

/** Schemas pi stamps on a binding and a capture. */
export const SESSION_BINDING_SCHEMA = 'pi-workflows.session-binding.v1';
export const SESSION_CAPTURE_SCHEMA = 'pi-workflows.session-capture.v1';
export const SESSION_EVENT_SCHEMA = 'pi-workflows.session-event.v1';

interface SegmentRow {
  segmentId: string;
  resourceId: string;
  sessionId: string;
  status: string;
  entryCount: number;
  eventCount: number;
}

function requireSegment(context: EngineContext, runId: string): SegmentRow {
  const segment = context.database.get<SegmentRow>(
    `SELECT segment_id AS segmentId, resource_id AS resourceId, session_id AS sessionId, status, entry_count AS entryCount, event_count AS eventCount
     FROM session_segments WHERE segment_id = ?`,
    runSegmentId(runId),
  );
  if (segment === undefined) throw new StoreError('not_found', `Session capture segment is missing for run ${runId}`);
  return segment;
}

/** Bumps the session resource and inserts its event (actor `session`, the Pi session id). */
function sessionEvent(context: EngineContext, segment: SegmentRow, eventType: string, payloadHash: Buffer | null, now: number): void {
  const revision = context.database.get<{ revision: number }>('SELECT revision FROM resources WHERE resource_id = ?', segment.resourceId)?.revision as number;
  context.database.run(
    'UPDATE resources SET revision = ?, updated_at = ? WHERE resource_id = ? AND revision = ?',
    revision + 1,
    now,
    segment.resourceId,
    revision,
  );
  context.database.run(
    `INSERT INTO events(event_id, resource_id, resource_revision, event_type, actor_type, actor_id, lease_generation, payload_hash, recorded_at)
     VALUES (?, ?, ?, ?, 'session', ?, NULL, ?, ?)`,
    newEventId(),
    segment.resourceId,
    revision + 1,
    eventType,
    segment.sessionId,
    payloadHash,
    now,
  );
}

/**
 * Binds the run to its Pi session: the binding blob `{schema, runId, piSessionId, cwd, boundAt}`
 * (`boundAt` ISO), the segment's `session` resource (revision 1) and lease (generation 0), the
 * `session_segments` row (`recording`), the event `session.created` on it, `run_bindings` when
 * missing; then the run's trace event `session_bound` `{piSessionId}` (scope `session`) with its
 * viewer revision (graph with `add /session`, `trace:tail`). Binding twice writes nothing.
 *
 * @returns the segment id
 * @throws StoreError(not_found) for an unknown run
 */
export function bindEngineSession(context: EngineContext, input: { runId: string; piSessionId: string; cwd: string }): { segmentId: string } {
  return engineWrite(context, (now) => {
    const run = requireEngineRun(context, input.runId);
    const segmentId = runSegmentId(input.runId);
    if (context.database.get('SELECT 1 FROM session_segments WHERE segment_id = ?', segmentId) !== undefined) return { segmentId };
    const binding = { schema: SESSION_BINDING_SCHEMA, runId: input.runId, piSessionId: input.piSessionId, cwd: input.cwd, boundAt: iso(now) };
    const bindingHash = context.blobs.putJson(binding, now);
    const resourceId = resourceIdFor('session', segmentId);
    context.database.run(
      "INSERT INTO resources(resource_id, resource_type, aggregate_key, revision, created_at, updated_at) VALUES (?, 'session', ?, 1, ?, ?)",
      resourceId,
      segmentId,
      now,
      now,
    );
    context.database.run('INSERT INTO leases(resource_id, generation) VALUES (?, 0)', resourceId);
    context.database.run(
      `INSERT INTO session_segments(segment_id, run_id, attempt_id, capture_key, session_id, resource_id, binding_hash, status, entry_count, event_count, created_at)
       VALUES (?, ?, NULL, NULL, ?, ?, ?, 'recording', 0, 0, ?)`,
      segmentId,
      input.runId,
      input.piSessionId,
      resourceId,
      bindingHash,
      now,
    );
    context.database.run(
      `INSERT INTO events(event_id, resource_id, resource_revision, event_type, actor_type, actor_id, lease_generation, payload_hash, recorded_at)
       VALUES (?, ?, 1, 'session.created', 'session', ?, NULL, ?, ?)`,
      newEventId(),
      resourceId,
      input.piSessionId,
      bindingHash,
      now,
    );
    context.database.run(
      "INSERT INTO run_bindings(run_id, origin_session_id, execution_mode, created_at) VALUES (?, ?, 'interactive', ?) ON CONFLICT(run_id) DO NOTHING",
      input.runId,
      input.piSessionId,
      now,
    );
    const event = appendTrace(context, run, { scope: 'session', type: 'session_bound', payload: { piSessionId: input.piSessionId } }, now);
    const session = {
      binding,
      presentationRevision: 0,
      entryPage: { presentationRevision: 0, start: 0, total: 0, items: [] },
      eventPage: { presentationRevision: 0, start: 0, total: 0, items: [] },
      eventsMalformed: false,
      eventsTornTail: false,
      capture: null,
      replayCheckpoint: null,
    };
    // pi adds the new session to the graph target of the same revision.
    const graph = graphTarget(context, input.runId);
    graph.ops = [...(graph.ops ?? []), { op: 'add', path: '/session', value: session }];
    context.viewer.record(input.runId, [graph, traceTailTarget(input.runId, event)], now);
    return { segmentId };
  });
}

/**
 * Appends one captured Pi session entry (a Pi session JSONL entry object: `type`, `id`,
 * `parentId`, `timestamp`, `message` or `customType`/`content`, …): `session_entries` (the
 * segment's next `entry_seq`, the run's next `run_seq`, `entry_id` = the entry's `id` or
 * `entry-<seq>`), the segment's `entry_count`, the event `session.entry_appended` (no payload)
 * on the session resource; one viewer revision: `conversation` `entries:tail` appending
 * `{seq, at, entry}` and `conversation` `capture` (`/capture/entryCount`). The run's own trace
 * does not move.
 *
 * @returns the entry's `entry_seq` and id, and the viewer revision
 * @throws StoreError(not_found) `Session capture segment is missing for run <runId>`
 */
export function appendEngineSessionEntry(
  context: EngineContext,
  input: { runId: string; entry: { [key: string]: JsonValue } },
): { entrySeq: number; entryId: string; revision: number } {
  return engineWrite(context, (now) => {
    const segment = requireSegment(context, input.runId);
    const entrySeq = segment.entryCount + 1;
    const runSeq = context.database.get<{ n: number }>('SELECT COALESCE(MAX(run_seq), 0) + 1 AS n FROM session_entries WHERE run_id = ?', input.runId)
      ?.n as number;
    const entryId = typeof input.entry.id === 'string' ? input.entry.id : `entry-${entrySeq}`;
    context.database.run(
      'INSERT INTO session_entries(segment_id, run_id, entry_seq, run_seq, entry_id, entry_hash, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      segment.segmentId,
      input.runId,
      entrySeq,
      runSeq,
      entryId,
      context.blobs.putJson(input.entry, now),
      now,
    );
    context.database.run('UPDATE session_segments SET entry_count = ? WHERE segment_id = ?', entrySeq, segment.segmentId);
    sessionEvent(context, segment, 'session.entry_appended', null, now);
    const revision = context.viewer.record(
      input.runId,
      [
        { targetType: 'conversation', targetKey: 'entries:tail', ops: tailPatch(runSeq - 1, [{ seq: runSeq, at: iso(now), entry: input.entry }]) },
        { targetType: 'conversation', targetKey: 'capture', ops: [{ op: 'replace', path: '/capture/entryCount', value: runSeq }] },
      ],
      now,
    );
    return { entrySeq, entryId, revision };
  });
}

/** One captured Pi session event (turn, message, tool execution: pi's `pi-workflows.session-event.v1` record). */
export interface EngineSessionEvent {
  /** `turn_started`, `message_started`, `assistant_event`, `message_finished`, `tool_execution_started`, `tool_execution_finished`, `turn_finished`, … */
  type: string;
  nodeId: string;
  attemptId: string;
  turnId?: string;
  messageId?: string;
  toolCallId?: string;
  payload: { [key: string]: JsonValue };
}

/**
 * Appends a batch of captured session events: `session_events` rows (the segment's next
 * `event_seq`s, the run's next `run_seq`s, `recorded_at` = now), the segment's `event_count`;
 * one viewer revision: `timeline` `session:tail` appending the events and `conversation`
 * `capture` (`/capture/eventCount`, `/capture/lastEventSeq`). No event row, no resource bump.
 *
 * @throws StoreError(not_found) for a run without a segment; StoreError(conflict) `Session event
 *   capture has stopped` once the capture finished
 */
export function appendEngineSessionEvents(context: EngineContext, input: { runId: string; events: EngineSessionEvent[] }): EngineWriteResult {
  return engineWrite(context, (now) => {
    const segment = requireSegment(context, input.runId);
    if (segment.status !== 'recording') throw new StoreError('conflict', 'Session event capture has stopped');
    const firstRunSeq = context.database.get<{ n: number }>('SELECT COALESCE(MAX(run_seq), 0) + 1 AS n FROM session_events WHERE run_id = ?', input.runId)
      ?.n as number;
    const items: JsonValue[] = input.events.map((event, index) => {
      context.database.run(
        `INSERT INTO session_events(segment_id, run_id, event_seq, run_seq, event_type, node_id, attempt_id, turn_id, message_id, tool_call_id, payload_hash, recorded_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        segment.segmentId,
        input.runId,
        segment.eventCount + index + 1,
        firstRunSeq + index,
        event.type,
        event.nodeId,
        event.attemptId,
        event.turnId ?? null,
        event.messageId ?? null,
        event.toolCallId ?? null,
        context.blobs.putJson(event.payload, now),
        now,
      );
      return {
        seq: firstRunSeq + index,
        at: iso(now),
        type: event.type,
        nodeId: event.nodeId,
        attemptId: event.attemptId,
        ...(event.turnId === undefined ? {} : { turnId: event.turnId }),
        ...(event.messageId === undefined ? {} : { messageId: event.messageId }),
        ...(event.toolCallId === undefined ? {} : { toolCallId: event.toolCallId }),
        payload: event.payload,
      };
    });
    const total = firstRunSeq - 1 + items.length;
    context.database.run('UPDATE session_segments SET event_count = ? WHERE segment_id = ?', segment.eventCount + items.length, segment.segmentId);
    const revision = context.viewer.record(
      input.runId,
      [
        { targetType: 'timeline', targetKey: 'session:tail', ops: tailPatch(firstRunSeq - 1, items) },
        {
          targetType: 'conversation',
          targetKey: 'capture',
          ops: [
            { op: 'replace', path: '/capture/eventCount', value: total },
            { op: 'replace', path: '/capture/lastEventSeq', value: total },
          ],
        },
      ],
      now,
    );
    const seq = context.database.get<{ revision: number }>(
      'SELECT revision FROM resources WHERE resource_id = ?',
      requireEngineRun(context, input.runId).resourceId,
    )?.revision as number;
    return { seq, revision };
  });
}

/**
 * Ends the capture: the segment `complete` (or `failed` with the failure blob `{failedAt, code,
 * message}`), `finished_at` = now, the event `session.capture_updated` with the capture
 * `{schema, eventSchema, status, entryCount, eventCount, lastEventSeq, failure?}` on the session
 * resource, and one viewer revision: `conversation` `capture` (`add /capture`).
 *
 * @throws StoreError(not_found) for a run without a segment
 */
export function finishEngineSessionCapture(
  context: EngineContext,
  input: { runId: string; status: 'complete' } | { runId: string; status: 'failed'; code: string; message: string },
): { revision: number } {
  return engineWrite(context, (now) => {
    const segment = requireSegment(context, input.runId);
    const failure = input.status === 'failed' ? { failedAt: iso(now), code: input.code, message: input.message } : undefined;
    const capture = {
      schema: SESSION_CAPTURE_SCHEMA,
      eventSchema: SESSION_EVENT_SCHEMA,
      status: input.status,
      entryCount: segment.entryCount,
      eventCount: segment.eventCount,
      lastEventSeq: segment.eventCount,
      ...(failure === undefined ? {} : { failure }),
    };
    context.database.run(
      'UPDATE session_segments SET status = ?, failure_hash = ?, finished_at = ? WHERE segment_id = ?',
      input.status,
      failure === undefined ? null : context.blobs.putJson(failure, now),
      now,
      segment.segmentId,
    );
    sessionEvent(context, segment, 'session.capture_updated', context.blobs.putJson(capture, now), now);
    const revision = context.viewer.record(
      input.runId,
      [{ targetType: 'conversation', targetKey: 'capture', ops: [{ op: 'add', path: '/capture', value: capture }] }],
      now,
    );
    return { revision };
  });
}
