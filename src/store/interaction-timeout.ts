import { StoreError } from './errors.js';
import type { RunClaimInput } from './run-claims.js';
import { bumpRun, ownerActor, withActiveSessionSlot } from './run-events.js';
import { assertWritable, type StoreContext } from './store-context.js';
import { resolveNow } from './values.js';
import { verifiedClaim } from './worker-transitions.js';

/**
 * The interaction timeout of a parked waiting run (docs/STORE-RULES.md §6.9): its expired
 * request cancelled and the run handed back to the engine.
 */

/** The error recorded when an interaction deadline expires (0.16.1, docs/STORE-RULES.md §6.9). */
export const INTERACTION_DEADLINE_ERROR = 'Workflow node model-turn deadline expired';

/**
 * Starts the interaction timeout of a parked waiting run (docs/STORE-RULES.md §6.9, 0.16.1 conditions).
 * The caller holds a control claim. Picks the expired pending request of `targetSessionId`
 * with a started turn on its `step` message; cancels it, moves run `waiting` → `running` and
 * queue `parked` → `starting`, rejects its validating submissions (the receipt blob put even
 * when there is none), bumps with
 * `run.interaction_timeout_started`, viewer summary, replay, conversation.
 *
 * @returns false when the claim does not verify or no request qualifies
 * @throws StoreError(conflict) `Workflow run <runId> changed during interaction timeout`,
 *   `Pi session already has an active workflow run: <sessionId>`
 */
export function beginWorkflowRunInteractionTimeout(context: StoreContext, input: RunClaimInput & { targetSessionId: string }): boolean {
  assertWritable(context);
  const now = resolveNow(input.now, context.clock);
  return context.database.transaction(() => {
    const claimed = verifiedClaim(context, input.runId, input.claimToken, now);
    if (claimed === undefined) return false;
    const { row, lease } = claimed;
    const interaction = context.database.get<{ request_id: string; attempt_id: string }>(
      `SELECT i.request_id, i.attempt_id FROM interactive_requests i
       JOIN node_attempts a ON a.attempt_id = i.attempt_id
       JOIN runs r ON r.run_id = i.run_id
       WHERE i.run_id = ? AND i.target_session_id = ? AND i.status = 'pending' AND r.paused = 0
         AND a.deadline_at IS NOT NULL AND a.deadline_at <= ?
         AND EXISTS (
           SELECT 1 FROM workflow_messages m
           JOIN workflow_turns t ON t.workflow_message_id = m.workflow_message_id
           WHERE m.source_id = i.request_id AND m.kind = 'step' AND t.state = 'started')
       ORDER BY a.deadline_at, i.request_id LIMIT 1`,
      input.runId,
      input.targetSessionId,
      now,
    );
    if (interaction === undefined) return false;
    const request = context.database.run(
      `UPDATE interactive_requests SET status = 'cancelled', revision = revision + 1, updated_at = ?
       WHERE request_id = ? AND run_id = ? AND status = 'pending'`,
      now,
      interaction.request_id,
      input.runId,
    );
    const run = context.database.run(
      `UPDATE runs SET status = 'running', status_detail = 'finishing expired interaction deadline', updated_at = ?,
         finished_at = NULL
       WHERE run_id = ? AND status = 'waiting'`,
      now,
      input.runId,
    );
    const queue = withActiveSessionSlot(context, row.origin_session_id, () =>
      context.database.run(
        `UPDATE run_queue SET status = 'starting', error_code = NULL, error_hash = NULL, updated_at = ?, finished_at = NULL
         WHERE run_id = ? AND status = 'parked'`,
        now,
        input.runId,
      ),
    );
    if (request.changes !== 1 || run.changes !== 1 || queue.changes !== 1) {
      throw new StoreError('conflict', `Workflow run ${input.runId} changed during interaction timeout`);
    }
    // The receipt blob is put whether or not a submission refers to it, as pi-workflows does
    // (docs/PI-WORKFLOWS-FILES.md §5).
    const receiptHash = context.blobs.putJson({ status: 'rejected', error: INTERACTION_DEADLINE_ERROR }, now);
    context.database.run(
      "UPDATE interactive_submissions SET outcome = 'rejected', receipt_hash = ? WHERE request_id = ? AND outcome = 'validating'",
      receiptHash,
      interaction.request_id,
    );
    bumpRun(context, row, 'run.interaction_timeout_started', ownerActor(lease), { requestId: interaction.request_id, attemptId: interaction.attempt_id }, now, [
      { targetType: 'summary' },
      { targetType: 'replay' },
      { targetType: 'conversation' },
    ]);
    return true;
  });
}
