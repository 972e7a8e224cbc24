/**
 * Run-list order (docs/GRAPHQL-CONTRACT.md) over real HTTP: `workflowRuns(orderBy:)` in every order and direction, paged
 * forward and backward over runs with equal timestamps (the run id breaks ties); the filters
 * createdAfter/createdBefore/updatedAfter/updatedBefore (exclusive bounds) and search
 * (ASCII case-insensitive, `%` and `_` literal), alone and combined, with totalCount; cursors
 * that stay stable while runs are inserted or updated between pages; a cursor used with
 * another orderBy refused with its exact text; bad input refused with nothing changed; the
 * statements and query plans of each page; and the same answers from a pi-workflows state file
 * holding the same runs.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  WorkflowRunsDocument,
  type WorkflowRunFilter,
  type WorkflowRunOrder,
  type WorkflowRunsQuery,
  type WorkflowRunsQueryVariables,
} from '../../schema/generated/graphql.js';
import { copyIntoPiWorkflowsFile } from '../../fixtures/pi-workflows-file.js';
import { claim, park, reserve, reserveInput, snapshotTables, startTestServer, T0, type TestServer } from '../helpers/server-fixture.js';
import { connectionOf, storeInternals } from '../helpers/store-internals.js';

const at = (second: number): number => T0 + second * 1_000;
const iso = (second: number): string => new Date(at(second)).toISOString();

const ORDERS: WorkflowRunOrder[] = [
  { field: 'CREATED_AT', direction: 'DESC' },
  { field: 'CREATED_AT', direction: 'ASC' },
  { field: 'UPDATED_AT', direction: 'DESC' },
  { field: 'UPDATED_AT', direction: 'ASC' },
];
/** Sets a server's clock to `epochMs` (the tests write several runs at one instant). */
function setClock(fx: TestServer, epochMs: number): void {
  fx.clock.t = epochMs;
}
const key = (order: WorkflowRunOrder): string => `${order.field} ${order.direction}`;

/**
 * The runs of {@link seed} in each order. Created: Run-A, run_b, run-c at second 1; run-d,
 * run-e at 2; run-f at 3. Updated: run-c 1; run-d, run-e 2; run-f 3; run_b 4 (claimed and
 * parked); Run-A 5 (claimed). Ties go by run id in the order's direction (ASCII: `R` < `r`,
 * `-` < `_`).
 */
const EXPECTED: Record<string, string[]> = {
  'CREATED_AT DESC': ['run-f', 'run-e', 'run-d', 'run_b', 'run-c', 'Run-A'],
  'CREATED_AT ASC': ['Run-A', 'run-c', 'run_b', 'run-d', 'run-e', 'run-f'],
  'UPDATED_AT DESC': ['Run-A', 'run_b', 'run-f', 'run-e', 'run-d', 'run-c'],
  'UPDATED_AT ASC': ['run-c', 'run-d', 'run-e', 'run-f', 'run_b', 'Run-A'],
};

async function seed(fx: TestServer): Promise<void> {
  setClock(fx, at(1));
  await reserve(fx, reserveInput('Run-A', { originSessionId: 'session-a' }));
  await reserve(fx, reserveInput('run_b', { originSessionId: 'session-b' }));
  await reserve(fx, reserveInput('run-c', { originSessionId: 'session-c', workflowName: 'Nightly%Build', definition: { name: 'nightly' } }));
  setClock(fx, at(2));
  await reserve(fx, reserveInput('run-d', { originSessionId: 'session-d', workflowName: 'ETL_job', definition: { name: 'etl' } }));
  await reserve(fx, reserveInput('run-e', { originSessionId: 'session-e' }));
  setClock(fx, at(3));
  await reserve(fx, reserveInput('run-f', { originSessionId: 'session-f' }));
  setClock(fx, at(4));
  await claim(fx, 'run_b', 'token-b');
  await park(fx, 'run_b', 'token-b');
  setClock(fx, at(5));
  await claim(fx, 'Run-A', 'token-a');
  setClock(fx, at(10));
}

async function list(
  fx: TestServer,
  variables: WorkflowRunsQueryVariables,
): Promise<{ runIds: string[]; totalCount: number; page: WorkflowRunsQuery['workflowRuns'] }> {
  const { workflowRuns } = await fx.data(WorkflowRunsDocument, variables);
  return { runIds: workflowRuns.edges.map((edge) => edge.node.runId), totalCount: workflowRuns.totalCount, page: workflowRuns };
}

/** Every run of a list, paged forward with first/after. */
async function pageForward(fx: TestServer, orderBy: WorkflowRunOrder | undefined, first: number, filter?: WorkflowRunFilter): Promise<string[]> {
  const seen: string[] = [];
  let after: string | null = null;
  for (let pages = 0; pages < 20; pages += 1) {
    const { workflowRuns }: WorkflowRunsQuery = await fx.data(WorkflowRunsDocument, { first, after, orderBy, filter });
    seen.push(...workflowRuns.edges.map((edge) => edge.node.runId));
    expect(workflowRuns.pageInfo.hasPreviousPage).toBe(after !== null);
    if (!workflowRuns.pageInfo.hasNextPage) return seen;
    after = workflowRuns.pageInfo.endCursor;
  }
  throw new Error('more than 20 pages');
}

/** Every run of a list, paged backward with last/before, in list order. */
async function pageBackward(fx: TestServer, orderBy: WorkflowRunOrder | undefined, last: number, filter?: WorkflowRunFilter): Promise<string[]> {
  const seen: string[] = [];
  let before: string | null = null;
  for (let pages = 0; pages < 20; pages += 1) {
    const { workflowRuns }: WorkflowRunsQuery = await fx.data(WorkflowRunsDocument, { last, before, orderBy, filter });
    seen.unshift(...workflowRuns.edges.map((edge) => edge.node.runId));
    expect(workflowRuns.pageInfo.hasNextPage).toBe(before !== null);
    if (!workflowRuns.pageInfo.hasPreviousPage) return seen;
    before = workflowRuns.pageInfo.startCursor;
  }
  throw new Error('more than 20 pages');
}

/** Filter cases: the filter, then the runs it keeps in CREATED_AT DESC order. */
const FILTER_CASES: Array<[WorkflowRunFilter, string[]]> = [
  // Bounds are exclusive: createdAfter = second 1 leaves out the runs created at second 1.
  [{ createdAfter: iso(1) }, ['run-f', 'run-e', 'run-d']],
  [{ createdAfter: new Date(at(1) - 1).toISOString() }, EXPECTED['CREATED_AT DESC'] as string[]],
  [{ createdBefore: iso(3) }, ['run-e', 'run-d', 'run_b', 'run-c', 'Run-A']],
  [{ createdAfter: iso(1), createdBefore: iso(3) }, ['run-e', 'run-d']],
  [{ updatedAfter: iso(3) }, ['run_b', 'Run-A']],
  [{ updatedBefore: iso(2) }, ['run-c']],
  [{ updatedAfter: iso(1), updatedBefore: iso(4) }, ['run-f', 'run-e', 'run-d']],
  // A DateTime with an offset is the same instant.
  [{ updatedAfter: new Date(at(3)).toISOString().replace('Z', '+00:00') }, ['run_b', 'Run-A']],
  // search: runId or workflowName, ASCII case-insensitive.
  [{ search: 'RUN-' }, ['run-f', 'run-e', 'run-d', 'run-c', 'Run-A']],
  [{ search: 'run-a' }, ['Run-A']],
  [{ search: 'nIGHTLY' }, ['run-c']],
  [{ search: 'demo' }, ['run-f', 'run-e', 'run_b', 'Run-A']],
  [{ search: '' }, EXPECTED['CREATED_AT DESC'] as string[]],
  // % and _ are plain characters (as LIKE patterns they would match far more).
  [{ search: '%' }, ['run-c']],
  [{ search: 'y%b' }, ['run-c']],
  [{ search: 'run%' }, []],
  [{ search: '_' }, ['run-d', 'run_b']],
  [{ search: 'n_' }, ['run_b']],
  [{ search: 'l_j' }, ['run-d']],
  // Combined with each other and with the older filters (AND).
  [{ search: 'run', createdAfter: iso(1), queueStatus: ['QUEUED'] }, ['run-f', 'run-e', 'run-d']],
  [{ search: 'demo', updatedBefore: iso(5), status: ['QUEUED'] }, ['run-f', 'run-e', 'run_b']],
  [{ workflowName: 'demo', createdBefore: iso(2), updatedAfter: iso(1) }, ['run_b', 'Run-A']],
  [{ originSessionId: 'session-d', search: 'etl', createdAfter: iso(1), updatedBefore: iso(3) }, ['run-d']],
  [{ rootRunId: 'run-e', search: 'E', createdAfter: iso(1) }, ['run-e']],
];

/** The order of `runIds` in `order` (the expected lists restricted to them). */
const inOrder = (order: WorkflowRunOrder, runIds: string[]): string[] => (EXPECTED[key(order)] as string[]).filter((runId) => runIds.includes(runId));

describe('workflowRuns orderBy and the search and time filters', () => {
  let fx: TestServer;
  let pi: TestServer;
  beforeAll(async () => {
    fx = await startTestServer();
    await seed(fx);
    const piPath = join(fx.dir, 'pi', 'state.sqlite');
    mkdirSync(join(fx.dir, 'pi'));
    copyIntoPiWorkflowsFile(fx.dbPath, piPath);
    pi = await startTestServer({ dbPath: piPath });
    expect(pi.store.file.kind).toBe('pi-workflows');
  });
  afterAll(async () => {
    await pi?.close();
    await fx?.close(); // removes the pi-workflows copy too (it is in the same directory)
  });

  it('orders by CREATED_AT DESC by default, as before', async () => {
    expect(await list(fx, {})).toMatchObject({ runIds: EXPECTED['CREATED_AT DESC'], totalCount: 6 });
    expect(await list(fx, { orderBy: null })).toMatchObject({ runIds: EXPECTED['CREATED_AT DESC'], totalCount: 6 });
  });

  it('every order and direction, paged forward and backward over equal timestamps (run id breaks ties)', async () => {
    for (const order of ORDERS) {
      const expected = EXPECTED[key(order)] as string[];
      expect(await list(fx, { orderBy: order, first: 100 }), key(order)).toMatchObject({ runIds: expected, totalCount: 6 });
      for (const size of [1, 2, 4]) {
        expect(await pageForward(fx, order, size), `${key(order)} first ${size}`).toEqual(expected);
        expect(await pageBackward(fx, order, size), `${key(order)} last ${size}`).toEqual(expected);
      }
      // first/after and before together: the page between two cursors.
      const all = (await list(fx, { orderBy: order, first: 6 })).page.edges.map((edge) => edge.cursor);
      const middle = await list(fx, { orderBy: order, first: 10, after: all[0], before: all[4] });
      expect(middle.runIds, key(order)).toEqual(expected.slice(1, 4));
      const middleBack = await list(fx, { orderBy: order, last: 2, after: all[0], before: all[4] });
      expect(middleBack.runIds, key(order)).toEqual(expected.slice(2, 4));
      expect(middleBack.page.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: true });
    }
  });

  it('each new filter alone and combined, in every order, with totalCount', async () => {
    for (const [filter, expected] of FILTER_CASES) {
      for (const order of ORDERS) {
        const result = await list(fx, { filter, orderBy: order, first: 100 });
        const label = `${JSON.stringify(filter)} ${key(order)}`;
        expect(result.runIds, label).toEqual(inOrder(order, expected));
        expect(result.totalCount, label).toBe(expected.length);
        expect(await pageForward(fx, order, 2, filter), label).toEqual(inOrder(order, expected));
        expect(await pageBackward(fx, order, 2, filter), label).toEqual(inOrder(order, expected));
      }
    }
  });

  it('a pi-workflows state file holding the same runs answers every query the same (cursors included)', async () => {
    let compared = 0;
    for (const [filter] of [[undefined], ...FILTER_CASES] as Array<[WorkflowRunFilter | undefined]>) {
      for (const order of ORDERS) {
        const variables = { filter, orderBy: order };
        for (const pageArgs of [{ first: 100 }, { first: 2 }, { last: 2 }]) {
          const ours = await fx.data(WorkflowRunsDocument, { ...variables, ...pageArgs });
          const theirs = await pi.data(WorkflowRunsDocument, { ...variables, ...pageArgs });
          const label = JSON.stringify({ ...variables, ...pageArgs });
          expect(theirs.workflowRuns.totalCount, label).toBe(ours.workflowRuns.totalCount);
          expect(theirs.workflowRuns.pageInfo, label).toEqual(ours.workflowRuns.pageInfo);
          expect(
            theirs.workflowRuns.edges.map((edge) => [edge.cursor, edge.node.runId, edge.node.createdAt, edge.node.updatedAt]),
            label,
          ).toEqual(ours.workflowRuns.edges.map((edge) => [edge.cursor, edge.node.runId, edge.node.createdAt, edge.node.updatedAt]));
          const cursor = ours.workflowRuns.pageInfo.endCursor;
          if (cursor !== null && 'first' in pageArgs) {
            const next = { ...variables, first: 2, after: cursor };
            expect((await pi.data(WorkflowRunsDocument, next)).workflowRuns, JSON.stringify(next)).toEqual(
              (await fx.data(WorkflowRunsDocument, next)).workflowRuns,
            );
          }
          compared += 1;
        }
      }
    }
    expect(compared).toBe((FILTER_CASES.length + 1) * ORDERS.length * 3);
  });

  it('a cursor used with another orderBy than it was issued for is refused, saying which', async () => {
    const created = await list(fx, { first: 2 });
    const cursor = created.page.pageInfo.endCursor as string;
    const cases: Array<[WorkflowRunsQueryVariables, string]> = [
      [
        { first: 2, after: cursor, orderBy: { field: 'UPDATED_AT', direction: 'DESC' } },
        'This cursor belongs to orderBy CREATED_AT DESC, not UPDATED_AT DESC: page with the orderBy it came from, or start again without after/before',
      ],
      [
        { last: 2, before: cursor, orderBy: { field: 'CREATED_AT', direction: 'ASC' } },
        'This cursor belongs to orderBy CREATED_AT DESC, not CREATED_AT ASC: page with the orderBy it came from, or start again without after/before',
      ],
    ];
    const updated = await list(fx, { first: 2, orderBy: { field: 'UPDATED_AT', direction: 'ASC' } });
    cases.push([
      { first: 2, after: updated.page.pageInfo.endCursor },
      'This cursor belongs to orderBy UPDATED_AT ASC, not CREATED_AT DESC: page with the orderBy it came from, or start again without after/before',
    ]);
    for (const [variables, message] of cases) {
      const response = await fx.gql(WorkflowRunsDocument, variables);
      expect(response.data).toBeNull();
      expect(response.errors).toEqual([expect.objectContaining({ message, extensions: { code: 'BAD_USER_INPUT' } })]);
    }
    // A cursor of the form issued before orders existed is a CREATED_AT DESC cursor.
    const legacy = Buffer.from(JSON.stringify(['run', at(2), 'run-e'])).toString('base64url');
    expect((await list(fx, { first: 10, after: legacy })).runIds).toEqual(['run-d', 'run_b', 'run-c', 'Run-A']);
    const refused = await fx.gql(WorkflowRunsDocument, { first: 10, after: legacy, orderBy: { field: 'UPDATED_AT', direction: 'DESC' } });
    expect(refused.errors?.[0]?.message).toBe(
      'This cursor belongs to orderBy CREATED_AT DESC, not UPDATED_AT DESC: page with the orderBy it came from, or start again without after/before',
    );
  });

  it('refuses bad input with a clear error and changes nothing', async () => {
    const before = snapshotTables(fx.store);
    const invalidCursor = Buffer.from(JSON.stringify(['run', 'updated_at', 'sideways', 1, 'x'])).toString('base64url');
    const cases: Array<[WorkflowRunsQueryVariables, string]> = [
      [
        { filter: { createdAfter: 'yesterday' } },
        'Variable "$filter" got invalid value at "filter.createdAfter"; DateTime cannot represent an invalid date-time-string yesterday.',
      ],
      [
        { filter: { updatedBefore: '2026-13-01T00:00:00Z' } },
        'Variable "$filter" got invalid value at "filter.updatedBefore"; DateTime cannot represent an invalid date-time-string 2026-13-01T00:00:00Z.',
      ],
      [
        { orderBy: { field: 'NAME', direction: 'DESC' } as unknown as WorkflowRunOrder },
        'Variable "$orderBy" got invalid value at "orderBy.field"; Value "NAME" does not exist in "WorkflowRunOrderField" enum.',
      ],
      [
        { orderBy: { field: 'UPDATED_AT' } as unknown as WorkflowRunOrder },
        'Variable "$orderBy" got invalid value; Field "direction" of required type "OrderDirection!" was not provided.',
      ],
      [{ filter: { search: 'x'.repeat(257) } }, 'search must be at most 256 characters'],
      [{ first: 2, after: invalidCursor }, `Invalid cursor: ${invalidCursor.slice(0, 16)}…`],
    ];
    const answers: Array<string[] | undefined> = [];
    for (const [variables] of cases) {
      const response = await fx.gql(WorkflowRunsDocument, variables);
      expect(response.data ?? null).toBeNull();
      answers.push(response.errors?.map((error) => error.message));
    }
    expect(answers).toEqual(cases.map(([, message]) => [message]));
    expect((await list(fx, { filter: { search: 'x'.repeat(256) } })).runIds).toEqual([]);
    expect(snapshotTables(fx.store)).toEqual(before);
  });

  it('costs two statements per page (the slice and the count), whatever the order and filter', async () => {
    for (const [filter] of [[undefined], ...FILTER_CASES] as Array<[WorkflowRunFilter | undefined]>) {
      for (const order of ORDERS) {
        fx.store.resetStatementCount();
        await fx.data(WorkflowRunsDocument, { filter, orderBy: order, first: 3 });
        expect(fx.store.statementCount, `${JSON.stringify(filter)} ${key(order)}`).toBe(2);
      }
    }
  });

  it('walks the order’s index with no full table scan and no sort, with and without the common filters', async () => {
    const database = storeInternals(fx.store).database;
    const connection = connectionOf(fx.store);
    const common: Array<WorkflowRunFilter | undefined> = [
      undefined,
      { status: ['QUEUED', 'RUNNING'] },
      { queueStatus: ['QUEUED'] },
      { workflowName: 'demo' },
      { originSessionId: 'session-a' },
      { createdAfter: iso(1), createdBefore: iso(9) },
      { updatedAfter: iso(1), updatedBefore: iso(9) },
      { search: 'run' },
      { status: ['QUEUED'], queueStatus: ['QUEUED'], workflowName: 'demo', createdAfter: iso(0), updatedBefore: iso(9), search: 'run' },
    ];
    const spy = vi.spyOn(database, 'all');
    try {
      for (const order of ORDERS) {
        const index = order.field === 'CREATED_AT' ? 'r USING INDEX runs_created_idx' : 'q USING INDEX run_queue_updated_idx';
        const filters = order.field === 'CREATED_AT' ? [...common, { rootRunId: 'run-e' }] : common;
        for (const filter of filters) {
          for (const pageArgs of [{ first: 3 }, { last: 3 }]) {
            const start = await list(fx, { filter, orderBy: order, ...pageArgs });
            spy.mockClear();
            const cursor = 'first' in pageArgs ? { after: start.page.pageInfo.endCursor } : { before: start.page.pageInfo.startCursor };
            await fx.data(WorkflowRunsDocument, { filter, orderBy: order, ...pageArgs, ...(start.page.pageInfo.endCursor === null ? {} : cursor) });
            const slices = spy.mock.calls.filter(([sql]) => sql.includes('ORDER BY') && sql.includes('LIMIT ?'));
            expect(slices).toHaveLength(1);
            const [sql, ...params] = slices[0] as [string, ...unknown[]];
            const plan = (connection.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map((row) => row.detail);
            const label = `${key(order)} ${JSON.stringify(filter)} ${JSON.stringify(pageArgs)}: ${plan.join(' | ')}`;
            expect(
              plan.filter((detail) => /^SCAN \w+$/.test(detail) || detail.includes('USE TEMP B-TREE')),
              label,
            ).toEqual([]);
            expect(plan[0], label).toContain(filter?.rootRunId === undefined ? index : 'r USING INDEX runs_root_created_idx');
          }
        }
      }
    } finally {
      spy.mockRestore();
    }
  });
});

describe('workflowRuns pages stay stable while runs are written between them', () => {
  // A server per test: each test writes (inserts, claims) and reads the runs it wrote itself,
  // so none depends on what another left (the order of tests is free, e.g. --sequence.shuffle).
  let fx: TestServer;
  beforeEach(async () => {
    fx = await startTestServer();
  });
  afterEach(async () => {
    await fx.close();
  });

  let session = 0;
  async function insert(runIds: string[], second: number): Promise<void> {
    setClock(fx, at(second));
    for (const runId of runIds) {
      session += 1;
      await reserve(fx, reserveInput(runId, { originSessionId: `session-${session}` }));
    }
  }
  /** The six runs each test starts from: m1, m2, m3 created at second 100; m4, m5, m6 at 101. */
  async function insertStart(): Promise<void> {
    await insert(['m1', 'm2', 'm3'], 100);
    await insert(['m4', 'm5', 'm6'], 101);
  }

  it('CREATED_AT both ways: inserts between pages (some at the cursor’s own instant) neither shift nor repeat a page', async () => {
    await insertStart();
    for (const direction of ['DESC', 'ASC'] as const) {
      const orderBy: WorkflowRunOrder = { field: 'CREATED_AT', direction };
      const first = await list(fx, { orderBy, first: 2, filter: { search: 'm' } });
      const seen = [...first.runIds];
      let after = first.page.pageInfo.endCursor;
      let batch = 0;
      let hasNext = first.page.pageInfo.hasNextPage;
      while (hasNext) {
        batch += 1;
        // Same instant as the runs already listed, with ids on both sides of theirs, and newer ones.
        await insert([`m0${direction}${batch}`, `m9${direction}${batch}`], direction === 'DESC' ? 101 : 100);
        await insert([`n${direction}${batch}`], 200 + batch);
        const page = await list(fx, { orderBy, first: 2, after, filter: { search: 'm' } });
        seen.push(...page.runIds);
        after = page.page.pageInfo.endCursor;
        hasNext = page.page.pageInfo.hasNextPage;
      }
      expect(new Set(seen).size, direction).toBe(seen.length);
      // Every run that existed at the start is listed once, in order; runs inserted at the
      // cursor's instant appear only where the order puts them after the cursor.
      const original = ['m1', 'm2', 'm3', 'm4', 'm5', 'm6'];
      const listedOriginal = seen.filter((runId) => original.includes(runId));
      expect(listedOriginal, direction).toEqual(direction === 'ASC' ? original : [...original].reverse());
      const all = await pageForward(fx, orderBy, 100, { search: 'm' });
      expect(seen, direction).toEqual(all.filter((runId) => seen.includes(runId)));
    }
  });

  it('UPDATED_AT DESC forward: a run updated while you page is never listed twice (it moved to the top)', async () => {
    await insertStart();
    const orderBy: WorkflowRunOrder = { field: 'UPDATED_AT', direction: 'DESC' };
    const filter = { search: 'm' };
    const before = await pageForward(fx, orderBy, 100, filter);
    const first = await list(fx, { orderBy, first: 3, filter });
    const seenRun = first.runIds[1] as string;
    const unseenRun = before[5] as string;
    setClock(fx, at(500));
    await claim(fx, seenRun, 'token-seen');
    await claim(fx, unseenRun, 'token-unseen');
    const rest = await list(fx, { orderBy, first: 100, after: first.page.pageInfo.endCursor, filter });
    const seen = [...first.runIds, ...rest.runIds];
    expect(new Set(seen).size).toBe(seen.length);
    expect(rest.runIds).toEqual(before.slice(3).filter((runId) => runId !== unseenRun));
    // A fresh first page shows both at the top, newest change first.
    expect((await list(fx, { orderBy, first: 2, filter })).runIds).toEqual([unseenRun, seenRun].sort().reverse());
  });

  it('UPDATED_AT ASC forward: nothing is missed; a run updated after you saw it comes again, in its new state, at the end', async () => {
    await insertStart();
    const orderBy: WorkflowRunOrder = { field: 'UPDATED_AT', direction: 'ASC' };
    const filter = { search: 'm' };
    const before = await pageForward(fx, orderBy, 100, filter);
    const first = await list(fx, { orderBy, first: 3, filter });
    const seenRun = first.runIds[0] as string;
    setClock(fx, at(600));
    await claim(fx, seenRun, 'token-again');
    const rest = await list(fx, { orderBy, first: 100, after: first.page.pageInfo.endCursor, filter });
    expect([...first.runIds, ...rest.runIds]).toEqual([...before, seenRun]);
    expect(rest.page.edges.at(-1)?.node).toMatchObject({ runId: seenRun, queueStatus: 'STARTING', updatedAt: iso(600) });
  });
});
