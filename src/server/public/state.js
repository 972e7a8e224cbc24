// @ts-check
/**
 * The live page's state: the run list and its feed, the selected chain and the selected run,
 * the delta feed's counters, follow mode. One object, read and written by the page's modules.
 */
import { $input } from '/app/dom.js';
import { DEFAULT_ORDER, emptyFilter } from '/app/run-list.js';

/**
 * @typedef {import('../../../schema/generated/graphql.js').LivePageListRunFragment} ListRun a run as the chain list shows it
 * @typedef {import('../../../schema/generated/graphql.js').LivePageTreeRunFragment} TreeRun a run as the lineage tree draws it
 * @typedef {import('../../../schema/generated/graphql.js').LivePageRunRecordFragment} RunRecord the selected run's record
 * @typedef {import('../../../schema/generated/graphql.js').LivePageViewHeadFragment
 *   & import('../../../schema/generated/graphql.js').LivePageViewQuestionsFragment
 *   & import('../../../schema/generated/graphql.js').LivePageViewListsFragment} RunView what pi-workflows' viewer shows of the
 *   selected run: its head (what a WorkflowRunViewChanged carries), its follow-ups, questions and decisions, its growing lists
 * @typedef {ListRun['rootRun']['latestRun']} LatestRun a chain's latest run
 * @typedef {{ variables: { filter: Record<string, unknown> | null, after: string }, buffer: ListRun[],
 *   ready: boolean, unsubscribe: (() => void) | null }} ListFeed the run-list change feed; `buffer`
 *   holds changes that came while a reset's first page was on its way (`ready` false)
 * @typedef {{ rootRunId: string, unsubscribe: (() => void) | null, refreshTimer: ReturnType<typeof setTimeout> | null,
 *   nodes: TreeRun[] }} Chain the selected chain; `unsubscribe` is null until its first lineage page was read
 * @typedef {{ runId: string, cursor: number | null, deltaVariables: { runId: string, after: number | null },
 *   initialRevision: number | null, unsubscribers: Array<() => void>, record: RunRecord | null,
 *   view: RunView | null, viewFollow: import('/app/view-read.js').ViewFollow,
 *   graph: import('/app/graph-view.js').GraphView, graphFrom: number | null }} SelectedRun the selected
 *   run: `cursor` is the last revision applied, `deltaVariables` its delta subscription's variables
 *   (`after` follows the cursor), `view` its view as last read or followed, `viewFollow` how
 *   (/app/view-read.js)
 */

/** Queue states of a run that is not finished: follow mode stays on (or moves to) such a run. */
export const ACTIVE_QUEUE = new Set(['QUEUED', 'STARTING', 'RUNNING', 'PARKED']);

export const state = {
  follow: true,
  list: {
    filter: emptyFilter(),
    order: /** @type {import('/app/run-list.js').ListOrder} */ (DEFAULT_ORDER),
    /** @type {ListRun[]} */
    runs: [],
    totalCount: 0,
    /** @type {string | null} */
    endCursor: null,
    hasNextPage: false,
    loaded: false,
    generation: 0,
    /** @type {ListFeed | null} started from the first page's changeCursor */
    feed: null,
    /** The first page could not be read (server unreachable): read it again on the next connect. */
    failed: false,
    /** @type {Map<string, { latestRun: LatestRun, runs: number }>} rootRunId → the newest state seen of each chain */
    chains: new Map(),
  },
  /** @type {Chain | null} */
  chain: null,
  /** @type {SelectedRun | null} */
  run: null,
  /** @type {string | null} an unknown run id the URL names (the run panel says so) */
  missing: null,
  stats: { live: 0, gaps: 0, duplicates: 0, bookkeeping: 0 },
  showBookkeeping: false,
  /** @type {ReturnType<typeof setTimeout> | null} */
  staleTimer: null,
  /** @type {number | null} Epoch ms the stale timer is armed for. */
  staleAt: null,
};

/**
 * Re-renders that modules lower in the page ask for without importing the modules above
 * them; app.js sets them.
 */
export const redraw = {
  /** The chain list. */
  chains: () => {},
  /** Everything that shows stale marks: the chain list, the tree, the run's summary. */
  staleMarks: () => {},
};

/**
 * Turns follow mode on or off, and the checkbox with it.
 *
 * @param {boolean} on
 */
export function setFollow(on) {
  state.follow = on;
  $input('follow').checked = on;
}
