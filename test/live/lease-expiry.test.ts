/**
 * A lease that expires without a renewal is a change (docs/PROTOCOL.md "Lease expiry"), over
 * real graphql-ws and SSE clients, with the server's clock moved by hand: the run-list change
 * feed and `workflowRunUpdated` deliver the run once, no longer claimed, when the clock passes
 * the expiry (no commit needed); a renewal before it delivers nothing at the old expiry; a cursor
 * taken before the expiry re-derives it on resume, one taken after does not repeat it; a
 * `@live` query updates; a pi-workflows file gets nothing written; a second server on the same
 * file delivers by its own clock.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from 'graphql-ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RenewWorkflowRunClaimDocument } from '../../schema/generated/graphql.js';
import { closeAfterSse, reserveRun, subscribeSse, subscribeWs, wsClient, type EventCollector, type StreamResult } from '../helpers/live-fixtures.js';
import { createPiWorkflowsFile } from '../../fixtures/pi-workflows-file.js';
import { sharedSubscribers } from '../helpers/server-signals.js';
import { claim, snapshotTables, startTestServer, T0, type TestServer } from '../helpers/server-fixture.js';

const CHANGES = /* GraphQL */ `
  subscription RunChanges($filter: WorkflowRunFilter, $after: String) {
    workflowRunChanges(filter: $filter, after: $after) {
      __typename
      ... on WorkflowRunChange {
        cursor
        run { runId queueStatus claim { ownerId expiresAt } expiredClaim { ownerId leaseGeneration expiresAt } }
      }
      ... on WorkflowRunChangesResetRequired { cursor }
    }
  }
`;

const UPDATED = /* GraphQL */ `
  subscription RunUpdated($runId: String!) {
    workflowRunUpdated(runId: $runId) { runId queueStatus claim { expiresAt } expiredClaim { expiresAt } }
  }
`;

interface RunShape {
  runId: string;
  queueStatus: string;
  claim: { expiresAt: string } | null;
  expiredClaim: { expiresAt: string } | null;
}
interface ChangesData {
  workflowRunChanges: { __typename: string; cursor: string; run?: RunShape };
}
interface UpdatedData {
  workflowRunUpdated: RunShape;
}

type Transport = 'graphql-ws' | 'SSE';
const TRANSPORTS: Transport[] = ['graphql-ws', 'SSE'];

/** `<runId> <queueStatus> claimed until <ISO>` / `… expired at <ISO>` / `… unclaimed`. */
function describeRun(run: RunShape | undefined): string {
  if (run === undefined) return 'reset';
  if (run.claim !== null) return `${run.runId} ${run.queueStatus} claimed until ${run.claim.expiresAt}`;
  if (run.expiredClaim !== null) return `${run.runId} ${run.queueStatus} expired at ${run.expiredClaim.expiresAt}`;
  return `${run.runId} ${run.queueStatus} unclaimed`;
}
const changeLabels = (collector: EventCollector<StreamResult<ChangesData>>): string[] =>
  collector.events.map((event) => describeRun(event.data?.workflowRunChanges.run));
const updateLabels = (collector: EventCollector<StreamResult<UpdatedData>>): string[] =>
  collector.events.map((event) => describeRun(event.data?.workflowRunUpdated));
const iso = (ms: number): string => new Date(ms).toISOString();

interface Subscription<TData> {
  collector: EventCollector<StreamResult<TData>>;
  close(): void;
}

describe('lease expiry is a change', () => {
  let fx: TestServer;
  let client: Client;
  let count = 0;
  const runIdFor = (name: string): string => `run-${name}-${(count += 1)}`;

  function open<TData>(
    server: TestServer,
    wsOf: Client,
    transport: Transport,
    query: string,
    variables: Record<string, unknown>,
    name: string,
  ): Subscription<TData> {
    if (transport === 'graphql-ws') {
      const { collector, unsubscribe } = subscribeWs<TData>(wsOf, query, variables, name);
      return { collector, close: unsubscribe };
    }
    const sse = subscribeSse<TData>(server.url, query, variables, {}, name);
    return { collector: sse.collector, close: () => sse.close() };
  }

  /** Opens a subscription on `server` and waits until the server registered it. */
  async function subscribed<TData>(
    transport: Transport,
    query: string,
    variables: Record<string, unknown>,
    name: string,
    server = fx,
    wsOf = client,
  ): Promise<Subscription<TData>> {
    const before = server.server.sharedExecution.subscribers;
    const subscription = open<TData>(server, wsOf, transport, query, variables, name);
    await sharedSubscribers(server.server, before + 1, `${name} is registered`);
    return subscription;
  }

  async function closed(subscription: Subscription<unknown>, server = fx): Promise<void> {
    const before = server.server.sharedExecution.subscribers;
    subscription.close();
    await sharedSubscribers(server.server, before - 1, 'the subscription ended');
  }

  /** Moves the server's clock by `ms` and tells its feed (the test's clock moves by hand). */
  function advance(server: TestServer, ms: number): void {
    server.clock.advance(ms);
    server.server.feed.checkLeaseExpiries();
  }

  beforeAll(async () => {
    fx = await startTestServer();
    client = wsClient(fx.url);
  });

  afterAll(async () => {
    await client.dispose();
    await closeAfterSse(fx);
  });

  it.each(TRANSPORTS)('%s: at the expiry, one delivery each on workflowRunChanges and workflowRunUpdated, no commit needed', async (transport) => {
    const runId = runIdFor('expiry');
    await reserveRun(fx, runId);
    const changes = await subscribed<ChangesData>(transport, CHANGES, { filter: { queueStatus: ['STARTING', 'RUNNING'] } }, 'changes');
    const updates = await subscribed<UpdatedData>(transport, UPDATED, { runId }, 'updates');
    const claimedAt = fx.clock.t;
    await claim(fx, runId, 'token-1', { leaseMs: 1_000 });
    await changes.collector.take(1);
    await updates.collector.take(1);
    advance(fx, 999);
    advance(fx, 1);
    await changes.collector.take(2);
    await updates.collector.take(2);
    // Another run's claim: the next event of the list, so nothing else came in between.
    const other = runIdFor('other');
    await reserveRun(fx, other);
    await claim(fx, other, 'token-2', { leaseMs: 60_000 });
    await changes.collector.take(3);
    expect(changeLabels(changes.collector)).toEqual([
      `${runId} STARTING claimed until ${iso(claimedAt + 1_000)}`,
      `${runId} STARTING expired at ${iso(claimedAt + 1_000)}`,
      `${other} STARTING claimed until ${iso(fx.clock.t + 60_000)}`,
    ]);
    expect(updateLabels(updates.collector)).toEqual([
      `${runId} STARTING claimed until ${iso(claimedAt + 1_000)}`,
      `${runId} STARTING expired at ${iso(claimedAt + 1_000)}`,
    ]);
    await closed(changes);
    await closed(updates);
  });

  it.each(TRANSPORTS)('%s: a renewal before the expiry: nothing at the old expiry, one delivery at the new one', async (transport) => {
    const runId = runIdFor('renewed');
    await reserveRun(fx, runId);
    const changes = await subscribed<ChangesData>(transport, CHANGES, { filter: { rootRunId: runId } }, 'changes');
    const updates = await subscribed<UpdatedData>(transport, UPDATED, { runId }, 'updates');
    const claimedAt = fx.clock.t;
    await claim(fx, runId, 'token-1', { leaseMs: 1_000 });
    advance(fx, 500);
    const { renewWorkflowRunClaim } = await fx.data(RenewWorkflowRunClaimDocument, { input: { runId, claimToken: 'token-1', leaseMs: 1_000 } });
    expect(renewWorkflowRunClaim.__typename).toBe('RenewWorkflowRunClaimSuccess');
    await changes.collector.take(2);
    await updates.collector.take(2);
    advance(fx, 500); // the first lease's expiry: still live
    advance(fx, 499);
    advance(fx, 1); // the renewed lease's expiry
    await changes.collector.take(3);
    await updates.collector.take(3);
    const renewedUntil = iso(claimedAt + 1_500);
    const labels = [
      `${runId} STARTING claimed until ${iso(claimedAt + 1_000)}`,
      `${runId} STARTING claimed until ${renewedUntil}`,
      `${runId} STARTING expired at ${renewedUntil}`,
    ];
    expect(changeLabels(changes.collector)).toEqual(labels);
    expect(updateLabels(updates.collector)).toEqual(labels);
    await closed(changes);
    await closed(updates);
  });

  it.each(TRANSPORTS)('%s: resume from a cursor: an expiry while away comes once; a cursor taken after it does not repeat it', async (transport) => {
    const runId = runIdFor('resume');
    await reserveRun(fx, runId);
    const filter = { rootRunId: runId };
    const first = await subscribed<ChangesData>(transport, CHANGES, { filter }, 'first');
    const claimedAt = fx.clock.t;
    await claim(fx, runId, 'token-1', { leaseMs: 1_000 });
    const [claimed] = await first.collector.take(1);
    await closed(first);
    advance(fx, 2_000); // expires while nobody follows
    const cursor = claimed?.data?.workflowRunChanges.cursor;
    const resumed = await subscribed<ChangesData>(transport, CHANGES, { filter, after: cursor }, 'resumed');
    const [expired] = await resumed.collector.take(1);
    expect(describeRun(expired?.data?.workflowRunChanges.run)).toBe(`${runId} STARTING expired at ${iso(claimedAt + 1_000)}`);
    await closed(resumed);
    // From the expiry's own cursor, and from a cursor minted after it: nothing replayed.
    const listCursor = async (): Promise<string> =>
      (await fx.data<{ workflowRuns: { changeCursor: string } }, Record<string, never>>('query { workflowRuns(first: 1) { changeCursor } }')).workflowRuns
        .changeCursor;
    for (const cursorOf of [async () => expired?.data?.workflowRunChanges.cursor, listCursor]) {
      const after = await cursorOf();
      const again = await subscribed<ChangesData>(transport, CHANGES, { filter, after }, 'again');
      // A new claim (the lease expired): the next event, so nothing was replayed before it.
      const reclaimedAt = fx.clock.t;
      await claim(fx, runId, `token-${reclaimedAt}`, { leaseMs: 1_000 });
      await again.collector.take(1);
      expect(changeLabels(again.collector)).toEqual([`${runId} STARTING claimed until ${iso(reclaimedAt + 1_000)}`]);
      await closed(again);
      advance(fx, 1_000);
    }
  });

  it('a @live query is pushed again at the expiry', async () => {
    const runId = runIdFor('live');
    await reserveRun(fx, runId);
    const claimedAt = fx.clock.t;
    await claim(fx, runId, 'token-1', { leaseMs: 1_000 });
    const before = fx.server.liveQueries.active;
    const { collector, unsubscribe } = subscribeWs<{ workflowRun: RunShape }>(
      client,
      'query Run($runId: String!) @live { workflowRun(runId: $runId) { runId queueStatus claim { expiresAt } expiredClaim { expiresAt } } }',
      { runId },
      'live',
    );
    await collector.take(1);
    expect(fx.server.liveQueries.active).toBe(before + 1);
    advance(fx, 1_000);
    await collector.take(2);
    expect(collector.events.map((event) => describeRun(event.data?.workflowRun))).toEqual([
      `${runId} STARTING claimed until ${iso(claimedAt + 1_000)}`,
      `${runId} STARTING expired at ${iso(claimedAt + 1_000)}`,
    ]);
    unsubscribe();
  });
});

describe('lease expiry on a pi-workflows file and in a second server', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it('a pi-workflows file: the expiry is delivered, nothing is written to the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-lease-expiry-'));
    const path = join(dir, 'state.sqlite');
    const writer = createPiWorkflowsFile(path);
    cleanup.push(() => {
      writer.close();
      rmSync(dir, { recursive: true, force: true });
    });
    writer.transaction(() => writer.reserveRun({ runId: 'run-1', originSessionId: 'session-1', at: T0 }));
    const fx = await startTestServer({ dbPath: path });
    cleanup.push(() => closeAfterSse(fx));
    const client = wsClient(fx.url);
    cleanup.push(() => client.dispose());
    const before = fx.server.sharedExecution.subscribers;
    const changes = subscribeWs<ChangesData>(client, CHANGES, {}, 'changes');
    const updates = subscribeWs<UpdatedData>(client, UPDATED, { runId: 'run-1' }, 'updates');
    await sharedSubscribers(fx.server, before + 2, 'both registered');
    // pi-workflows' own host claims the run: a commit of another connection.
    writer.transaction(() => writer.claim('run-1', 'runner-1', 'token-1', fx.clock.t + 1_000, fx.clock.t));
    await changes.collector.take(1);
    await updates.collector.take(1);
    const tables = snapshotTables(fx.store);
    fx.clock.advance(1_000);
    fx.server.feed.checkLeaseExpiries();
    await changes.collector.take(2);
    await updates.collector.take(2);
    const expiredAt = iso(fx.clock.t);
    expect(changeLabels(changes.collector)).toEqual([`run-1 STARTING claimed until ${expiredAt}`, `run-1 STARTING expired at ${expiredAt}`]);
    expect(updateLabels(updates.collector)).toEqual([`run-1 STARTING claimed until ${expiredAt}`, `run-1 STARTING expired at ${expiredAt}`]);
    expect(snapshotTables(fx.store)).toEqual(tables);
    changes.unsubscribe();
    updates.unsubscribe();
  });

  it('a second server on the same file delivers the expiry by its own clock', async () => {
    const first = await startTestServer();
    cleanup.push(() => closeAfterSse(first));
    const second = await startTestServer({ dbPath: first.dbPath });
    cleanup.push(() => closeAfterSse(second));
    const firstClient = wsClient(first.url);
    const secondClient = wsClient(second.url);
    cleanup.push(() => firstClient.dispose());
    cleanup.push(() => secondClient.dispose());
    await reserveRun(first, 'run-x');
    const beforeFirst = first.server.sharedExecution.subscribers;
    const beforeSecond = second.server.sharedExecution.subscribers;
    const onFirst = subscribeWs<ChangesData>(firstClient, CHANGES, {}, 'first');
    const onSecond = subscribeWs<ChangesData>(secondClient, CHANGES, {}, 'second');
    await sharedSubscribers(first.server, beforeFirst + 1, 'first registered');
    await sharedSubscribers(second.server, beforeSecond + 1, 'second registered');
    await claim(first, 'run-x', 'token-1', { leaseMs: 1_000 });
    await onFirst.collector.take(1);
    await onSecond.collector.take(1);
    // Only the second server's clock passes the expiry.
    second.clock.advance(1_000);
    second.server.feed.checkLeaseExpiries();
    await onSecond.collector.take(2);
    await reserveRun(first, 'run-y');
    await onFirst.collector.take(2);
    await onSecond.collector.take(3);
    const until = iso(T0 + 1_000);
    expect(changeLabels(onFirst.collector)).toEqual([`run-x STARTING claimed until ${until}`, 'run-y QUEUED unclaimed']);
    expect(changeLabels(onSecond.collector)).toEqual([`run-x STARTING claimed until ${until}`, `run-x STARTING expired at ${until}`, 'run-y QUEUED unclaimed']);
    onFirst.unsubscribe();
    onSecond.unsubscribe();
  });
});
