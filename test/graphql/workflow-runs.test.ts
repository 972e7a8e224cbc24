/**
 * `workflowRuns`: newest-first order, every filter field, totalCount, Relay paging forward
 * (first/after) and backward (last/before), the page cap, invalid cursors, and keyset cursors
 * that stay stable while new runs are inserted between page fetches.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverTest } from '../helpers/server-test.js';
import { WorkflowRunsDocument, type WorkflowRunFilter, type WorkflowRunsQuery, type WorkflowRunsQueryVariables } from '../../schema/generated/graphql.js';
import { claim, failedRoot, park, reserve, reserveInput, restart, settle, startTestServer, type TestServer } from '../helpers/server-fixture.js';

let fx: TestServer;

async function ids(variables: WorkflowRunsQueryVariables): Promise<{ runIds: string[]; totalCount: number }> {
  const { workflowRuns } = await fx.data(WorkflowRunsDocument, variables);
  return { runIds: workflowRuns.edges.map((edge) => edge.node.runId), totalCount: workflowRuns.totalCount };
}

const filtered = async (filter: WorkflowRunFilter) => ids({ filter });

describe('workflowRuns', () => {
  beforeAll(async () => {
    fx = await startTestServer();
    // Created one second apart, in this order (oldest first):
    await failedRoot(fx, 'r1', 'boom'); // FAILED / FAILED, session-1
    fx.clock.advance(1_000);
    await restart(fx, { runId: 'r1', originSessionId: 'session-1', restartRunId: 'r1-restart' }); // QUEUED, RESTART of r1
    fx.clock.advance(1_000);
    // The workflow name lives on the definition row (first name stored for a digest wins).
    const other = { workflowName: 'other', definition: { name: 'other', steps: [] } };
    await reserve(fx, reserveInput('r2', { originSessionId: 'session-2', ...other }));
    await claim(fx, 'r2', 'token-r2');
    await park(fx, 'r2', 'token-r2');
    fx.clock.advance(1_000);
    await reserve(fx, reserveInput('r2-cont', { originSessionId: 'session-2', ...other, parentRunId: 'r2' })); // r2 queue DONE
    fx.clock.advance(1_000);
    await reserve(fx, reserveInput('r3', { originSessionId: 'session-3', executionMode: 'HEADLESS' })); // QUEUED, headless
    fx.clock.advance(1_000);
    await reserve(fx, reserveInput('r4', { originSessionId: 'session-4' }));
    await claim(fx, 'r4', 'token-r4');
    await settle(fx, 'r4', 'token-r4', 'COMPLETED', { output: 'done' }); // COMPLETED / DONE
    fx.clock.advance(1_000);
  });
  afterAll(async () => {
    await fx.close();
  });

  it('lists every run newest first with totalCount', async () => {
    expect(await ids({})).toEqual({ runIds: ['r4', 'r3', 'r2-cont', 'r2', 'r1-restart', 'r1'], totalCount: 6 });
  });

  it('filters by status', async () => {
    expect(await filtered({ status: ['FAILED'] })).toEqual({ runIds: ['r1'], totalCount: 1 });
    expect(await filtered({ status: ['COMPLETED', 'FAILED'] })).toEqual({ runIds: ['r4', 'r1'], totalCount: 2 });
    expect(await filtered({ status: [] })).toEqual({ runIds: [], totalCount: 0 });
  });

  it('filters by queueStatus', async () => {
    expect(await filtered({ queueStatus: ['DONE'] })).toEqual({ runIds: ['r4', 'r2'], totalCount: 2 });
    expect(await filtered({ queueStatus: ['QUEUED'] })).toEqual({ runIds: ['r3', 'r2-cont', 'r1-restart'], totalCount: 3 });
  });

  it('filters by rootRunId and parentRunId', async () => {
    expect(await filtered({ rootRunId: 'r1' })).toEqual({ runIds: ['r1-restart', 'r1'], totalCount: 2 });
    expect(await filtered({ parentRunId: 'r2' })).toEqual({ runIds: ['r2-cont'], totalCount: 1 });
    expect(await filtered({ parentRunId: 'r4' })).toEqual({ runIds: [], totalCount: 0 });
  });

  it('filters by lineageKind', async () => {
    expect(await filtered({ lineageKind: 'RESTART' })).toEqual({ runIds: ['r1-restart'], totalCount: 1 });
    expect(await filtered({ lineageKind: 'CONTINUATION' })).toEqual({ runIds: ['r2-cont'], totalCount: 1 });
  });

  it('filters by originSessionId (headless runs have none)', async () => {
    expect(await filtered({ originSessionId: 'session-2' })).toEqual({ runIds: ['r2-cont', 'r2'], totalCount: 2 });
    expect(await filtered({ originSessionId: 'session-3' })).toEqual({ runIds: [], totalCount: 0 });
  });

  it('filters by workflowName', async () => {
    expect(await filtered({ workflowName: 'other' })).toEqual({ runIds: ['r2-cont', 'r2'], totalCount: 2 });
    expect(await filtered({ workflowName: 'demo' })).toEqual({ runIds: ['r4', 'r3', 'r1-restart', 'r1'], totalCount: 4 });
  });

  it('combines filters with AND', async () => {
    expect(await filtered({ workflowName: 'demo', status: ['QUEUED'], originSessionId: 'session-1' })).toEqual({
      runIds: ['r1-restart'],
      totalCount: 1,
    });
    expect(await filtered({ rootRunId: 'r2', lineageKind: 'RESTART' })).toEqual({ runIds: [], totalCount: 0 });
  });

  it('an empty page has null cursors and no further pages', async () => {
    const { workflowRuns } = await fx.data(WorkflowRunsDocument, { first: 5, filter: { workflowName: 'no-such-workflow' } });
    expect(workflowRuns.edges).toEqual([]);
    expect(workflowRuns.totalCount).toBe(0);
    expect(workflowRuns.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null });
  });

  it('pages forward with first/after', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    const pages: Array<{ hasNextPage: boolean; hasPreviousPage: boolean }> = [];
    for (;;) {
      const { workflowRuns }: WorkflowRunsQuery = await fx.data(WorkflowRunsDocument, { first: 4, after });
      expect(workflowRuns.totalCount).toBe(6);
      seen.push(...workflowRuns.edges.map((edge) => edge.node.runId));
      expect(workflowRuns.pageInfo.startCursor).toBe(workflowRuns.edges[0]?.cursor);
      expect(workflowRuns.pageInfo.endCursor).toBe(workflowRuns.edges.at(-1)?.cursor);
      pages.push({ hasNextPage: workflowRuns.pageInfo.hasNextPage, hasPreviousPage: workflowRuns.pageInfo.hasPreviousPage });
      if (!workflowRuns.pageInfo.hasNextPage) break;
      after = workflowRuns.pageInfo.endCursor;
    }
    expect(seen).toEqual(['r4', 'r3', 'r2-cont', 'r2', 'r1-restart', 'r1']);
    expect(pages).toEqual([
      { hasNextPage: true, hasPreviousPage: false },
      { hasNextPage: false, hasPreviousPage: true },
    ]);
  });

  it('pages backward with last/before', async () => {
    const last = await fx.data(WorkflowRunsDocument, { last: 4 });
    expect(last.workflowRuns.edges.map((edge) => edge.node.runId)).toEqual(['r2-cont', 'r2', 'r1-restart', 'r1']);
    expect(last.workflowRuns.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
    const before = await fx.data(WorkflowRunsDocument, { last: 4, before: last.workflowRuns.pageInfo.startCursor });
    expect(before.workflowRuns.edges.map((edge) => edge.node.runId)).toEqual(['r4', 'r3']);
    expect(before.workflowRuns.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: true });
  });

  it('uses the same cursors both ways: first/after then last/before returns the page in between', async () => {
    const all = await fx.data(WorkflowRunsDocument, { first: 6 });
    const cursors = all.workflowRuns.edges.map((edge) => edge.cursor);
    const middle = await fx.data(WorkflowRunsDocument, { first: 10, after: cursors[0], before: cursors[4] });
    expect(middle.workflowRuns.edges.map((edge) => edge.node.runId)).toEqual(['r3', 'r2-cont', 'r2']);
    expect(middle.workflowRuns.edges.map((edge) => edge.cursor)).toEqual(cursors.slice(1, 4));
  });

  it('refuses first or last above 100 with a clear error', async () => {
    for (const [variables, message] of [
      [{ first: 101 }, 'first must be between 0 and 100'],
      [{ last: 101 }, 'last must be between 0 and 100'],
      [{ first: -1 }, 'first must be between 0 and 100'],
    ] as const) {
      const response = await fx.gql(WorkflowRunsDocument, variables);
      expect(response.data).toBeNull();
      expect(response.errors).toEqual([expect.objectContaining({ message, extensions: { code: 'BAD_USER_INPUT' } })]);
    }
    expect((await ids({ first: 100 })).runIds).toHaveLength(6);
  });

  it('refuses an invalid cursor', async () => {
    for (const cursor of ['garbage', Buffer.from('["lineage-root"]').toString('base64url'), Buffer.from('["run","x","r1"]').toString('base64url')]) {
      const response = await fx.gql(WorkflowRunsDocument, { first: 2, after: cursor });
      expect(response.data).toBeNull();
      // Quoted up to 16 characters, never in full.
      const quoted = cursor.length <= 16 ? cursor : `${cursor.slice(0, 16)}…`;
      expect(response.errors).toEqual([expect.objectContaining({ message: `Invalid cursor: ${quoted}`, extensions: { code: 'BAD_USER_INPUT' } })]);
    }
    const long = await fx.gql(WorkflowRunsDocument, { first: 2, after: 'x'.repeat(100_000) });
    expect(long.errors).toEqual([expect.objectContaining({ message: `Invalid cursor: ${'x'.repeat(16)}…`, extensions: { code: 'BAD_USER_INPUT' } })]);
    expect(long.text.length).toBeLessThan(300);
    const before = await fx.gql(WorkflowRunsDocument, { last: 2, before: 'garbage' });
    expect(before.errors?.[0]?.message).toBe('Invalid cursor: garbage');
  });
});

describe('workflowRuns cursors under concurrent inserts', () => {
  // Each test has a server of its own: the expected pages are the whole list.
  const it = serverTest.extend('server', async ({ serverOptions }, { onCleanup }) => {
    const own = await startTestServer(serverOptions);
    onCleanup(() => own.close());
    return own;
  });

  async function insert(server: TestServer, runIds: string[]): Promise<void> {
    for (const runId of runIds) {
      await reserve(server, reserveInput(runId, { originSessionId: `session-${runId}` }));
      server.clock.advance(1_000);
    }
  }

  it('continues forward pages without skipping or repeating while newer runs arrive', async ({ server }) => {
    await insert(server, ['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7']);
    const seen: string[] = [];
    let page = await server.data(WorkflowRunsDocument, { first: 3 });
    seen.push(...page.workflowRuns.edges.map((edge) => edge.node.runId));
    let batch = 0;
    while (page.workflowRuns.pageInfo.hasNextPage) {
      batch += 1;
      await insert(server, [`b${batch}x`, `b${batch}y`]); // newer than everything already listed
      page = await server.data(WorkflowRunsDocument, { first: 3, after: page.workflowRuns.pageInfo.endCursor });
      seen.push(...page.workflowRuns.edges.map((edge) => edge.node.runId));
    }
    expect(seen).toEqual(['a7', 'a6', 'a5', 'a4', 'a3', 'a2', 'a1']);
    expect(page.workflowRuns.totalCount).toBe(7 + 2 * batch);
  });

  it('continues backward pages from a cursor while newer runs arrive', async ({ server }) => {
    await insert(server, ['a1', 'a2', 'b1x', 'b1y', 'b2x', 'b2y']); // newest first: b2y b2x b1y b1x a2 a1
    const first = await server.data(WorkflowRunsDocument, { first: 2 });
    expect(first.workflowRuns.edges.map((edge) => edge.node.runId)).toEqual(['b2y', 'b2x']);
    const cursor = first.workflowRuns.pageInfo.endCursor;
    await insert(server, ['c1', 'c2']);
    const back = await server.data(WorkflowRunsDocument, { last: 10, before: cursor });
    expect(back.workflowRuns.edges.map((edge) => edge.node.runId)).toEqual(['c2', 'c1', 'b2y']);
    expect(back.workflowRuns.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: true });
    const next = await server.data(WorkflowRunsDocument, { first: 2, after: cursor });
    expect(next.workflowRuns.edges.map((edge) => edge.node.runId)).toEqual(['b1y', 'b1x']);
  });
});
