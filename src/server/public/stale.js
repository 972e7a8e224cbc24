// @ts-check
/**
 * Stale runs: a run whose queue says a runner executes it (`STARTING` or
 * `RUNNING`) but that has no live claim — the claim expired, or there is none. Its runner has
 * probably died; `cancelWorkflowRun` without a token may stale-cancel it (docs/STORE-RULES.md §6
 * "stale cancel"). The server answers `claim: null` and `expiredClaim` once a lease has expired,
 * and its feeds deliver the run at the expiry (docs/PROTOCOL.md "Lease expiry"); the page also
 * compares `claim.expiresAt` with its own clock, so a claim that expires while the page shows it
 * is marked at once even when its clock runs ahead of the server's.
 */

/** Queue states in which a runner must hold the run's claim. */
export const CLAIMED_QUEUE_STATUSES = Object.freeze(['STARTING', 'RUNNING']);

/**
 * @typedef {{ queueStatus?: string | null, claim?: { expiresAt: string } | null, expiredClaim?: { expiresAt: string } | null }} ClaimedRun
 */

/**
 * Why a run is stale, or null when it is not.
 *
 * @param {ClaimedRun} run at least `queueStatus` and `claim { expiresAt }` (ISO)
 * @param {number} nowMs the page's clock, epoch ms
 * @returns {string | null} `no claim`, `claim expired at <ISO>`, or null
 */
export function staleReason(run, nowMs) {
  if (!CLAIMED_QUEUE_STATUSES.includes(run.queueStatus ?? '')) return null;
  if (run.claim === null || run.claim === undefined) return run.expiredClaim ? `claim expired at ${run.expiredClaim.expiresAt}` : 'no claim';
  const expiresAt = Date.parse(run.claim.expiresAt);
  if (Number.isNaN(expiresAt) || expiresAt <= nowMs) return `claim expired at ${run.claim.expiresAt}`;
  return null;
}

/**
 * Whether the run is stale at `nowMs` (see {@link staleReason}).
 *
 * @param {ClaimedRun} run
 * @param {number} nowMs epoch ms
 * @returns {boolean}
 */
export function isStale(run, nowMs) {
  return staleReason(run, nowMs) !== null;
}

/**
 * When the next of these runs turns stale by its claim expiring: the earliest future
 * `claim.expiresAt` among runs in a claimed queue state, so the page can re-render then (a
 * local timer, no request).
 *
 * @param {Iterable<ClaimedRun>} runs
 * @param {number} nowMs epoch ms
 * @returns {number | null} epoch ms, or null when no claim will expire
 */
export function nextStaleAt(runs, nowMs) {
  let next = null;
  for (const run of runs) {
    if (!CLAIMED_QUEUE_STATUSES.includes(run.queueStatus ?? '') || !run.claim) continue;
    const expiresAt = Date.parse(run.claim.expiresAt);
    if (expiresAt > nowMs && (next === null || expiresAt < next)) next = expiresAt;
  }
  return next;
}
