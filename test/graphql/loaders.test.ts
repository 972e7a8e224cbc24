/**
 * DataLoader batching (docs/GRAPHQL-CONTRACT.md): one HTTP request for a page of runs selecting parent, rootRun,
 * children, latestRun and lineage { totalCount } costs a small constant number of SQL
 * statements, the same for 10 runs as for 100 (counted by `store.statementCount`).
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkflowRunsLineageOverviewDocument } from '../../schema/generated/graphql.js';
import { canonicalJson, type ReserveWorkflowRunInput } from '../../src/store/index.js';
import { DEFINITION, reserve, reserveInput, startTestServer, type TestServer } from '../helpers/server-fixture.js';

/**
 * Statements for one page (measured): the keyset slice, the children batch, the latest-run
 * batch and the chain-size batch. The page selects only ids and lineage links, so it reads ids
 * only and loads no run: no batch of runs that are not on the page.
 */
const EXPECTED_STATEMENTS = 4;

let fx: TestServer | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const DIGEST = createHash('sha256').update(canonicalJson(DEFINITION)).digest('hex');

/** A store-level reservation like the GraphQL one (docs/STORE-RULES.md §13.4 defaults). */
function storeInput(runId: string, session: string, parentRunId?: string): ReserveWorkflowRunInput {
  return {
    runId,
    workflowName: 'demo',
    workflowSourceRef: 'workflows/demo.ts',
    workflowSource: { kind: 'file', path: 'workflows/demo.ts', hash: DIGEST },
    definitionDigest: DIGEST,
    definitionSnapshot: DEFINITION,
    input: { task: runId },
    originSessionId: session,
    ...(parentRunId === undefined ? {} : { parentRunId }),
  };
}

/**
 * Builds `count` runs: chains of three (root → continuation → restart of the continuation),
 * one session per chain, then single roots for the remainder. Setup only, so it calls the
 * server's store directly (the measured request goes over HTTP).
 */
async function buildRuns(server: TestServer, count: number): Promise<void> {
  const { store, clock } = server;
  const claim = (token: string) => ({ runnerId: 'runner-1', claimToken: token, leaseMs: 60_000 });
  let made = 0;
  let chain = 0;
  while (count - made >= 3) {
    chain += 1;
    const session = `session-${chain}`;
    const root = `chain-${chain}-root`;
    const continuation = `chain-${chain}-cont`;
    store.reserveWorkflowRun(storeInput(root, session), claim(`t-${root}`));
    store.parkWorkflowRun({ runId: root, claimToken: `t-${root}` });
    clock.advance(10);
    store.reserveWorkflowRun(storeInput(continuation, session, root), claim(`t-${continuation}`));
    store.settleWorkflowRun({ runId: continuation, claimToken: `t-${continuation}`, status: 'failed', error: `failure ${chain}` });
    clock.advance(10);
    store.restartWorkflowRun({ runId: continuation, originSessionId: session, restartRunId: `chain-${chain}-restart` });
    clock.advance(10);
    made += 3;
  }
  while (made < count) {
    made += 1;
    await reserve(server, reserveInput(`single-${made}`, { originSessionId: `single-session-${made}` }));
    clock.advance(10);
  }
  expect(store.countWorkflowRuns()).toBe(count);
}

/** Runs the overview query for `first` runs and returns the number of SQL statements it took. */
async function measure(server: TestServer, first: number): Promise<number> {
  server.store.resetStatementCount();
  const { workflowRuns } = await server.data(WorkflowRunsLineageOverviewDocument, { first });
  const statements = server.store.statementCount;
  expect(workflowRuns.edges).toHaveLength(Math.min(first, server.store.countWorkflowRuns()));
  for (const { node } of workflowRuns.edges) {
    expect(node.rootRun.runId).toBe(node.runId.startsWith('chain-') ? node.runId.replace(/-(cont|restart)$/, '-root') : node.runId);
    if (node.runId.endsWith('-root')) {
      expect(node.parent).toBeNull();
      expect(node.children.map((child) => child.runId)).toEqual([node.runId.replace(/-root$/, '-cont')]);
      expect(node.latestRun.runId).toBe(node.runId.replace(/-root$/, '-restart'));
      expect(node.lineage.totalCount).toBe(3);
    } else if (node.runId.endsWith('-cont')) {
      expect(node.parent?.runId).toBe(node.runId.replace(/-cont$/, '-root'));
      expect(node.children.map((child) => child.runId)).toEqual([node.runId.replace(/-cont$/, '-restart')]);
    } else if (node.runId.endsWith('-restart')) {
      expect(node.parent?.runId).toBe(node.runId.replace(/-restart$/, '-cont'));
      expect(node.children).toEqual([]);
      expect(node.latestRun.runId).toBe(node.runId);
    } else {
      expect(node).toMatchObject({ parent: null, children: [], latestRun: { runId: node.runId }, lineage: { totalCount: 1 } });
    }
  }
  return statements;
}

describe('DataLoader batching', () => {
  const counts: Record<string, number> = {};

  it.each([10, 100])('a page of %i runs with parent, rootRun, children, latestRun and lineage costs a constant number of statements', async (runs) => {
    fx = await startTestServer();
    await buildRuns(fx, runs);
    // Whole list on one page, and half of it (the roots of the oldest chains on the page are
    // not on it): parent, rootRun and latestRun select only ids, so neither loads a run.
    const whole = await measure(fx, 100);
    const half = await measure(fx, runs / 2);
    counts[`${runs} runs, first: 100`] = whole;
    counts[`${runs} runs, first: ${runs / 2}`] = half;
    console.log(`SQL statements for ${runs} runs: first: 100 → ${whole}, first: ${runs / 2} → ${half}`);
    expect(whole).toBe(EXPECTED_STATEMENTS);
    expect(half).toBe(EXPECTED_STATEMENTS);
  });

  it('does not grow with the number of runs', () => {
    expect(counts['10 runs, first: 100']).toBe(counts['100 runs, first: 100']);
    expect(counts['10 runs, first: 5']).toBe(counts['100 runs, first: 50']);
  });
});

/** The SQL statements one request costs, and its data. */
async function counted<T>(server: TestServer, query: string): Promise<{ statements: number; data: T }> {
  server.store.resetStatementCount();
  const data = await server.data<T, never>(query);
  return { statements: server.store.statementCount, data };
}

interface LinkedRun {
  runId: string;
  workflowName?: string;
  continuation?: LinkedRun | null;
  restart?: LinkedRun | null;
  children?: LinkedRun[];
  latestRun?: LinkedRun;
}

/** The expected links of a run built by {@link buildRuns}. */
function linksOf(runId: string) {
  const chain = /^(chain-\d+)-(root|cont|restart)$/.exec(runId);
  const [prefix, role] = chain === null ? [runId, 'single'] : [chain[1] as string, chain[2] as string];
  return {
    continuation: role === 'root' ? `${prefix}-cont` : null,
    restart: role === 'cont' ? `${prefix}-restart` : null,
    child: role === 'root' ? `${prefix}-cont` : role === 'cont' ? `${prefix}-restart` : null,
    latest: chain === null ? runId : `${prefix}-restart`,
  };
}

describe('lineage fields of the runs of one page', () => {
  it('read for the whole page at once: one statement per field and reading, ids only where only ids are selected', async () => {
    fx = await startTestServer();
    await buildRuns(fx, 30);
    const { statements, data } = await counted<{ workflowRuns: { edges: Array<{ node: LinkedRun }> } }>(
      fx,
      `query Links { workflowRuns(first: 30) { edges { node {
        runId
        continuation { runId children { runId } }
        restart { runId }
        children { runId workflowName }
        latestRun { runId }
      } } } }`,
    );
    // The page, the continuations (ids), their children (ids), the restarts (ids), the children
    // (whole records: workflowName), the latest runs; no batch of runs that are not on the page.
    expect(statements).toBe(6);
    expect(data.workflowRuns.edges).toHaveLength(30);
    for (const { node } of data.workflowRuns.edges) {
      const links = linksOf(node.runId);
      expect(node).toEqual({
        runId: node.runId,
        continuation: links.continuation === null ? null : { runId: links.continuation, children: [{ runId: linksOf(links.continuation).child }] },
        restart: links.restart === null ? null : { runId: links.restart },
        children: links.child === null ? [] : [{ runId: links.child, workflowName: 'demo' }],
        latestRun: { runId: links.latest },
      });
    }
  });

  it('on pages under a list (a lineage page per run) batch across those pages through the DataLoaders', async () => {
    fx = await startTestServer();
    await buildRuns(fx, 30);
    const query = (first: number) => `query PerRunLineage { workflowRuns(first: ${first}) { edges { node { runId lineage(first: 5) { edges { node {
      runId children { runId } continuation { runId } restart { runId } latestRun { runId }
    } } } } } } }`;
    for (const first of [5, 15]) {
      const { statements, data } = await counted<{
        workflowRuns: { edges: Array<{ node: { runId: string; lineage: { edges: Array<{ node: LinkedRun }> } } }> };
      }>(fx, query(first));
      // The page, one lineage page per run (its root, then the rest), then one statement for
      // each lineage field over every lineage page.
      expect(statements).toBe(1 + 2 * first + 4);
      for (const { node } of data.workflowRuns.edges) {
        const root = node.runId.replace(/-(cont|restart)$/, '-root');
        const chain = root.startsWith('chain-') ? [root, root.replace(/-root$/, '-cont'), root.replace(/-root$/, '-restart')] : [root];
        expect(node.lineage.edges.map((edge) => edge.node)).toEqual(
          chain.map((runId) => {
            const links = linksOf(runId);
            return {
              runId,
              children: links.child === null ? [] : [{ runId: links.child }],
              continuation: links.continuation === null ? null : { runId: links.continuation },
              restart: links.restart === null ? null : { runId: links.restart },
              latestRun: { runId: links.latest },
            };
          }),
        );
      }
    }
  });
});
