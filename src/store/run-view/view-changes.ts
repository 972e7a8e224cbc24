import type { Database as SqliteDatabase } from 'better-sqlite3';
import { MAX_PAGE_ITEMS, type Page } from './pages.js';
import { readRunSessionEntries, readRunSessionEvents, type SessionEntryItem, type SessionEventItem } from './run-session.js';
import { countRunSteps, readRunSteps, type RunStep } from './run-steps.js';
import { readRunTrace, type TraceEvent } from './run-trace.js';
import { readRunUpdates, type RunUpdate } from './run-updates.js';

/**
 * Where a client's copy of a run view stands (docs/PROTOCOL.md "Following a run's view"): the
 * presentation revision it was read at and the last position of each list that grows — so what
 * changed since is read from the rows, as pi-workflows' own viewer re-reads them, and nothing is
 * missed or repeated, also across a server restart.
 */
export interface ViewPositions {
  /** `viewer_runs.presentation_revision` of the read. */
  revision: number;
  /** Number of steps (the next step's index). */
  steps: number;
  /** Last trace `seq` (0: none). */
  trace: number;
  /** Last session entry `seq` (0: none). */
  entries: number;
  /** Last session event `seq` (0: none). */
  events: number;
  /** Last update `seq` (run revision; 0: none). */
  updates: number;
}

/** The position of a page's last item, or `none`. */
function lastOf<T>(page: Page<T>, position: (item: T) => number, none = 0): number {
  const last = page.items.at(-1);
  return last === undefined ? none : position(last);
}

/**
 * The positions of a run's lists now, at `revision` (call inside the snapshot the revision was
 * read in).
 */
export function readViewPositions(connection: SqliteDatabase, runId: string, revision: number): ViewPositions {
  return {
    revision,
    steps: countRunSteps(connection, runId),
    trace: lastOf(readRunTrace(connection, runId, { last: 1 }, false), (event) => event.seq),
    entries: lastOf(readRunSessionEntries(connection, runId, { last: 1 }, false), (entry) => entry.seq),
    events: lastOf(readRunSessionEvents(connection, runId, { last: 1 }, false), (event) => event.seq),
    updates: lastOf(readRunUpdates(connection, runId, { last: 1 }, false), (update) => update.seq),
  };
}

/** The most items one list's changes hold (one more is read to tell "more": a page holds at most 256). */
export const MAX_CHANGED_ITEMS = MAX_PAGE_ITEMS - 1;

/** What was added to a run view's growing lists after some {@link ViewPositions}. */
export interface ViewListChanges {
  steps: RunStep[];
  trace: TraceEvent[];
  sessionEntries: SessionEntryItem[];
  sessionEvents: SessionEventItem[];
  /** Updates published since (each replaces the one of its type and key). */
  updates: RunUpdate[];
}

/**
 * The items added after `since` to each growing list, at most `limit` per list (call inside one
 * snapshot with the view's head).
 *
 * @returns the changes, or `too-many` when a list grew by more than `limit` (then the client
 *   gets the whole view instead)
 */
export function readViewListChanges(connection: SqliteDatabase, runId: string, since: ViewPositions, limit = MAX_CHANGED_ITEMS): ViewListChanges | 'too-many' {
  const first = limit + 1;
  const steps = readRunSteps(connection, runId, { first, after: since.steps - 1 }, false).items;
  const trace = readRunTrace(connection, runId, { first, after: since.trace }, false).items;
  const sessionEntries = readRunSessionEntries(connection, runId, { first, after: since.entries }, false).items;
  const sessionEvents = readRunSessionEvents(connection, runId, { first, after: since.events }, false).items;
  const updates = readRunUpdates(connection, runId, { first, after: since.updates }, false).items;
  if ([steps, trace, sessionEntries, sessionEvents, updates].some((items) => items.length > limit)) return 'too-many';
  return { steps, trace, sessionEntries, sessionEvents, updates };
}
