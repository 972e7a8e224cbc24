import { dataloaderGetter } from '@pothos/plugin-dataloader';
import type { GraphQLResolveInfo } from 'graphql';
import type { KeyedRun } from '../../store/index.js';
import { builder } from '../builder.js';
import type { GraphQLContext } from '../context.js';
import { planKeysetPage, type RunPage } from '../connections.js';
import { LINEAGE_CURSORS, runCursors } from '../cursors.js';
import { idOnlyRuns, RunBatch, underList } from '../id-only-runs.js';
import { chainResourceExtensions } from '../live-resources.js';
import { selectsField } from '../selection.js';
import { storeFilter, WorkflowRunFilterRef } from './workflow-run-filter.js';
import { storeOrder, WorkflowRunOrderRef } from './workflow-run-order.js';
import { RUN_LINEAGE_ID_FIELDS, selectsOnly, WorkflowRunRef } from './workflow-run.js';

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
 * Number of runs of each chain, by root run id (`lineage { totalCount }`): a per-request
 * DataLoader from the dataloader plugin's own getter (a count is no object type, so no loadable
 * field fits), registered with the plugin so that `clearAllDataLoaders` clears it too.
 */
const chainSizes = dataloaderGetter<string, number, string>(
  undefined,
  async (rootRunIds, context) => (context as GraphQLContext).store.chainSizes(rootRunIds),
  undefined,
  false,
);

/**
 * Whether a connection's nodes select nothing but their ids and lineage fields:
 * then its page reads run ids only, and no whole record is read or primed.
 */
function selectsIdsOnly(info: GraphQLResolveInfo): boolean {
  return selectsOnly(info, RUN_LINEAGE_ID_FIELDS, ['edges', 'node']);
}

/**
 * The batch the runs of an id-only page form (their lineage fields read for the whole page at
 * once, see `RunBatch`), or none for a page under a list: there one page is read per item, and
 * the lineage fields of all those pages batch through the DataLoaders instead.
 */
function pageBatch(context: GraphQLContext, info: GraphQLResolveInfo): RunBatch | undefined {
  return underList(info) ? undefined : new RunBatch(context.store);
}

/** Primes the run loader with the rows of a page, so lineage fields of runs on it read no more. */
function primeRuns(context: GraphQLContext, rows: ReadonlyArray<KeyedRun<unknown>>): void {
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

builder.objectField(WorkflowRunRef, 'lineage', (t) =>
  t.field({
    type: WorkflowRunConnectionRef,
    extensions: chainResourceExtensions,
    description:
      "Every run sharing this run's rootRunId: root first, then by creation. Page forward with first/after or backward with " +
      'last/before (default first 20); first and last at most 100, and not both in one call.',
    args: {
      first: t.arg.int({ required: false, description: 'Page forward: at most this many runs after `after` (0 … 100).' }),
      after: t.arg.string({ required: false, description: 'Cursor of the run the page starts after.' }),
      last: t.arg.int({ required: false, description: 'Page backward: at most this many runs before `before` (0 … 100).' }),
      before: t.arg.string({ required: false, description: 'Cursor of the run the page ends before.' }),
    },
    resolve: (run, args, context, info) => {
      // Arguments are checked now; the page is read only when edges or pageInfo are selected,
      // so `lineage { totalCount }` over a page of runs stays one batched statement.
      const plan = planKeysetPage(args, LINEAGE_CURSORS);
      let page: RunPage | undefined;
      // The feed's head, read before the rows whichever field asks first.
      let changeCursor: string | undefined;
      const head = (): string => (changeCursor ??= context.store.runChangeCursor());
      const wantsHead = selectsField(info, 'changeCursor');
      const idsOnly = selectsIdsOnly(info);
      const read = (): RunPage => {
        if (page === undefined) {
          if (wantsHead) head();
          if (idsOnly) {
            page = plan.page(idOnlyRuns(context.store.lineageIdSlice(run.rootRunId, plan.request), pageBatch(context, info)));
          } else {
            const rows = context.store.lineageSlice(run.rootRunId, plan.request);
            primeRuns(context, rows);
            page = plan.page(rows);
          }
        }
        return page;
      };
      return {
        get edges() {
          return read().edges;
        },
        get pageInfo() {
          return read().pageInfo;
        },
        get changeCursor() {
          return head();
        },
        totalCount: () => chainSizes(context).load(run.rootRunId),
      };
    },
  }),
);
