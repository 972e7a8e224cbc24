/**
 * A run's steps as pi-workflows' engine writes them (`writeSnapshot` `node_started`,
 * `agent_prompt_sent`, `node_finished` / `node_failed`): a `node_attempts` row per attempt
 * (prompt, output and error blobs), a `run_steps` row per finished attempt in run order, and the
 * trace events with their viewer revisions.
 */
import { randomUUID } from 'node:crypto';
import type { JsonValue } from '../canonical-json.js';
import { StoreError } from '../errors.js';
import { engineWrite, requireEngineRun, traceAndRecord, type EngineContext, type EngineRun } from './engine-context.js';
import type { EngineWriteResult } from './run-lifecycle.js';
import { stepsReloadTarget } from './engine-viewer.js';

/** What {@link startEngineStep} writes. */
export interface StartEngineStepInput {
  runId: string;
  nodeId: string;
  /** Default: a random UUID, as pi's engine makes them. */
  attemptId?: string;
  /** Default: the node's `nodeType` in the definition snapshot, else `agent` (as pi). */
  nodeType?: string;
  /** `runs.status_detail` while the step works (pi's `statusDetail`); absent: none. */
  statusDetail?: string;
}

/** The attempt a started step opened. */
export interface EngineStepStarted extends EngineWriteResult {
  attemptId: string;
  /** `node_attempts.attempt_number`: 1 + the node's earlier attempts in this run. */
  attemptNumber: number;
}

interface AttemptRow {
  attemptId: string;
  runId: string;
  nodeId: string;
  status: string;
  startedAt: number | null;
}

function nodeTypeOf(context: EngineContext, run: EngineRun, nodeId: string): string {
  const snapshot = context.blobs.readJson(run.definitionHash);
  const nodes = typeof snapshot === 'object' && snapshot !== null && !Array.isArray(snapshot) ? snapshot.nodes : undefined;
  const node = typeof nodes === 'object' && nodes !== null && !Array.isArray(nodes) ? nodes[nodeId] : undefined;
  const nodeType = typeof node === 'object' && node !== null && !Array.isArray(node) ? node.nodeType : undefined;
  return typeof nodeType === 'string' ? nodeType : 'agent';
}

/**
 * Opens a step: a `node_attempts` row (`running`, the next attempt number of the node,
 * `started_at` = `created_at` = now), `runs.status_detail`, and the trace event `node_started`
 * `{nodeType}` (scope `node`) with its viewer revision (graph: the run's current node; `trace:tail`).
 *
 * @throws StoreError(not_found) for an unknown run; StoreError(conflict) `Workflow run <runId>
 *   is not running (status <status>)`, `Workflow run <runId> already has an open attempt`
 */
export function startEngineStep(context: EngineContext, input: StartEngineStepInput): EngineStepStarted {
  return engineWrite(context, (now) => {
    const run = requireEngineRun(context, input.runId);
    if (run.status !== 'running') throw new StoreError('conflict', `Workflow run ${input.runId} is not running (status ${run.status})`);
    const open = context.database.get(
      "SELECT 1 FROM node_attempts WHERE run_id = ? AND status IN ('pending', 'running', 'waiting', 'interrupted')",
      input.runId,
    );
    if (open !== undefined) throw new StoreError('conflict', `Workflow run ${input.runId} already has an open attempt`);
    const attemptId = input.attemptId ?? randomUUID();
    const nodeType = input.nodeType ?? nodeTypeOf(context, run, input.nodeId);
    const attemptNumber = context.database.get<{ n: number }>(
      'SELECT COALESCE(MAX(attempt_number), 0) + 1 AS n FROM node_attempts WHERE run_id = ? AND node_id = ?',
      input.runId,
      input.nodeId,
    )?.n as number;
    context.database.run(
      `INSERT INTO node_attempts(attempt_id, run_id, node_id, attempt_number, node_type, status, started_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?)`,
      attemptId,
      input.runId,
      input.nodeId,
      attemptNumber,
      nodeType,
      now,
      now,
      now,
    );
    context.database.run('UPDATE runs SET status_detail = ? WHERE run_id = ?', input.statusDetail ?? null, input.runId);
    const { event, revision } = traceAndRecord(
      context,
      run,
      { scope: 'node', type: 'node_started', nodeId: input.nodeId, attemptId, payload: { nodeType } },
      now,
    );
    return { attemptId, attemptNumber, seq: event.seq, revision };
  });
}

function requireOpenAttempt(context: EngineContext, runId: string, attemptId: string): AttemptRow {
  const attempt = context.database.get<AttemptRow>(
    'SELECT attempt_id AS attemptId, run_id AS runId, node_id AS nodeId, status, started_at AS startedAt FROM node_attempts WHERE attempt_id = ?',
    attemptId,
  );
  if (attempt === undefined || attempt.runId !== runId) throw new StoreError('not_found', `Node attempt not found in run ${runId}: ${attemptId}`);
  if (!['pending', 'running', 'waiting', 'interrupted'].includes(attempt.status)) {
    throw new StoreError('conflict', `Node attempt ${attemptId} has already finished (status ${attempt.status})`);
  }
  return attempt;
}

/**
 * Records the prompt sent to the agent of an open attempt: the prompt text blob (`text/plain`)
 * as `node_attempts.prompt_hash`, and the trace event `agent_prompt_sent` `{promptStored: true}`
 * (scope `agent`) with its viewer revision. (pi writes the hash with the finished step; the
 * blob and the event are the same.) A step whose prompt is a captured session entry links it
 * with {@link FinishEngineStepInput.conversation} instead.
 *
 * @throws StoreError(not_found) for an unknown run or attempt; StoreError(conflict) for a finished attempt
 */
export function sendEnginePrompt(context: EngineContext, input: { runId: string; attemptId: string; prompt: string }): EngineWriteResult {
  return engineWrite(context, (now) => {
    const run = requireEngineRun(context, input.runId);
    const attempt = requireOpenAttempt(context, input.runId, input.attemptId);
    context.database.run(
      'UPDATE node_attempts SET prompt_hash = ?, updated_at = ? WHERE attempt_id = ?',
      context.blobs.putText(input.prompt, now),
      now,
      input.attemptId,
    );
    const { event, revision } = traceAndRecord(
      context,
      run,
      { scope: 'agent', type: 'agent_prompt_sent', nodeId: attempt.nodeId, attemptId: input.attemptId, payload: { promptStored: true } },
      now,
    );
    return { seq: event.seq, revision };
  });
}

/** The captured session entries (ids in the run's own segment) a step's conversation spans. */
export interface EngineStepConversation {
  /** The `pi-workflows-step` custom message the prompt was sent as (role `prompt`). */
  promptEntryId?: string;
  firstEntryId: string;
  lastEntryId: string;
}

/** How a step ends: `ok` with an output (any JSON), or `failed` with an error text. */
export type FinishEngineStepInput = {
  runId: string;
  attemptId: string;
  /** Session entries to link to the attempt (`attempt_entries` roles `prompt`, `first`, `last`). */
  conversation?: EngineStepConversation;
} & ({ outcome: 'ok'; output?: JsonValue } | { outcome: 'failed'; error: string });

/**
 * Finishes an open attempt: `node_attempts` `completed` with the output blob (JSON) or `failed`
 * with the error blob (`text/plain`), `finished_at` = now; the next `run_steps` row
 * (`step_index` = the run's step count); the conversation links; then the trace event
 * `node_finished` `{durationMs, outcome: "ok", outputStored}` or `node_failed`
 * `{durationMs, outcome: "failed"}` (scope `node`) with its viewer revision (graph, `trace:tail`,
 * `replay` `steps:reload`).
 *
 * @throws StoreError(not_found) for an unknown run, attempt or linked entry; StoreError(conflict) for a finished attempt
 */
export function finishEngineStep(context: EngineContext, input: FinishEngineStepInput): EngineWriteResult & { stepIndex: number } {
  return engineWrite(context, (now) => {
    const run = requireEngineRun(context, input.runId);
    const attempt = requireOpenAttempt(context, input.runId, input.attemptId);
    const ok = input.outcome === 'ok';
    const outputHash = ok && input.output !== undefined ? context.blobs.putJson(input.output, now) : null;
    const errorHash = ok ? null : context.blobs.putText(input.error, now);
    context.database.run(
      'UPDATE node_attempts SET status = ?, output_hash = COALESCE(?, output_hash), error_hash = ?, finished_at = ?, updated_at = ? WHERE attempt_id = ?',
      ok ? 'completed' : 'failed',
      outputHash,
      errorHash,
      now,
      now,
      input.attemptId,
    );
    const stepIndex = context.database.get<{ n: number }>('SELECT count(*) AS n FROM run_steps WHERE run_id = ?', input.runId)?.n as number;
    context.database.run(
      'INSERT INTO run_steps(run_id, step_index, attempt_id, output_override_hash) VALUES (?, ?, ?, NULL)',
      input.runId,
      stepIndex,
      input.attemptId,
    );
    if (input.conversation !== undefined) linkEntries(context, input.runId, input.attemptId, input.conversation);
    const durationMs = Math.max(0, now - (attempt.startedAt ?? now));
    const { event, revision } = traceAndRecord(
      context,
      run,
      {
        scope: 'node',
        type: ok ? 'node_finished' : 'node_failed',
        nodeId: attempt.nodeId,
        attemptId: input.attemptId,
        payload: ok ? { durationMs, outcome: 'ok', outputStored: outputHash !== null } : { durationMs, outcome: 'failed' },
      },
      now,
      [stepsReloadTarget(stepIndex + 1)],
    );
    return { stepIndex, seq: event.seq, revision };
  });
}

function linkEntries(context: EngineContext, runId: string, attemptId: string, conversation: EngineStepConversation): void {
  const links: Array<[string, string]> = [];
  if (conversation.promptEntryId !== undefined) links.push(['prompt', conversation.promptEntryId]);
  links.push(['first', conversation.firstEntryId], ['last', conversation.lastEntryId]);
  for (const [role, entryId] of links) {
    const entry = context.database.get<{ segmentId: string }>(
      `SELECT e.segment_id AS segmentId FROM session_entries e JOIN session_segments s ON s.segment_id = e.segment_id
       WHERE s.run_id = ? AND e.entry_id = ? ORDER BY e.recorded_at DESC LIMIT 1`,
      runId,
      entryId,
    );
    if (entry === undefined) throw new StoreError('not_found', `Session entry not found in run ${runId}: ${entryId}`);
    context.database.run(
      `INSERT INTO attempt_entries(attempt_id, role, segment_id, entry_id) VALUES (?, ?, ?, ?)
       ON CONFLICT(attempt_id, role) DO UPDATE SET segment_id = excluded.segment_id, entry_id = excluded.entry_id`,
      attemptId,
      role,
      entry.segmentId,
      entryId,
    );
  }
}
