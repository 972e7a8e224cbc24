/**
 * The run view's lists page from either end with opaque cursors (≤ 256 items, the newest 256
 * without first/last), refuse bad arguments with BAD_USER_INPUT, and read every page a query
 * asks for in the one snapshot of its view; a metadata-scope token reads a run's metadata but
 * not its content (docs/GRAPHQL-CONTRACT.md "The run view", docs/OPERATIONS.md "Security").
 * The file is the one pi-workflows' own code wrote (test/data/pi-workflows-reference/).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildReferenceFile, loadReferenceViews } from '../../fixtures/pi-workflows-reference-file.js';
import { CONTENT_SCOPE_MESSAGE } from '../../src/schema/content-scope.js';
import { startTestServer, type TestServer } from '../helpers/server-fixture.js';
import { tempDir } from '../helpers/store-fixtures.js';

const RUN = 'ref-translate-31';

interface Page {
  totalCount: number;
  startIndex: number;
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  edges: Array<{ cursor: string; node: { seq: number } }>;
}

const TRACE_PAGE = /* GraphQL */ `
  query TracePage($runId: String!, $first: Int, $after: String, $last: Int, $before: String) {
    workflowRun(runId: $runId) {
      view {
        trace(first: $first, after: $after, last: $last, before: $before) {
          totalCount
          startIndex
          pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
          edges { cursor node { seq } }
        }
      }
    }
  }
`;

let dir: string;
let fx: TestServer;
let traceSeqs: number[];

beforeAll(async () => {
  dir = tempDir('run-view-pages-');
  const path = join(dir, 'state.sqlite');
  buildReferenceFile(path);
  traceSeqs = loadReferenceViews()[RUN].tracePage.items.map((event) => event.seq);
  fx = await startTestServer({ dbPath: path, token: 'full-token', readTokens: ['read-token'], metadataTokens: ['meta-token'] });
});
afterAll(async () => {
  await fx.close();
  rmSync(dir, { recursive: true, force: true });
});

async function tracePage(variables: Record<string, unknown>): Promise<Page> {
  const data = (await fx.data(TRACE_PAGE as never, { runId: RUN, ...variables } as never)) as { workflowRun: { view: { trace: Page } } };
  return data.workflowRun.view.trace;
}

describe('paging a run view’s list', () => {
  it('forward with first/after to the end, backward with last/before to the start: every event once, in order', async () => {
    expect(traceSeqs.length).toBeGreaterThan(10);
    const forward: number[] = [];
    let after: string | null = null;
    for (;;) {
      const page: Page = await tracePage({ first: 4, after });
      expect(page.totalCount).toBe(traceSeqs.length);
      expect(page.startIndex).toBe(forward.length);
      expect(page.pageInfo.hasPreviousPage).toBe(forward.length > 0);
      forward.push(...page.edges.map((edge) => edge.node.seq));
      expect(page.pageInfo.hasNextPage).toBe(forward.length < traceSeqs.length);
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(forward).toEqual(traceSeqs);
    const backward: number[] = [];
    let before: string | null = null;
    for (;;) {
      const page: Page = await tracePage({ last: 5, before });
      backward.unshift(...page.edges.map((edge) => edge.node.seq));
      expect(page.startIndex).toBe(traceSeqs.length - backward.length);
      if (!page.pageInfo.hasPreviousPage) break;
      before = page.pageInfo.startCursor;
    }
    expect(backward).toEqual(traceSeqs);
  });

  it('without first or last: the newest 256 (all of them here); an empty page has null cursors', async () => {
    const page = await tracePage({});
    expect(page.edges.map((edge) => edge.node.seq)).toEqual(traceSeqs);
    expect(page.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
    const empty = await tracePage({ first: 0 });
    expect(empty).toMatchObject({ edges: [], startIndex: 0, pageInfo: { startCursor: null, endCursor: null } });
  });

  it.each([
    [{ first: 257 }, 'trace: first must be between 0 and 256'],
    [{ last: -1 }, 'trace: last must be between 0 and 256'],
    [{ first: 1, last: 1 }, 'trace: first and last cannot be used together: page forward with first/after or backward with last/before'],
    [{ after: 'not-a-cursor' }, 'Invalid cursor: not-a-cursor'],
  ])('%j is refused with BAD_USER_INPUT', async (variables, message) => {
    const result = await fx.gql(TRACE_PAGE as never, { runId: RUN, ...variables } as never);
    expect(result.errors).toEqual([expect.objectContaining({ message, extensions: { code: 'BAD_USER_INPUT' }, path: ['workflowRun', 'view', 'trace'] })]);
    expect(result.data).toEqual({ workflowRun: null });
  });

  it('the list with bad arguments is named, at its own path (the session’s too)', async () => {
    const result = await fx.gql(
      `query { workflowRun(runId: "${RUN}") { view { steps(first: 2) { totalCount } trace(first: 300) { totalCount } session { entries(first: 999) { totalCount } } } } }` as never,
    );
    expect(result.errors).toEqual([expect.objectContaining({ message: 'trace: first must be between 0 and 256', path: ['workflowRun', 'view', 'trace'] })]);
    const explain = await fx.gql(
      `query { workflowRun(runId: "ref-explain-14") { view { steps { totalCount } session { entries(first: 999) { totalCount } } } } }` as never,
    );
    expect(explain.errors?.map((error) => [error.message, error.path])).toEqual([
      ['session.entries: first must be between 0 and 256', ['workflowRun', 'view', 'session', 'entries']],
    ]);
  });

  it('a cursor of another list is refused, naming both lists', async () => {
    const steps = (await fx.data(`query { workflowRun(runId: "${RUN}") { view { steps(first: 1) { edges { cursor } } } } }` as never)) as {
      workflowRun: { view: { steps: { edges: Array<{ cursor: string }> } } };
    };
    const cursor = steps.workflowRun.view.steps.edges[0]?.cursor as string;
    const result = await fx.gql(TRACE_PAGE as never, { runId: RUN, after: cursor } as never);
    expect(result.errors).toEqual([
      expect.objectContaining({
        message: 'This cursor belongs to steps, not trace: page with cursors of the same list',
        extensions: { code: 'BAD_USER_INPUT' },
      }),
    ]);
  });
});

describe('one snapshot per view', () => {
  it('the head and every page a query asks for (aliases, fragments, the session’s lists) are read in one store read', async () => {
    const reads = vi.spyOn(fx.store, 'readRunView');
    try {
      const data = (await fx.data(
        `query { workflowRun(runId: "ref-explain-14") { view { revision ...Lists newest: trace(last: 2) { edges { node { seq } } } session { entries(first: 1) { totalCount } events(last: 1) { totalCount } } } } }
         fragment Lists on WorkflowRunView { steps { totalCount } oldest: trace(first: 2) { edges { node { seq } } } }` as never,
      )) as { workflowRun: { view: { revision: number; newest: { edges: unknown[] }; oldest: { edges: unknown[] } } } };
      expect(data.workflowRun.view.newest.edges).toHaveLength(2);
      expect(data.workflowRun.view.oldest.edges).toHaveLength(2);
      expect(reads).toHaveBeenCalledTimes(1);
      expect(reads.mock.calls[0]?.[1].pages.map((page) => page.key).sort()).toEqual(
        ['sessionEntries:1:::', 'sessionEvents:::1:', 'steps::::', 'trace:2:::', 'trace:::2:'].sort(),
      );
    } finally {
      reads.mockRestore();
    }
  });
});

describe('a metadata-scope token', () => {
  const QUERY = `query { workflowRun(runId: "${RUN}") { view { title status steps { edges { node { nodeId outcome output { byteLength text } } } } } } }`;

  it('reads titles, statuses, steps and sizes; every content value is null with a FORBIDDEN error saying why', async () => {
    const result = await fx.gql(QUERY as never, undefined, { authorization: 'Bearer meta-token' });
    const view = (
      result.data as { workflowRun: { view: { title: string; steps: { edges: Array<{ node: { output: { byteLength: number; text: null } } }> } } } }
    ).workflowRun.view;
    expect(view.title).toBe(loadReferenceViews()[RUN].state.runTitle);
    expect(view.steps.edges).toHaveLength(3);
    for (const edge of view.steps.edges) expect(edge.node.output).toEqual({ byteLength: expect.any(Number), text: null });
    expect(result.errors).toHaveLength(3);
    for (const error of result.errors ?? []) {
      expect(error).toMatchObject({ message: CONTENT_SCOPE_MESSAGE, extensions: { code: 'FORBIDDEN', reason: 'METADATA_SCOPE' } });
    }
  });

  it('the run’s input and launch options and the viewer deltas’ values are content too (a delta’s presentationRevision is not)', async () => {
    const result = await fx.gql(
      `query { workflowRun(runId: "${RUN}") { runId input launchOptions viewerDeltas(afterRevision: 1) { batches { deltas { patch { path value } } } } } }` as never,
      undefined,
      { authorization: 'Bearer meta-token' },
    );
    const run = (
      result.data as {
        workflowRun: {
          runId: string;
          input: null;
          launchOptions: null;
          viewerDeltas: { batches: Array<{ deltas: Array<{ patch: Array<{ path: string; value: unknown }> }> }> };
        };
      }
    ).workflowRun;
    expect(run).toMatchObject({ runId: RUN, input: null, launchOptions: null });
    const operations = run.viewerDeltas.batches.flatMap((batch) => batch.deltas.flatMap((delta) => delta.patch));
    const hidden = operations.filter((operation) => operation.path !== '/presentationRevision');
    expect(hidden.length).toBeGreaterThan(0);
    for (const operation of hidden) expect(operation.value).toBeNull();
    for (const operation of operations.filter((each) => each.path === '/presentationRevision')) expect(typeof operation.value).toBe('number');
    expect(result.errors?.length).toBe(2 + hidden.length);
    for (const error of result.errors ?? [])
      expect(error).toMatchObject({ message: CONTENT_SCOPE_MESSAGE, extensions: { code: 'FORBIDDEN', reason: 'METADATA_SCOPE' } });
  });

  it('a read token reads the content', async () => {
    const result = await fx.gql(QUERY as never, undefined, { authorization: 'Bearer read-token' });
    expect(result.errors).toBeUndefined();
    const steps = (result.data as { workflowRun: { view: { steps: { edges: Array<{ node: { output: { text: string } } }> } } } }).workflowRun.view.steps.edges;
    expect(steps.map((edge) => edge.node.output.text)).toEqual(
      loadReferenceViews()[RUN].state.steps.map((step) => (typeof step.output === 'string' ? step.output : JSON.stringify(step.output, null, 2))),
    );
  });

  it('a metadata token cannot write', async () => {
    const result = await fx.gql(
      `mutation { cancelWorkflowRun(input: { runId: "${RUN}" }) { __typename ... on ForbiddenError { message } } }` as never,
      undefined,
      {
        authorization: 'Bearer meta-token',
      },
    );
    expect(result.data).toEqual({
      cancelWorkflowRun: { __typename: 'ForbiddenError', message: 'This token has the read scope only; mutations need the write scope' },
    });
  });
});
