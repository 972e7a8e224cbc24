/**
 * Pages that select only run ids read only run ids, and those id-only runs
 * never answer a later read of the same run through the run loader's cache: a page selecting
 * only `runId` followed, in the same request or the next one, by a selection of whole runs
 * returns whole, correct runs. Over real HTTP.
 */
import { describe, expect, vi } from 'vitest';
import { storeInternals } from '../helpers/store-internals.js';
import { failedRoot, reserve, reserveInput, type TestServer } from '../helpers/server-fixture.js';
import { serverTest as it } from '../helpers/server-test.js';

/** What a whole run reads as (fields from several of the record's tables: queue, definition, blobs). */
const WHOLE = 'runId workflowName status queueStatus input errorMessage createdAt rootRun { runId workflowName } parent { runId workflowName }';

it.beforeAll(async ({ fx }) => {
  await failedRoot(fx, 'root-a', 'root a broke');
  fx.clock.advance(10);
  await fx.data(`mutation Restart { restartWorkflowRun(input: {runId: "root-a", originSessionId: "session-1", restartRunId: "restart-a"}) { __typename } }`);
  fx.clock.advance(10);
  await reserve(fx, reserveInput('single-b', { originSessionId: 'session-b', input: { task: 'b' } }));
});

/** The SQL statements the store runs while `fn` runs, whitespace folded. */
async function statementsOf(fx: TestServer, fn: () => Promise<unknown>): Promise<string[]> {
  const spy = vi.spyOn(storeInternals(fx.store).database, 'all');
  try {
    await fn();
    return spy.mock.calls.map(([sql]) => sql.replace(/\s+/g, ' ').trim());
  } finally {
    spy.mockRestore();
  }
}

/** The expected whole run (from the store), as {@link WHOLE} selects it. */
function whole(fx: TestServer, runId: string) {
  const run = fx.store.getWorkflowRun(runId);
  if (run === undefined) throw new Error(`no run ${runId}`);
  const brief = (id: string | null) => (id === null ? null : { runId: id, workflowName: 'demo' });
  return {
    runId,
    workflowName: run.workflowName,
    status: run.runStateStatus.toUpperCase(),
    queueStatus: run.status.toUpperCase(),
    input: run.input,
    errorMessage: run.errorMessage,
    createdAt: run.createdAt,
    rootRun: brief(run.rootRunId),
    parent: brief(run.parentRunId),
  };
}

describe('pages that select only run ids', () => {
  it('read run ids only, with the same runs and cursors as a whole page', async ({ fx }) => {
    let ids: unknown;
    const statements = await statementsOf(fx, async () => {
      ids = await fx.data(`query Ids { workflowRuns(first: 3) { edges { cursor node { __typename id runId } } pageInfo { endCursor hasNextPage } } }`);
    });
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(/^SELECT r\.run_id, r\.root_run_id, r\.parent_run_id, r\.created_at AS run_created_at FROM runs r ORDER BY/);
    const full = await fx.data<{ workflowRuns: { edges: Array<{ cursor: string; node: { runId: string } }> } }, never>(
      `query Whole { workflowRuns(first: 3) { edges { cursor node { __typename id runId workflowName } } pageInfo { endCursor hasNextPage } } }`,
    );
    expect(full.workflowRuns.edges.map((edge) => edge.node.runId)).toEqual(['single-b', 'restart-a', 'root-a']);
    const strip = (page: typeof full) => ({
      ...page.workflowRuns,
      edges: page.workflowRuns.edges.map(({ cursor, node: { runId, ...rest } }) => ({
        cursor,
        node: { runId, __typename: 'WorkflowRun', id: (rest as { id: string }).id },
      })),
    });
    expect(ids).toEqual({ workflowRuns: strip(full) });
  });

  it('then whole runs in the same request: workflowRun, node, a whole page and lineage read whole records', async ({ fx }) => {
    const { ids } = await fx.data<{ ids: { edges: Array<{ node: { id: string } }> } }, never>(
      `query IdsFirst { ids: workflowRuns(first: 3) { edges { node { id } } } }`,
    );
    const restartId = ids.edges[1]?.node.id as string;
    const data = await fx.data(
      `query Mixed($restartId: ID!) {
        ids: workflowRuns(first: 3) { edges { node { runId } } }
        lineageIds: workflowRun(runId: "restart-a") { runId lineage(first: 5) { edges { node { id runId } } } }
        nested: workflowRuns(first: 3) { edges { node { runId parent { runId } rootRun { runId } latestRun { runId } children { runId } } } }
        one: workflowRun(runId: "single-b") { ${WHOLE} }
        byNode: node(id: $restartId) { ... on WorkflowRun { ${WHOLE} } }
        page: workflowRuns(first: 3) { edges { node { ${WHOLE} } } }
        chain: workflowRun(runId: "root-a") { lineage(first: 5) { edges { node { ...Whole } } } }
      }
      fragment Whole on WorkflowRun { ${WHOLE} }`,
      { restartId },
    );
    expect(data).toEqual({
      ids: { edges: ['single-b', 'restart-a', 'root-a'].map((runId) => ({ node: { runId } })) },
      lineageIds: { runId: 'restart-a', lineage: { edges: ['root-a', 'restart-a'].map((runId) => ({ node: { id: expect.any(String), runId } })) } },
      nested: {
        edges: [
          { node: { runId: 'single-b', parent: null, rootRun: { runId: 'single-b' }, latestRun: { runId: 'single-b' }, children: [] } },
          { node: { runId: 'restart-a', parent: { runId: 'root-a' }, rootRun: { runId: 'root-a' }, latestRun: { runId: 'restart-a' }, children: [] } },
          { node: { runId: 'root-a', parent: null, rootRun: { runId: 'root-a' }, latestRun: { runId: 'restart-a' }, children: [{ runId: 'restart-a' }] } },
        ],
      },
      one: whole(fx, 'single-b'),
      byNode: whole(fx, 'restart-a'),
      page: { edges: ['single-b', 'restart-a', 'root-a'].map((runId) => ({ node: whole(fx, runId) })) },
      chain: { lineage: { edges: ['root-a', 'restart-a'].map((runId) => ({ node: whole(fx, runId) })) } },
    });
    expect(whole(fx, 'restart-a')).toMatchObject({ status: 'QUEUED', parent: { runId: 'root-a' }, errorMessage: null });
    expect(whole(fx, 'root-a')).toMatchObject({ status: 'FAILED', errorMessage: 'root a broke' });
  });

  it('a nested page selecting only ids and lineage links reads ids only (no run record)', async ({ fx }) => {
    const statements = await statementsOf(fx, async () => {
      const data = await fx.data(
        `query NestedIds { workflowRuns(first: 3) { edges { node { runId parent { runId } rootRun { id } latestRun { runId } children { runId children { runId } } } } } }`,
      );
      expect(data).toMatchObject({
        workflowRuns: {
          edges: [
            { node: { runId: 'single-b' } },
            { node: { runId: 'restart-a' } },
            { node: { runId: 'root-a', children: [{ runId: 'restart-a', children: [] }] } },
          ],
        },
      });
    });
    expect(statements.length).toBeGreaterThan(0);
    expect(statements.filter((sql) => sql.includes('JOIN'))).toEqual([]);
  });

  it('then whole runs in the next request', async ({ fx }) => {
    await fx.data(`query IdsOnly { workflowRuns(first: 3) { edges { node { runId } } } }`);
    const data = await fx.data(`query WholeAfter { workflowRun(runId: "root-a") { ${WHOLE} } }`);
    expect(data).toEqual({ workflowRun: whole(fx, 'root-a') });
  });

  it('read whole records when a fragment or an inline fragment selects more than the id', async ({ fx }) => {
    const statements = await statementsOf(fx, async () => {
      const data = await fx.data(
        `query Spread { workflowRuns(first: 1) { edges { node { runId ...Name } } } }
         fragment Name on WorkflowRun { ... on WorkflowRun { workflowName input } }`,
      );
      expect(data).toEqual({ workflowRuns: { edges: [{ node: { runId: 'single-b', workflowName: 'demo', input: { task: 'b' } } }] } });
    });
    expect(statements[0]).toContain('JOIN blobs');
  });
});
