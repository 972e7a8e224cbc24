/**
 * workflowRunChanges over real graphql-ws and SSE clients (docs/PROTOCOL.md
 * "workflowRunChanges"): live only from now; replay after a cursor then live, with no duplicate
 * and no gap; a run never goes backwards; resume across a server restart on the same file;
 * commits of another process; reset for a foreign or ahead-of-head cursor; the exact error of a
 * malformed cursor; the filter, a run leaving it included; a failed mutation gives no event.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MALFORMED_RUN_CHANGE_CURSOR } from '../../src/store/index.js';
import {
  closeAfterSse,
  reserveRun,
  spawnTsChild,
  subscribeSse,
  subscribeWs,
  wsClient,
  type EventCollector,
  type StreamResult,
} from '../helpers/live-fixtures.js';
import { sharedSubscribers, streamsWaiting } from '../helpers/server-signals.js';
import { claim, reserve, reserveInput, settle, startTestServer, type TestServer } from '../helpers/server-fixture.js';

const CHANGES = /* GraphQL */ `
  subscription RunChanges($filter: WorkflowRunFilter, $after: String) {
    workflowRunChanges(filter: $filter, after: $after) {
      __typename
      ... on WorkflowRunChange {
        cursor
        run { id runId status queueStatus presentationRevision }
      }
      ... on WorkflowRunChangesResetRequired { cursor }
    }
  }
`;

interface ChangeEvent {
  __typename: 'WorkflowRunChange' | 'WorkflowRunChangesResetRequired';
  cursor: string;
  run?: { id: string; runId: string; status: string; queueStatus: string; presentationRevision: number };
}
interface ChangesData {
  workflowRunChanges: ChangeEvent;
}

type Transport = 'graphql-ws' | 'SSE';
const TRANSPORTS: Transport[] = ['graphql-ws', 'SSE'];

interface Subscription {
  collector: EventCollector<StreamResult<ChangesData>>;
  close(): void;
}

/** One event as the tests compare it: `<runId> <queueStatus>/<status> r<revision>`, or `reset`. */
function label(result: StreamResult<ChangesData> | undefined): string {
  expect(result?.errors, JSON.stringify(result?.errors)).toBeUndefined();
  const event = result?.data?.workflowRunChanges;
  if (event?.__typename === 'WorkflowRunChangesResetRequired') return 'reset';
  return `${event?.run?.runId} ${event?.run?.queueStatus}/${event?.run?.status} r${event?.run?.presentationRevision}`;
}

const cursorOf = (result: StreamResult<ChangesData> | undefined): string => result?.data?.workflowRunChanges.cursor ?? '';
const positionOf = (cursor: string): number => Number(Buffer.from(cursor, 'base64url').toString('utf8').split(':')[2]);
const headCursor = (fx: TestServer): string => {
  const { databaseId, head } = fx.store.runChangeHead();
  return Buffer.from(`v2:${databaseId}:${head}:${fx.clock.t}`).toString('base64url');
};

describe('workflowRunChanges', () => {
  let fx: TestServer;
  let client: Client;
  let session = 0;
  /** A fresh run id per test (one active run per session: each run gets its own). */
  const runIdFor = (name: string): string => `run-${name}-${(session += 1)}`;

  function open(transport: Transport, variables: Record<string, unknown>, name: string): Subscription {
    if (transport === 'graphql-ws') {
      const { collector, unsubscribe } = subscribeWs<ChangesData>(client, CHANGES, variables, name);
      return { collector, close: unsubscribe };
    }
    const sse = subscribeSse<ChangesData>(fx.url, CHANGES, variables, {}, name);
    return { collector: sse.collector, close: () => sse.close() };
  }

  /**
   * Opens a subscription and waits until the server registered it (its stream exists: a live-only
   * one took the head as its cursor) and delivered the `replayed` events expected first.
   */
  async function subscribed(transport: Transport, variables: Record<string, unknown>, name: string, replayed = 0): Promise<Subscription> {
    const before = fx.server.sharedExecution.subscribers;
    const subscription = open(transport, variables, name);
    await sharedSubscribers(fx.server, before + 1, `${name} is registered`);
    if (replayed > 0) await subscription.collector.take(replayed);
    return subscription;
  }

  /** Closes a subscription and waits until its stream ended on the server. */
  async function closed(subscription: Subscription): Promise<void> {
    const before = fx.server.sharedExecution.subscribers;
    subscription.close();
    await sharedSubscribers(fx.server, before - 1, 'the subscription ended');
  }

  beforeAll(async () => {
    fx = await startTestServer();
    client = wsClient(fx.url);
  });
  afterAll(async () => {
    await client.dispose();
    await closeAfterSse(fx);
  });

  it.each(TRANSPORTS)('%s: after null is live only; a cursor replays what changed since (each run once, latest state), then live', async (transport) => {
    const a = runIdFor('a');
    const b = runIdFor('b');
    await reserveRun(fx, runIdFor('before')); // before the subscription: not delivered
    const live = await subscribed(transport, { after: null }, 'live');
    await reserveRun(fx, a);
    await reserveRun(fx, b);
    const first = await live.collector.take(2);
    expect(first.map(label)).toEqual([`${a} QUEUED/QUEUED r1`, `${b} QUEUED/QUEUED r1`]);
    expect(first[0]?.data?.workflowRunChanges.run?.id).toBe(Buffer.from(`WorkflowRun:${a}`).toString('base64'));

    // Away after the event of a: b claimed and parked, a claimed (their latest changes, in that order).
    await claim(fx, b, `token-${b}`);
    fx.clock.advance(1_000);
    await claim(fx, a, `token-${a}`);
    await live.collector.take(4);
    const replay = await subscribed(transport, { after: cursorOf(first[0]) }, 'replay', 2);
    expect(replay.collector.events.map(label)).toEqual([`${b} STARTING/QUEUED r2`, `${a} STARTING/QUEUED r2`]);
    // Then live, with no gap and no duplicate: both streams get the same next change.
    await settle(fx, a, `token-${a}`, 'COMPLETED');
    await replay.collector.take(3);
    await live.collector.take(5);
    expect(label(replay.collector.events[2])).toBe(`${a} DONE/COMPLETED r4`);
    expect(live.collector.events.map(label)).toEqual([
      `${a} QUEUED/QUEUED r1`,
      `${b} QUEUED/QUEUED r1`,
      `${b} STARTING/QUEUED r2`,
      `${a} STARTING/QUEUED r2`,
      `${a} DONE/COMPLETED r4`,
    ]);
    // Cursors grow with each event; the last one is the head.
    const positions = live.collector.events.map((result) => positionOf(cursorOf(result)));
    expect(positions).toEqual([...positions].sort((x, y) => x - y));
    expect(new Set(positions).size).toBe(positions.length);
    expect(cursorOf(live.collector.events[4])).toBe(headCursor(fx));
    await closed(live);
    await closed(replay);
  });

  it('subscribers at the same cursor share one execution per event (graphql-ws and SSE alike)', async () => {
    const waiters = fx.server.feed.waiterCount;
    const ws = await subscribed('graphql-ws', { after: null }, 'shared-ws');
    const sse = await subscribed('SSE', { after: null }, 'shared-sse');
    // Registered is not yet waiting: both streams must wait on the feed when the commit comes, so
    // one wake-up wakes both and they read the same page (RunChangeReadCache: one wake-up).
    await streamsWaiting(fx.server, { subscribers: fx.server.sharedExecution.subscribers, waiters: waiters + 2 }, 'both streams wait on the feed');
    const { executed, shared } = fx.server.sharedExecution;
    const runId = runIdFor('shared');
    await reserveRun(fx, runId);
    await Promise.all([ws.collector.take(1), sse.collector.take(1)]);
    expect(ws.collector.events).toEqual(sse.collector.events);
    expect(fx.server.sharedExecution.executed - executed).toBe(1);
    expect(fx.server.sharedExecution.shared - shared).toBe(1);
    await closed(ws);
    await closed(sse);
  });

  it.each(TRANSPORTS)('%s: a cursor of another database or ahead of the head: WorkflowRunChangesResetRequired first, then live', async (transport) => {
    const { head } = fx.store.runChangeHead();
    for (const cursor of [
      Buffer.from(`v1:0123456789abcdef0123456789abcdef:${head}`).toString('base64url'),
      Buffer.from(`v1:${fx.store.runChangeHead().databaseId}:${head + 1_000}`).toString('base64url'),
    ]) {
      const expectedCursor = headCursor(fx);
      const subscription = await subscribed(transport, { after: cursor }, 'reset', 1);
      expect(subscription.collector.events[0]?.data).toEqual({
        workflowRunChanges: { __typename: 'WorkflowRunChangesResetRequired', cursor: expectedCursor },
      });
      const runId = runIdFor('after-reset');
      await reserveRun(fx, runId);
      expect((await subscription.collector.take(2)).map(label).slice(1)).toEqual([`${runId} QUEUED/QUEUED r1`]);
      await closed(subscription);
    }
  });

  it.each(TRANSPORTS)('%s: a malformed cursor is one BAD_USER_INPUT error with the exact text, then the stream ends', async (transport) => {
    const subscription = open(transport, { after: 'bm90IGEgY3Vyc29y' }, 'malformed');
    try {
      await subscription.collector.ended();
      expect(subscription.collector.error).toBeUndefined();
      expect(subscription.collector.events).toHaveLength(1);
      expect(subscription.collector.events[0]?.data ?? null).toBeNull();
      expect(subscription.collector.events[0]?.errors).toEqual([
        expect.objectContaining({ message: MALFORMED_RUN_CHANGE_CURSOR, extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }) }),
      ]);
      expect(MALFORMED_RUN_CHANGE_CURSOR).toBe(
        'Malformed run change cursor: pass the cursor of a WorkflowRunChange or WorkflowRunChangesResetRequired event, or null for live only',
      );
    } finally {
      subscription.close();
    }
  });

  it.each(TRANSPORTS)('%s: filter: matching runs only; a run leaving the filter comes once more; a failed mutation gives nothing', async (transport) => {
    const inside = runIdFor('inside');
    const outside = runIdFor('outside');
    await reserveRun(fx, inside);
    await reserveRun(fx, outside);
    const filtered = await subscribed(transport, { filter: { queueStatus: ['STARTING', 'RUNNING'] }, after: null }, 'filtered');
    const all = await subscribed(transport, { after: null }, 'all');
    // A failed mutation (claim lost): no change, no event.
    const head = fx.store.runChangeHead();
    const refused = await fx.data<{ parkWorkflowRun: { __typename: string } }, Record<string, never>>(
      `mutation { parkWorkflowRun(input: { runId: "${inside}", claimToken: "not-the-claim" }) { __typename } }`,
    );
    expect(refused.parkWorkflowRun.__typename).toBe('ClaimLostError');
    expect(fx.store.runChangeHead()).toEqual(head);
    // Each step's event is awaited before the next write: a subscriber that falls behind gets a
    // run once in its latest state, which would hide the leaving step.
    await claim(fx, inside, `token-${inside}`); // joins
    await Promise.all([filtered.collector.take(1), all.collector.take(1)]);
    const other = runIdFor('other');
    await reserve(fx, reserveInput(other, { originSessionId: `session-${other}` })); // queued: not for the filter
    await all.collector.take(2);
    fx.clock.advance(1_000);
    await settle(fx, inside, `token-${inside}`, 'FAILED', { error: 'boom' }); // leaves: comes once more
    await Promise.all([filtered.collector.take(2), all.collector.take(3)]);
    await claim(fx, outside, `token-${outside}`); // joins
    await Promise.all([filtered.collector.take(3), all.collector.take(4)]);
    expect(filtered.collector.events.map(label)).toEqual([`${inside} STARTING/QUEUED r2`, `${inside} FAILED/FAILED r4`, `${outside} STARTING/QUEUED r2`]);
    expect(all.collector.events.map(label)[0]).toBe(`${inside} STARTING/QUEUED r2`);
    await closed(filtered);
    await closed(all);
  });
});

describe('workflowRunChanges across processes and restarts', () => {
  it.each(TRANSPORTS)('%s: runs reserved by another process arrive in commit order; a cursor resumes after a server restart', async (transport) => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-workflows-changes-'));
    const dbPath = join(dir, 'state.db');
    const clients: Client[] = [];
    const open = (server: TestServer, variables: Record<string, unknown>, name: string): Subscription => {
      if (transport === 'graphql-ws') {
        const client = wsClient(server.url);
        clients.push(client);
        const { collector, unsubscribe } = subscribeWs<ChangesData>(client, CHANGES, variables, name);
        return { collector, close: unsubscribe };
      }
      const sse = subscribeSse<ChangesData>(server.url, CHANGES, variables, {}, name);
      return { collector: sse.collector, close: () => sse.close() };
    };
    const reserved = (runId: string): Promise<void> =>
      writer.lines.until((lines) => lines.some((line) => line.reserved === runId), `the child to reserve ${runId}`);
    let fx = await startTestServer({ dbPath });
    const writer = spawnTsChild('test/children/run-reserver.ts', [dbPath, dir], 'run-reserver');
    try {
      await writer.lines.until((lines) => lines.some((line) => line.ready === true), 'the child to open the store');
      const live = open(fx, { after: null }, 'cross-process');
      await sharedSubscribers(fx.server, 1, 'the subscription is registered');
      for (const runId of ['run-x1', 'run-x2', 'run-x3']) writer.send(`reserve ${runId}`);
      const events = await live.collector.take(3);
      expect(events.map(label)).toEqual(['run-x1 QUEUED/QUEUED r1', 'run-x2 QUEUED/QUEUED r1', 'run-x3 QUEUED/QUEUED r1']);
      const cursor = cursorOf(events[2]);
      live.close();
      await sharedSubscribers(fx.server, 0, 'the subscription ended');
      await closeAfterSse(fx);

      // Server down: the other process goes on.
      writer.send('reserve run-x4');
      await reserved('run-x4');
      fx = await startTestServer({ dbPath });
      const resumed = open(fx, { after: cursor }, 'resumed');
      expect((await resumed.collector.take(1)).map(label)).toEqual(['run-x4 QUEUED/QUEUED r1']);
      await sharedSubscribers(fx.server, 1, 'the resumed subscription is registered');
      writer.send('reserve run-x5');
      await reserved('run-x5');
      await reserveRun(fx, 'run-x6');
      expect((await resumed.collector.take(3)).map(label)).toEqual(['run-x4 QUEUED/QUEUED r1', 'run-x5 QUEUED/QUEUED r1', 'run-x6 QUEUED/QUEUED r1']);
      resumed.close();
    } finally {
      writer.send('exit');
      await writer.exited;
      for (const client of clients) await client.dispose();
      await closeAfterSse(fx);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('workflowRunChanges never takes a run backwards', () => {
  it('another process commits 40 revisions of one run back to back: each subscriber sees them in increasing order, ending at the last', async () => {
    const fx = await startTestServer();
    const client = wsClient(fx.url);
    const runId = 'run-burst';
    await reserveRun(fx, runId);
    const writer = spawnTsChild('test/children/writer.ts', [fx.dbPath, fx.dir, runId], 'writer');
    const sse = subscribeSse<ChangesData>(fx.url, CHANGES, { after: null }, {}, 'sse');
    try {
      await writer.lines.until((lines) => lines.some((line) => line.ready === true), 'the writer to open the store');
      const ws = subscribeWs<ChangesData>(client, CHANGES, { after: null }, 'ws').collector;
      await sharedSubscribers(fx.server, 2, 'both subscriptions are registered');
      writer.send('burst 40 1');
      await writer.lines.until((lines) => lines.some((line) => line.done === 40), 'the burst');
      const last = fx.store.viewerHead(runId)?.currentRevision ?? 0;
      expect(last).toBe(41);
      for (const collector of [ws, sse.collector]) {
        await collector.until((events) => events.some((result) => result.data?.workflowRunChanges.run?.presentationRevision === last), `revision ${last}`);
        const revisions = collector.events.map((result) => result.data?.workflowRunChanges.run?.presentationRevision ?? 0);
        expect(revisions.every((revision, index) => index === 0 || revision > (revisions[index - 1] as number))).toBe(true);
        expect(revisions.at(-1)).toBe(last);
      }
    } finally {
      sse.close();
      writer.send('exit');
      await writer.exited;
      await client.dispose();
      await closeAfterSse(fx);
    }
  });
});
