import type { BlobStore } from '../blobs.js';
import type { StateDatabase } from '../database.js';
import type { ExpiredLeaseQuery, ExpiredLeaseRow } from '../lease-expiries.js';
import { PiWorkflowsRunChangeLog, type RunChangeLog } from '../run-change-log.js';
import type { RunColumns } from '../run-columns.js';
import type { WorkflowRunFilter } from '../run-filter.js';
import { sqlRunSlice } from '../run-queries.js';
import type { KeyedRun, LineageKey, LineageSliceRequest, RunKey, RunSliceRequest } from '../run-slices.js';
import type { StoreContext } from '../store-context.js';
import { piWorkflowsClaimNextProbe, type ClaimNextProbe } from './claim-next-probe.js';
import type { FileDescription, FileLayout } from './file-layout.js';
import { indexedChainSizes, indexedLatestRunIds, indexedLineageSlice, indexedRunCount, indexedRunSlice } from './indexed-run-queries.js';
import { RunOrderIndex } from './run-order-index.js';
import { describeLayout, type PiWorkflowsStateFile } from './state-file.js';

/**
 * The {@link FileLayout} of a pi-workflows state file, whose schema is never changed
 * (docs/PI-WORKFLOWS-FILES.md §1–§3): it lacks the indexes and trigger tables of our
 * migrations, so run order comes from an in-process {@link RunOrderIndex} (built at open, kept
 * fresh from the file itself, docs/PI-WORKFLOWS-FILES.md §7), run changes from its own
 * `events.event_seq`, and claim-next walks its own queue index. It has `effect_attempts`.
 */
export class PiWorkflowsFileLayout implements FileLayout {
  readonly runChanges: RunChangeLog;
  /** The in-process run order: the speed-up of every list, chain and count read. */
  readonly runIndex: RunOrderIndex;

  /**
   * Builds the run order index (one read of `runs`, in a snapshot of its own).
   *
   * @param database the open connection to the file
   * @param file what was detected and checked at open
   */
  constructor(
    private readonly database: StateDatabase,
    readonly file: PiWorkflowsStateFile,
  ) {
    this.runChanges = new PiWorkflowsRunChangeLog(database);
    const runIndex = new RunOrderIndex(database);
    database.readSnapshot(() => runIndex.refresh());
    this.runIndex = runIndex;
  }

  /** The file's schema, layout and write refusal (see {@link describePiWorkflowsFile}). */
  describe(): FileDescription {
    return describePiWorkflowsFile(this.file);
  }

  /** Nothing: pi-workflows never prunes, and blobs there are referenced by tables this server does not know (docs/PI-WORKFLOWS-FILES.md §3). */
  tidyAtOpen(_blobs: BlobStore): void {}

  /** Walks the file's own `leases_expires_idx` (`expires_at`, where set); a run's position is its latest event's (`events_resource_idx`). */
  expiredLeases(query: ExpiredLeaseQuery): ExpiredLeaseRow[] {
    return this.database.all<ExpiredLeaseRow>(
      `SELECT expires_at, run_id, seq, NULL AS statuses, NULL AS queue_statuses FROM (
         SELECT l.expires_at, r.run_id,
           coalesce((SELECT max(e.event_seq) FROM events e WHERE e.resource_id = l.resource_id), 0) AS seq
         FROM leases l JOIN runs r ON r.resource_id = l.resource_id
         WHERE l.owner_id IS NOT NULL AND l.expires_at IS NOT NULL AND l.expires_at <= ? AND ${query.window})
       WHERE seq <= ? ORDER BY expires_at, run_id LIMIT ?`,
      query.through,
      ...query.windowParams,
      query.throughSeq,
      query.limit,
    );
  }

  /** One walk of the file's `run_queue_claim_idx` per claimable queue status ({@link piWorkflowsClaimNextProbe}). */
  claimNextProbe(conditions: string, conditionParams: readonly unknown[]): ClaimNextProbe {
    return piWorkflowsClaimNextProbe(conditions, conditionParams);
  }

  /** Candidates from the run order index; SQL fetches their rows by primary key (and answers a rare filter alone). */
  runSlice<Run>(
    context: StoreContext,
    filter: WorkflowRunFilter | undefined,
    request: RunSliceRequest,
    columns: RunColumns<Run>,
  ): Array<KeyedRun<RunKey, Run>> {
    return indexedRunSlice(context, this.runIndex, filter, request, request.limit, columns, (rest) => sqlRunSlice(context, filter, rest, columns));
  }

  /** Counted in the run order index, or in SQL for a filter it cannot answer. */
  runCount(context: StoreContext, filter: WorkflowRunFilter | undefined): number {
    return indexedRunCount(context, this.runIndex, filter);
  }

  /** The last entry of each chain in the run order index. */
  latestRunIds(context: StoreContext, rootRunIds: readonly string[]): string[] {
    return indexedLatestRunIds(context, this.runIndex, rootRunIds);
  }

  /** The length of each chain in the run order index. */
  chainSizes(context: StoreContext, rootRunIds: readonly string[]): number[] {
    return indexedChainSizes(context, this.runIndex, rootRunIds);
  }

  /** The chain from the run order index; its page's rows by primary key. */
  lineageSlice<Run>(
    context: StoreContext,
    rootRunId: string,
    request: LineageSliceRequest,
    limit: number,
    columns: RunColumns<Run>,
  ): Array<KeyedRun<LineageKey, Run>> {
    return indexedLineageSlice(context, this.runIndex, rootRunId, request, limit, columns);
  }

  /** The chain's members from the run order index, then their revisions by run id, in one snapshot. */
  chainViewerHeads(rootRunId: string, heads: (runIds: readonly string[]) => Map<string, number>): Map<string, number> {
    return this.database.readSnapshot(() => {
      this.runIndex.refresh();
      return heads(this.runIndex.chain(rootRunId).map((entry) => entry.runId));
    });
  }

  /** The attempt row `interrupted` with the cancel's error, as pi-workflows' cancel closes it. */
  interruptEffectAttempt(effectId: string, attemptNumber: number, errorHash: Buffer, now: number): void {
    this.database.run(
      `UPDATE effect_attempts SET finished_at = ?, outcome = 'interrupted', error_hash = ?
       WHERE effect_id = ? AND attempt_number = ? AND finished_at IS NULL`,
      now,
      errorHash,
      effectId,
      attemptNumber,
    );
  }
}

/** The {@link FileDescription} of a pi-workflows state file: its `schema_meta`, its layout and why this server does not write it (or null). */
export function describePiWorkflowsFile(file: PiWorkflowsStateFile): FileDescription {
  return {
    kind: 'pi-workflows',
    writeRefusal: file.writeRefusal,
    piWorkflows: {
      schemaVersion: file.schemaVersion,
      appVersion: file.appVersion,
      schemaDigest: file.schemaDigest,
      layoutReleases: file.layout === null ? null : [...file.layout.releases],
      layoutText: describeLayout(file),
      optionalColumns: file.optionalColumns,
    },
  };
}
