/**
 * `WorkflowRunConnection.changeCursor` (docs/PROTOCOL.md "A list and its
 * feed") over a real HTTP server and a real graphql-ws client: the feed's head, read before a
 * page's rows, so `workflowRunChanges(after: changeCursor)` delivers a run changed between the
 * page's read and the subscription (the change is made after the query answered and before
 * subscribing: no timing involved). On our own files and on a pi-workflows state file (position:
 * `events.event_seq`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from 'graphql-ws';
import { afterEach, describe, expect, it } from 'vitest';
import { createPiWorkflowsFile, type PiWorkflowsWriter } from '../../fixtures/pi-workflows-file.js';
import { reserveRun, subscribeWs, wsClient, type StreamResult } from '../helpers/live-fixtures.js';
import { claim, startTestServer, T0, type TestServer } from '../helpers/server-fixture.js';

const PAGE = /* GraphQL */ `
  query Page {
    workflowRuns(first: 10) {
      changeCursor
      edges { node { runId queueStatus presentationRevision } }
    }
  }
`;
const LINEAGE_PAGE = /* GraphQL */ `
  query Chain($runId: String!) {
    workflowRun(runId: $runId) { lineage { changeCursor edges { node { runId } } } }
  }
`;
const CHANGES = /* GraphQL */ `
  subscription Changes($after: String) {
    workflowRunChanges(after: $after) {
      __typename
      ... on WorkflowRunChange { cursor run { runId queueStatus presentationRevision } }
      ... on WorkflowRunChangesResetRequired { cursor }
    }
  }
`;

interface PageData {
  workflowRuns: { changeCursor: string; edges: Array<{ node: { runId: string; queueStatus: string; presentationRevision: number } }> };
}
interface ChangesData {
  workflowRunChanges: { __typename: string; cursor: string; run?: { runId: string; queueStatus: string; presentationRevision: number } };
}

const decoded = (cursor: string): string => Buffer.from(cursor, 'base64url').toString('utf8');
const label = (result: StreamResult<ChangesData> | undefined): string => {
  expect(result?.errors, JSON.stringify(result?.errors)).toBeUndefined();
  const event = result?.data?.workflowRunChanges;
  return event?.__typename === 'WorkflowRunChange'
    ? `${event.run?.runId} ${event.run?.queueStatus} r${event.run?.presentationRevision}`
    : `${event?.__typename}`;
};

let fx: TestServer | undefined;
let client: Client | undefined;
let cleanup: Array<() => void> = [];

afterEach(async () => {
  await client?.dispose();
  await fx?.close();
  for (const step of cleanup) step();
  cleanup = [];
  fx = undefined;
  client = undefined;
});

describe('WorkflowRunConnection.changeCursor', () => {
  it('a run changed after the page was read and before the subscription is delivered; nothing older is replayed', async () => {
    fx = await startTestServer();
    await reserveRun(fx, 'run-a');
    await reserveRun(fx, 'run-b');
    const head = fx.store.runChangeHead();
    const page = await fx.data<PageData, Record<string, never>>(PAGE);
    expect(page.workflowRuns.edges.map(({ node }) => `${node.runId} ${node.queueStatus} r${node.presentationRevision}`)).toEqual([
      'run-b QUEUED r1',
      'run-a QUEUED r1',
    ]);
    expect(decoded(page.workflowRuns.changeCursor)).toBe(`v2:${head.databaseId}:${head.head}:${fx.clock.t}`);
    // The lineage connection answers the same position.
    const chain = await fx.data<{ workflowRun: { lineage: { changeCursor: string } } }, { runId: string }>(LINEAGE_PAGE, { runId: 'run-a' });
    expect(chain.workflowRun.lineage.changeCursor).toBe(page.workflowRuns.changeCursor);

    // Between the page and the subscription: run-a is claimed.
    await claim(fx, 'run-a', 'token-a');
    client = wsClient(fx.url);
    const { collector } = subscribeWs<ChangesData>(client, CHANGES, { after: page.workflowRuns.changeCursor }, 'changes');
    expect((await collector.take(1)).map(label)).toEqual(['run-a STARTING r2']);
    // Then live.
    await reserveRun(fx, 'run-c');
    expect((await collector.take(2)).map(label)).toEqual(['run-a STARTING r2', 'run-c QUEUED r1']);
  });

  it('costs one statement more only when selected (the head, read before the rows)', async () => {
    fx = await startTestServer();
    await reserveRun(fx, 'run-a');
    fx.store.resetStatementCount();
    await fx.data('query { workflowRuns(first: 3) { totalCount edges { node { runId } } } }');
    expect(fx.store.statementCount).toBe(2);
    fx.store.resetStatementCount();
    await fx.data('query { workflowRuns(first: 3) { totalCount ...Head edges { node { runId } } } } fragment Head on WorkflowRunConnection { changeCursor }');
    expect(fx.store.statementCount).toBe(3);
  });

  it('works on a pi-workflows state file: the position is events.event_seq', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-change-cursor-'));
    const path = join(dir, 'state.sqlite');
    const writer: PiWorkflowsWriter = createPiWorkflowsFile(path, { schemaDigest: 'ddl' });
    cleanup.push(() => {
      writer.close();
      rmSync(dir, { recursive: true, force: true });
    });
    writer.transaction(() => writer.reserveRun({ runId: 'run-1', originSessionId: 'session-1', at: T0 }));
    writer.transaction(() => writer.reserveRun({ runId: 'run-2', originSessionId: 'session-2', at: T0 + 1 }));
    fx = await startTestServer({ dbPath: path });
    const page = await fx.data<PageData, Record<string, never>>(PAGE);
    expect(page.workflowRuns.edges.map(({ node }) => node.runId)).toEqual(['run-2', 'run-1']);
    expect(decoded(page.workflowRuns.changeCursor)).toBe(`v2:piwf-${T0}:2:${fx.clock.t}`);

    // Another connection (pi-workflows' own host) claims run-1 between the page and the subscription.
    writer.transaction(() => writer.claim('run-1', 'runner-1', 'token-1', T0 + 60_000, T0 + 2));
    client = wsClient(fx.url);
    const { collector } = subscribeWs<ChangesData>(client, CHANGES, { after: page.workflowRuns.changeCursor }, 'changes');
    const [event] = await collector.take(1);
    expect(label(event)).toBe('run-1 STARTING r2');
    expect(decoded(event?.data?.workflowRunChanges.cursor ?? '')).toBe(`v2:piwf-${T0}:3:${fx.clock.t}`);
  });
});
