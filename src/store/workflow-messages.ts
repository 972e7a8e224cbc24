import { randomUUID } from 'node:crypto';
import { canonicalJson, type JsonValue } from './canonical-json.js';
import type { BlobStore } from './blobs.js';
import type { StateDatabase } from './database.js';
import { StoreError } from './errors.js';
import { isoOrNull, iso, sha256Hex } from './values.js';

/** Workflow message kinds (docs/STORE-RULES.md §3.16). */
export type WorkflowMessageKind = 'step' | 'decision' | 'notification' | 'terminal' | 'followUp';
/** Workflow message statuses. */
export type WorkflowMessageStatus = 'pending' | 'sent' | 'cancelled';
/** Stop reasons of a workflow turn (docs/STORE-RULES.md §3.17). */
export type WorkflowTurnStopReason = 'completed' | 'aborted' | 'error' | 'lost';

/** Content of a workflow message (docs/STORE-RULES.md §9). */
export interface WorkflowMessageContent {
  schema: 'pi-workflows.workflow-message-content.v1';
  customType: string;
  content: string;
  display: boolean;
  details: JsonValue;
  /** Whether delivering the message starts a turn; stored only here, in the content (docs/PI-WORKFLOWS-FILES.md §8). */
  triggerTurn: boolean;
}

/** Input of {@link WorkflowMessageStore.create}. */
export interface CreateWorkflowMessageInput {
  /** Explicit id; default `workflow-message-` + SHA-256 of `{idempotencyKey, kind, sourceId}`. */
  workflowMessageId?: string;
  idempotencyKey: string;
  runId: string;
  targetSessionId: string;
  kind: WorkflowMessageKind;
  sourceId: string;
  content: WorkflowMessageContent;
}

/** A workflow message as read back. */
export interface WorkflowMessageRecord {
  workflowMessageId: string;
  runId: string;
  targetSessionId: string;
  kind: WorkflowMessageKind;
  sourceId: string;
  content: JsonValue;
  orderNumber: number;
  status: WorkflowMessageStatus;
  piSessionEntryId: string | null;
  /** ISO-8601. */
  createdAt: string;
  updatedAt: string;
}

/** A workflow turn as read back. */
export interface WorkflowTurnRecord {
  workflowTurnId: string;
  workflowMessageId: string;
  runId: string;
  targetSessionId: string;
  state: 'started' | 'ended';
  stopReason: WorkflowTurnStopReason | null;
  responseSessionEntryId: string | null;
  /** ISO-8601. */
  startedAt: string;
  endedAt: string | null;
}

interface MessageRow {
  workflow_message_id: string;
  run_id: string;
  target_session_id: string;
  kind: WorkflowMessageKind;
  source_id: string;
  content_hash: Buffer;
  order_number: number;
  status: WorkflowMessageStatus;
  pi_session_entry_id: string | null;
  created_at: number;
  updated_at: number;
}

interface TurnRow {
  workflow_turn_id: string;
  workflow_message_id: string;
  run_id: string;
  target_session_id: string;
  state: 'started' | 'ended';
  stop_reason: WorkflowTurnStopReason | null;
  response_session_entry_id: string | null;
  started_at: number;
  ended_at: number | null;
}

const CONTENT_SCHEMA = 'pi-workflows.workflow-message-content.v1';
const TURN_RULE: Record<WorkflowMessageKind, boolean | undefined> = {
  step: true,
  followUp: true,
  decision: false,
  notification: false,
  terminal: undefined,
};

/**
 * Refuses writes on a read-only connection (docs/STORE-RULES.md §1).
 *
 * @throws StoreError(forbidden) `Controller store is read-only`
 */
function assertWritableDatabase(database: StateDatabase): void {
  if (database.readOnly) throw new StoreError('forbidden', 'Controller store is read-only');
}

/** Default id of a workflow message (docs/STORE-RULES.md §9). */
export function workflowMessageIdFor(idempotencyKey: string, kind: WorkflowMessageKind, sourceId: string): string {
  return `workflow-message-${sha256Hex(canonicalJson({ idempotencyKey, kind, sourceId }))}`;
}

/**
 * Workflow messages and turns (docs/STORE-RULES.md §9): enough for run settlement, the interaction
 * timeout, and tests. Every method joins the caller's transaction or opens its own; on a
 * read-only store every write fails with `Controller store is read-only`.
 */
export class WorkflowMessageStore {
  constructor(
    private readonly database: StateDatabase,
    private readonly blobs: BlobStore,
  ) {}

  /**
   * Creates a `pending` message, idempotently (docs/STORE-RULES.md §9 "Create"). The turn flag is written
   * only inside the content blob (`content.triggerTurn`), as pi-workflows 0.16 keeps it; no column
   * holds it (docs/PI-WORKFLOWS-FILES.md §8).
   *
   * @param now epoch ms
   * @returns the stored (or existing, matching) message
   * @throws StoreError(validation) `Workflow message content is invalid`,
   *   `Workflow message kind <kind> has invalid turn behavior`;
   *   StoreError(conflict) `Workflow message idempotency conflict: <id>`
   */
  create(input: CreateWorkflowMessageInput, now: number): WorkflowMessageRecord {
    assertWritableDatabase(this.database);
    assertContent(input.kind, input.content);
    const id = input.workflowMessageId ?? workflowMessageIdFor(input.idempotencyKey, input.kind, input.sourceId);
    return this.database.transaction(() => {
      const contentHash = this.blobs.putJson(input.content, now);
      const existing = this.row(id);
      if (existing !== undefined) {
        if (
          existing.run_id !== input.runId ||
          existing.target_session_id !== input.targetSessionId ||
          existing.kind !== input.kind ||
          existing.source_id !== input.sourceId ||
          !existing.content_hash.equals(contentHash)
        ) {
          throw new StoreError('conflict', `Workflow message idempotency conflict: ${id}`);
        }
        return this.toRecord(existing);
      }
      const order = this.database.get<{ next: number }>(
        'SELECT coalesce(max(order_number), 0) + 1 AS next FROM workflow_messages WHERE target_session_id = ?',
        input.targetSessionId,
      );
      this.database.run(
        `INSERT INTO workflow_messages(workflow_message_id, run_id, target_session_id, kind, source_id, content_hash,
           order_number, status, pi_session_entry_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', NULL, ?, ?)`,
        id,
        input.runId,
        input.targetSessionId,
        input.kind,
        input.sourceId,
        contentHash,
        order?.next ?? 1,
        now,
        now,
      );
      return this.toRecord(this.row(id) as MessageRow);
    });
  }

  /**
   * Marks a `pending` or `cancelled` message `sent` with its Pi session entry id (branch
   * adoption, docs/STORE-RULES.md §9).
   *
   * @throws StoreError(not_found) `Workflow branch report contains an unknown message: <id>`;
   *   StoreError(conflict) `Workflow branch report targets the wrong origin session`,
   *   `Workflow message has conflicting Pi session entry evidence`
   */
  markSent(workflowMessageId: string, targetSessionId: string, piSessionEntryId: string, now: number): WorkflowMessageRecord {
    assertWritableDatabase(this.database);
    return this.database.transaction(() => {
      const row = this.row(workflowMessageId);
      if (row === undefined) {
        throw new StoreError('not_found', `Workflow branch report contains an unknown message: ${workflowMessageId}`);
      }
      if (row.target_session_id !== targetSessionId) {
        throw new StoreError('conflict', 'Workflow branch report targets the wrong origin session');
      }
      if (row.status === 'sent') {
        if (row.pi_session_entry_id !== piSessionEntryId) {
          throw new StoreError('conflict', 'Workflow message has conflicting Pi session entry evidence');
        }
        return this.toRecord(row);
      }
      this.database.run(
        `UPDATE workflow_messages SET status = 'sent', pi_session_entry_id = ?, updated_at = ?
         WHERE workflow_message_id = ?`,
        piSessionEntryId,
        now,
        workflowMessageId,
      );
      return this.toRecord(this.row(workflowMessageId) as MessageRow);
    });
  }

  /**
   * Starts a turn on a `sent` message; idempotent on the turn id (docs/STORE-RULES.md §9 "Turns").
   *
   * @throws StoreError(not_found) `Workflow branch report contains an unknown message: <id>`;
   *   StoreError(conflict) `Workflow turn identity conflict: <id>`, `Workflow turn does not match its message`,
   *   `Workflow turn requires a sent message`, `Workflow message <id> already has open turn <turnId>`
   */
  startTurn(input: { workflowTurnId?: string; workflowMessageId: string; runId: string; targetSessionId: string }, now: number): WorkflowTurnRecord {
    assertWritableDatabase(this.database);
    const turnId = input.workflowTurnId ?? `workflow-turn-${randomUUID()}`;
    return this.database.transaction(() => {
      const existing = this.turnRow(turnId);
      if (existing !== undefined) {
        if (
          existing.workflow_message_id !== input.workflowMessageId ||
          existing.run_id !== input.runId ||
          existing.target_session_id !== input.targetSessionId
        ) {
          throw new StoreError('conflict', `Workflow turn identity conflict: ${turnId}`);
        }
        return toTurnRecord(existing);
      }
      const message = this.row(input.workflowMessageId);
      if (message === undefined) {
        throw new StoreError('not_found', `Workflow branch report contains an unknown message: ${input.workflowMessageId}`);
      }
      if (message.run_id !== input.runId || message.target_session_id !== input.targetSessionId) {
        throw new StoreError('conflict', 'Workflow turn does not match its message');
      }
      if (message.status !== 'sent') throw new StoreError('conflict', 'Workflow turn requires a sent message');
      const open = this.database.get<{ workflow_turn_id: string }>(
        "SELECT workflow_turn_id FROM workflow_turns WHERE workflow_message_id = ? AND state = 'started'",
        input.workflowMessageId,
      );
      if (open !== undefined) {
        throw new StoreError('conflict', `Workflow message ${input.workflowMessageId} already has open turn ${open.workflow_turn_id}`);
      }
      this.database.run(
        `INSERT INTO workflow_turns(workflow_turn_id, workflow_message_id, run_id, target_session_id, state, stop_reason,
           response_session_entry_id, started_at, ended_at)
         VALUES (?, ?, ?, ?, 'started', NULL, NULL, ?, NULL)`,
        turnId,
        input.workflowMessageId,
        input.runId,
        input.targetSessionId,
        now,
      );
      return toTurnRecord(this.turnRow(turnId) as TurnRow);
    });
  }

  /**
   * Ends a started turn. Ending again with the same result is a no-op (docs/STORE-RULES.md §9).
   *
   * @throws StoreError(not_found) `Workflow turn not found: <id>`;
   *   StoreError(conflict) `Workflow turn end report conflicts with its saved result`,
   *   `Workflow turn changed before its end report`
   */
  endTurn(workflowTurnId: string, stopReason: WorkflowTurnStopReason, responseSessionEntryId: string | null, now: number): WorkflowTurnRecord {
    assertWritableDatabase(this.database);
    return this.database.transaction(() => {
      const row = this.turnRow(workflowTurnId);
      if (row === undefined) throw new StoreError('not_found', `Workflow turn not found: ${workflowTurnId}`);
      if (row.state === 'ended') {
        if (row.stop_reason !== stopReason || row.response_session_entry_id !== responseSessionEntryId) {
          throw new StoreError('conflict', 'Workflow turn end report conflicts with its saved result');
        }
        return toTurnRecord(row);
      }
      const updated = this.database.run(
        `UPDATE workflow_turns SET state = 'ended', stop_reason = ?, response_session_entry_id = ?, ended_at = ?
         WHERE workflow_turn_id = ? AND state = 'started'`,
        stopReason,
        responseSessionEntryId,
        now,
        workflowTurnId,
      );
      if (updated.changes !== 1) throw new StoreError('conflict', 'Workflow turn changed before its end report');
      return toTurnRecord(this.turnRow(workflowTurnId) as TurnRow);
    });
  }

  /**
   * Ends every `started` turn of a run with `reason` (0.16.2 run settlement, docs/STORE-RULES.md §9).
   *
   * @returns the turns ended now (a second call returns none)
   */
  settleOpenTurnsForRun(runId: string, reason: WorkflowTurnStopReason, now: number): WorkflowTurnRecord[] {
    assertWritableDatabase(this.database);
    return this.database.transaction(() => {
      const open = this.database.all<TurnRow>(
        "SELECT * FROM workflow_turns WHERE run_id = ? AND state = 'started' ORDER BY started_at, workflow_turn_id",
        runId,
      );
      if (open.length === 0) return [];
      this.database.run("UPDATE workflow_turns SET state = 'ended', stop_reason = ?, ended_at = ? WHERE run_id = ? AND state = 'started'", reason, now, runId);
      return open.map((row) => toTurnRecord({ ...row, state: 'ended', stop_reason: reason, ended_at: now }));
    });
  }

  /**
   * Cancels the run's `pending` messages of kinds `step`, `decision`, `followUp`
   * (docs/STORE-RULES.md §9, §13.3).
   *
   * @returns the number of messages cancelled
   */
  cancelPendingForRun(runId: string, now: number): number {
    assertWritableDatabase(this.database);
    return this.database.run(
      `UPDATE workflow_messages SET status = 'cancelled', updated_at = ?
       WHERE run_id = ? AND status = 'pending' AND kind IN ('step', 'decision', 'followUp')`,
      now,
      runId,
    ).changes;
  }

  /** The run's messages in order number order. */
  listForRun(runId: string): WorkflowMessageRecord[] {
    return this.database.all<MessageRow>('SELECT * FROM workflow_messages WHERE run_id = ? ORDER BY order_number', runId).map((row) => this.toRecord(row));
  }

  /** The run's turns, oldest first. */
  turnsForRun(runId: string): WorkflowTurnRecord[] {
    return this.database.all<TurnRow>('SELECT * FROM workflow_turns WHERE run_id = ? ORDER BY started_at, workflow_turn_id', runId).map(toTurnRecord);
  }

  private row(id: string): MessageRow | undefined {
    return this.database.get<MessageRow>('SELECT * FROM workflow_messages WHERE workflow_message_id = ?', id);
  }

  private turnRow(id: string): TurnRow | undefined {
    return this.database.get<TurnRow>('SELECT * FROM workflow_turns WHERE workflow_turn_id = ?', id);
  }

  private toRecord(row: MessageRow): WorkflowMessageRecord {
    return {
      workflowMessageId: row.workflow_message_id,
      runId: row.run_id,
      targetSessionId: row.target_session_id,
      kind: row.kind,
      sourceId: row.source_id,
      content: this.blobs.readJson(row.content_hash),
      orderNumber: row.order_number,
      status: row.status,
      piSessionEntryId: row.pi_session_entry_id,
      createdAt: iso(row.created_at),
      updatedAt: iso(row.updated_at),
    };
  }
}

function toTurnRecord(row: TurnRow): WorkflowTurnRecord {
  return {
    workflowTurnId: row.workflow_turn_id,
    workflowMessageId: row.workflow_message_id,
    runId: row.run_id,
    targetSessionId: row.target_session_id,
    state: row.state,
    stopReason: row.stop_reason,
    responseSessionEntryId: row.response_session_entry_id,
    startedAt: iso(row.started_at),
    endedAt: isoOrNull(row.ended_at),
  };
}

function assertContent(kind: WorkflowMessageKind, content: WorkflowMessageContent): void {
  const value = content as unknown as Record<string, unknown>;
  const valid =
    typeof value === 'object' &&
    value !== null &&
    value.schema === CONTENT_SCHEMA &&
    typeof value.customType === 'string' &&
    value.customType.length > 0 &&
    typeof value.content === 'string' &&
    typeof value.display === 'boolean' &&
    'details' in value &&
    value.details !== undefined &&
    typeof value.triggerTurn === 'boolean';
  if (!valid) throw new StoreError('validation', 'Workflow message content is invalid');
  const rule = TURN_RULE[kind];
  if (rule === undefined && kind !== 'terminal') throw new StoreError('validation', 'Workflow message content is invalid');
  if (rule !== undefined && rule !== content.triggerTurn) {
    throw new StoreError('validation', `Workflow message kind ${kind} has invalid turn behavior`);
  }
}
