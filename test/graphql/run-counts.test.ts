/**
 * `workflowRunCounts(filter:)` over real HTTP (docs/GRAPHQL-CONTRACT.md "Run counts"): exact
 * counts per status and per queue status for several filters, on this server's own file and on
 * a pi-workflows state file (nothing written to it), equal to `workflowRuns(filter:).totalCount`;
 * a bad filter is refused; a `@live` query is pushed again after a mutation.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createPiWorkflowsFile } from '../../fixtures/pi-workflows-file.js';
import { closeAfterSse, subscribeWs, wsClient } from '../helpers/live-fixtures.js';
import { claim, reserve, reserveInput, settle, snapshotTables, startTestServer, T0, type TestServer } from '../helpers/server-fixture.js';

const COUNTS = /* GraphQL */ `
  query Counts($filter: WorkflowRunFilter) {
    workflowRunCounts(filter: $filter) {
      total
      byStatus { status count }
      byQueueStatus { status count }
    }
    workflowRuns(first: 1, filter: $filter) { totalCount }
  }
`;

interface CountsData {
  workflowRunCounts: { total: number; byStatus: Array<{ status: string; count: number }>; byQueueStatus: Array<{ status: string; count: number }> };
  workflowRuns: { totalCount: number };
}

/** One definition per workflow name (a definition's digest keeps the first name stored for it). */
const definitionOf = (name: string): { name: string; steps: Array<{ id: string; type: string }> } => ({ name, steps: [{ id: 'plan', type: 'agent' }] });

const STATUSES = ['QUEUED', 'RUNNING', 'WAITING', 'COMPLETED', 'FAILED', 'TIMED_OUT', 'CANCELLED'];
const QUEUE_STATUSES = ['QUEUED', 'STARTING', 'RUNNING', 'PARKED', 'DONE', 'FAILED', 'CANCELLED'];

/** The expected answer: the nonzero counts given, every other status 0, in enum order. */
function expected(total: number, byStatus: Record<string, number>, byQueueStatus: Record<string, number>): CountsData {
  return {
    workflowRunCounts: {
      total,
      byStatus: STATUSES.map((status) => ({ status, count: byStatus[status] ?? 0 })),
      byQueueStatus: QUEUE_STATUSES.map((status) => ({ status, count: byQueueStatus[status] ?? 0 })),
    },
    workflowRuns: { totalCount: total },
  };
}

const counts = (fx: TestServer, filter?: Record<string, unknown>): Promise<CountsData> => fx.data<CountsData, Record<string, unknown>>(COUNTS, { filter });

describe('workflowRunCounts', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it("this server's own file: exact counts for several filters", async () => {
    const fx = await startTestServer();
    cleanup.push(() => fx.close());
    expect(await counts(fx)).toEqual(expected(0, {}, {}));
    // alpha-1 queued; alpha-2 starting; beta-1 completed; beta-2 failed; alpha-3 queued (session-a).
    await reserve(fx, reserveInput('alpha-1', { originSessionId: 'session-1', workflowName: 'alpha', definition: definitionOf('alpha') }));
    await reserve(fx, reserveInput('alpha-2', { originSessionId: 'session-2', workflowName: 'alpha', definition: definitionOf('alpha') }));
    await claim(fx, 'alpha-2', 'token-a2');
    await reserve(fx, reserveInput('beta-1', { originSessionId: 'session-3', workflowName: 'beta', definition: definitionOf('beta') }));
    await claim(fx, 'beta-1', 'token-b1');
    await settle(fx, 'beta-1', 'token-b1', 'COMPLETED');
    await reserve(fx, reserveInput('beta-2', { originSessionId: 'session-4', workflowName: 'beta', definition: definitionOf('beta') }));
    await claim(fx, 'beta-2', 'token-b2');
    await settle(fx, 'beta-2', 'token-b2', 'FAILED', { error: 'boom' });
    await reserve(fx, reserveInput('alpha-3', { originSessionId: 'session-a', workflowName: 'alpha', definition: definitionOf('alpha') }));

    expect(await counts(fx)).toEqual(expected(5, { QUEUED: 3, COMPLETED: 1, FAILED: 1 }, { QUEUED: 2, STARTING: 1, DONE: 1, FAILED: 1 }));
    expect(await counts(fx, { workflowName: 'alpha' })).toEqual(expected(3, { QUEUED: 3 }, { QUEUED: 2, STARTING: 1 }));
    expect(await counts(fx, { status: ['COMPLETED', 'FAILED'] })).toEqual(expected(2, { COMPLETED: 1, FAILED: 1 }, { DONE: 1, FAILED: 1 }));
    expect(await counts(fx, { queueStatus: ['STARTING', 'RUNNING'] })).toEqual(expected(1, { QUEUED: 1 }, { STARTING: 1 }));
    expect(await counts(fx, { search: 'BETA', queueStatus: ['DONE'] })).toEqual(expected(1, { COMPLETED: 1 }, { DONE: 1 }));
    expect(await counts(fx, { rootRunId: 'alpha-2' })).toEqual(expected(1, { QUEUED: 1 }, { STARTING: 1 }));
    expect(await counts(fx, { originSessionId: 'session-a' })).toEqual(expected(1, { QUEUED: 1 }, { QUEUED: 1 }));
    expect(await counts(fx, { workflowName: 'nothing' })).toEqual(expected(0, {}, {}));

    const refused = await fx.gql(COUNTS, { filter: { search: 'x'.repeat(257) } });
    expect(refused.errors?.map((error) => [error.message, error.extensions?.code])).toEqual([['search must be at most 256 characters', 'BAD_USER_INPUT']]);
  });

  it('a pi-workflows state file: the same counts, nothing written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-run-counts-'));
    const path = join(dir, 'state.sqlite');
    const writer = createPiWorkflowsFile(path);
    cleanup.push(() => {
      writer.close();
      rmSync(dir, { recursive: true, force: true });
    });
    writer.transaction(() => {
      writer.reserveRun({ runId: 'alpha-1', originSessionId: 'session-1', at: T0, workflowName: 'alpha', definition: definitionOf('alpha') });
      writer.reserveRun({ runId: 'alpha-2', originSessionId: 'session-2', at: T0 + 1, workflowName: 'alpha', definition: definitionOf('alpha') });
      writer.claim('alpha-2', 'runner-1', 'token-a2', T0 + 60_000, T0 + 2);
      writer.reserveRun({ runId: 'beta-1', originSessionId: 'session-3', at: T0 + 3, workflowName: 'beta', definition: definitionOf('beta') });
      writer.setState('beta-1', { status: 'completed', queueStatus: 'done', finalOutput: { ok: true } }, T0 + 4);
      writer.reserveRun({
        runId: 'beta-2',
        originSessionId: 'session-4',
        at: T0 + 5,
        workflowName: 'beta',
        parentRunId: 'beta-1',
        lineageKind: 'continuation',
      });
    });
    const fx = await startTestServer({ dbPath: path });
    cleanup.push(() => fx.close());
    const tables = snapshotTables(fx.store);
    expect(await counts(fx)).toEqual(expected(4, { QUEUED: 3, COMPLETED: 1 }, { QUEUED: 2, STARTING: 1, DONE: 1 }));
    expect(await counts(fx, { workflowName: 'beta' })).toEqual(expected(2, { QUEUED: 1, COMPLETED: 1 }, { QUEUED: 1, DONE: 1 }));
    expect(await counts(fx, { rootRunId: 'beta-1' })).toEqual(expected(2, { QUEUED: 1, COMPLETED: 1 }, { QUEUED: 1, DONE: 1 }));
    expect(await counts(fx, { lineageKind: 'CONTINUATION' })).toEqual(expected(1, { QUEUED: 1 }, { QUEUED: 1 }));
    expect(await counts(fx, { queueStatus: ['STARTING'], search: 'alpha' })).toEqual(expected(1, { QUEUED: 1 }, { STARTING: 1 }));
    expect(await counts(fx, { status: ['QUEUED'], createdAfter: new Date(T0).toISOString() })).toEqual(expected(2, { QUEUED: 2 }, { QUEUED: 1, STARTING: 1 }));
    expect(snapshotTables(fx.store)).toEqual(tables);
  });

  it('@live: pushed again after a mutation changes the counts', async () => {
    const fx = await startTestServer({ liveThrottleMs: 0 });
    cleanup.push(() => closeAfterSse(fx));
    const client = wsClient(fx.url);
    cleanup.push(() => client.dispose());
    await reserve(fx, reserveInput('live-1', { originSessionId: 'session-1', workflowName: 'alpha', definition: definitionOf('alpha') }));
    const { collector, unsubscribe } = subscribeWs<CountsData>(
      client,
      'query LiveCounts($filter: WorkflowRunFilter) @live { workflowRunCounts(filter: $filter) { total byStatus { status count } byQueueStatus { status count } } }',
      { filter: { workflowName: 'alpha' } },
      'live-counts',
    );
    cleanup.push(unsubscribe);
    const [first] = await collector.take(1);
    expect(first?.data?.workflowRunCounts).toEqual(expected(1, { QUEUED: 1 }, { QUEUED: 1 }).workflowRunCounts);
    await claim(fx, 'live-1', 'token-1');
    await collector.take(2);
    expect(collector.events[1]?.data?.workflowRunCounts).toEqual(expected(1, { QUEUED: 1 }, { STARTING: 1 }).workflowRunCounts);
    await reserve(fx, reserveInput('live-2', { originSessionId: 'session-2', workflowName: 'alpha', definition: definitionOf('alpha') }));
    await collector.take(3);
    expect(collector.events[2]?.data?.workflowRunCounts).toEqual(expected(2, { QUEUED: 2 }, { QUEUED: 1, STARTING: 1 }).workflowRunCounts);
  });
});
