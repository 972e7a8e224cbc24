/**
 * DataLoader batching (API.md): one HTTP request for a page of runs selecting parent, rootRun,
 * children, latestRun and lineage { totalCount } costs a small constant number of SQL
 * statements, the same for 10 runs as for 100 (counted by `store.database.statementCount`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WorkflowRunsLineageOverviewDocument } from '../../schema/generated/graphql.js';
import { claim, park, reserve, reserveInput, restart, settle, startTestServer, type TestServer } from '../helpers/server-fixture.js';

/**
 * Statements for one page (measured): the keyset slice, the children batch, the latest-run
 * batch, the chain-size batch, and one batch of runs that are not on the page.
 */
const EXPECTED_STATEMENTS = 5;

let fx: TestServer | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

/**
 * Builds `count` runs through the API: chains of three (root → continuation → restart of the
 * continuation), one session per chain; a remainder of single roots.
 */
async function buildRuns(server: TestServer, count: number): Promise<void> {
  let made = 0;
  let chain = 0;
  while (count - made >= 3) {
    chain += 1;
    const session = `session-${chain}`;
    const root = `chain-${chain}-root`;
    const continuation = `chain-${chain}-cont`;
    await reserve(server, reserveInput(root, { originSessionId: session }));
    await claim(server, root, `t-${root}`);
    await park(server, root, `t-${root}`);
    server.clock.advance(10);
    await reserve(server, reserveInput(continuation, { originSessionId: session, parentRunId: root }));
    await claim(server, continuation, `t-${continuation}`);
    await settle(server, continuation, `t-${continuation}`, 'FAILED', { error: `failure ${chain}` });
    server.clock.advance(10);
    await restart(server, { runId: continuation, originSessionId: session, restartRunId: `chain-${chain}-restart` });
    server.clock.advance(10);
    made += 3;
  }
  while (made < count) {
    made += 1;
    await reserve(server, reserveInput(`single-${made}`, { originSessionId: `single-session-${made}` }));
    server.clock.advance(10);
  }
  expect(server.store.countWorkflowRuns()).toBe(count);
}

/** Runs the overview query for `first` runs and returns the number of SQL statements it took. */
async function measure(server: TestServer, first: number): Promise<number> {
  server.store.database.resetStatementCount();
  const { workflowRuns } = await server.data(WorkflowRunsLineageOverviewDocument, { first });
  const statements = server.store.database.statementCount;
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
    // Whole list on one page: parents and roots are on the page (primed), so no run batch.
    const whole = await measure(fx, 100);
    // Half a page: the roots of the oldest chains on the page are not on it, so one run batch more.
    const half = await measure(fx, runs / 2);
    counts[`${runs} runs, first: 100`] = whole;
    counts[`${runs} runs, first: ${runs / 2}`] = half;
    console.log(`SQL statements for ${runs} runs: first: 100 → ${whole}, first: ${runs / 2} → ${half}`);
    expect(whole).toBe(EXPECTED_STATEMENTS - 1);
    expect(half).toBe(EXPECTED_STATEMENTS);
  });

  it('does not grow with the number of runs', () => {
    expect(counts['10 runs, first: 100']).toBe(counts['100 runs, first: 100']);
    expect(counts['10 runs, first: 5']).toBe(counts['100 runs, first: 50']);
  });
});
