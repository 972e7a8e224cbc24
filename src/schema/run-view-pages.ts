import { GraphQLError } from 'graphql';
import {
  MAX_PAGE_ITEMS,
  positionOf,
  type Page,
  type PageRequest,
  type PlannedRunView,
  type RunViewList,
  type RunViewListItems,
  type WorkflowStore,
} from '../store/index.js';
import { badUserInput } from './bad-user-input.js';
import { assertPageArgs, type ConnectionArgs } from './connections.js';
import { decodeViewCursor, encodeViewCursor } from './cursors.js';

/**
 * The pages of a run view's lists as Relay connections (docs/GRAPHQL-CONTRACT.md "The run
 * view"): arguments to store page requests, the key a page is read under, and a page to edges
 * and pageInfo. Every list pages from either end by its items' positions; neither `first` nor
 * `last` asks for the newest 256 items (pi-workflows' own tail page).
 */

/** The GraphQL list field of each run-view list, as a path under `WorkflowRunView` (its cursors and errors name it so; the query planner finds the fields by it). */
export const VIEW_LIST_NAMES: { readonly [List in RunViewList]: string } = {
  steps: 'steps',
  trace: 'trace',
  sessionEntries: 'session.entries',
  sessionEvents: 'session.events',
  updates: 'updates',
  settings: 'settings',
  followUps: 'followUps',
  interactiveRequests: 'interactiveRequests',
  humanDecisions: 'humanDecisions',
  workflowMessages: 'workflowMessages',
  workflowTurns: 'workflowTurns',
};

/**
 * The store's request for a page of `list`.
 *
 * @throws GraphQLError(BAD_USER_INPUT) `<list>: first must be between 0 and 256` (likewise
 *   `last`), `<list>: first and last cannot be used together: …`, `Invalid cursor: …`, `This cursor belongs to …`
 */
export function pageRequestOf(list: RunViewList, args: ConnectionArgs): PageRequest {
  try {
    assertPageArgs(args, MAX_PAGE_ITEMS);
  } catch (error) {
    // Named after the list: a query may page several.
    if (error instanceof GraphQLError) throw badUserInput(`${VIEW_LIST_NAMES[list]}: ${error.message}`);
    throw error;
  }
  const name = VIEW_LIST_NAMES[list];
  return {
    ...(args.first == null ? {} : { first: args.first }),
    ...(args.last == null ? {} : { last: args.last }),
    ...(args.after == null ? {} : { after: decodeViewCursor(args.after, name) }),
    ...(args.before == null ? {} : { before: decodeViewCursor(args.before, name) }),
  };
}

/** The key a page is read under: one read per list and request, however often it is selected. */
export function pageKey(list: RunViewList, request: PageRequest): string {
  return `${list}:${request.first ?? ''}:${request.after ?? ''}:${request.last ?? ''}:${request.before ?? ''}`;
}

/** An item of a run view with the run whose view holds it (its content is read as that run's). */
export type ViewItem<T> = T & { readonly viewRunId: string };

/** A page of a run view's list as a Relay connection, with the list's size and the page's place in it. */
export interface ViewConnection<T> {
  edges: Array<{ cursor: string; node: ViewItem<T> }>;
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  /** Items in the whole list. */
  totalCount: number;
  /** Index (0-based) of the page's first item in the whole list. */
  startIndex: number;
}

/** A store page of `list` as a {@link ViewConnection}. */
export function connectionOf<List extends RunViewList>(list: List, runId: string, page: Page<RunViewListItems[List]>): ViewConnection<RunViewListItems[List]> {
  const name = VIEW_LIST_NAMES[list];
  const edges = page.items.map((item) => ({ cursor: encodeViewCursor(name, positionOf(list, item)), node: { ...item, viewRunId: runId } }));
  return {
    edges,
    pageInfo: { hasNextPage: page.hasAfter, hasPreviousPage: page.hasBefore, startCursor: edges[0]?.cursor ?? null, endCursor: edges.at(-1)?.cursor ?? null },
    totalCount: page.total,
    startIndex: page.start,
  };
}

/** What a run view's fields resolve from: one {@link PlannedRunView} read in one snapshot. */
export interface RunViewShape {
  runId: string;
  read: PlannedRunView;
}

/**
 * The page of `list` that `args` ask for, from the view's snapshot. A page the view's plan did
 * not read (it reads every list field its selection names, so only a bug gets here) is read now
 * and used only when the run's revision has not moved since.
 *
 * @throws GraphQLError(BAD_USER_INPUT) for bad arguments (see {@link pageRequestOf});
 *   GraphQLError `The run changed while its view was read: read the view again` otherwise
 */
export function viewPage<List extends RunViewList>(
  view: RunViewShape,
  list: List,
  args: ConnectionArgs,
  store: WorkflowStore,
): ViewConnection<RunViewListItems[List]> {
  const request = pageRequestOf(list, args);
  const key = pageKey(list, request);
  let page = view.read.pages.get(key);
  if (page === undefined) {
    const late = store.readRunView(view.runId, { pages: [{ key, list, request }] });
    if (late === null || late.head.revision !== view.read.head.revision) {
      throw new GraphQLError('The run changed while its view was read: read the view again', { extensions: { code: 'VIEW_CHANGED' } });
    }
    page = late.pages.get(key);
  }
  return connectionOf(list, view.runId, page as Page<RunViewListItems[List]>);
}
