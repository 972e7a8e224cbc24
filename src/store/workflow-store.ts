import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { BlobStore } from './blobs.js';
import { StateDatabase, type WriteGroupStats } from './database.js';
import { isStoreError, StoreError } from './errors.js';
import type { JsonValue } from './canonical-json.js';
import { countWorkflowRunsByStatus, type WorkflowRunCounts } from './run-counts.js';
import { liveLeaseExpiry, nextLeaseExpiry, readLeaseExpiries, type LeaseExpiryRequest, type LeaseExpiryRow } from './lease-expiries.js';
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
import {
  beginWorkflowRunInteractionTimeout,
  markWorkflowRunRunning,
  markWorkflowRunRunningOrThrow,
  parkClaimedWorkflowRun,
  parkWorkflowRunForWorkerNoProgress,
  pauseParkedWorkflowRun,
  pauseParkedWorkflowRunOrThrow,
  recordRunEvent,
  releaseWorkflowRunClaim,
  reportWorkflowRunState,
  type ReportWorkflowRunStateInput,
  resumePausedInteraction,
  resumePausedInteractionOrThrow,
  type RunEventRecord,
} from './run-transitions.js';
import { RunOrderIndex } from './run-order-index.js';
import { encodeRunChangeCursor } from './run-change-cursor.js';
import { runChangeLogOf, type RunChangeHead, type RunChangeLog, type RunChangeRow } from './run-change-log.js';
import { headerApplicationId, PI_WORKFLOWS_APPLICATION_ID, type StateFile } from './state-file.js';
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
import { resolveNow, sha256Hex, systemClock, type Clock } from './values.js';
import { VIEWER_TARGET_TYPES, ViewerDeltaLog, type ViewerDeltaDraft, type ViewerDeltaRead } from './viewer-deltas.js';
import {
  WorkflowMessageStore,
  type CreateWorkflowMessageInput,
  type WorkflowMessageRecord,
  type WorkflowTurnRecord,
  type WorkflowTurnStopReason,
} from './workflow-messages.js';
import { InteractionStore, type OpenInteractionInput } from './interactions.js';

/** Options of {@link WorkflowStore.open}. */
export interface WorkflowStoreOptions {
  /** SQLite file path, or `:memory:`. */
  path: string;
  /** Open read-only: every write fails with `Controller store is read-only`. */
  readOnly?: boolean;
  /**
   * The project runs are reserved under (docs/STORE-RULES.md §3.1, §13.5): a directory path, registered
   * when missing (read-write); `null` for a global store. Default: the working directory.
   */
  projectPath?: string | null;
  /** Clock in epoch ms (default `Date.now`); tests inject their own. */
  clock?: Clock;
  /** Busy timeout in ms (default 5000). */
  busyTimeoutMs?: number;
  /**
   * Replica mode (docs/DEPLOYMENT.md "Read replicas"): a read-only copy of this server's own
   * file kept up to date by another tool; implies `readOnly`, refuses a pi-workflows state file,
   * and allows {@link WorkflowStore.reopenIfReplaced}.
   */
  replica?: boolean;
}

/** The refusal of a pi-workflows state file in replica mode (docs/DEPLOYMENT.md "Read replicas"). */
export function replicaRefusalMessage(path: string): string {
  return (
    `Replica mode serves a copy of this server's own database file only: ${path} is a pi-workflows state file ` +
    '(a replication tool such as Litestream adds its own tables to the file it replicates, which pi-workflows refuses)'
  );
}

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
  /** The durable order of run changes. */
  private readonly runChanges: RunChangeLog;
  /** Replica mode: the identity of the file the connection reads; undefined otherwise. */
  private fileIdentity: FileIdentity | undefined;

  private constructor(context: StoreContext) {
    this.context = context;
    this.database = context.database;
    this.messages = context.messages;
    this.viewer = context.viewer;
    this.interactions = new InteractionStore(context.database, context.blobs);
    this.projectId = context.projectId;
    this.file = context.database.file;
    this.runChanges = runChangeLogOf(context.database);
  }

  /**
   * Opens a store: migrations (read-write), blob pruning (read-write), project registration.
   * A pi-workflows state file is opened read-write when this server writes its layout, else
   * read-only (see `StateDatabase.open`); never a migration nor a prune there, and the project
   * row exactly as pi-workflows' own open writes it (docs/PI-WORKFLOWS-FILES.md §2, §3).
   *
   * @throws StoreError(integrity) for a file that is not a database, a file of neither kind, a
   *   newer schema, or a pi-workflows file this server cannot read
   */
  static open(options: WorkflowStoreOptions): WorkflowStore {
    const replica = options.replica === true;
    if (replica && (options.path === ':memory:' || options.path === '')) throw new StoreError('validation', 'Replica mode needs a database file, not :memory:');
    if (replica && headerApplicationId(options.path) === PI_WORKFLOWS_APPLICATION_ID) throw new StoreError('integrity', replicaRefusalMessage(options.path));
    // Taken before the open: a replacement in between only makes the first check reopen once more.
    const identity = replica ? fileIdentityOf(options.path) : undefined;
    const database = StateDatabase.open({
      path: options.path,
      ...(replica ? { readOnly: true } : options.readOnly === undefined ? {} : { readOnly: options.readOnly }),
      ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
    });
    try {
      if (replica && database.file.kind !== 'own') throw new StoreError('integrity', replicaRefusalMessage(options.path));
      const clock = options.clock ?? systemClock;
      const blobs = new BlobStore(database);
      // The prune deletes only blobs no foreign-key column references (one NOT IN over all of
      // them), so SQLite's per-row child lookups would find nothing — and without indexes on
      // those columns they are full scans per deleted blob.
      // Never on a pi-workflows file: pi-workflows never prunes, and blobs there are referenced by
      // tables this server does not know (docs/PI-WORKFLOWS-FILES.md §3).
      if (!database.readOnly && database.file.kind === 'own') {
        database.withoutForeignKeyEnforcement(() => database.transaction(() => blobs.pruneUnreferenced()));
      }
      const projectId = registerProject(database, options.projectPath === undefined ? process.cwd() : options.projectPath, clock);
      // A pi-workflows state file lacks the lineage indexes of migration 0002 and never gets
      // one: its run order lives in memory, built now (docs/PI-WORKFLOWS-FILES.md §7).
      const runIndex = database.file.kind === 'pi-workflows' ? new RunOrderIndex(database) : undefined;
      if (runIndex !== undefined) database.readSnapshot(() => runIndex.refresh());
      const viewer = new ViewerDeltaLog(database, blobs, runIndex);
      const messages = new WorkflowMessageStore(database, blobs);
      const store = new WorkflowStore({ database, blobs, viewer, messages, clock, projectId, ...(runIndex === undefined ? {} : { runIndex }) });
      store.fileIdentity = identity ?? (replica ? { dev: -1, ino: -1 } : undefined);
      return store;
    } catch (error) {
      database.close();
      throw error;
    }
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
    const current = this.fileIdentity;
    if (current === undefined) throw new Error('reopenIfReplaced needs a store opened with replica: true');
    const now = fileIdentityOf(this.path);
    if (now === undefined || (now.dev === current.dev && now.ino === current.ino)) return false;
    this.database.reopenReplacedFile();
    // A copy renamed over the path while it was being opened may be the one now read: when the
    // path changed again meanwhile, the next call reopens whatever is there.
    const after = fileIdentityOf(this.path);
    this.fileIdentity = after !== undefined && after.dev === now.dev && after.ino === now.ino ? now : UNKNOWN_FILE;
    return true;
  }

  /** True when opened in replica mode (see {@link reopenIfReplaced}). */
  get replica(): boolean {
    return this.fileIdentity !== undefined;
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
  readRunChanges(
    afterSeq: number,
    limit: number,
    now = this.context.clock(),
  ): { head: RunChangeHead; changes: Array<RunChangeRow & { run: WorkflowRunRecord }>; scannedTo: number; full: boolean } {
    return this.database.readSnapshot(() => {
      const head = this.runChanges.head();
      const rows = this.runChanges.readAfter(afterSeq, limit);
      const runs = getWorkflowRuns(
        this.context,
        rows.map((row) => row.runId),
        now,
      );
      const changes: Array<RunChangeRow & { run: WorkflowRunRecord }> = [];
      rows.forEach((row, index) => {
        const run = runs[index];
        if (run !== undefined) changes.push({ ...row, run });
      });
      return { head, changes, scannedTo: rows.at(-1)?.seq ?? afterSeq, full: rows.length === limit };
    });
  }

  /**
   * The owned run leases that expired in a window of the change feed's lease clock, each with
   * its run read at `request.through` (so its `claim` is null), all in one snapshot. See
   * {@link readLeaseExpiries} (docs/PROTOCOL.md "Lease expiry").
   */
  readLeaseExpiries(request: LeaseExpiryRequest): Array<LeaseExpiryRow & { run: WorkflowRunRecord }> {
    return this.database.readSnapshot(() => {
      const rows = readLeaseExpiries(this.database, request);
      const runs = getWorkflowRuns(
        this.context,
        rows.map((row) => row.runId),
        request.through,
      );
      const expiries: Array<LeaseExpiryRow & { run: WorkflowRunRecord }> = [];
      rows.forEach((row, index) => {
        const run = runs[index];
        if (run !== undefined) expiries.push({ ...row, run });
      });
      return expiries;
    });
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
    for (const draft of drafts) {
      if (!(VIEWER_TARGET_TYPES as readonly string[]).includes(draft.targetType)) {
        throw new StoreError('validation', `Unknown viewer target type: ${String(draft.targetType)}`, 'targetType');
      }
      for (const op of draft.ops ?? []) {
        if (!['add', 'replace', 'remove', 'append'].includes(op.op) || typeof op.path !== 'string') {
          throw new StoreError('validation', 'Viewer patch operations must be add, replace, remove or append with a path', 'ops');
        }
      }
    }
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
    return this.database.readSnapshot(() => refs.map((ref) => attempt(() => readReferencedValue(this.database.connection, ref))));
  }

  /**
   * Captured session entries by the hashes a run view read returned (no run-scope check, see
   * {@link readViewValues}).
   *
   * @returns per hash, the entry or the StoreError reading it threw
   */
  readViewSessionEntries(hashes: readonly string[]): Array<SessionEntryContent | StoreError> {
    return this.database.readSnapshot(() => hashes.map((hash) => attempt(() => readReferencedSessionEntry(this.database.connection, hash))));
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
    return this.database.readSnapshot(() => {
      const head = this.viewer.head(runId);
      const run = head === undefined ? undefined : getWorkflowRuns(this.context, [runId])[0];
      return head === undefined || run === undefined ? undefined : { run, ...head };
    });
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
    return this.viewer.chainHeads(rootRunId);
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

/** `project-` + first 40 hex of SHA-256 of the canonical path (docs/STORE-RULES.md §3.1). */
export function projectIdFor(canonicalPath: string): string {
  return `project-${sha256Hex(canonicalPath).slice(0, 40)}`;
}

function canonicalProjectPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/**
 * The project the store reserves under (docs/STORE-RULES.md §3.1): read-only, looked up by canonical path
 * (null when missing); read-write, its row inserted when missing. On a pi-workflows file this is
 * the very statement pi-workflows' own read-write open runs (`INSERT … ON CONFLICT(project_id) DO
 * NOTHING`, the same id, path and clock), so serving a file adds at most the row pi-workflows
 * itself would add for that directory (docs/PI-WORKFLOWS-FILES.md §3).
 *
 * @returns the project id, or null for a global store (or a read-only one without the row)
 */
/** A file's identity on disk: a rename over the path gives another. */
interface FileIdentity {
  dev: number;
  ino: number;
}

/** An identity no file has: the next {@link WorkflowStore.reopenIfReplaced} reopens. */
const UNKNOWN_FILE: FileIdentity = { dev: -1, ino: -1 };

/** The identity of the file at `path` now, or undefined when there is none. */
function fileIdentityOf(path: string): FileIdentity | undefined {
  try {
    const stats = statSync(path);
    return { dev: stats.dev, ino: stats.ino };
  } catch {
    return undefined;
  }
}

function registerProject(database: StateDatabase, projectPath: string | null, clock: Clock): string | null {
  if (projectPath === null) return null;
  const canonicalPath = canonicalProjectPath(projectPath);
  const projectId = projectIdFor(canonicalPath);
  if (database.readOnly) {
    const row = database.get<{ project_id: string }>('SELECT project_id FROM projects WHERE canonical_path = ?', canonicalPath);
    return row?.project_id ?? null;
  }
  database.transaction(() => {
    database.run(
      'INSERT INTO projects(project_id, canonical_path, created_at) VALUES (?, ?, ?) ON CONFLICT(project_id) DO NOTHING',
      projectId,
      canonicalPath,
      clock(),
    );
  });
  return projectId;
}

/** What `read` returns, or the StoreError it threw (any other error is thrown on). */
function attempt<T>(read: () => T): T | StoreError {
  try {
    return read();
  } catch (error) {
    if (isStoreError(error)) return error;
    throw error;
  }
}
