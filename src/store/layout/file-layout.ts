import type { BlobStore } from '../blobs.js';
import type { ExpiredLeaseQuery, ExpiredLeaseRow } from '../lease-expiries.js';
import type { RunChangeLog } from '../run-change-log.js';
import type { RunColumns } from '../run-columns.js';
import type { WorkflowRunFilter } from '../run-filter.js';
import type { KeyedRun, LineageKey, LineageSliceRequest, RunKey, RunSliceRequest } from '../run-slices.js';
import type { StoreContext } from '../store-context.js';
import type { ClaimNextProbe } from './claim-next-probe.js';
import type { StateFile } from './state-file.js';

/**
 * The port between the store's operations and the two kinds of database file it serves
 * (docs/ARCHITECTURE.md "Three kinds of database file"): this server's own file and a
 * pi-workflows state file, whose schema is never changed. Since migration 0009 our own file
 * has pi-workflows' engine tables, so the operations are the same SQL on both; what still
 * differs sits behind this interface, one adapter per kind (`own-file.ts`,
 * `pi-workflows-file.ts`), chosen once by the factory `fileLayoutOf` (`index.ts`):
 *
 * - speed-ups only our own file may have: its indexes (the lineage indexes of migration 0002,
 *   the lease indexes of 0006) and trigger tables (`run_changes` of 0003, `unowned_started_runs`
 *   of 0006, `run_chain_sizes` of 0007); a pi-workflows file answers the same reads from the
 *   order it keeps itself (`events.event_seq`) and an in-process run order index
 *   (docs/PI-WORKFLOWS-FILES.md §7);
 * - tables one kind lacks: `effect_attempts` (pi-workflows files only);
 * - the open-time blob prune (our own file only); replica mode (our own file only) is decided
 *   before a layout exists (`servesReplicas`, `index.ts`).
 *
 * No store operation asks which kind it runs on: it calls this port (`StoreContext.layout`).
 */
export interface FileLayout {
  /** What was detected at open (docs/PI-WORKFLOWS-FILES.md §1). */
  readonly file: StateFile;

  /** What the server reports of the file (banner, `/health`, refusal texts). */
  describe(): FileDescription;

  /**
   * The open-time tidy-up of a read-write open (docs/STORE-RULES.md §1 Open): our own file
   * prunes the blobs nothing references; a pi-workflows file is left as it is (pi-workflows
   * never prunes, and its blobs are referenced by tables this server does not know,
   * docs/PI-WORKFLOWS-FILES.md §3). Outside any transaction.
   */
  tidyAtOpen(blobs: BlobStore): void;

  /** The durable order of run changes (see `run-change-log.ts`). */
  readonly runChanges: RunChangeLog;

  /**
   * The owned run leases that expired in a window, with their runs' positions in
   * {@link runChanges} (see `lease-expiries.ts`, docs/PROTOCOL.md "Lease expiry").
   *
   * @returns at most `query.limit` rows, by `(expires_at, run_id)`
   */
  expiredLeases(query: ExpiredLeaseQuery): ExpiredLeaseRow[];

  /**
   * The statement `claimNextWorkflowRun` asks for its run (docs/STORE-RULES.md §6.4): the same
   * conditions and the same run on both kinds, through our own file's lease indexes and
   * trigger table where it has them (see `claim-next-probe.ts`).
   *
   * @param conditions the §6.4 conditions joined with AND, over `r`, `q`, `b`, `l`
   * @param conditionParams their parameters, in order
   * @param now epoch ms
   * @param runnerId the claiming runner
   */
  claimNextProbe(conditions: string, conditionParams: readonly unknown[], now: number, runnerId: string): ClaimNextProbe;

  /**
   * A keyset slice of the run list (docs/GRAPHQL-CONTRACT.md `workflowRuns`), see
   * `run-queries.ts` `listWorkflowRunSlice`.
   *
   * @param request its `limit` already clamped to 0 … `MAX_PAGE_SIZE` + 1
   * @returns the runs with their keys in list order, or reverse list order when `inverted`
   */
  runSlice<Run>(context: StoreContext, filter: WorkflowRunFilter | undefined, request: RunSliceRequest, columns: RunColumns<Run>): Array<KeyedRun<RunKey, Run>>;

  /** Number of runs matching `filter` (docs/GRAPHQL-CONTRACT.md `totalCount`). */
  runCount(context: StoreContext, filter: WorkflowRunFilter | undefined): number;

  /**
   * The newest run id of each chain (docs/GRAPHQL-CONTRACT.md `latestRun`).
   *
   * @param rootRunIds at least one
   * @returns per root, in order, the newest run id (the root itself when alone or unknown)
   */
  latestRunIds(context: StoreContext, rootRunIds: readonly string[]): string[];

  /**
   * Number of runs of each chain (docs/GRAPHQL-CONTRACT.md `lineage { totalCount }`).
   *
   * @param rootRunIds at least one
   * @returns per root, in order, its run count (0 for an id that roots no chain)
   */
  chainSizes(context: StoreContext, rootRunIds: readonly string[]): number[];

  /**
   * A keyset slice of a chain in lineage order, root first (docs/GRAPHQL-CONTRACT.md `lineage`).
   *
   * @param limit 0 … `MAX_PAGE_SIZE` + 1
   * @returns the runs with their keys in lineage order, or reverse lineage order when `inverted`
   */
  lineageSlice<Run>(
    context: StoreContext,
    rootRunId: string,
    request: LineageSliceRequest,
    limit: number,
    columns: RunColumns<Run>,
  ): Array<KeyedRun<LineageKey, Run>>;

  /**
   * Current presentation revisions of every run of a chain (docs/STORE-RULES.md §8).
   *
   * @param heads the revisions of runs by id (`ViewerDeltaLog.heads`), for an adapter that
   *   finds the chain's members first
   * @returns run id → presentation revision; empty for an unknown root
   */
  chainViewerHeads(rootRunId: string, heads: (runIds: readonly string[]) => Map<string, number>): Map<string, number>;

  /**
   * Closes the open attempt of an `applying` effect a cancel turned `ambiguous`
   * (docs/PI-WORKFLOWS-FILES.md §5 "cancel"): `effect_attempts` row `interrupted`. Inside the
   * cancel's write transaction.
   *
   * @param attemptNumber the effect's `attempt_count`
   * @param now epoch ms
   */
  interruptEffectAttempt(effectId: string, attemptNumber: number, errorHash: Buffer, now: number): void;
}

/** What the server reports of an open file (docs/PI-WORKFLOWS-FILES.md §2): its banner, `/health` and refusals. */
export interface FileDescription {
  /** `own` (this server's migrations) or `pi-workflows` (its state file): reported, never branched on outside `src/store/layout/`. */
  kind: StateFile['kind'];
  /**
   * Why this server does not write the file, e.g. `its unlisted layout (schema digest
   * 1f2e3d4c5b6a…, app version 0.14.0) is not one this server writes (…)`; null when it does
   * (always for our own file; a read-only open is the store's `readOnly`, not this).
   */
  writeRefusal: string | null;
  /** What a pi-workflows state file's `schema_meta` says and its layout; undefined for our own file. */
  piWorkflows?: PiWorkflowsFileDescription;
}

/** The part of {@link FileDescription} only a pi-workflows state file has. */
export interface PiWorkflowsFileDescription {
  /** `schema_meta.schema_version`. */
  schemaVersion: number;
  /** `schema_meta.app_version` (`0.14.0` in a file of pi-workflows 0.16.2); reported, never checked. */
  appVersion: string;
  /** `schema_meta.schema_digest`, 64 lowercase hex, or null: names the layout. */
  schemaDigest: string | null;
  /** The releases known to write this layout (e.g. `["0.16.1", "0.16.2"]`), or null for a layout this server does not write. */
  layoutReleases: string[] | null;
  /** The layout as the banner names it (`describeLayout`), e.g. `layout of pi-workflows 0.16.1, 0.16.2 (schema digest 0469f429aad9…, app version 0.14.0)`. */
  layoutText: string;
  /** Version-dependent columns found in the file (`VERSION_DEPENDENT_COLUMNS`). */
  optionalColumns: Record<string, boolean>;
}
