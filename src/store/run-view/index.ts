/**
 * The run view of a pi-workflows run, read from the rows of the state file as pi-workflows'
 * own viewer computes it (`pi-workflows.run-view.v1`: pi's `readRun` in `src/host/view.ts`
 * and `buildRunState` in `src/workflows/store.ts`), GraphQL-free (docs/PI-WORKFLOWS-FILES.md §9).
 *
 * Every function takes a better-sqlite3 connection; statements are prepared once per
 * connection, and the tables present are read once per connection (a missing table reads as an
 * empty list). Lists are pages by position ({@link PageRequest}, at most 256 items); large values
 * are {@link BlobRef}s read with {@link readRunBlob} / {@link readRunValue}, scoped to the run.
 * Times are epoch ms.
 */
import type { Database as SqliteDatabase } from 'better-sqlite3';
import { StoreError } from '../errors.js';
import { readSnapshot } from './connection.js';
import type { Page, PageRequest } from './pages.js';
import { definitionOfRow, type RunDefinition } from './run-definition.js';
import { readRunDisplay, type DisplayOptions, type RunDisplay } from './run-display.js';
import { readRunWorkflowMessages, readRunWorkflowTurns, type RunWorkflowMessage, type RunWorkflowTurn } from './run-messages.js';
import {
  readRunHumanDecisions,
  readRunInteractiveRequests,
  readRunPendingRequest,
  type RunHumanDecision,
  type RunInteractiveRequest,
} from './run-questions.js';
import { readRunRow, type RunRow } from './run-row.js';
import { readViewListChanges, readViewPositions, type ViewListChanges, type ViewPositions } from './view-changes.js';
import { readRunSession, readRunSessionEntries, readRunSessionEvents, type RunSession, type SessionEntryItem, type SessionEventItem } from './run-session.js';
import { readRunRevision, stateOfRow, type RunState } from './run-state.js';
import { countRunSteps, readRunGraphSteps, readRunSteps, readRunTakenTransitions, type RunStep, type TakenTransition } from './run-steps.js';
import { readRunTrace, type TraceEvent } from './run-trace.js';
import {
  readRunFollowUps,
  readRunOriginSession,
  readRunSettings,
  readRunUpdates,
  type RunFollowUp,
  type RunSettingsScope,
  type RunUpdate,
} from './run-updates.js';

export * from './connection.js';
export * from './pages.js';
export * from './run-blobs.js';
export * from './run-definition.js';
export * from './run-display.js';
export * from './run-messages.js';
export * from './run-questions.js';
export * from './run-row.js';
export * from './run-session.js';
export * from './run-state.js';
export * from './run-steps.js';
export * from './run-trace.js';
export * from './run-updates.js';
export * from './view-changes.js';

/** What {@link readRunViewSnapshot} hands its callback: the run and the revision of the snapshot. */
export interface RunViewSnapshot {
  runId: string;
  /** `viewer_runs.presentation_revision` in this snapshot (0 without a row). */
  revision: number;
}

/**
 * Runs `fn` inside one deferred read transaction with the run's presentation revision, so the
 * revision and everything `fn` reads (with the readers of this module) come from the same
 * snapshot of the file: a commit of another connection after the first read does not show
 * until `fn` returns. Inside a transaction already open on the connection, `fn` joins it.
 *
 * @throws StoreError(not_found) `Workflow run not found: <runId>`; whatever `fn` throws
 */
export function readRunViewSnapshot<T>(connection: SqliteDatabase, runId: string, fn: (snapshot: RunViewSnapshot) => T): T {
  return readSnapshot(connection, () => {
    if (readRunRow(connection, runId) === undefined) throw new StoreError('not_found', `Workflow run not found: ${runId}`);
    return fn({ runId, revision: readRunRevision(connection, runId) });
  });
}

/** Which pages {@link readRunView} reads (each default: the tail page, as pi's viewer). */
export interface RunViewPages {
  steps?: PageRequest;
  trace?: PageRequest;
  sessionEntries?: PageRequest;
  sessionEvents?: PageRequest;
  updates?: PageRequest;
  settings?: PageRequest;
  followUps?: PageRequest;
  interactiveRequests?: PageRequest;
  humanDecisions?: PageRequest;
  workflowMessages?: PageRequest;
  workflowTurns?: PageRequest;
}

/** Options of {@link readRunView}. */
export interface RunViewOptions extends DisplayOptions {
  pages?: RunViewPages;
  /** The last step the graph shows (pi's `graphCursor`); default the last step. */
  graphCursor?: number;
}

/**
 * A run's view, all parts read in one snapshot (pi's `pi-workflows.run-view.v1`, with large
 * values as references and times as epoch ms).
 */
export interface RunView {
  runId: string;
  /** `viewer_runs.presentation_revision`. */
  revision: number;
  state: RunState;
  definition: RunDefinition;
  display: RunDisplay;
  steps: Page<RunStep>;
  /** The latest step of each node up to {@link graphCursor}. */
  graphSteps: RunStep[];
  takenTransitions: TakenTransition[];
  /** Index of the last step the graph shows (0 without steps). */
  graphCursor: number;
  trace: Page<TraceEvent>;
  session: RunSession | null;
  sessionEntries: Page<SessionEntryItem>;
  sessionEvents: Page<SessionEventItem>;
  updates: Page<RunUpdate>;
  settings: Page<RunSettingsScope>;
  followUps: Page<RunFollowUp>;
  /** The run's origin Pi session (pi's `followUpQueue.originSessionId`). */
  originSessionId: string | null;
  pendingRequest: RunInteractiveRequest | null;
  interactiveRequests: Page<RunInteractiveRequest>;
  humanDecisions: Page<RunHumanDecision>;
  workflowMessages: Page<RunWorkflowMessage>;
  workflowTurns: Page<RunWorkflowTurn>;
  /** Display status `running` or `waiting` (pi's `live`). */
  live: boolean;
  /** Queue `parked` and not paused (pi's `possiblyInterrupted`). */
  possiblyInterrupted: boolean;
}

/**
 * A run's whole view in one snapshot ({@link readRunViewSnapshot}), or null when there is no
 * such run.
 *
 * @throws StoreError(validation) for a malformed page request; StoreError(integrity) for rows
 *   pi itself would refuse (a definition snapshot of another schema, a step of an open attempt,
 *   an invalid decision receipt)
 */
export function readRunView(connection: SqliteDatabase, runId: string, options: RunViewOptions = {}): RunView | null {
  return readSnapshot(connection, () => {
    const run = readRunRow(connection, runId);
    if (run === undefined) return null;
    const head = readHead(connection, run, options, options.graphCursor);
    const pages = options.pages ?? {};
    const lists = Object.fromEntries(
      (Object.keys(LIST_READERS) as RunViewList[]).map((list) => [list, LIST_READERS[list](connection, runId, pages[list] ?? {})]),
    );
    // As pi: a definition snapshot of another form is refused here (the planned read shows null).
    return { ...head, definition: head.definition ?? definitionOfRow(connection, run), ...lists } as RunView;
  });
}

/** The lists of a run view, each read by page (see {@link RunViewPlan}). */
export type RunViewList = keyof RunViewPages;

/** What one item of each list is. */
export interface RunViewListItems {
  steps: RunStep;
  trace: TraceEvent;
  sessionEntries: SessionEntryItem;
  sessionEvents: SessionEventItem;
  updates: RunUpdate;
  settings: RunSettingsScope;
  followUps: RunFollowUp;
  interactiveRequests: RunInteractiveRequest;
  humanDecisions: RunHumanDecision;
  workflowMessages: RunWorkflowMessage;
  workflowTurns: RunWorkflowTurn;
}

/** How each list is read. */
const LIST_READERS: { [List in RunViewList]: (connection: SqliteDatabase, runId: string, request: PageRequest) => Page<RunViewListItems[List]> } = {
  steps: readRunSteps,
  trace: readRunTrace,
  sessionEntries: readRunSessionEntries,
  sessionEvents: readRunSessionEvents,
  updates: readRunUpdates,
  settings: readRunSettings,
  followUps: readRunFollowUps,
  interactiveRequests: readRunInteractiveRequests,
  humanDecisions: readRunHumanDecisions,
  workflowMessages: readRunWorkflowMessages,
  workflowTurns: readRunWorkflowTurns,
};

/**
 * The position of an item in its list (what a page's `after`/`before` name): a step's index, an
 * event's or entry's sequence number, an update's run revision, a follow-up's order, …
 */
export function positionOf<List extends RunViewList>(list: List, item: RunViewListItems[List]): number {
  const value = item as unknown as Record<string, unknown>;
  switch (list) {
    case 'steps':
      return value.stepIndex as number;
    case 'trace':
    case 'sessionEntries':
    case 'sessionEvents':
    case 'updates':
      return value.seq as number;
    case 'followUps':
    case 'workflowMessages':
      return value.order as number;
    default:
      return value.position as number;
  }
}

/** One page a {@link RunViewPlan} asks for: `key` names it in {@link PlannedRunView.pages}. */
export interface PlannedPage {
  key: string;
  list: RunViewList;
  request: PageRequest;
}

/** Which pages of a run view one read takes (each list as many times as asked, by key). */
export interface RunViewPlan extends DisplayOptions {
  pages: readonly PlannedPage[];
  /** Also read the lists' {@link ViewPositions} (what a follower resumes from). */
  positions?: boolean;
}

/**
 * A run view without its lists (see {@link RunView}); its `definition` is null when the stored
 * snapshot is not a `pi-workflows.definition-snapshot.v1` (a run reserved through this server with
 * a definition of another form): pi-workflows would not show such a run at all.
 */
export type RunViewHead = Omit<RunView, RunViewList | 'definition'> & { definition: RunDefinition | null };

/** {@link definitionOfRow}, or null for a snapshot of another form. */
function definitionOrNull(connection: SqliteDatabase, run: RunRow): RunDefinition | null {
  try {
    return definitionOfRow(connection, run);
  } catch (error) {
    if (error instanceof StoreError && error.kind === 'integrity') return null;
    throw error;
  }
}

/** What {@link readPlannedRunView} read: the view's head, each planned page by key, and the lists' positions when asked for. */
export interface PlannedRunView {
  head: RunViewHead;
  pages: ReadonlyMap<string, Page<unknown>>;
  positions: ViewPositions | null;
}

/**
 * The head of a run's view (inside a snapshot); `graphCursor`: the last step the graph shows
 * (default the last step).
 */
function readHead(connection: SqliteDatabase, run: RunRow, options: DisplayOptions, graphCursorAt?: number): RunViewHead {
  const runId = run.runId;
  const state = stateOfRow(connection, run);
  const display = readRunDisplay(connection, state, options);
  const lastStep = Math.max(0, countRunSteps(connection, runId) - 1);
  const graphCursor = Math.min(Math.max(0, graphCursorAt ?? lastStep), lastStep);
  return {
    runId,
    revision: state.revision,
    state,
    definition: definitionOrNull(connection, run),
    display,
    graphSteps: readRunGraphSteps(connection, runId, graphCursor),
    takenTransitions: readRunTakenTransitions(connection, runId, graphCursor),
    graphCursor,
    session: readRunSession(connection, runId, state.status),
    originSessionId: readRunOriginSession(connection, runId),
    pendingRequest: readRunPendingRequest(connection, runId),
    live: display.status === 'running' || display.status === 'waiting',
    possiblyInterrupted: state.queue?.status === 'parked' && display.status !== 'paused',
  };
}

/**
 * A run's view head and the pages `plan` names, all read in one snapshot (so the revision and
 * every part agree, docs/PI-WORKFLOWS-FILES.md §9); null when there is no such run.
 *
 * @throws StoreError(validation) for a malformed page request; StoreError(integrity) as {@link readRunView}
 */
export function readPlannedRunView(connection: SqliteDatabase, runId: string, plan: RunViewPlan): PlannedRunView | null {
  return readSnapshot(connection, () => {
    const run = readRunRow(connection, runId);
    if (run === undefined) return null;
    const head = readHead(connection, run, plan);
    const pages = new Map<string, Page<unknown>>();
    for (const page of plan.pages) {
      if (!pages.has(page.key)) pages.set(page.key, LIST_READERS[page.list](connection, runId, page.request));
    }
    return { head, pages, positions: plan.positions === true ? readViewPositions(connection, runId, head.revision) : null };
  });
}

/** The default page of every list (its newest 256 items), as a reset event carries them. */
export const NEWEST_PAGES: readonly PlannedPage[] = (Object.keys(LIST_READERS) as RunViewList[]).map((list) => ({
  key: `${list}::::`,
  list,
  request: {},
}));

/**
 * What changed in a run's view since `since` (docs/PROTOCOL.md "Following a run's view"), read
 * in one snapshot: `changes` — the head now, the positions now, and the items each growing list
 * gained — or `reset` — the whole view (its newest pages and positions) — when a list gained
 * more than 255 items or `since` is ahead of the run (a cursor of another file); null for an
 * unknown run.
 */
export function readRunViewChanges(
  connection: SqliteDatabase,
  runId: string,
  since: ViewPositions,
  options: DisplayOptions = {},
): { kind: 'changes'; head: RunViewHead; positions: ViewPositions; changes: ViewListChanges } | { kind: 'reset'; read: PlannedRunView } | null {
  return readSnapshot(connection, () => {
    const run = readRunRow(connection, runId);
    if (run === undefined) return null;
    const head = readHead(connection, run, options);
    const positions = readViewPositions(connection, runId, head.revision);
    const behind = (Object.keys(positions) as Array<keyof ViewPositions>).some((name) => since[name] > positions[name]);
    const changes = behind ? 'too-many' : readViewListChanges(connection, runId, since);
    if (changes === 'too-many') {
      const pages = new Map<string, Page<unknown>>(NEWEST_PAGES.map((page) => [page.key, LIST_READERS[page.list](connection, runId, page.request)]));
      return { kind: 'reset', read: { head, pages, positions } };
    }
    return { kind: 'changes', head, positions, changes };
  });
}
