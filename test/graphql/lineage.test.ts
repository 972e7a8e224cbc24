/**
 * Lineage over GraphQL on one chain built through the API:
 *
 *   root ──continuation──▶ cont-1 ──restart──▶ restart-1 ──restart──▶ restart-2 ──continuation──▶ cont-2
 *
 * (the root is claimed and parked with no owner before its continuation; each restart follows
 * a FAILED settle with a different error, so fingerprints differ). Asserts parent, rootRun,
 * children (with kind), continuation, restart, latestRun, lineage (order, totalCount, paging)
 * and restartNumber exactly, and the terminal fingerprint a restart carries.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkflowRunLineageDocument, type WorkflowRunLineageQuery } from '../../schema/generated/graphql.js';
import { canonicalJson } from '../../src/store/index.js';
import { claim, park, reserve, reserveInput, restart, settle, startTestServer, type TestServer } from '../helpers/server-fixture.js';

type LineageRun = NonNullable<WorkflowRunLineageQuery['workflowRun']>;

let fx: TestServer;
let restart1: string;
let restart2: string;
let firstRestart: Awaited<ReturnType<typeof restart>>;

async function lineageOf(runId: string, variables: { first?: number; after?: string | null; last?: number; before?: string | null } = {}): Promise<LineageRun> {
  const { workflowRun } = await fx.data(WorkflowRunLineageDocument, { runId, ...variables });
  expect(workflowRun).not.toBeNull();
  return workflowRun as LineageRun;
}

const runIds = (list: Array<{ runId: string }>) => list.map((run) => run.runId);

beforeAll(async () => {
  fx = await startTestServer();
  const step = () => fx.clock.advance(1_000);
  await reserve(fx, reserveInput('root'));
  step();
  await claim(fx, 'root', 'token-root');
  await park(fx, 'root', 'token-root');
  step();
  await reserve(fx, reserveInput('cont-1', { parentRunId: 'root', lineageKind: 'CONTINUATION' }));
  step();
  await claim(fx, 'cont-1', 'token-c1');
  await settle(fx, 'cont-1', 'token-c1', 'FAILED', { error: 'first failure' });
  step();
  firstRestart = await restart(fx, {
    runId: 'cont-1',
    originSessionId: 'session-1',
    claim: { runnerId: 'runner-1', claimToken: 'token-r1', leaseMs: 60_000 },
  });
  restart1 = firstRestart.run.runId;
  step();
  await settle(fx, restart1, 'token-r1', 'FAILED', { error: 'second failure' });
  step();
  restart2 = (await restart(fx, { runId: restart1, originSessionId: 'session-1' })).run.runId;
  step();
  await claim(fx, restart2, 'token-r2');
  await park(fx, restart2, 'token-r2');
  step();
  await reserve(fx, reserveInput('cont-2', { parentRunId: restart2 }));
  step();
  // An unrelated chain, which no lineage field may show.
  await reserve(fx, reserveInput('other-root', { originSessionId: 'session-2' }));
});
afterAll(async () => {
  await fx.close();
});

describe('lineage', () => {
  it('root: no parent, itself as rootRun, its continuation as only child, the chain head as latestRun', async () => {
    const run = await lineageOf('root');
    expect(run).toMatchObject({
      runId: 'root',
      parentRunId: null,
      rootRunId: 'root',
      lineageKind: null,
      restartNumber: 0,
      parentTerminalFingerprint: null,
      queueStatus: 'DONE',
      status: 'QUEUED',
      terminalFingerprint: null,
      parent: null,
      rootRun: { runId: 'root' },
      children: [{ runId: 'cont-1', lineageKind: 'CONTINUATION' }],
      continuations: [{ runId: 'cont-1' }],
      restarts: [],
      continuation: { runId: 'cont-1' },
      restart: null,
      latestRun: { runId: 'cont-2' },
    });
  });

  it('continuation of the root: keeps restart number 0, restarted once', async () => {
    const run = await lineageOf('cont-1');
    expect(run).toMatchObject({
      parentRunId: 'root',
      rootRunId: 'root',
      lineageKind: 'CONTINUATION',
      restartNumber: 0,
      parentTerminalFingerprint: null,
      status: 'FAILED',
      parent: { runId: 'root' },
      rootRun: { runId: 'root' },
      children: [{ runId: restart1, lineageKind: 'RESTART' }],
      continuations: [],
      restarts: [{ runId: restart1 }],
      continuation: null,
      restart: { runId: restart1 },
      latestRun: { runId: 'cont-2' },
    });
  });

  it('first restart: restart number 1, parent fingerprint = the terminal fingerprint the store computed', async () => {
    const parent = await lineageOf('cont-1');
    const expected = createHash('sha256')
      .update(
        canonicalJson({
          workflowRef: 'workflows/demo.ts',
          input: { task: 'cont-1' },
          status: 'failed',
          finalOutput: null,
          error: 'first failure',
          reason: null,
        }),
      )
      .digest('hex');
    expect(parent.terminalFingerprint).toBe(expected);
    expect(fx.store.getWorkflowRun('cont-1')?.terminalFingerprint).toBe(expected);

    const run = await lineageOf(restart1);
    expect(run).toMatchObject({
      parentRunId: 'cont-1',
      rootRunId: 'root',
      lineageKind: 'RESTART',
      restartNumber: 1,
      parentTerminalFingerprint: expected,
      status: 'FAILED',
      input: { task: 'cont-1' },
      parent: { runId: 'cont-1' },
      rootRun: { runId: 'root' },
      children: [{ runId: restart2, lineageKind: 'RESTART' }],
      restarts: [{ runId: restart2 }],
      continuation: null,
      restart: { runId: restart2 },
      latestRun: { runId: 'cont-2' },
    });
    expect(run.terminalFingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(run.terminalFingerprint).not.toBe(expected);
  });

  it('second restart: restart number 2, carries the first restart’s fingerprint, continued once', async () => {
    const first = await lineageOf(restart1);
    const run = await lineageOf(restart2);
    expect(run).toMatchObject({
      parentRunId: restart1,
      lineageKind: 'RESTART',
      restartNumber: 2,
      parentTerminalFingerprint: first.terminalFingerprint,
      queueStatus: 'DONE',
      terminalFingerprint: null,
      parent: { runId: restart1 },
      rootRun: { runId: 'root' },
      children: [{ runId: 'cont-2', lineageKind: 'CONTINUATION' }],
      continuations: [{ runId: 'cont-2' }],
      restarts: [],
      continuation: { runId: 'cont-2' },
      restart: null,
      latestRun: { runId: 'cont-2' },
    });
  });

  it('continuation of a restart: keeps its parent’s restart number, no fingerprint, itself the latest run', async () => {
    const run = await lineageOf('cont-2');
    expect(run).toMatchObject({
      parentRunId: restart2,
      rootRunId: 'root',
      lineageKind: 'CONTINUATION',
      restartNumber: 2,
      parentTerminalFingerprint: null,
      status: 'QUEUED',
      queueStatus: 'QUEUED',
      parent: { runId: restart2 },
      rootRun: { runId: 'root' },
      children: [],
      continuation: null,
      restart: null,
      latestRun: { runId: 'cont-2' },
    });
  });

  it('lineage lists the whole chain, root first then by creation, from any member', async () => {
    const chain = ['root', 'cont-1', restart1, restart2, 'cont-2'];
    for (const member of chain) {
      const { lineage } = await lineageOf(member);
      expect(lineage.totalCount).toBe(5);
      // Every node carries its global id (what client caches normalise it under).
      expect(lineage.edges.map((edge) => edge.node.id)).toEqual(chain.map((runId) => Buffer.from(`WorkflowRun:${runId}`).toString('base64')));
      expect(lineage.edges.map(({ node: { id: _id, ...node } }) => node)).toEqual([
        { runId: 'root', parentRunId: null, lineageKind: null, restartNumber: 0 },
        { runId: 'cont-1', parentRunId: 'root', lineageKind: 'CONTINUATION', restartNumber: 0 },
        { runId: restart1, parentRunId: 'cont-1', lineageKind: 'RESTART', restartNumber: 1 },
        { runId: restart2, parentRunId: restart1, lineageKind: 'RESTART', restartNumber: 2 },
        { runId: 'cont-2', parentRunId: restart2, lineageKind: 'CONTINUATION', restartNumber: 2 },
      ]);
      expect(lineage.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
    }
    const other = await lineageOf('other-root');
    expect(other.lineage.totalCount).toBe(1);
    expect(runIds(other.lineage.edges.map((edge) => edge.node))).toEqual(['other-root']);
    expect(other.latestRun.runId).toBe('other-root');
  });

  it('pages the lineage with first/after', async () => {
    const seen: string[][] = [];
    const flags: Array<[boolean, boolean]> = [];
    let after: string | null = null;
    for (;;) {
      const { lineage }: LineageRun = await lineageOf(restart2, { first: 2, after });
      expect(lineage.totalCount).toBe(5);
      seen.push(runIds(lineage.edges.map((edge) => edge.node)));
      flags.push([lineage.pageInfo.hasPreviousPage, lineage.pageInfo.hasNextPage]);
      expect(lineage.pageInfo.startCursor).toBe(lineage.edges[0]?.cursor ?? null);
      expect(lineage.pageInfo.endCursor).toBe(lineage.edges.at(-1)?.cursor ?? null);
      if (!lineage.pageInfo.hasNextPage) break;
      after = lineage.pageInfo.endCursor;
    }
    expect(seen).toEqual([['root', 'cont-1'], [restart1, restart2], ['cont-2']]);
    expect(flags).toEqual([
      [false, true],
      [true, true],
      [true, false],
    ]);
  });

  /** Cursor of a chain member, as the lineage connection gives it. */
  async function cursorOf(runId: string): Promise<string> {
    const { lineage } = await lineageOf('root', { first: 5 });
    const edge = lineage.edges.find((candidate) => candidate.node.runId === runId);
    expect(edge, runId).toBeDefined();
    return edge?.cursor as string;
  }

  it('pages the lineage backward with last/before: exact edges and pageInfo', async () => {
    const all = (await lineageOf('root', { first: 5 })).lineage.edges.map((edge) => edge.cursor);
    const pages: Array<{ runIds: string[]; cursors: string[]; pageInfo: LineageRun['lineage']['pageInfo'] }> = [];
    let before: string | null = null;
    for (;;) {
      const { lineage }: LineageRun = await lineageOf('cont-1', { last: 2, before });
      expect(lineage.totalCount).toBe(5);
      pages.push({ runIds: runIds(lineage.edges.map((edge) => edge.node)), cursors: lineage.edges.map((edge) => edge.cursor), pageInfo: lineage.pageInfo });
      if (!lineage.pageInfo.hasPreviousPage) break;
      before = lineage.pageInfo.startCursor;
    }
    // Each page in lineage order; the cursors are the same as paging forward gives.
    expect(pages).toEqual([
      {
        runIds: [restart2, 'cont-2'],
        cursors: [all[3], all[4]],
        pageInfo: { hasPreviousPage: true, hasNextPage: false, startCursor: all[3], endCursor: all[4] },
      },
      {
        runIds: ['cont-1', restart1],
        cursors: [all[1], all[2]],
        pageInfo: { hasPreviousPage: true, hasNextPage: true, startCursor: all[1], endCursor: all[2] },
      },
      {
        runIds: ['root'],
        cursors: [all[0]],
        pageInfo: { hasPreviousPage: false, hasNextPage: true, startCursor: all[0], endCursor: all[0] },
      },
    ]);
  });

  it('pages both ways from one cursor, and to the ends of the chain', async () => {
    const cursor = await cursorOf(restart1);
    const back = (await lineageOf('root', { last: 10, before: cursor })).lineage;
    expect(runIds(back.edges.map((edge) => edge.node))).toEqual(['root', 'cont-1']);
    expect(back.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: true });
    const forward = (await lineageOf('root', { first: 10, after: cursor })).lineage;
    expect(runIds(forward.edges.map((edge) => edge.node))).toEqual([restart2, 'cont-2']);
    expect(forward.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
    // The last two of the chain without a cursor; the whole chain with a large `last`.
    const tail = (await lineageOf('root', { last: 2 })).lineage;
    expect(runIds(tail.edges.map((edge) => edge.node))).toEqual([restart2, 'cont-2']);
    expect(tail.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
    const whole = (await lineageOf('root', { last: 100 })).lineage;
    expect(runIds(whole.edges.map((edge) => edge.node))).toEqual(['root', 'cont-1', restart1, restart2, 'cont-2']);
    expect(whole.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: false });
    // Nothing comes before the root; a window between two cursors.
    const beforeRoot = (await lineageOf('root', { last: 2, before: await cursorOf('root') })).lineage;
    expect(beforeRoot.edges).toEqual([]);
    expect(beforeRoot.pageInfo).toEqual({ hasPreviousPage: false, hasNextPage: true, startCursor: null, endCursor: null });
    const window = (await lineageOf('root', { after: await cursorOf('root'), before: await cursorOf('cont-2') })).lineage;
    expect(runIds(window.edges.map((edge) => edge.node))).toEqual(['cont-1', restart1, restart2]);
  });

  it('refuses first together with last, on lineage and workflowRuns, even when only totalCount is selected', async () => {
    const message = 'first and last cannot be used together: page forward with first/after or backward with last/before';
    const lineage = await fx.gql(WorkflowRunLineageDocument, { runId: 'root', first: 2, last: 1 });
    expect(lineage.data).toEqual({ workflowRun: null });
    expect(lineage.errors).toEqual([expect.objectContaining({ message, path: ['workflowRun', 'lineage'], extensions: { code: 'BAD_USER_INPUT' } })]);
    const countOnly = await fx.gql('query Count { workflowRun(runId: "root") { lineage(first: 2, last: 1) { totalCount } } }');
    expect(countOnly.errors?.map((error) => error.message)).toEqual([message]);
    const runs = await fx.gql('query Runs { workflowRuns(first: 2, last: 1) { edges { node { runId } } } }');
    expect(runs.data).toBeNull();
    expect(runs.errors).toEqual([expect.objectContaining({ message, path: ['workflowRuns'], extensions: { code: 'BAD_USER_INPUT' } })]);
  });

  it('refuses lineage pages above 100 and cursors of another list', async () => {
    const tooMany = await fx.gql(WorkflowRunLineageDocument, { runId: 'root', first: 101 });
    expect(tooMany.errors?.[0]).toMatchObject({ message: 'first must be between 0 and 100', extensions: { code: 'BAD_USER_INPUT' } });
    const runCursor = Buffer.from(JSON.stringify(['run', 0, 'root'])).toString('base64url');
    const wrongCursor = await fx.gql(WorkflowRunLineageDocument, { runId: 'root', after: runCursor });
    expect(wrongCursor.errors?.[0]).toMatchObject({ message: `Invalid cursor: ${runCursor.slice(0, 16)}…`, extensions: { code: 'BAD_USER_INPUT' } });
  });

  it('restartWorkflowRun without a fingerprint used the run’s own; a retry adopts the same restart', async () => {
    expect(firstRestart.adopted).toBe(false);
    expect(firstRestart.run.parentTerminalFingerprint).toBe(fx.store.getWorkflowRun('cont-1')?.terminalFingerprint);
    const retry = await restart(fx, { runId: 'cont-1', originSessionId: 'session-1' });
    expect(retry.adopted).toBe(true);
    expect(retry.run.runId).toBe(restart1);
  });
});
