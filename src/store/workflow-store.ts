import { statSync } from 'node:fs';
import type { StateDatabase, WriteGroupStats } from './database.js';
import { storeErrorOr, StoreError } from './errors.js';
import { readExpiredLeaseRuns, readRunAtViewerHead, readRunChanges, type RunChangesRead } from './feed-reads.js';
import type { FileDescription } from './layout/file-layout.js';
import type { JsonValue } from './canonical-json.js';
import { countWorkflowRunsByStatus, type WorkflowRunCounts } from './run-counts.js';
import { liveLeaseExpiry, nextLeaseExpiry, type LeaseExpiryRequest, type LeaseExpiryRow } from './lease-expiries.js';
import {
  claimNextWorkflowRun,
  claimWorkflowRun,
  renewWorkflowRunClaim,
  renewWorkflowRunClaimOrThrow,
  verifyWorkflowRunClaim,
  type ClaimNextWorkflowRunInput,
  type ClaimWorkflowRunInput,
  type RunClaimInput,
} from './run-claims.js';
import {
  chainSizes,
  childIdsOfRuns,
  childKeysOfRuns,
  childrenOfRuns,
  countWorkflowRuns,
  getWorkflowRuns,
  latestRunIdsOfChains,
  lineageIdSlice,
  lineageSlice,
  listWorkflowRunIdSlice,
  listWorkflowRunSlice,
} from './run-queries.js';
import type { ChildRunKey, RunIdOnly } from './run-columns.js';
import type { WorkflowRunFilter } from './run-filter.js';
import type { KeyedRun, LineageKey, LineageSliceRequest, RunIdSlice, RunSlice, RunSliceRequest } from './run-slices.js';
import type { LineageKind, WorkflowRunRecord } from './run-records.js';
import { reserveWorkflowRun, type ClaimRequest, type ReservationInput, type ReservedRun } from './run-reservation.js';
import { restartWorkflowRun, type RestartResult, type RestartWorkflowRunInput } from './run-restart.js';
import {
  cancelWorkflowRun,
  cancelWorkflowRunOrThrow,
  failWorkflowRun,
  settleWorkflowRun,
  type CancelWorkflowRunInput,
  type SettleWorkflowRunInput,
} from './run-settlement.js';
import { reportWorkflowRunState, recordRunEvent, type ReportWorkflowRunStateInput, type RunEventRecord } from './engine-reports.js';
import { beginWorkflowRunInteractionTimeout } from './interaction-timeout.js';
import { pauseParkedWorkflowRun, pauseParkedWorkflowRunOrThrow, resumePausedInteraction, resumePausedInteractionOrThrow } from './run-pauses.js';
import {
  markWorkflowRunRunning,
  markWorkflowRunRunningOrThrow,
  parkClaimedWorkflowRun,
  parkWorkflowRunForWorkerNoProgress,
  releaseWorkflowRunClaim,
} from './worker-transitions.js';
import { encodeRunChangeCursor } from './run-change-cursor.js';
import type { RunChangeHead, RunChangeLog } from './run-change-log.js';
import type { StateFile } from './layout/state-file.js';
import type { ReplicaFile } from './replica-file.js';
import { openStoreContext, type WorkflowStoreOptions } from './store-open.js';
import type { StoreContext } from './store-context.js';
import {
  NEWEST_PAGES,
  readPlannedRunView,
  readReferencedSessionEntry,
  readReferencedValue,
  readRunViewChanges,
  type ViewPositions,
  type PlannedRunView,
  type RunViewPlan,
  type SessionEntryContent,
  type ValueRef,
} from './run-view/index.js';
import { resolveNow } from './values.js';
import type { ViewerDeltaDraft, ViewerDeltaLog, ViewerDeltaRead } from './viewer-deltas.js';
import { assertViewerDrafts } from './viewer-drafts.js';
import type {
  WorkflowMessageStore,
  CreateWorkflowMessageInput,
  WorkflowMessageRecord,
  WorkflowTurnRecord,
  WorkflowTurnStopReason,
} from './workflow-messages.js';
import { InteractionStore, type OpenInteractionInput } from './interactions.js';

/**
 * The workflow state store (docs/STORE-RULES.md): one SQLite connection and every rule of runs, queue,
 * leases, lineage, viewer deltas and workflow messages. Each mutating method is one
 * `BEGIN IMMEDIATE` transaction; a thrown {@link StoreError} leaves the database unchanged.
 */
export class WorkflowStore {
  // The connection and the aggregates behind the facade are private: everything
  // outside src/store/ goes through the operations below. Tests reach them through
  // test/helpers/store-internals.ts only.
  /** The connection. */
  private readonly database: StateDatabase;
  /** Workflow messages and turns (docs/STORE-RULES.md §9). */
  private readonly messages: WorkflowMessageStore;
  /** The viewer-delta log (docs/STORE-RULES.md §8). */
  private readonly viewer: ViewerDeltaLog;
  /** Node attempts and interactive requests (docs/STORE-RULES.md §3.13–3.15). */
  private readonly interactions: InteractionStore;
  /** The registered project id, or null for a global store. */
  readonly projectId: string | null;
  /** What kind of file is open: our own, or a pi-workflows state file (docs/PI-WORKFLOWS-FILES.md §1). */
  readonly file: StateFile;
  private readonly context: StoreContext;
  /** The durable order of run changes (the file's layout keeps it). */
  private readonly runChanges: RunChangeLog;
  /** Replica mode: the file the connection reads and its reopen; undefined otherwise. */
  private readonly replicaFile: ReplicaFile | undefined;

  private constructor(context: StoreContext, replicaFile: ReplicaFile | undefined) {
    this.context = context;
    this.database = context.database;
    this.messages = context.messages;
    this.viewer = context.viewer;
    this.interactions = new InteractionStore(context.database, context.blobs);
    this.projectId = context.projectId;
    this.file = context.database.file;
    this.runChanges = context.layout.runChanges;
    this.replicaFile = replicaFile;
  }

  /**
   * Opens a store: migrations (read-write), blob pruning (read-write), project registration;
   * the open policy is `openStoreContext` (`store-open.ts`). A pi-workflows state file is
   * opened read-write when this server writes its layout, else read-only; never a migration
   * nor a prune there (docs/PI-WORKFLOWS-FILES.md §2, §3).
   *
   * @throws StoreError(validation) replica mode on `:memory:`; StoreError(integrity) for a file
   *   that is not a database, a file of neither kind, a newer schema, a pi-workflows file this
   *   server cannot read, or a pi-workflows file in replica mode
   */
  static open(options: WorkflowStoreOptions): WorkflowStore {
    const { context, replica } = openStoreContext(options);
    return new WorkflowStore(context, replica);
  }

  /**
   * What the server reports of the open file (banner, `/health`, refusal texts): its kind, why
   * this server does not write it (null when it does), and a pi-workflows file's schema and
   * layout (docs/PI-WORKFLOWS-FILES.md §2). See `FileLayout.describe`.
   */
  describeFile(): FileDescription {
    return this.context.layout.describe();
  }

  /** The store's clock, epoch ms. */
  now(): number {
    return this.context.clock();
  }

  /** Closes the connection. */
  close(): void {
    this.database.close();
  }

  /** Path the database was opened at (`:memory:` for an in-memory store). */
  get path(): string {
    return this.database.path;
  }

  /**
   * True when every write is refused (`Controller store is read-only`): opened read-only, or a
   * pi-workflows state file of a layout this server does not write (`file.writeRefusal`,
   * docs/PI-WORKFLOWS-FILES.md §2).
   */
  get readOnly(): boolean {
    return this.database.readOnly;
  }

  /**
   * Runs `fn` in one `BEGIN IMMEDIATE` transaction; every store operation it calls joins it
   * (docs/STORE-RULES.md §13.8), so a host records a change together with its viewer deltas, all or
   * nothing. Called inside an open transaction, `fn` joins that one.
   *
   * @returns what `fn` returns
   * @throws whatever `fn` throws (everything it wrote is rolled back); `SQLITE_BUSY` when the
   *   database stays locked for `BEGIN_ATTEMPTS` rounds of the busy timeout
   */
  transaction<T>(fn: () => T): T {
    return this.database.transaction(fn);
  }

  /**
   * {@link transaction} for a server: waits for the write lock without ever
   * blocking the event loop, then runs `fn` and commits in one tick. Every store operation `fn`
   * calls joins the transaction. The GraphQL mutations and the demo host write through this;
   * the synchronous methods (each its own transaction when called alone) wait for the lock
   * synchronously and are for callers that may block: the store's own open, scripts, tests,
   * and hosts that serve nobody else on their thread.
   *
   * When another connection holds the lock, `BEGIN IMMEDIATE` alone is retried from a timer
   * with jittered pauses (see `StateDatabase.transactionAsync`), oldest waiting write first,
   * until the same deadline as the synchronous path (`BEGIN_ATTEMPTS` × the busy
   * timeout).
   *
   * @returns a promise of what `fn` returns
   * @throws (rejects) whatever `fn` throws, everything it wrote rolled back; at the deadline
   *   the same `SQLITE_BUSY` error (`database is locked`) as the synchronous path, nothing written
   */
  writeAsync<T>(fn: () => T): Promise<T> {
    return this.database.transactionAsync(fn);
  }

  /**
   * Replica mode (docs/DEPLOYMENT.md "Read replicas"): when the file at {@link path} is no longer
   * the one the connection reads (its device or inode changed: a restore renamed a new copy over
   * it), opens the new one read-only (our own, fully migrated file only) and swaps it in; the
   * {@link onReopen} listeners then run (the change feed wakes its followers, who read on after
   * their own cursors). Commits applied in place need nothing here (the change feed sees them).
   * A missing path (a tool that deletes before it renames) is not a replacement yet.
   *
   * @returns true when the file was reopened, false when it is the same (or missing)
   * @throws Error when the store was not opened with `replica`; StoreError(integrity) when the
   *   new file is refused (the store stays on the old file; a later call tries again)
   */
  reopenIfReplaced(): boolean {
    if (this.replicaFile === undefined) throw new Error('reopenIfReplaced needs a store opened with replica: true');
    return this.replicaFile.reopenIfReplaced();
  }

  /** True when opened in replica mode (see {@link reopenIfReplaced}). */
  get replica(): boolean {
    return this.replicaFile !== undefined;
  }

  /**
   * Calls `listener` after each reopen of {@link reopenIfReplaced}.
   *
   * @returns a function that removes the listener
   */
  onReopen(listener: () => void): () => void {
    return this.database.onReopen(listener);
  }

  /**
   * Calls `listener` after every transaction committed through this store (the change feed's
   * in-process notifier; commits of other connections are not seen here). A listener that
   * throws does not turn the commit into a failure.
   *
   * @returns a function that removes the listener
   */
  onCommit(listener: () => void): () => void {
    return this.database.onCommit(listener);
  }

  /**
   * Rounds of `BEGIN IMMEDIATE` tried again after `SQLITE_BUSY` since open, plus the
   * {@link writeAsync} writes that had to wait (writers waiting on other connections' write
   * locks; a `/metrics` counter).
   */
  get busyRetries(): number {
    return this.database.beginRetries;
  }

  /**
   * Counters of the grouped commits of {@link writeAsync} since open (see
   * `StateDatabase.transactionAsync`): groups committed, writes they committed, writes rolled
   * back, and the wall time (ms) inside the groups — every write's function, the savepoints and
   * the COMMIT, fsync included. For benchmarks and tests.
   */
  get writeGroups(): Readonly<WriteGroupStats> {
    return this.database.writeGroups;
  }

  /**
   * Size of the write-ahead log file (`<path>-wal`) in bytes: 0 for an in-memory store or when
   * the file does not exist (no write since the last checkpoint that truncated it).
   */
  walSizeBytes(): number {
    const path = this.database.path;
    if (path === '' || path === ':memory:') return 0;
    try {
      return statSync(`${path}-wal`).size;
    } catch {
      return 0;
    }
  }

  /** SQL statements run through this store since open or {@link resetStatementCount} (N+1 checks, benchmarks). */
  get statementCount(): number {
    return this.database.statementCount;
  }

  /** Sets {@link statementCount} back to 0. */
  resetStatementCount(): void {
    this.database.resetStatementCount();
  }

  /** Reserve a run; with a claim, prepare-or-adopt. Every rule, the restart policy included: see {@link reserveWorkflowRun}. */
  reserveWorkflowRun(input: ReservationInput, claim?: ClaimRequest): ReservedRun {
    return reserveWorkflowRun(this.context, input, claim);
  }

  /**
   * SQLite's `PRAGMA quick_check(1)` on this connection, for health checks.
   *
   * @returns `ok`, or the first problem SQLite reports
   */
  quickCheck(): string {
    return this.database.get<{ quick_check: string }>('PRAGMA quick_check(1)')?.quick_check ?? 'no answer';
  }

  /** The idempotent restart command (docs/STORE-RULES.md §13.1). See {@link restartWorkflowRun}. */
  restartWorkflowRun(input: RestartWorkflowRunInput): RestartResult {
    return restartWorkflowRun(this.context, input);
  }

  /** Claim a run by id, normal mode (docs/STORE-RULES.md §6.3). See {@link claimWorkflowRun}. */
  claimWorkflowRun(input: ClaimWorkflowRunInput): WorkflowRunRecord | undefined {
    return claimWorkflowRun(this.context, input);
  }

  /** Claim a run by id while a pending interaction is allowed (docs/STORE-RULES.md §6.3). See {@link claimWorkflowRun}. */
  claimWorkflowRunForInteractionValidation(input: ClaimWorkflowRunInput): WorkflowRunRecord | undefined {
    return claimWorkflowRun(this.context, input, { allowPendingInteraction: true, preserveQueueStatus: false });
  }

  /** Control claim: allows a pending interaction and keeps the queue status (docs/STORE-RULES.md §6.3). See {@link claimWorkflowRun}. */
  claimWorkflowRunForControl(input: ClaimWorkflowRunInput): WorkflowRunRecord | undefined {
    return claimWorkflowRun(this.context, input, { allowPendingInteraction: true, preserveQueueStatus: true });
  }

  /** Claim the next eligible run (docs/STORE-RULES.md §6.4). See {@link claimNextWorkflowRun}. */
  claimNextWorkflowRun(input: ClaimNextWorkflowRunInput): WorkflowRunRecord | undefined {
    return claimNextWorkflowRun(this.context, input);
  }

  /** Claim verification (docs/STORE-RULES.md §5). See {@link verifyWorkflowRunClaim}. */
  verifyWorkflowRunClaim(input: RunClaimInput): boolean {
    return verifyWorkflowRunClaim(this.context, input);
  }

  /** Renew a live claim (docs/STORE-RULES.md §5). See {@link renewWorkflowRunClaim}. */
  renewWorkflowRunClaim(input: RunClaimInput & { leaseMs: number }): WorkflowRunRecord | undefined {
    return renewWorkflowRunClaim(this.context, input);
  }

  /** Heartbeat for the claim holder, deciding its refusals. See {@link renewWorkflowRunClaimOrThrow}. */
  renewWorkflowRunClaimOrThrow(input: RunClaimInput & { leaseMs: number }): WorkflowRunRecord {
    return renewWorkflowRunClaimOrThrow(this.context, input);
  }

  /** The engine reports a run `running` or `waiting` (docs/STORE-RULES.md §4). See {@link reportWorkflowRunState}. */
  reportWorkflowRunState(input: ReportWorkflowRunStateInput): number {
    return reportWorkflowRunState(this.context, input);
  }

  /** Worker ready (docs/STORE-RULES.md §6.5). See {@link markWorkflowRunRunning}. */
  markWorkflowRunRunning(input: RunClaimInput): boolean {
    return markWorkflowRunRunning(this.context, input);
  }

  /** Worker ready for the claim holder, deciding its refusals. See {@link markWorkflowRunRunningOrThrow}. */
  markWorkflowRunRunningOrThrow(input: RunClaimInput): WorkflowRunRecord {
    return markWorkflowRunRunningOrThrow(this.context, input);
  }

  /** Release to parked (docs/STORE-RULES.md §6.6). See {@link releaseWorkflowRunClaim}. */
  parkWorkflowRun(input: RunClaimInput): boolean {
    return releaseWorkflowRunClaim(this.context, input, 'parked');
  }

  /** Park for the claim holder, deciding its refusals: release to parked (§6.6), or with `noProgressDetail` park for worker no progress (§6.7). See {@link parkClaimedWorkflowRun}. */
  parkClaimedWorkflowRun(input: RunClaimInput & { noProgressDetail?: string }): WorkflowRunRecord {
    return parkClaimedWorkflowRun(this.context, input);
  }

  /** Release to done (docs/STORE-RULES.md §6.6); the runs row is not touched. See {@link releaseWorkflowRunClaim}. */
  completeWorkflowRun(input: RunClaimInput): boolean {
    return releaseWorkflowRunClaim(this.context, input, 'done');
  }

  /** Park for worker no progress (docs/STORE-RULES.md §6.7). See {@link parkWorkflowRunForWorkerNoProgress}. */
  parkWorkflowRunForWorkerNoProgress(input: RunClaimInput & { detail: string }): boolean {
    return parkWorkflowRunForWorkerNoProgress(this.context, input);
  }

  /** Pause a parked run (docs/STORE-RULES.md §6.8). See {@link pauseParkedWorkflowRun}. */
  pauseParkedWorkflowRun(input: { runId: string; now?: string }): boolean {
    return pauseParkedWorkflowRun(this.context, input);
  }

  /** Pause a parked run, deciding the refusals. See {@link pauseParkedWorkflowRunOrThrow}. */
  pauseParkedWorkflowRunOrThrow(input: { runId: string; now?: string }): WorkflowRunRecord {
    return pauseParkedWorkflowRunOrThrow(this.context, input);
  }

  /** Resume a paused interaction (docs/STORE-RULES.md §6.8). See {@link resumePausedInteraction}. */
  resumePausedInteraction(input: { runId: string; now?: string }): boolean {
    return resumePausedInteraction(this.context, input);
  }

  /** Resume a paused interaction, deciding the refusals. See {@link resumePausedInteractionOrThrow}. */
  resumePausedInteractionOrThrow(input: { runId: string; now?: string }): WorkflowRunRecord {
    return resumePausedInteractionOrThrow(this.context, input);
  }

  /** Interaction timeout (docs/STORE-RULES.md §6.9). See {@link beginWorkflowRunInteractionTimeout}. */
  beginWorkflowRunInteractionTimeout(input: RunClaimInput & { targetSessionId: string }): boolean {
    return beginWorkflowRunInteractionTimeout(this.context, input);
  }

  /** Fail a run (docs/STORE-RULES.md §6.10). See {@link failWorkflowRun}. */
  failWorkflowRun(input: { runId: string; claimToken?: string; errorCode: string; errorMessage: string; now?: string }): boolean {
    return failWorkflowRun(this.context, input);
  }

  /** Cancel a run, with the stale-cancel fallback (docs/STORE-RULES.md §6.10). See {@link cancelWorkflowRun}. */
  cancelWorkflowRun(input: CancelWorkflowRunInput): boolean {
    return cancelWorkflowRun(this.context, input);
  }

  /** Cancel with the claim, or without it through a control claim, deciding the refusals. See {@link cancelWorkflowRunOrThrow}. */
  cancelWorkflowRunOrThrow(input: CancelWorkflowRunInput): WorkflowRunRecord {
    return cancelWorkflowRunOrThrow(this.context, input);
  }

  /** Settle a claimed run terminal (docs/STORE-RULES.md §13.3). See {@link settleWorkflowRun}. */
  settleWorkflowRun(input: SettleWorkflowRunInput): WorkflowRunRecord {
    return settleWorkflowRun(this.context, input);
  }

  /** Record a host run event (docs/STORE-RULES.md §6.11). See {@link recordRunEvent}. */
  recordRunEvent(input: { runId: string; type: string; payload?: unknown; runnerId?: string; now?: string }): RunEventRecord {
    return recordRunEvent(this.context, input);
  }

  /** One run by id (no project filter); undefined when missing. See {@link getWorkflowRuns}. */
  getWorkflowRun(runId: string): WorkflowRunRecord | undefined {
    return getWorkflowRuns(this.context, [runId])[0];
  }

  /** Many runs by id in one statement, each `claim` as live at `now` (default the clock); undefined for missing ids. See {@link getWorkflowRuns}. */
  getWorkflowRuns(runIds: readonly string[], now?: number): Array<WorkflowRunRecord | undefined> {
    return getWorkflowRuns(this.context, runIds, now);
  }

  /** A keyset slice of runs, newest first (docs/GRAPHQL-CONTRACT.md `workflowRuns`). See {@link listWorkflowRunSlice}. */
  listWorkflowRunSlice(filter: WorkflowRunFilter | undefined, request: RunSliceRequest): RunSlice {
    return listWorkflowRunSlice(this.context, filter, request);
  }

  /** {@link listWorkflowRunSlice} reading run ids only: the same runs, keys and order, as `{ run: { runId }, key }`. See {@link listWorkflowRunIdSlice}. */
  listWorkflowRunIdSlice(filter: WorkflowRunFilter | undefined, request: RunSliceRequest): RunIdSlice {
    return listWorkflowRunIdSlice(this.context, filter, request);
  }

  /** Number of runs matching a filter per status and per queue status. See {@link countWorkflowRunsByStatus}. */
  countWorkflowRunsByStatus(filter?: WorkflowRunFilter): WorkflowRunCounts {
    return countWorkflowRunsByStatus(this.context, filter);
  }

  /** Number of runs matching a filter. See {@link countWorkflowRuns}. */
  countWorkflowRuns(filter?: WorkflowRunFilter): number {
    return countWorkflowRuns(this.context, filter);
  }

  /** Direct children of many runs, oldest first, in one statement. See {@link childrenOfRuns}. */
  childrenOfRuns(parentRunIds: readonly string[], kind?: LineageKind): Array<WorkflowRunRecord[]> {
    return childrenOfRuns(this.context, parentRunIds, kind);
  }

  /** {@link childrenOfRuns} as ids only. See {@link childIdsOfRuns}. */
  childIdsOfRuns(parentRunIds: readonly string[], kind?: LineageKind): Array<RunIdOnly[]> {
    return childIdsOfRuns(this.context, parentRunIds, kind);
  }

  /** {@link childrenOfRuns} as child and parent ids, from an index alone. See {@link childKeysOfRuns}. */
  childKeysOfRuns(parentRunIds: readonly string[], kind?: LineageKind): Array<ChildRunKey[]> {
    return childKeysOfRuns(this.context, parentRunIds, kind);
  }

  /** Newest run id of each chain, in one statement. See {@link latestRunIdsOfChains}. */
  latestRunIdsOfChains(rootRunIds: readonly string[]): string[] {
    return latestRunIdsOfChains(this.context, rootRunIds);
  }

  /** Number of runs of each chain, in one statement. See {@link chainSizes}. */
  chainSizes(rootRunIds: readonly string[]): number[] {
    return chainSizes(this.context, rootRunIds);
  }

  /** A keyset slice of a chain in lineage order, root first (docs/GRAPHQL-CONTRACT.md `lineage`). See {@link lineageSlice}. */
  lineageSlice(rootRunId: string, request: LineageSliceRequest): Array<KeyedRun<LineageKey>> {
    return lineageSlice(this.context, rootRunId, request);
  }

  /** {@link lineageSlice} reading run ids only. See {@link lineageIdSlice}. */
  lineageIdSlice(rootRunId: string, request: LineageSliceRequest): Array<KeyedRun<LineageKey, RunIdOnly>> {
    return lineageIdSlice(this.context, rootRunId, request);
  }

  /**
   * Where the durable order of run changes stands (see `run-change-log.ts`).
   *
   * @returns the database identity, the newest position, and the oldest position a replay can
   *   start from
   */
  runChangeHead(): RunChangeHead {
    return this.runChanges.head();
  }

  /**
   * The run-list change feed's cursor at its head now (docs/PROTOCOL.md
   * "A list and its feed"): read it before a list's rows, then subscribe with `after:` it to
   * miss nothing committed between the read and the subscription. Works on pi-workflows state
   * files too (position: `events.event_seq`).
   *
   * @returns an opaque cursor of `run-change-cursor.ts` (base64url), valid for `followRunChanges`
   */
  runChangeCursor(): string {
    // The clock before the head and the page's rows: a lease of a listed run that expires later is
    // delivered as an expiry (docs/PROTOCOL.md "Lease expiry").
    const at = this.context.clock();
    const { databaseId, head } = this.runChanges.head();
    return encodeRunChangeCursor({ databaseId, seq: head, expiry: { at, runId: null } });
  }

  /**
   * The runs whose latest change is after a position, oldest position first, each with its
   * record, all read in one snapshot together with the log's head (so a record is never older
   * than its position). The run-list change feed's read (`feed-run-changes.ts`).
   *
   * @param afterSeq a position of the log (≥ 0)
   * @param limit at most this many runs
   * @param now epoch ms the records' `claim` is live at (default the clock): the change feed reads
   *   at its lease clock (docs/PROTOCOL.md "Lease expiry")
   * @returns `head`; `changes`; `scannedTo`, the last position read (`afterSeq` when none: a
   *   run gone from `runs` is skipped but still passed); `full`, true when `limit` rows were read
   *   (more may follow at once)
   */
  readRunChanges(afterSeq: number, limit: number, now = this.context.clock()): RunChangesRead {
    return readRunChanges(this.context, afterSeq, limit, now);
  }

  /**
   * The owned run leases that expired in a window of the change feed's lease clock, each with
   * its run read at `request.through` (so its `claim` is null), all in one snapshot. See
   * {@link readExpiredLeaseRuns} (docs/PROTOCOL.md "Lease expiry").
   */
  readLeaseExpiries(request: LeaseExpiryRequest): Array<LeaseExpiryRow & { run: WorkflowRunRecord }> {
    return readExpiredLeaseRuns(this.context, request);
  }

  /**
   * The `expires_at` (epoch ms) of the run's lease when it is owned and live at `now` (epoch ms),
   * else undefined (no such run, no owner, expired). See {@link liveLeaseExpiry}.
   */
  liveLeaseExpiry(runId: string, now: number): number | undefined {
    return liveLeaseExpiry(this.database, runId, now);
  }

  /** The earliest expiry after `afterMs` (epoch ms) of an owned run lease, or undefined. See {@link nextLeaseExpiry}. */
  nextLeaseExpiry(afterMs: number): number | undefined {
    return nextLeaseExpiry(this.database, afterMs);
  }

  /**
   * Records one viewer revision for a run (docs/STORE-RULES.md §8 "Record") in its own transaction, as a
   * workflow host does for timeline items, graph updates and summaries.
   *
   * @returns the new presentation revision
   * @throws StoreError(validation) for an empty draft list or an unknown target type / op;
   *   StoreError(not_found) `Workflow run not found: <runId>`
   */
  recordViewerDeltas(runId: string, drafts: readonly ViewerDeltaDraft[], now?: string): number {
    if (this.database.readOnly) throw new StoreError('forbidden', 'Controller store is read-only');
    const at = resolveNow(now, this.context.clock);
    assertViewerDrafts(drafts);
    return this.database.transaction(() => {
      // One read of the viewer row: a run without one is not found.
      return this.viewer.record(runId, drafts, at, () => new StoreError('not_found', `Workflow run not found: ${runId}`));
    });
  }

  /**
   * Resume read of the delta log (docs/STORE-RULES.md §8 "Resume"). See {@link ViewerDeltaLog.read}.
   *
   * @param limit at most this many revisions, oldest first; default every retained one
   * @returns the read; undefined for an unknown run
   * @throws StoreError(validation) `Viewer cursor must be a non-negative integer`
   */
  readViewerDeltas(runId: string, afterRevision: number, limit?: number): ViewerDeltaRead | undefined {
    return this.viewer.read(runId, afterRevision, limit);
  }

  /**
   * A run's view as pi-workflows' viewer computes it, with the pages `plan` names, all read in one
   * snapshot (docs/PI-WORKFLOWS-FILES.md §9). See {@link readPlannedRunView}.
   *
   * @returns null for an unknown run
   * @throws StoreError(validation) for a malformed page request
   */
  readRunView(runId: string, plan: RunViewPlan): PlannedRunView | null {
    return this.database.readSnapshot(() => readPlannedRunView(this.database.connection, runId, plan));
  }

  /**
   * A run's whole view with the newest page of every list and the lists' positions, in one
   * snapshot: what a follower of the view starts from (docs/PROTOCOL.md "Following a run's view").
   *
   * @returns null for an unknown run
   */
  readRunViewNewest(runId: string): (PlannedRunView & { positions: ViewPositions }) | null {
    return this.readRunView(runId, { pages: NEWEST_PAGES, positions: true }) as (PlannedRunView & { positions: ViewPositions }) | null;
  }

  /**
   * What changed in a run's view since `since`, in one snapshot (docs/PROTOCOL.md "Following a
   * run's view"). See {@link readRunViewChanges}.
   *
   * @returns null for an unknown run
   */
  readRunViewChanges(runId: string, since: ViewPositions): ReturnType<typeof readRunViewChanges> {
    return this.database.readSnapshot(() => readRunViewChanges(this.database.connection, runId, since));
  }

  /**
   * The values behind references a run view read returned (never a caller's hash: no run-scope
   * check, which costs a scan of the run's rows per blob). See {@link readReferencedValue}.
   *
   * @returns per reference, its value or the StoreError reading it threw
   */
  readViewValues(refs: ReadonlyArray<Pick<ValueRef, 'hash' | 'decode'>>): Array<JsonValue | StoreError> {
    return this.database.readSnapshot(() => refs.map((ref) => storeErrorOr(() => readReferencedValue(this.database.connection, ref))));
  }

  /**
   * Captured session entries by the hashes a run view read returned (no run-scope check, see
   * {@link readViewValues}).
   *
   * @returns per hash, the entry or the StoreError reading it threw
   */
  readViewSessionEntries(hashes: readonly string[]): Array<SessionEntryContent | StoreError> {
    return this.database.readSnapshot(() => hashes.map((hash) => storeErrorOr(() => readReferencedSessionEntry(this.database.connection, hash))));
  }

  /**
   * A run's current presentation revision and the oldest one the log still holds (docs/STORE-RULES.md §8).
   *
   * @returns undefined for an unknown run (every reserved run has a viewer row)
   */
  viewerHead(runId: string): { currentRevision: number; retainedFromRevision: number } | undefined {
    return this.viewer.head(runId);
  }

  /**
   * A run and its viewer head read in one snapshot, so the record is the run as of
   * `currentRevision` (a follower reloads from it, then applies the revisions after it).
   *
   * @returns undefined for an unknown run
   */
  runAtViewerHead(runId: string): { run: WorkflowRunRecord; currentRevision: number; retainedFromRevision: number } | undefined {
    return readRunAtViewerHead(this.context, runId);
  }

  /**
   * Current presentation revisions of many runs, in one statement.
   *
   * @returns run id → revision, for the runs that exist
   */
  viewerHeads(runIds: readonly string[]): Map<string, number> {
    return this.viewer.heads(runIds);
  }

  /**
   * Current presentation revisions of every run of a chain (runs whose root is `rootRunId`),
   * in one statement.
   *
   * @returns run id → revision; empty for an unknown root
   */
  chainViewerHeads(rootRunId: string): Map<string, number> {
    return this.context.layout.chainViewerHeads(rootRunId, (runIds) => this.viewer.heads(runIds));
  }

  /**
   * Creates a `pending` workflow message, idempotently (docs/STORE-RULES.md §9 "Create"), at the store's
   * clock. See {@link WorkflowMessageStore.create} for the errors.
   *
   * @returns the stored message (or the existing matching one)
   */
  createWorkflowMessage(input: CreateWorkflowMessageInput): WorkflowMessageRecord {
    return this.messages.create(input, this.context.clock());
  }

  /**
   * Marks a message `sent` with the Pi session entry that carries it (branch adoption,
   * docs/STORE-RULES.md §9). See {@link WorkflowMessageStore.markSent} for the errors.
   */
  markWorkflowMessageSent(input: { workflowMessageId: string; targetSessionId: string; piSessionEntryId: string }): WorkflowMessageRecord {
    return this.messages.markSent(input.workflowMessageId, input.targetSessionId, input.piSessionEntryId, this.context.clock());
  }

  /**
   * Starts a model turn on a `sent` message, idempotently on the turn id (docs/STORE-RULES.md §9
   * "Turns"). See {@link WorkflowMessageStore.startTurn} for the errors.
   *
   * @param input `workflowTurnId` default `workflow-turn-<uuid>`
   */
  startWorkflowTurn(input: { workflowTurnId?: string; workflowMessageId: string; runId: string; targetSessionId: string }): WorkflowTurnRecord {
    return this.messages.startTurn(input, this.context.clock());
  }

  /**
   * Ends a started turn; the same end again is a no-op (docs/STORE-RULES.md §9 "Turns"). See
   * {@link WorkflowMessageStore.endTurn} for the errors.
   *
   * @param input `responseSessionEntryId` null when the turn left no response entry
   */
  endWorkflowTurn(input: { workflowTurnId: string; stopReason: WorkflowTurnStopReason; responseSessionEntryId: string | null }): WorkflowTurnRecord {
    return this.messages.endTurn(input.workflowTurnId, input.stopReason, input.responseSessionEntryId, this.context.clock());
  }

  /** A run's workflow messages, in order number order (docs/STORE-RULES.md §9). */
  listWorkflowMessages(runId: string): WorkflowMessageRecord[] {
    return this.messages.listForRun(runId);
  }

  /** A run's workflow turns, oldest first (docs/STORE-RULES.md §9). */
  listWorkflowTurns(runId: string): WorkflowTurnRecord[] {
    return this.messages.turnsForRun(runId);
  }

  /**
   * Opens a `waiting` node attempt and its `pending` interactive request (docs/STORE-RULES.md
   * §3.13–3.14), at the store's clock, as a host does when a step asks for input.
   *
   * @throws StoreError(forbidden) `Controller store is read-only`; StoreError(conflict)
   *   `Interaction could not be opened: <reason>` when the run already has an open attempt or the ids exist
   */
  openInteraction(input: OpenInteractionInput): void {
    this.interactions.openInteraction(input, this.context.clock());
  }
}
