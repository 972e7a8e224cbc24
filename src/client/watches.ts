/**
 * The typed client's watches (docs/IDE.md "The typed client"): a run's viewer deltas by
 * revision, a run's record after each change, the run list's changes by cursor, and a chain's
 * current latest run. Each resumes after a drop, a server restart or a refused connection from
 * where it was, and drops anything delivered twice; the rules of the streams are
 * docs/PROTOCOL.md's.
 */
import {
  WorkflowRunChainDeltasDocument,
  WorkflowRunChangeCursorDocument,
  WorkflowRunChangesDocument,
  WorkflowRunDeltasDocument,
  WorkflowRunDocument,
  WorkflowRunUpdatedDocument,
  type RunFieldsFragment,
  type TypedDocumentString,
  type WorkflowRunChainDeltasSubscription,
  type WorkflowRunChangesSubscription,
  type WorkflowRunDeltasSubscription,
  type WorkflowRunFilter,
  type WorkflowRunUpdatedSubscription,
} from '../../schema/generated/graphql.js';
import type { Connection } from './connection.js';
import { WorkflowClientError } from './errors.js';
import { WatchBase, type WatchCallbacks } from './watch.js';

/** One event of `workflowRunDeltas`: a `ViewerDeltaBatch` (one revision) or a `ViewerSnapshotRequired`. */
export type RunDeltaEvent = WorkflowRunDeltasSubscription['workflowRunDeltas'];
/** One event of `workflowRunChanges`: a `WorkflowRunChange` (a run and its cursor) or a `WorkflowRunChangesResetRequired`. */
export type RunListEvent = WorkflowRunChangesSubscription['workflowRunChanges'];
/** A run as the typed operations select it (fragment `RunFields`). */
export type Run = RunFieldsFragment;

/**
 * What a chain watch tells: `run` when it starts following a run (the chain's latest at the
 * start, then each continuation or restart that becomes the latest; `previousRunId` the run it
 * left), `delta` for each viewer-delta event of the run it follows (`workflowRunDeltas`' event
 * types: a revision, or a snapshot request).
 */
export type ChainEvent = { type: 'run'; run: Run; previousRunId: string | null } | { type: 'delta'; runId: string; event: RunDeltaEvent };

/** What the watches need from the client. */
export interface WatchContext {
  connection: Connection;
  /** A typed operation over HTTP (the client's `query`). */
  request<TResult, TVariables>(document: TypedDocumentString<TResult, TVariables>, variables: TVariables): Promise<TResult>;
}

/** Options of {@link RunWatch}. */
export interface RunWatchOptions extends WatchCallbacks<RunDeltaEvent> {
  /**
   * The last revision already applied: revisions after it are replayed, then live. Default: the
   * run's current revision, read over HTTP before subscribing (nothing replayed, nothing missed
   * later). `null`: live only from when the server takes the subscription.
   */
  afterRevision?: number | null;
}

/**
 * A run's viewer deltas (`workflowRunDeltas`), each revision once and in order: every
 * (re)subscribe asks for the revisions after {@link revision}; a batch at or below it is
 * dropped (`stats.duplicates`). A `ViewerSnapshotRequired` is delivered and moves
 * {@link revision} to its `currentRevision` (reload what the view needs, as docs/PROTOCOL.md says).
 * Ends with `completed` when the server ends the stream, `failed` on a GraphQL error (an unknown
 * run: `Workflow run not found: <id>`) or a refused token.
 */
export class RunWatch extends WatchBase<RunDeltaEvent> {
  /** The last revision delivered (or started after); null while live-only and nothing arrived. */
  revision: number | null;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly context: WatchContext,
    readonly runId: string,
    options: RunWatchOptions = {},
  ) {
    super(options);
    this.revision = options.afterRevision ?? null;
    void this.start(options.afterRevision === undefined);
  }

  private async start(readRevision: boolean): Promise<void> {
    if (readRevision) {
      try {
        const { workflowRun } = await this.context.request(WorkflowRunDocument, { runId: this.runId });
        if (workflowRun === null) throw new WorkflowClientError('graphql', `Workflow run not found: ${this.runId}`);
        this.revision = workflowRun.presentationRevision;
      } catch (error) {
        this.end({ reason: 'failed', error: error as WorkflowClientError });
        return;
      }
    }
    if (this.isEnded) return;
    this.unsubscribe = this.context.connection.subscribe<WorkflowRunDeltasSubscription>(
      WorkflowRunDeltasDocument.toString(),
      () => ({ runId: this.runId, afterRevision: this.revision }),
      this.sinkOf((data) => this.onData(data.workflowRunDeltas)),
    );
  }

  private onData(event: RunDeltaEvent): void {
    if (event.__typename === 'ViewerSnapshotRequired') {
      this.revision = event.currentRevision;
      this.deliver(event);
      return;
    }
    if (this.revision !== null && event.presentationRevision <= this.revision) {
      this.stats.duplicates += 1;
      return;
    }
    this.revision = event.presentationRevision;
    this.deliver(event);
  }

  protected stop(): void {
    this.unsubscribe?.();
  }
}

/** Options of {@link RunUpdatesWatch}. */
export type RunUpdatesWatchOptions = WatchCallbacks<Run>;

/**
 * A run's record after each change (`workflowRunUpdated`). That stream has no cursor, so after
 * every reconnect the run is read again over HTTP and delivered when it changed meanwhile; a
 * state older than the last delivered (by `updatedAt`, then `presentationRevision`) or equal to
 * it is dropped.
 */
export class RunUpdatesWatch extends WatchBase<Run> {
  /** The last state delivered. */
  last: Run | undefined;
  private unsubscribe: (() => void) | undefined;
  private offConnected: (() => void) | undefined;

  constructor(
    private readonly context: WatchContext,
    readonly runId: string,
    options: RunUpdatesWatchOptions = {},
  ) {
    super(options);
    this.offConnected = context.connection.onConnected((reconnected) => {
      if (reconnected) void this.refresh();
    });
    this.unsubscribe = context.connection.subscribe<WorkflowRunUpdatedSubscription>(
      WorkflowRunUpdatedDocument.toString(),
      () => ({ runId: this.runId }),
      this.sinkOf((data) => this.offer(data.workflowRunUpdated)),
    );
  }

  private async refresh(): Promise<void> {
    try {
      const { workflowRun } = await this.context.request(WorkflowRunDocument, { runId: this.runId });
      if (workflowRun !== null) this.offer(workflowRun);
    } catch {
      // The server went away again: the next reconnect reads it again.
    }
  }

  private offer(run: Run): void {
    const last = this.last;
    if (last !== undefined) {
      const older = run.updatedAt < last.updatedAt || (run.updatedAt === last.updatedAt && run.presentationRevision < last.presentationRevision);
      if (older || JSON.stringify(run) === JSON.stringify(last)) {
        this.stats.duplicates += 1;
        return;
      }
    }
    this.last = run;
    this.deliver(run);
  }

  protected stop(): void {
    this.offConnected?.();
    this.unsubscribe?.();
  }
}

/** Options of {@link RunListWatch}. */
export interface RunListWatchOptions extends WatchCallbacks<RunListEvent> {
  /** `workflowRuns`' filter (docs/PROTOCOL.md "Filters and leaving a filter"). */
  filter?: WorkflowRunFilter | null;
  /**
   * The cursor of the last event applied, or a list's `changeCursor`: changes after it are
   * replayed, then live. Default: the feed's position now, read over HTTP before subscribing.
   * `null`: live only from when the server takes the subscription.
   */
  after?: string | null;
}

/** How many delivered cursors a run-list watch remembers to drop repeats. */

/**
 * The run-list change feed (`workflowRunChanges`): every (re)subscribe asks for the changes
 * after {@link cursor}, the last one delivered; an event whose cursor was already delivered is
 * dropped (`stats.duplicates`). A `WorkflowRunChangesResetRequired` is delivered (re-query the
 * list) and its cursor becomes {@link cursor}.
 */
export class RunListWatch extends WatchBase<RunListEvent> {
  /** The cursor of the last event delivered (or started after); null while live-only and nothing arrived. */
  cursor: string | null;
  readonly filter: WorkflowRunFilter | null;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly context: WatchContext,
    options: RunListWatchOptions = {},
  ) {
    super(options);
    this.filter = options.filter ?? null;
    this.cursor = options.after ?? null;
    void this.start(options.after === undefined);
  }

  private async start(readCursor: boolean): Promise<void> {
    if (readCursor) {
      try {
        const { workflowRuns } = await this.context.request(WorkflowRunChangeCursorDocument, { filter: this.filter });
        this.cursor = workflowRuns.changeCursor;
      } catch (error) {
        this.end({ reason: 'failed', error: error as WorkflowClientError });
        return;
      }
    }
    if (this.isEnded) return;
    this.unsubscribe = this.context.connection.subscribe<WorkflowRunChangesSubscription>(
      WorkflowRunChangesDocument.toString(),
      () => ({ filter: this.filter, after: this.cursor }),
      this.sinkOf((data) => this.onData(data.workflowRunChanges)),
    );
  }

  private onData(event: RunListEvent): void {
    if (event.__typename === 'WorkflowRunChange') {
      if (this.repeated(event.cursor)) return;
    }
    this.cursor = event.cursor;
    this.deliver(event);
  }

  protected stop(): void {
    this.unsubscribe?.();
  }
}

/** Options of {@link ChainWatch}. */
export interface ChainWatchOptions extends WatchCallbacks<ChainEvent> {
  /**
   * The cursor of the last chain event applied ({@link ChainWatch.cursor}): the stream goes on
   * after it (to the latest run when the chain moved meanwhile). Default null: a snapshot of the
   * chain's latest run first.
   */
  after?: string | null;
}

/**
 * Follows a chain's current latest run with the server's `workflowRunChainDeltas`
 * (docs/PROTOCOL.md "Following a chain"), named by any of its runs: `{type: 'run'}` for the
 * latest run at the start (`previousRunId` null) and for each continuation or restart the
 * server moves to (`previousRunId` the run it left), `{type: 'delta'}` for each revision of the
 * run followed (a later snapshot request comes as a `ViewerSnapshotRequired` delta event).
 * Every (re)subscribe resumes after {@link cursor}, the last event delivered; an event whose
 * cursor was delivered already is dropped (`stats.duplicates`).
 */
export class ChainWatch extends WatchBase<ChainEvent> {
  /** Root run id of the chain (known from the first event). */
  rootRunId: string | null = null;
  /** The cursor of the last event delivered (or started after). */
  cursor: string | null;
  /** The run followed now (known from the first event). */
  runId: string | undefined;
  /** The last revision delivered of the run followed now. */
  revision: number | null = null;
  private unsubscribe: (() => void) | undefined;

  constructor(
    context: WatchContext,
    readonly startRunId: string,
    options: ChainWatchOptions = {},
  ) {
    super(options);
    this.cursor = options.after ?? null;
    this.unsubscribe = context.connection.subscribe<WorkflowRunChainDeltasSubscription>(
      WorkflowRunChainDeltasDocument.toString(),
      () => ({ runId: this.startRunId, after: this.cursor }),
      this.sinkOf((data) => this.onData(data.workflowRunChainDeltas)),
    );
  }

  private onData(event: WorkflowRunChainDeltasSubscription['workflowRunChainDeltas']): void {
    if (this.repeated(event.cursor)) return;
    this.cursor = event.cursor;
    if (event.__typename === 'WorkflowRunChainBatch') {
      this.revision = event.batch.presentationRevision;
      this.deliver({ type: 'delta', runId: event.batch.runId, event: { __typename: 'ViewerDeltaBatch', ...event.batch } });
      return;
    }
    this.rootRunId = event.run.rootRunId;
    this.revision = event.currentRevision;
    if (event.__typename === 'WorkflowRunChainMoved') {
      this.runId = event.runId;
      this.deliver({ type: 'run', run: event.run, previousRunId: event.fromRunId });
      return;
    }
    // A snapshot request: the first event (the run followed), or a cursor past the retained log.
    if (this.runId !== event.runId) {
      this.runId = event.runId;
      this.deliver({ type: 'run', run: event.run, previousRunId: null });
      return;
    }
    const { cursor: _cursor, ...snapshot } = event;
    this.deliver({ type: 'delta', runId: event.runId, event: { ...snapshot, __typename: 'ViewerSnapshotRequired' } });
  }

  protected stop(): void {
    this.unsubscribe?.();
  }
}
