import type { StateDatabase } from './database.js';
import type { BlobStore } from './blobs.js';
import { StoreError } from './errors.js';

/** Input of {@link InteractionStore.openInteraction}. */
export interface OpenInteractionInput {
  runId: string;
  nodeId: string;
  /** Default 1. */
  attemptNumber?: number;
  /** Default `agent`. */
  nodeType?: string;
  attemptId: string;
  requestId: string;
  targetSessionId: string;
  /** Default `agent`. */
  kind?: 'agent' | 'assistant' | 'decision';
  /** Stored as JSON; default `{}`. */
  contract?: unknown;
  /** Epoch ms deadline of the attempt, or null. */
  deadlineAt?: number | null;
}

/**
 * Node attempts, interactive requests and submissions (docs/STORE-RULES.md §3.13–3.15): the slice a
 * host needs to open an interaction, and tests need to set up pending interactions and
 * interaction deadlines. Joins the caller's transaction or opens its own; on a read-only
 * store every write fails with `Controller store is read-only`.
 */
export class InteractionStore {
  constructor(
    private readonly database: StateDatabase,
    private readonly blobs: BlobStore,
  ) {}

  /**
   * Opens a `waiting` attempt and its `pending` interactive request.
   *
   * @param now epoch ms
   * @throws StoreError(conflict) when the run already has an open attempt or the ids exist
   */
  openInteraction(input: OpenInteractionInput, now: number): void {
    if (this.database.readOnly) throw new StoreError('forbidden', 'Controller store is read-only');
    this.database.transaction(() => {
      const contractHash = this.blobs.putJson(input.contract ?? {}, now);
      try {
        this.database.run(
          `INSERT INTO node_attempts(attempt_id, run_id, node_id, attempt_number, node_type, status, started_at, deadline_at,
             created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'waiting', ?, ?, ?, ?)`,
          input.attemptId,
          input.runId,
          input.nodeId,
          input.attemptNumber ?? 1,
          input.nodeType ?? 'agent',
          now,
          input.deadlineAt ?? null,
          now,
          now,
        );
        this.database.run(
          `INSERT INTO interactive_requests(request_id, run_id, attempt_id, target_session_id, kind, contract_hash, status,
             created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
          input.requestId,
          input.runId,
          input.attemptId,
          input.targetSessionId,
          input.kind ?? 'agent',
          contractHash,
          now,
          now,
        );
      } catch (error) {
        throw new StoreError('conflict', `Interaction could not be opened: ${(error as Error).message}`);
      }
    });
  }

  /**
   * Adds a `validating` submission to a request.
   *
   * @throws StoreError(conflict) `Interactive submission validation is already active`
   */
  addValidatingSubmission(input: { submissionId: string; requestId: string; idempotencyKey: string; payload: unknown }, now: number): void {
    if (this.database.readOnly) throw new StoreError('forbidden', 'Controller store is read-only');
    this.database.transaction(() => {
      const active = this.database.get("SELECT 1 FROM interactive_submissions WHERE request_id = ? AND outcome = 'validating'", input.requestId);
      if (active !== undefined) throw new StoreError('conflict', 'Interactive submission validation is already active');
      const request = this.database.get<{ revision: number }>('SELECT revision FROM interactive_requests WHERE request_id = ?', input.requestId);
      if (request === undefined) throw new StoreError('not_found', `Interactive request not found: ${input.requestId}`);
      this.database.run(
        `INSERT INTO interactive_submissions(submission_id, request_id, idempotency_key, request_revision, payload_hash, outcome,
           submitted_at) VALUES (?, ?, ?, ?, ?, 'validating', ?)`,
        input.submissionId,
        input.requestId,
        input.idempotencyKey,
        request.revision,
        this.blobs.putJson(input.payload, now),
        now,
      );
    });
  }
}
