/**
 * The typed client's watch of a run's view (docs/PROTOCOL.md "Following a run's view"): the
 * whole view first (or what changed after a cursor), then what changed at each revision move,
 * resumed after a drop or a server restart from the last event's cursor, so nothing is missed
 * or repeated.
 */
import { WorkflowRunViewFollowDocument, type WorkflowRunViewFollowSubscription } from '../../schema/generated/graphql.js';
import { WatchBase, type WatchCallbacks } from './watch.js';
import type { WatchContext } from './watches.js';

/** One event of `workflowRunView`: a `WorkflowRunViewReset` (the whole view) or a `WorkflowRunViewChanged`. */
export type RunViewEvent = WorkflowRunViewFollowSubscription['workflowRunView'];

/** Options of {@link RunViewWatch}. */
export interface RunViewWatchOptions extends WatchCallbacks<RunViewEvent> {
  /** A view's `cursor` (`WorkflowRun.view { cursor }`) or an event's: what changed after it comes first. Default: the whole view first. */
  after?: string | null;
}

/**
 * A run's view as it changes (`workflowRunView`): every (re)subscribe asks for what changed
 * after {@link cursor}; a `WorkflowRunViewChanged` at or below the revision already delivered
 * is dropped (`stats.duplicates`). Ends with `completed` when the server ends the stream,
 * `failed` on a GraphQL error (an unknown run: `Workflow run not found: <id>`, a bad cursor) or a
 * refused token.
 */
export class RunViewWatch extends WatchBase<RunViewEvent> {
  /** The cursor of the last event delivered (or started after); null before the first. */
  cursor: string | null;
  /** The revision of the last event delivered; null before the first. */
  revision: number | null = null;
  private readonly unsubscribe: () => void;

  constructor(
    context: WatchContext,
    readonly runId: string,
    options: RunViewWatchOptions = {},
  ) {
    super(options);
    this.cursor = options.after ?? null;
    this.unsubscribe = context.connection.subscribe<WorkflowRunViewFollowSubscription>(
      WorkflowRunViewFollowDocument.toString(),
      () => ({ runId: this.runId, after: this.cursor }),
      this.sinkOf((data) => this.onData(data.workflowRunView)),
    );
  }

  private onData(event: RunViewEvent): void {
    if (event.__typename === 'WorkflowRunViewChanged' && this.revision !== null && event.revision <= this.revision) {
      this.stats.duplicates += 1;
      return;
    }
    this.cursor = event.cursor;
    this.revision = event.revision;
    this.deliver(event);
  }

  protected stop(): void {
    this.unsubscribe();
  }
}
