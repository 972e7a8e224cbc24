/**
 * The typed client's watches (docs/IDE.md "The typed client"): a run's viewer deltas by
 * revision, a run's record after each change, the run list's changes by cursor, and a chain's
 * current latest run. Each resumes after a drop, a server restart or a refused connection from
 * where it was, and drops anything delivered twice; the rules of the streams are
 * docs/PROTOCOL.md's.
 */
import {
  WorkflowRunChangeCursorDocument,
  WorkflowRunChangesDocument,
  WorkflowRunDeltasDocument,
  WorkflowRunDocument,
  WorkflowRunLatestDocument,
  WorkflowRunUpdatedDocument,
  type RunFieldsFragment,
  type TypedDocumentString,
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
 * left), `delta` for each viewer-delta event of the run it follows.
 */
export type ChainEvent = { type: 'run'; run: Run; previousRunId: string | null } | { type: 'delta'; runId: string; event: RunDeltaEvent };

/** What the watches need from the client. */
export interface WatchContext {
  connection: Connection;
  /** A typed operation over HTTP (the client's `query`). */
  request<TResult, TVariables>(document: TypedDocumentString<TResult, TVariables>, variables: TVariables): Promise<TResult>;
}

/**
 * Runs `task` now; when it fails because the server cannot be reached, runs it again at the
 * next acknowledged connection (the watch's socket is retrying meanwhile), until `cancelled()`.
 */
async function whenReachable<T>(context: WatchContext, task: () => Promise<T>, cancelled: () => boolean): Promise<T> {
  for (;;) {
    try {
      return await task();
    } catch (error) {
      if (!(error instanceof WorkflowClientError) || error.kind !== 'network' || cancelled()) throw error;
      await new Promise<void>((resolve) => {
        const off = context.connection.onConnected(() => {
          off();
          resolve();
        });
      });
    }
  }
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
      {
        sent: () => {
          this.stats.subscriptions += 1;
        },
        next: (data) => this.onData(data.workflowRunDeltas),
        error: (error) => this.end({ reason: 'failed', error }),
        complete: () => this.end({ reason: 'completed' }),
      },
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
    this.unsubscribe = context.connection.subscribe<WorkflowRunUpdatedSubscription>(WorkflowRunUpdatedDocument.toString(), () => ({ runId: this.runId }), {
      sent: () => {
        this.stats.subscriptions += 1;
      },
      next: (data) => this.offer(data.workflowRunUpdated),
      error: (error) => this.end({ reason: 'failed', error }),
      complete: () => this.end({ reason: 'completed' }),
    });
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
const REMEMBERED_CURSORS = 4096;

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
  private readonly seen = new Set<string>();
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
      {
        sent: () => {
          this.stats.subscriptions += 1;
        },
        next: (data) => this.onData(data.workflowRunChanges),
        error: (error) => this.end({ reason: 'failed', error }),
        complete: () => this.end({ reason: 'completed' }),
      },
    );
  }

  private onData(event: RunListEvent): void {
    if (event.__typename === 'WorkflowRunChange') {
      if (this.seen.has(event.cursor)) {
        this.stats.duplicates += 1;
        return;
      }
      this.seen.add(event.cursor);
      if (this.seen.size > REMEMBERED_CURSORS) this.seen.delete(this.seen.values().next().value as string);
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
   * When the chain's latest run is the run asked for: the last revision of it already applied
   * (default: its current revision). A run the watch moves to is followed from revision 0.
   */
  afterRevision?: number | null;
}

/**
 * Follows a chain's current latest run: the chain of `runId` (any of its runs), its newest run
 * (`latestRun`) followed with a {@link RunWatch}, and the chain's run-list changes (filter
 * `{rootRunId}`, from the feed's position read before the latest run) telling when a
 * continuation or restart joins it: the watch then reads `latestRun` again and, when it is a new
 * run, delivers `{type: 'run'}` and follows that run's deltas from revision 0. Built on the
 * run-list feed and the delta stream; resumable from {@link runId} and {@link revision}.
 */
export class ChainWatch extends WatchBase<ChainEvent> {
  /** Root run id of the chain (known once started). */
  rootRunId: string | null = null;
  private current: Run | undefined;
  private runWatch: RunWatch | undefined;
  private listWatch: RunListWatch | undefined;
  private readonly known = new Set<string>();
  private moves: Promise<void> = Promise.resolve();

  constructor(
    private readonly context: WatchContext,
    readonly startRunId: string,
    options: ChainWatchOptions = {},
  ) {
    super(options);
    void this.start(options.afterRevision);
  }

  /** The run followed now (undefined before the start). */
  get runId(): string | undefined {
    return this.current?.runId;
  }

  /** The last revision delivered of the run followed now. */
  get revision(): number | null {
    return this.runWatch?.revision ?? null;
  }

  private async latestOf(runId: string): Promise<{ rootRunId: string; latest: Run }> {
    const { workflowRun } = await this.context.request(WorkflowRunLatestDocument, { runId });
    if (workflowRun === null) throw new WorkflowClientError('graphql', `Workflow run not found: ${runId}`);
    return { rootRunId: workflowRun.rootRunId, latest: workflowRun.latestRun };
  }

  private async start(afterRevision: number | null | undefined): Promise<void> {
    let cursor: string;
    let latest: Run;
    try {
      const { rootRunId } = await this.latestOf(this.startRunId);
      this.rootRunId = rootRunId;
      // The feed's position first, then the latest run: a run joining in between comes as a change.
      cursor = (await this.context.request(WorkflowRunChangeCursorDocument, { filter: { rootRunId } })).workflowRuns.changeCursor;
      latest = (await this.latestOf(this.startRunId)).latest;
    } catch (error) {
      this.end({ reason: 'failed', error: error as WorkflowClientError });
      return;
    }
    if (this.isEnded) return;
    this.known.add(latest.runId);
    this.follow(latest, null, latest.runId === this.startRunId && afterRevision !== undefined ? afterRevision : latest.presentationRevision);
    this.listWatch = new RunListWatch(this.context, {
      filter: { rootRunId: this.rootRunId },
      after: cursor,
      onEvent: (event) => {
        const joined = event.__typename === 'WorkflowRunChangesResetRequired' || !this.known.has(event.run.runId);
        if (event.__typename === 'WorkflowRunChange') this.known.add(event.run.runId);
        if (joined) this.moves = this.moves.then(() => this.checkLatest());
      },
      onEnd: (end) => this.endFromInner(end),
    });
  }

  private follow(run: Run, previousRunId: string | null, afterRevision: number | null): void {
    this.current = run;
    this.deliver({ type: 'run', run, previousRunId });
    this.runWatch = new RunWatch(this.context, run.runId, {
      afterRevision,
      onEvent: (event) => this.deliver({ type: 'delta', runId: run.runId, event }),
      onEnd: (end) => {
        // A run left for the next one ends its watch by our close: that is not the chain's end.
        if (this.runWatch?.runId === run.runId) this.endFromInner(end);
      },
    });
  }

  private async checkLatest(): Promise<void> {
    const current = this.current;
    if (this.isEnded || current === undefined) return;
    try {
      const { latest } = await whenReachable(
        this.context,
        () => this.latestOf(current.runId),
        () => this.isEnded,
      );
      if (this.isEnded || latest.runId === current.runId) return;
      const previous = this.runWatch;
      this.runWatch = undefined;
      previous?.close();
      this.follow(latest, current.runId, 0);
    } catch (error) {
      this.end({ reason: 'failed', error: error as WorkflowClientError });
    }
  }

  private endFromInner(end: { reason: 'closed' } | { reason: 'completed' } | { reason: 'failed'; error: WorkflowClientError }): void {
    if (end.reason !== 'closed') this.end(end);
  }

  protected stop(): void {
    const runWatch = this.runWatch;
    this.runWatch = undefined;
    runWatch?.close();
    this.listWatch?.close();
  }
}
