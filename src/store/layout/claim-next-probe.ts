/**
 * The statement `claimNextWorkflowRun` asks for its run (docs/STORE-RULES.md §6.4): one
 * ordered probe per way a row can be eligible, each stopping at its first eligible row; the
 * earliest of those by (available_at, queue created_at, run id) wins. Every probe applies every
 * eligibility condition, so each only narrows where the search starts, never what is eligible.
 *
 * - `queued` and `parked` rows: walked in the (status, available_at, created_at) index order.
 *   Their leases are released unless a control claim holds them, so the first rows are eligible.
 * - `starting` and `running` rows: nearly all hold another runner's live lease, which a walk in
 *   queue order would look up one by one on every claim. They are found from the eligible
 *   leases instead (migration 0006): owned leases expired by now (`leases_owned_expiry_idx`),
 *   the claiming runner's own leases (`leases_owner_idx`), and runs whose lease has no owner
 *   (`unowned_started_runs`, kept by triggers). The three cover every eligible such row: a
 *   lease has no owner, or an owner and an expiry (docs/STORE-RULES.md §3.3).
 *
 * `CROSS JOIN` fixes the join order (SQLite never reorders it), so each probe starts from its
 * index; `INDEXED BY` makes a missing index an error instead of a silent scan.
 */

/**
 * On a pi-workflows state file (docs/PI-WORKFLOWS-FILES.md §7), which has neither
 * `unowned_started_runs` nor the lease indexes of migration 0006 and never gets them,
 * {@link piWorkflowsClaimNextProbe} walks every claimable queue status in that file's own
 * `run_queue_claim_idx (status, available_at, created_at)` order instead: the same conditions,
 * the same order, the same run.
 */

/** Queue statuses whose rows are walked in queue order. */
const WALKED_QUEUE_STATUSES = ['queued', 'parked'] as const;

/** The statement and its parameters. */
export interface ClaimNextProbe {
  sql: string;
  params: unknown[];
}

const ORDER = 'ORDER BY q.available_at, q.created_at, r.run_id LIMIT 1';
const COLUMNS = 'r.run_id, q.available_at, q.created_at';
const ACTIVE = "q.status IN ('starting', 'running')";

/**
 * The statement of {@link claimNextProbe} by condition text, built once: the same string object
 * each time, so the connection's statement cache finds it without hashing a new copy.
 */
const statements = new Map<string, string>();

/**
 * Builds the claim-next statement.
 *
 * @param conditions the §6.4 eligibility conditions joined with AND, over the aliases `r` (runs),
 *   `q` (run_queue), `b` (run_bindings) and `l` (leases)
 * @param conditionParams the parameters of `conditions`, in order
 * @param now epoch ms (the lease expiry bound)
 * @param runnerId the claiming runner (its own leases are eligible)
 * @returns one statement selecting at most one `run_id`, and its parameters
 */
export function claimNextProbe(conditions: string, conditionParams: readonly unknown[], now: number, runnerId: string): ClaimNextProbe {
  let sql = statements.get(conditions);
  if (sql === undefined) {
    sql = probeStatement(conditions);
    // A handful of condition sets (project scope, session or not, exclusions or not).
    if (statements.size >= 64) statements.clear();
    statements.set(conditions, sql);
  }
  return {
    sql,
    params: [
      ...WALKED_QUEUE_STATUSES.flatMap((status) => [status, ...conditionParams]),
      now,
      ...conditionParams,
      runnerId,
      ...conditionParams,
      ...conditionParams,
    ],
  };
}

function probeStatement(conditions: string): string {
  const walked = `SELECT * FROM (SELECT ${COLUMNS} FROM run_queue q
       CROSS JOIN runs r CROSS JOIN leases l CROSS JOIN run_bindings b
       WHERE q.status = ? AND r.run_id = q.run_id AND l.resource_id = r.resource_id AND b.run_id = r.run_id
         AND ${conditions} ${ORDER})`;
  const fromLease = (index: string, lease: string) => `SELECT * FROM (SELECT ${COLUMNS} FROM leases l INDEXED BY ${index}
       CROSS JOIN runs r CROSS JOIN run_queue q CROSS JOIN run_bindings b
       WHERE ${lease} AND r.resource_id = l.resource_id AND q.run_id = r.run_id AND b.run_id = r.run_id
         AND ${ACTIVE} AND ${conditions} ${ORDER})`;
  const unowned = `SELECT * FROM (SELECT ${COLUMNS} FROM unowned_started_runs u
       CROSS JOIN runs r CROSS JOIN run_queue q CROSS JOIN leases l CROSS JOIN run_bindings b
       WHERE r.run_id = u.run_id AND q.run_id = r.run_id AND l.resource_id = r.resource_id AND b.run_id = r.run_id
         AND ${ACTIVE} AND ${conditions} ${ORDER})`;
  // Parameter order: see claimNextProbe.
  return `SELECT run_id FROM (${[
    ...WALKED_QUEUE_STATUSES.map(() => walked),
    fromLease('leases_owned_expiry_idx', 'l.owner_id IS NOT NULL AND l.expires_at <= ?'),
    fromLease('leases_owner_idx', 'l.owner_id = ?'),
    unowned,
  ].join(' UNION ALL ')})
       ORDER BY available_at, created_at, run_id LIMIT 1`;
}

/** Every queue status a claim-next may take a run from (docs/STORE-RULES.md §6.4). */
const CLAIMABLE_QUEUE_STATUSES = ['queued', 'parked', 'starting', 'running'] as const;

/** The statement of {@link piWorkflowsClaimNextProbe} by condition text (as {@link statements}). */
const piStatements = new Map<string, string>();

/**
 * {@link claimNextProbe} for a pi-workflows state file (docs/PI-WORKFLOWS-FILES.md §7): one probe
 * per claimable queue status, each walking that file's `(status, available_at, created_at)`
 * index and stopping at its first row meeting every condition; the earliest of those by
 * (available_at, queue created_at, run id) wins — the run {@link claimNextProbe} picks on our own
 * file. Uses only tables every pi-workflows file has (`run_queue`, `runs`, `leases`,
 * `run_bindings`). A `starting`/`running` row holding another runner's live lease is skipped
 * one by one, as pi-workflows' own claim does.
 *
 * @param conditions as {@link claimNextProbe}
 * @param conditionParams as {@link claimNextProbe}
 * @returns one statement selecting at most one `run_id`, and its parameters
 */
export function piWorkflowsClaimNextProbe(conditions: string, conditionParams: readonly unknown[]): ClaimNextProbe {
  let sql = piStatements.get(conditions);
  if (sql === undefined) {
    const walked = `SELECT * FROM (SELECT ${COLUMNS} FROM run_queue q
       CROSS JOIN runs r CROSS JOIN leases l CROSS JOIN run_bindings b
       WHERE q.status = ? AND r.run_id = q.run_id AND l.resource_id = r.resource_id AND b.run_id = r.run_id
         AND ${conditions} ${ORDER})`;
    sql = `SELECT run_id FROM (${CLAIMABLE_QUEUE_STATUSES.map(() => walked).join(' UNION ALL ')})
       ORDER BY available_at, created_at, run_id LIMIT 1`;
    if (piStatements.size >= 64) piStatements.clear();
    piStatements.set(conditions, sql);
  }
  return { sql, params: CLAIMABLE_QUEUE_STATUSES.flatMap((status) => [status, ...conditionParams]) };
}
