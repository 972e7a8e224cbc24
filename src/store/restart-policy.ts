import { StoreError } from './errors.js';
import { toRunRecords, type RunRow } from './run-records.js';
import type { StoreContext } from './store-context.js';

/**
 * The restart policy of docs/STORE-RULES.md §13.1: the rules a restart must pass beyond pi-workflows' lineage
 * rules, shared by the restart command (`restartWorkflowRun`, `run-restart.ts`) and a
 * reservation with lineage `restart` (`reserveWorkflowRun`, `run-reservation.ts`; §13.11).
 */

/** Most restarts in one chain (`MAX_RESTARTS`, docs/STORE-RULES.md §7). */
export const MAX_RESTARTS = 3;

/**
 * Text of the rule that only interactive runs restart (docs/STORE-RULES.md §12.5: the host computes
 * restarts only for interactive runs). Both `restartWorkflowRun` and a reservation with lineage
 * `restart` refuse a headless parent with it.
 */
const ONLY_INTERACTIVE_RESTART = 'Only interactive workflow runs can be restarted';

/** Text of a given fingerprint that is not the parent's own terminal fingerprint (docs/STORE-RULES.md §13.1). */
function fingerprintMismatchMessage(parentRunId: string): string {
  return `Terminal fingerprint does not match the terminal outcome of workflow run: ${parentRunId}`;
}

/**
 * The policy of docs/STORE-RULES.md §13.1 that comes before adoption, on both restart paths: the run
 * being restarted is interactive, and it was not explicitly cancelled. The caller has checked
 * that it exists and belongs to the caller's session.
 *
 * @throws StoreError(restart_rejected) {@link ONLY_INTERACTIVE_RESTART},
 *   `An explicitly cancelled workflow cannot be restarted`
 */
export function assertRestartable(parent: RunRow): void {
  if (parent.execution_mode !== 'interactive') throw new StoreError('restart_rejected', ONLY_INTERACTIVE_RESTART);
  if (parent.queue_status === 'cancelled' || parent.run_status === 'cancelled') {
    throw new StoreError('restart_rejected', 'An explicitly cancelled workflow cannot be restarted');
  }
}

/** @throws StoreError(restart_rejected) `Workflow restart limit reached (3 restarts)` */
export function assertWithinRestartLimit(parent: RunRow): void {
  if (parent.restart_number >= MAX_RESTARTS) {
    throw new StoreError('restart_rejected', `Workflow restart limit reached (${MAX_RESTARTS} restarts)`);
  }
}

/**
 * The parent's own terminal fingerprint (docs/STORE-RULES.md §7.1, §13.2); the parent is terminal.
 *
 * @param now epoch ms, for the record
 * @returns 64 lowercase hex characters
 * @throws StoreError(integrity) `Workflow run has no terminal fingerprint: <runId>`
 */
export function ownFingerprint(context: StoreContext, parent: RunRow, now: number): string {
  const [record] = toRunRecords(context, [parent], now);
  const own = record?.terminalFingerprint;
  if (typeof own !== 'string') throw new StoreError('integrity', `Workflow run has no terminal fingerprint: ${parent.run_id}`);
  return own;
}

/**
 * The given fingerprint must be the parent's own, and that outcome must not have been restarted
 * already in the chain (docs/STORE-RULES.md §13.1 steps 8 and 9).
 *
 * @param given parsed fingerprint bytes
 * @param own the parent's own fingerprint, 64 lowercase hex ({@link ownFingerprint})
 * @throws StoreError conflict {@link fingerprintMismatchMessage}; restart_rejected
 *   `The same terminal outcome already occurred in this restart chain`
 */
export function assertOwnUnusedFingerprint(context: StoreContext, parent: RunRow, given: Buffer, own: string): void {
  if (given.toString('hex') !== own) throw new StoreError('conflict', fingerprintMismatchMessage(parent.run_id));
  const used = context.database.get('SELECT 1 FROM runs WHERE root_run_id = ? AND parent_terminal_fingerprint = ? LIMIT 1', parent.root_run_id, given);
  if (used !== undefined) {
    throw new StoreError('restart_rejected', 'The same terminal outcome already occurred in this restart chain');
  }
}

/**
 * The restart policy of a reservation with lineage `restart` (docs/STORE-RULES.md §13.11), in the order of
 * §13.1, run by the reservation after every pi-workflows rule (docs/PI-WORKFLOWS-FILES.md §8:
 * pi-workflows' rules decide first, so a wrong restart number is `Restart number does not follow its
 * parent` whatever the fingerprint): the parent is interactive and not cancelled; restart
 * limit; the fingerprint is the parent's own, and not already restarted in the chain.
 * pi-workflows' rules have found the parent, in the caller's session and terminal, and parsed the
 * fingerprint.
 *
 * @param fingerprint the given parent terminal fingerprint, 32 bytes
 * @param now epoch ms
 * @throws StoreError restart_rejected ({@link ONLY_INTERACTIVE_RESTART}, cancelled, limit,
 *   repeated outcome); conflict {@link fingerprintMismatchMessage}
 */
export function assertRestartReservationAllowed(context: StoreContext, parent: RunRow, fingerprint: Buffer, now: number): void {
  assertRestartable(parent);
  assertWithinRestartLimit(parent);
  assertOwnUnusedFingerprint(context, parent, fingerprint, ownFingerprint(context, parent, now));
}
