import { GraphQLError } from 'graphql';
import { Repeater } from 'graphql-yoga';
import { VIEWER_RETENTION, type ViewerDeltaBatch, type WorkflowRunRecord } from '../store/index.js';
import { builder } from './builder.js';
import { createRunLoaders, type GraphQLContext } from './context.js';
import { WorkflowRunDeltaEventRef, type SnapshotRequiredShape } from './viewer.js';
import { WorkflowRunRef } from './workflow-run.js';

/** Revisions read from the log per step of a subscription. */
const READ_PAGE = 64;

type DeltaEvent = ViewerDeltaBatch | SnapshotRequiredShape;

function notFound(runId: string): GraphQLError {
  return new GraphQLError(`Workflow run not found: ${runId}`, { extensions: { code: 'NOT_FOUND' } });
}

function requireRun(context: GraphQLContext, runId: string): WorkflowRunRecord {
  const run = context.store.getWorkflowRun(runId);
  if (run === undefined) throw notFound(runId);
  return run;
}

function snapshotEvent(context: GraphQLContext, runId: string, currentRevision: number, retainedFromRevision: number): SnapshotRequiredShape {
  return { kind: 'snapshot_required', runId, currentRevision, retainedFromRevision, run: requireRun(context, runId) };
}

/**
 * The event stream of one run's delta log after a cursor (API.md `workflowRunDeltas`):
 * replay, then live; `ViewerSnapshotRequired` when the cursor cannot be served, then on after
 * its currentRevision. Each revision is read from the durable log and pushed once, in order;
 * `push` waits until the client consumed the previous event, so a slow client holds only its
 * cursor in memory and falls back to a snapshot once the retained window passed it.
 *
 * @param afterRevision null = live only
 */
function runDeltaEvents(context: GraphQLContext, runId: string, afterRevision: number | null): Repeater<DeltaEvent> {
  // The live-only cursor is taken now, at subscribe time, not at the first pull.
  const head = context.store.viewer.head(runId);
  if (head === undefined) throw notFound(runId);
  return new Repeater<DeltaEvent>(async (push, stop) => {
    const abort = new AbortController();
    void stop.then(() => abort.abort());
    let cursor = afterRevision ?? head.currentRevision;
    let readNow = afterRevision !== null;
    while (!abort.signal.aborted) {
      let knownHead: number | undefined;
      if (!readNow) {
        knownHead = await context.feed.waitForRevision(runId, cursor, abort.signal);
        if (knownHead === undefined) break;
      }
      readNow = false;
      const read = context.feed.readDeltas(runId, cursor, READ_PAGE, knownHead);
      if (read === undefined) break;
      if (read.kind === 'snapshot_required') {
        await push(snapshotEvent(context, runId, read.currentRevision, read.retainedFromRevision));
        cursor = read.currentRevision;
        continue;
      }
      for (const batch of read.batches) {
        if (abort.signal.aborted) break;
        await push(batch);
        cursor = batch.presentationRevision;
      }
      // A full page may mean more is already committed: read again without waiting.
      readNow = read.batches.length === READ_PAGE;
    }
    stop();
  });
}

/**
 * The run after each committed change that touches its summary (or after a snapshot); live
 * only. The revisions of one transaction (a park records a bump and a summary revision) are
 * read together and give one event; under load, changes committed between two reads are
 * coalesced into one event showing the latest state.
 */
function runUpdates(context: GraphQLContext, runId: string): Repeater<WorkflowRunRecord> {
  const head = context.store.viewer.head(runId);
  if (head === undefined) throw notFound(runId);
  let cursor = head.currentRevision;
  return new Repeater<WorkflowRunRecord>(async (push, stop) => {
    const abort = new AbortController();
    void stop.then(() => abort.abort());
    while (!abort.signal.aborted) {
      const knownHead = await context.feed.waitForRevision(runId, cursor, abort.signal);
      if (knownHead === undefined) break;
      const read = context.feed.readDeltas(runId, cursor, VIEWER_RETENTION, knownHead);
      if (read === undefined) break;
      let changed = true;
      if (read.kind === 'snapshot_required') {
        cursor = read.currentRevision;
      } else {
        changed = read.batches.some((batch) => batch.deltas.some((delta) => delta.targetType === 'summary'));
        cursor = read.batches.at(-1)?.presentationRevision ?? cursor;
      }
      if (!changed) continue;
      const run = context.store.getWorkflowRun(runId);
      if (run === undefined) break;
      await push(run);
    }
    stop();
  });
}

/** Every run of a chain that changed (new revision) or joined it, after each wake-up. */
function lineageUpdates(context: GraphQLContext, rootRunId: string): Repeater<WorkflowRunRecord> {
  // Taken at subscribe time: every change after this moment is reported.
  let tick = context.feed.ticks;
  let known = context.store.viewer.chainHeads(rootRunId);
  return new Repeater<WorkflowRunRecord>(async (push, stop) => {
    const abort = new AbortController();
    void stop.then(() => abort.abort());
    while (!abort.signal.aborted) {
      // false once the feed closed (server shutdown): waiting again would return at once.
      if (!(await context.feed.waitForChange(tick, abort.signal))) break;
      tick = context.feed.ticks;
      const heads = context.store.viewer.chainHeads(rootRunId);
      const changed = [...heads].filter(([runId, revision]) => known.get(runId) !== revision).map(([runId]) => runId);
      known = heads;
      if (changed.length === 0) continue;
      const runs = context.store
        .getWorkflowRuns(changed)
        .filter((run): run is WorkflowRunRecord => run !== undefined)
        .sort((a, b) => (a.createdAt === b.createdAt ? (a.runId < b.runId ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1));
      for (const run of runs) {
        if (abort.signal.aborted) break;
        await push(run);
      }
    }
    stop();
  });
}

/** Gives every event fresh loaders, so nested fields show the run as committed (issue 4). */
function freshLoaders<T>(event: T, context: GraphQLContext): T {
  context.loaders = createRunLoaders(context.store);
  return event;
}

builder.subscriptionType({ description: 'Live views fed from the durable viewer-delta log.' });

builder.subscriptionFields((t) => ({
  workflowRunDeltas: t.field({
    type: WorkflowRunDeltaEventRef,
    description:
      'One event per presentation revision of the run, exactly once, in order. afterRevision null = live only; a cursor that cannot be served yields ViewerSnapshotRequired first.',
    args: {
      runId: t.arg.string({ required: true }),
      afterRevision: t.arg.int({ required: false }),
    },
    subscribe: (_root, args, context) => {
      if (args.afterRevision != null && args.afterRevision < 0) {
        throw new GraphQLError('Viewer cursor must be a non-negative integer', { extensions: { code: 'BAD_USER_INPUT' } });
      }
      requireRun(context, args.runId);
      return runDeltaEvents(context, args.runId, args.afterRevision ?? null);
    },
    resolve: (event, _args, context) => freshLoaders(event, context),
  }),
  workflowRunUpdated: t.field({
    type: WorkflowRunRef,
    description: 'The run after each change recorded for it (its summary changed).',
    args: { runId: t.arg.string({ required: true }) },
    subscribe: (_root, args, context) => {
      requireRun(context, args.runId);
      return runUpdates(context, args.runId);
    },
    resolve: (run, _args, context) => freshLoaders(run, context),
  }),
  workflowRunLineageUpdated: t.field({
    type: WorkflowRunRef,
    description: "Any run of the root's chain that changed or joined it.",
    args: { rootRunId: t.arg.string({ required: true }) },
    subscribe: (_root, args, context) => {
      const root = requireRun(context, args.rootRunId);
      if (root.rootRunId !== root.runId) {
        throw new GraphQLError(`Workflow run is not a root run: ${args.rootRunId}`, { extensions: { code: 'BAD_USER_INPUT' } });
      }
      return lineageUpdates(context, args.rootRunId);
    },
    resolve: (run, _args, context) => freshLoaders(run, context),
  }),
}));
