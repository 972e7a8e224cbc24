import type { BlobStore } from '../blobs.js';
import type { StateDatabase } from '../database.js';
import type { ExpiredLeaseQuery, ExpiredLeaseRow } from '../lease-expiries.js';
import { OwnRunChangeLog, type RunChangeLog } from '../run-change-log.js';
import type { KeyColumns, RunColumns } from '../run-columns.js';
import { filterClause, sqlRunCount, type WorkflowRunFilter } from '../run-filter.js';
import { keyed, sqlRunSlice } from '../run-queries.js';
import type { KeyedRun, LineageKey, LineageSliceRequest, RunKey, RunSliceRequest } from '../run-slices.js';
import type { StoreContext } from '../store-context.js';
import { claimNextProbe, type ClaimNextProbe } from './claim-next-probe.js';
import type { FileDescription, FileLayout } from './file-layout.js';
import type { OwnStateFile } from './state-file.js';

/**
 * The {@link FileLayout} of this server's own file: every read through the indexes and trigger
 * tables its migrations made (lineage indexes 0002, `run_changes` 0003, lease indexes and
 * `unowned_started_runs` 0006, `run_chain_sizes` 0007); no `effect_attempts` table.
 */
export class OwnFileLayout implements FileLayout {
  readonly runChanges: RunChangeLog;

  /**
   * @param database the open connection to the file
   * @param file what was detected at open
   */
  constructor(
    private readonly database: StateDatabase,
    readonly file: OwnStateFile,
  ) {
    this.runChanges = new OwnRunChangeLog(database);
  }

  /** Our own file: nothing to report but its kind; never a write refusal. */
  describe(): FileDescription {
    return describeOwnFile();
  }

  /**
   * Prunes the blobs nothing references (read-write opens only). The prune deletes only blobs
   * no foreign-key column references (one NOT IN over all of them), so SQLite's per-row child
   * lookups would find nothing — and without indexes on those columns they are full scans per
   * deleted blob: foreign-key enforcement is off while it runs.
   */
  tidyAtOpen(blobs: BlobStore): void {
    if (this.database.readOnly) return;
    this.database.withoutForeignKeyEnforcement(() => this.database.transaction(() => blobs.pruneUnreferenced()));
  }

  /** Walks `leases_owned_expiry_idx` (migration 0006); positions and held statuses from `run_changes`. */
  expiredLeases(query: ExpiredLeaseQuery): ExpiredLeaseRow[] {
    return this.database.all<ExpiredLeaseRow>(
      `SELECT l.expires_at, r.run_id, c.change_seq AS seq, c.statuses, c.queue_statuses
       FROM leases l JOIN runs r ON r.resource_id = l.resource_id JOIN run_changes c ON c.run_id = r.run_id
       WHERE l.owner_id IS NOT NULL AND l.expires_at <= ? AND ${query.window} AND c.change_seq <= ?
       ORDER BY l.expires_at, r.run_id LIMIT ?`,
      query.through,
      ...query.windowParams,
      query.throughSeq,
      query.limit,
    );
  }

  /** The queue walks plus the lease-index and `unowned_started_runs` probes ({@link claimNextProbe}). */
  claimNextProbe(conditions: string, conditionParams: readonly unknown[], now: number, runnerId: string): ClaimNextProbe {
    return claimNextProbe(conditions, conditionParams, now, runnerId);
  }

  /** {@link sqlRunSlice}: a walk of the order's index. */
  runSlice<Run>(
    context: StoreContext,
    filter: WorkflowRunFilter | undefined,
    request: RunSliceRequest,
    columns: RunColumns<Run>,
  ): Array<KeyedRun<RunKey, Run>> {
    return sqlRunSlice(context, filter, request, columns);
  }

  /** One count statement over the filter. */
  runCount(context: StoreContext, filter: WorkflowRunFilter | undefined): number {
    return sqlRunCount(context, filterClause(filter));
  }

  /** One statement, a seek of `runs_root_created_idx` (migration 0002) per chain. */
  latestRunIds(context: StoreContext, rootRunIds: readonly string[]): string[] {
    const rows = context.database.all<{ root: string; latest: string }>(
      `SELECT j.value AS root,
         (SELECT run_id FROM runs WHERE root_run_id = j.value ORDER BY created_at DESC, run_id DESC LIMIT 1) AS latest
       FROM json_each(?) j`,
      JSON.stringify(rootRunIds),
    );
    const byRoot = new Map(rows.map((row) => [row.root, row.latest]));
    return rootRunIds.map((root) => byRoot.get(root) ?? root);
  }

  /** One statement over `run_chain_sizes`, which triggers keep equal to the count of `runs` rows per root (migration 0007). */
  chainSizes(context: StoreContext, rootRunIds: readonly string[]): number[] {
    const rows = context.database.all<{ root: string; n: number }>(
      `SELECT j.value AS root, (SELECT run_count FROM run_chain_sizes WHERE root_run_id = j.value) AS n FROM json_each(?) j`,
      JSON.stringify(rootRunIds),
    );
    const byRoot = new Map(rows.map((row) => [row.root, row.n]));
    return rootRunIds.map((root) => byRoot.get(root) ?? 0);
  }

  /**
   * Index-ordered: the root by its key, the others by `runs_root_created_idx` (migration 0002);
   * no recursion, no sort of the whole chain.
   */
  lineageSlice<Run>(
    context: StoreContext,
    rootRunId: string,
    request: LineageSliceRequest,
    limit: number,
    columns: RunColumns<Run>,
  ): Array<KeyedRun<LineageKey, Run>> {
    const { after, before } = request;
    // The root comes before every other run: it is in the slice unless a cursor excludes it.
    const rootInSlice = after === undefined && !(before !== undefined && before.root);
    // Nothing of the chain comes before the root.
    const tailInSlice = !(before !== undefined && before.root);
    const conditions: string[] = [];
    const params: unknown[] = [];
    if (after !== undefined && !after.root) {
      conditions.push('(r.created_at > ? OR (r.created_at = ? AND r.run_id > ?))');
      params.push(after.createdAt, after.createdAt, after.runId);
    }
    if (before !== undefined && !before.root) {
      conditions.push('(r.created_at < ? OR (r.created_at = ? AND r.run_id < ?))');
      params.push(before.createdAt, before.createdAt, before.runId);
    }
    const readRoot = () => context.database.all<KeyColumns>(`${columns.select([])} WHERE r.run_id = ? AND r.root_run_id = r.run_id`, rootRunId);
    const readTail = (count: number): KeyColumns[] =>
      !tailInSlice || count <= 0
        ? []
        : context.database.all<KeyColumns>(
            `${columns.select([])} WHERE r.root_run_id = ? AND r.run_id <> r.root_run_id
               ${conditions.map((condition) => `AND ${condition}`).join(' ')}
             ORDER BY r.created_at ${request.inverted ? 'DESC' : 'ASC'}, r.run_id ${request.inverted ? 'DESC' : 'ASC'} LIMIT ?`,
            rootRunId,
            ...params,
            count,
          );
    let rows: KeyColumns[];
    if (!request.inverted) {
      const root = rootInSlice && limit > 0 ? readRoot() : [];
      rows = [...root, ...readTail(limit - root.length)];
    } else {
      const tail = readTail(limit);
      rows = rootInSlice && tail.length < limit ? [...tail, ...readRoot()] : tail;
    }
    return keyed(context, rows, columns, (row): LineageKey =>
      row.run_id === rootRunId ? { root: true } : { root: false, createdAt: row.run_created_at, runId: row.run_id },
    );
  }

  /** One statement: the viewer rows joined to the chain's runs (`runs_root_created_idx`). */
  chainViewerHeads(rootRunId: string): Map<string, number> {
    const rows = this.database.all<{ run_id: string; presentation_revision: number }>(
      `SELECT v.run_id, v.presentation_revision FROM viewer_runs v JOIN runs r ON r.run_id = v.run_id
       WHERE r.root_run_id = ?`,
      rootRunId,
    );
    return new Map(rows.map((row) => [row.run_id, row.presentation_revision]));
  }

  /** Nothing: our own file has no `effect_attempts` table (no migration made one), so an effect there has no attempt row to close. */
  interruptEffectAttempt(): void {}
}

/** The {@link FileDescription} of our own file. */
export function describeOwnFile(): FileDescription {
  return { kind: 'own', writeRefusal: null };
}
