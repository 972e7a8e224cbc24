/**
 * The run list: `WorkflowRunConnection` (shared with `WorkflowRun.lineage`), its filter and
 * order inputs with their enums (docs/GRAPHQL-CONTRACT.md "Run-list search and order"), and the
 * `workflowRuns` query.
 */
import type { GraphQLResolveInfo } from 'graphql';
import { DEFAULT_RUN_ORDER, MAX_SEARCH_LENGTH, type KeyedRun, type RunOrder, type WorkflowRunFilter } from '../../store/index.js';
import { badUserInput } from '../bad-user-input.js';
import { builder } from '../builder.js';
import type { GraphQLContext } from '../context.js';
import { planKeysetPage } from '../connections.js';
import { runCursors } from '../cursors.js';
import { idOnlyRuns, RunBatch, underList } from '../id-only-runs.js';
import { selectsField } from '../selection.js';
import { LineageKindEnum, RUN_LINEAGE_ID_FIELDS, RunQueueStatusEnum, selectsOnly, WorkflowRunRef, WorkflowRunStatusEnum } from './workflow-run.js';

/** `workflowRuns(filter:)`. */
export const WorkflowRunFilterRef = builder.inputType('WorkflowRunFilter', {
  description: 'Filters for workflowRuns; all optional, combined with AND.',
  fields: (t) => ({
    status: t.field({ type: [WorkflowRunStatusEnum], required: false, description: 'Runs in any of these durable states.' }),
    queueStatus: t.field({ type: [RunQueueStatusEnum], required: false, description: 'Runs in any of these scheduling states.' }),
    rootRunId: t.string({ required: false, description: 'Runs of this chain (its root run id).' }),
    parentRunId: t.string({ required: false, description: 'Direct children of this run.' }),
    lineageKind: t.field({ type: LineageKindEnum, required: false, description: 'Children of this kind only (root runs have none).' }),
    originSessionId: t.string({ required: false, description: 'Runs of this Pi session.' }),
    workflowName: t.string({ required: false, description: 'Runs of this workflow.' }),
    createdAfter: t.field({ type: 'DateTime', required: false, description: 'Runs created strictly after this instant (exclusive).' }),
    createdBefore: t.field({ type: 'DateTime', required: false, description: 'Runs created strictly before this instant (exclusive).' }),
    updatedAfter: t.field({ type: 'DateTime', required: false, description: 'Runs whose updatedAt is strictly after this instant (exclusive).' }),
    updatedBefore: t.field({ type: 'DateTime', required: false, description: 'Runs whose updatedAt is strictly before this instant (exclusive).' }),
    search: t.string({
      required: false,
      description:
        `Runs whose runId or workflowName contains this text, ignoring ASCII case (A-Z = a-z); every other character, % and _ ` +
        `included, matches only itself. At most ${MAX_SEARCH_LENGTH} characters. No index can answer it: a page walks its order ` +
        'until it is full, so a rare text costs a walk of the whole (otherwise filtered) list.',
    }),
  }),
});

/**
 * Converts a `WorkflowRunFilter` argument to the store's filter: absent and null fields are left
 * out; DateTime values become epoch ms.
 *
 * @returns undefined when no filter was given
 * @throws GraphQLError(BAD_USER_INPUT) `search must be at most 256 characters`
 */
export function storeFilter(filter: typeof WorkflowRunFilterRef.$inferInput | null | undefined): WorkflowRunFilter | undefined {
  if (filter === null || filter === undefined) return undefined;
  const result: WorkflowRunFilter = {};
  if (filter.status != null) result.status = filter.status;
  if (filter.queueStatus != null) result.queueStatus = filter.queueStatus;
  if (filter.rootRunId != null) result.rootRunId = filter.rootRunId;
  if (filter.parentRunId != null) result.parentRunId = filter.parentRunId;
  if (filter.lineageKind != null) result.lineageKind = filter.lineageKind;
  if (filter.originSessionId != null) result.originSessionId = filter.originSessionId;
  if (filter.workflowName != null) result.workflowName = filter.workflowName;
  if (filter.createdAfter != null) result.createdAfter = filter.createdAfter.getTime();
  if (filter.createdBefore != null) result.createdBefore = filter.createdBefore.getTime();
  if (filter.updatedAfter != null) result.updatedAfter = filter.updatedAfter.getTime();
  if (filter.updatedBefore != null) result.updatedBefore = filter.updatedBefore.getTime();
  if (filter.search != null) {
    if (filter.search.length > MAX_SEARCH_LENGTH) throw badUserInput(`search must be at most ${MAX_SEARCH_LENGTH} characters`);
    result.search = filter.search;
  }
  return result;
}

/** `enum OrderDirection { ASC DESC }` (GitHub's GraphQL convention; docs/GRAPHQL-CONTRACT.md "Run-list search and order"). */
export const OrderDirectionEnum = builder.enumType('OrderDirection', {
  description: 'The direction of an order.',
  values: {
    ASC: { value: 'asc', description: 'Smallest (oldest) first.' },
    DESC: { value: 'desc', description: 'Largest (newest) first.' },
  } as const,
});

/** `enum WorkflowRunOrderField { CREATED_AT UPDATED_AT }` (docs/GRAPHQL-CONTRACT.md "Run-list search and order"). */
export const WorkflowRunOrderFieldEnum = builder.enumType('WorkflowRunOrderField', {
  description: 'What workflowRuns orders by; runs with equal values are ordered by runId, in the same direction.',
  values: {
    CREATED_AT: { value: 'created_at', description: 'WorkflowRun.createdAt: when the run was reserved. Runs never move in this order.' },
    UPDATED_AT: {
      value: 'updated_at',
      description:
        'WorkflowRun.updatedAt: when the run last changed. A run that changes while you page moves to the newest end: paging ' +
        'forward with DESC never returns a run twice, but misses a run that changed after you paged past its old place (a new ' +
        'first page shows it on top); paging forward with ASC misses nothing, but returns a run again, in its new state, near the ' +
        'end when it changed after you saw it. Backward paging (last/before) is the mirror image.',
    },
  } as const,
});

/** `input WorkflowRunOrder { field: WorkflowRunOrderField!  direction: OrderDirection! }` (docs/GRAPHQL-CONTRACT.md). */
export const WorkflowRunOrderRef = builder.inputType('WorkflowRunOrder', {
  description: 'An order of workflowRuns (GitHub style). Default: {field: CREATED_AT, direction: DESC}, newest first.',
  fields: (t) => ({
    field: t.field({ type: WorkflowRunOrderFieldEnum, required: true, description: 'The field to order by (then runId).' }),
    direction: t.field({ type: OrderDirectionEnum, required: true, description: 'ASC or DESC, for the field and the runId tie-breaker.' }),
  }),
});

/**
 * Converts a `WorkflowRunOrder` argument to the store's order.
 *
 * @returns `DEFAULT_RUN_ORDER` (created_at desc) when absent or null
 */
export function storeOrder(order: typeof WorkflowRunOrderRef.$inferInput | null | undefined): RunOrder {
  return order == null ? DEFAULT_RUN_ORDER : { field: order.field, direction: order.direction };
}

/**
 * Shape behind `WorkflowRunConnection`: the relay connection plus a lazy total count and the
 * change feed's cursor read before the page's rows (null when not selected; see
 * {@link CHANGE_CURSOR_DESCRIPTION}).
 */
export interface RunConnectionShape {
  totalCount: () => number | Promise<number>;
  changeCursor: string | null;
}

/** API of `WorkflowRunConnection.changeCursor` (docs/PROTOCOL.md "A list and its feed"). */
const CHANGE_CURSOR_DESCRIPTION =
  'The run-list change feed position taken before this page was read: subscribe to workflowRunChanges with ' +
  'after: changeCursor (and the same filter) to miss nothing between this page and the live feed. A run already ' +
  'on the page may come again in the same or a newer state.';

/** The connection type shared by `workflowRuns` and `WorkflowRun.lineage`. */
export const WorkflowRunConnectionRef = builder.connectionObject(
  {
    type: WorkflowRunRef,
    name: 'WorkflowRunConnection',
    description: 'A page of workflow runs (Relay cursor connection) with the total count of the whole list.',
    fields: (t) => ({
      totalCount: t.int({
        description: 'Number of runs in the whole list, not just this page.',
        resolve: (connection) => (connection as unknown as RunConnectionShape).totalCount(),
      }),
      changeCursor: t.string({
        description: CHANGE_CURSOR_DESCRIPTION,
        // Read by the parent's resolver before the rows (a head read after them could skip a change).
        resolve: (connection, _args, context) => (connection as unknown as RunConnectionShape).changeCursor ?? context.store.runChangeCursor(),
      }),
    }),
  },
  { name: 'WorkflowRunEdge', description: 'One run of a WorkflowRunConnection page with its cursor (Relay edge).' },
);

/**
 * Whether a connection's nodes select nothing but their ids and lineage fields:
 * then its page reads run ids only, and no whole record is read or primed.
 */
export function selectsIdsOnly(info: GraphQLResolveInfo): boolean {
  return selectsOnly(info, RUN_LINEAGE_ID_FIELDS, ['edges', 'node']);
}

/**
 * The batch the runs of an id-only page form (their lineage fields read for the whole page at
 * once, see `RunBatch`), or none for a page under a list: there one page is read per item, and
 * the lineage fields of all those pages batch through the DataLoaders instead.
 */
export function pageBatch(context: GraphQLContext, info: GraphQLResolveInfo): RunBatch | undefined {
  return underList(info) ? undefined : new RunBatch(context.store);
}

/** Primes the run loader with the rows of a page, so lineage fields of runs on it read no more. */
export function primeRuns(context: GraphQLContext, rows: ReadonlyArray<KeyedRun<unknown>>): void {
  const loader = WorkflowRunRef.getDataloader(context);
  for (const { run } of rows) loader.prime(run.runId, run);
}

builder.queryField('workflowRuns', (t) =>
  t.connection(
    {
      type: WorkflowRunRef,
      description:
        'Runs in orderBy order (default newest first). Cursors are keyset positions (order value, runId), stable under ' +
        'concurrent writes, and valid only with the orderBy they came from. Page forward with first/after or backward with ' +
        'last/before (default first 20); first and last at most 100, and not both in one call. totalCount counts the filtered list.',
      args: {
        filter: t.arg({ type: WorkflowRunFilterRef, required: false, description: 'Only runs matching every given filter.' }),
        orderBy: t.arg({ type: WorkflowRunOrderRef, required: false, description: 'The order; default {field: CREATED_AT, direction: DESC}.' }),
      },
      resolve: (_root, args, context, info) => {
        const filter = storeFilter(args.filter);
        const order = storeOrder(args.orderBy);
        const plan = planKeysetPage(args, runCursors(order));
        // The feed's head before the rows (only when asked: a page costs no statement more otherwise).
        const changeCursor = selectsField(info, 'changeCursor') ? context.store.runChangeCursor() : null;
        const request = { ...plan.request, order };
        if (selectsIdsOnly(info)) {
          const ids = idOnlyRuns(context.store.listWorkflowRunIdSlice(filter, request), pageBatch(context, info));
          return { ...plan.page(ids), totalCount: () => context.store.countWorkflowRuns(filter), changeCursor };
        }
        const rows = context.store.listWorkflowRunSlice(filter, request);
        primeRuns(context, rows);
        return { ...plan.page(rows), totalCount: () => context.store.countWorkflowRuns(filter), changeCursor };
      },
    },
    WorkflowRunConnectionRef,
  ),
);
