/**
 * Closing the server with live subscriptions of every kind (deltas, run updated, lineage) over
 * graphql-ws and SSE: close() resolves, the clients see their streams end, and the process
 * exits by itself. Runs the server in a child process so a hang (e.g. a subscription loop
 * spinning on a closed feed) fails the test instead of freezing the test runner.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from 'graphql-ws';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DELTAS_SUBSCRIPTION,
  openRawWs,
  spawnTsChild,
  subscribeSse,
  subscribeWs,
  WAIT_MS,
  wsClient,
  type ChildProcessHandle,
  type DeltasData,
} from '../helpers/live-fixtures.js';
import { reserveInput } from '../helpers/server-fixture.js';

const SERVER = 'test/children/shutdown-server.ts';

describe('server shutdown with live subscriptions', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pi-workflows-shutdown-'));
  let server: ChildProcessHandle | undefined;
  let client: Client | undefined;
  afterAll(async () => {
    server?.kill();
    await client?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('close() ends every stream and the process exits on its own', async () => {
    server = spawnTsChild(SERVER, [join(dir, 'state.db'), dir], 'server');
    const child = server;
    await child.lines.take(1);
    const url = String(child.lines.events[0]?.url);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/graphql$/);
    const reserve = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'mutation R($input: ReserveWorkflowRunInput!) { reserveWorkflowRun(input: $input) { __typename } }',
        variables: { input: reserveInput('run-shutdown') },
      }),
    });
    expect(await reserve.json()).toEqual({ data: { reserveWorkflowRun: { __typename: 'ReserveWorkflowRunSuccess' } } });

    client = wsClient(url);
    const streams = [
      subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId: 'run-shutdown', afterRevision: null }, 'deltas').collector,
      subscribeWs(client, 'subscription { workflowRunUpdated(runId: "run-shutdown") { runId } }', {}, 'updated').collector,
      subscribeWs(client, 'subscription { workflowRunLineageUpdated(rootRunId: "run-shutdown") { runId } }', {}, 'lineage').collector,
    ];
    const sse = subscribeSse(url, 'subscription { workflowRunLineageUpdated(rootRunId: "run-shutdown") { runId } }', {}, {}, 'sse lineage');
    expect((await sse.response).status).toBe(200);

    // Bounded poll of the child's feed: all four subscriptions wait.
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const seen = child.lines.events.length;
      child.send('waiters');
      await child.lines.take(seen + 1);
      if (child.lines.events[seen]?.waiters === 4) break;
      expect(Date.now()).toBeLessThan(deadline);
    }

    child.send('close');
    await child.lines.until((lines) => lines.some((line) => line.closed === true), 'close() to resolve', 10_000);
    const exit = await Promise.race([child.exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 10_000))]);
    expect(exit, child.stderr()).toBe(0);
    for (const stream of [...streams, sse.collector]) await stream.ended();
    expect(streams.every((stream) => stream.events.length === 0)).toBe(true);
  });

  it('a graphql-ws peer that never answers the close is cut after the grace period: close() still resolves', async () => {
    const frozen = spawnTsChild(SERVER, [join(dir, 'frozen.db'), dir], 'server');
    try {
      await frozen.lines.take(1);
      const url = String(frozen.lines.events[0]?.url);
      const raw = await openRawWs(url, 'frozen peer');
      await raw.initAndAck();
      raw.ws.pause(); // reads nothing more: the server's close frame stays unanswered
      frozen.send('close');
      // ws would wait 30 s for the close handshake; the server cuts the socket after 2 s.
      await frozen.lines.until((lines) => lines.some((line) => line.closed === true), 'close() to resolve', 20_000);
      expect(await frozen.exited, frozen.stderr()).toBe(0);
      raw.ws.resume();
      await raw.closed;
    } finally {
      frozen.kill();
    }
  });
});
