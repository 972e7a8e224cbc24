/**
 * The typed client (`src/client/`, `pi-workflows-graphql/client`; docs/IDE.md "The typed
 * client") against real servers that are stopped and started again mid-stream on the same port
 * and database file: its run watch and run-list watch see every revision and every change once,
 * in order, across the restart, including what was committed with the store while the server was
 * down and while connections were refused; the chain watch (the server's chain follow) moves to
 * restarts, also one made while the server was down, with nothing repeated; typed query and
 * mutation results; a bad token is a clear error. No sleeps: every wait is on an event.
 */
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  createWorkflowClient,
  ReserveWorkflowRunDocument,
  RestartWorkflowRunDocument,
  WorkflowClientError,
  WorkflowRunDocument,
  WorkflowRunViewDocument,
  WorkflowRunsDocument,
  type ChainEvent,
  type ConnectionStatus,
  type RunDeltaEvent,
  type RunListEvent,
  type RunViewEvent,
  type Run,
  type WorkflowClient,
  type WorkflowClientOptions,
} from '../../src/client/index.js';
import { WorkflowStore } from '../../src/store/index.js';
import { buildReferenceFile, loadReferenceViews } from '../../fixtures/pi-workflows-reference-file.js';
import { createPiWorkflowsFile } from '../../fixtures/pi-workflows-file.js';
import { EngineRowWriter } from '../../src/store/engine-rows/index.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commitMarker, range, reserveRun } from '../helpers/live-fixtures.js';
import { feedWaiters, Signal } from '../helpers/server-signals.js';
import { claim, failedRoot, reserveInput, startTestServer, type TestServer } from '../helpers/server-fixture.js';
import { reserve as storeReserve } from '../helpers/store-fixtures.js';

/** Every event a callback received, and a signal to await conditions on them. */
class Seen<T> {
  readonly events: T[] = [];
  readonly signal = new Signal();
  readonly push = (event: T): void => {
    this.events.push(event);
    this.signal.notify();
  };
  until(condition: (events: readonly T[]) => boolean, what: string): Promise<void> {
    return this.signal.until(() => condition(this.events), what);
  }
}

const revisionOf = (event: RunDeltaEvent): number => (event.__typename === 'ViewerDeltaBatch' ? event.presentationRevision : -event.currentRevision);
const runIdsOf = (events: readonly RunListEvent[]): string[] => events.map((event) => (event.__typename === 'WorkflowRunChange' ? event.run.runId : `reset`));

/** A short status line: `connecting`, `connected`, `reconnected`, `reconnecting 2 refused`, `closed`. */
function statusLine(status: ConnectionStatus): string {
  if (status.state === 'connected') return status.reconnected ? 'reconnected' : 'connected';
  if (status.state === 'reconnecting') return `reconnecting ${status.attempt} ${status.reason.refused ? 'refused' : String(status.reason.code)}`;
  return status.state;
}

describe('the typed client', () => {
  const servers: TestServer[] = [];
  const clients: WorkflowClient[] = [];
  const stores: WorkflowStore[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
    for (const store of stores.splice(0)) store.close();
    for (const server of servers.splice(0).reverse()) await server.close();
  });

  function client(fx: TestServer, options: Partial<WorkflowClientOptions> = {}): { client: WorkflowClient; statuses: Seen<ConnectionStatus> } {
    const statuses = new Seen<ConnectionStatus>();
    // Short waits keep the test fast; the policy is the default's (doubling, capped).
    const made = createWorkflowClient({
      url: fx.url,
      webSocketImpl: WebSocket,
      retry: { initialDelayMs: 20, maxDelayMs: 100 },
      onStatus: statuses.push,
      ...options,
    });
    clients.push(made);
    return { client: made, statuses };
  }

  it('run watch and run-list watch: every revision and change once, in order, across a server restart with commits while it was down', async () => {
    const first = await startTestServer();
    servers.push(first);
    await reserveRun(first, 'run-1');
    const { client: typed, statuses } = client(first);
    const deltas = new Seen<RunDeltaEvent>();
    const changes = new Seen<RunListEvent>();
    const runWatch = typed.watchRun('run-1', { onEvent: deltas.push });
    const listWatch = typed.watchRunList({ filter: { workflowName: 'demo' }, onEvent: changes.push });
    await statuses.until((seen) => seen.some((status) => status.state === 'connected'), 'the client connected');
    await first.data(ReserveWorkflowRunDocument, { input: reserveInput('run-2', { originSessionId: 'session-2' }) });
    for (let k = 1; k <= 3; k += 1) commitMarker(first.store, 'run-1', k); // revisions 2..4
    await deltas.until((events) => events.length === 3, 'revisions 2..4');
    await changes.until((events) => runIdsOf(events).at(-1) === 'run-1' && events.length >= 2, 'run-2 and run-1 changed');
    const changesBefore = changes.events.length;

    // The server stops: 1001, then refused connections until it is back.
    await first.server.close();
    await statuses.until((seen) => seen.some((status) => status.state === 'reconnecting' && status.reason.refused), 'a refused reconnect');
    const offline = WorkflowStore.open({ path: first.dbPath, projectPath: first.dir });
    for (let k = 4; k <= 6; k += 1) commitMarker(offline, 'run-1', k); // revisions 5..7, nobody serving
    storeReserve(offline, 'run-3');
    storeReserve(offline, 'run-4');
    offline.close();
    const refusedBeforeRestart = statuses.events.filter((status) => status.state === 'reconnecting' && status.reason.refused).length;

    const second = await startTestServer({ dbPath: first.dbPath, port: first.port });
    servers.push(second);
    await deltas.until((events) => events.length === 6, 'revisions 5..7 after the restart');
    for (let k = 7; k <= 8; k += 1) commitMarker(second.store, 'run-1', k); // revisions 8..9, live
    await deltas.until((events) => events.length === 8, 'revisions 8..9');
    await changes.until((events) => runIdsOf(events.slice(changesBefore)).join() === 'run-1,run-3,run-4,run-1', 'the changes while down, then live');

    expect(deltas.events.map(revisionOf)).toEqual(range(2, 9));
    expect(runWatch.revision).toBe(9);
    expect(runWatch.stats).toEqual({ delivered: 8, duplicates: 0, subscriptions: 2 });
    // While down: run-1 changed three times and comes once (its latest state), then run-3, run-4.
    const afterRestart = changes.events.slice(changesBefore);
    expect(afterRestart[0]?.__typename === 'WorkflowRunChange' && afterRestart[0].run.presentationRevision).toBe(7);
    const cursors = changes.events.map((event) => event.cursor);
    expect(new Set(cursors).size).toBe(cursors.length);
    expect(listWatch.cursor).toBe(cursors.at(-1));
    expect(listWatch.stats).toEqual({ delivered: changes.events.length, duplicates: 0, subscriptions: 2 });

    const lines = statuses.events.map(statusLine);
    expect(lines.slice(0, 3)).toEqual(['connecting', 'connected', 'reconnecting 1 1001']);
    expect(refusedBeforeRestart).toBeGreaterThanOrEqual(1);
    expect(lines.slice(3, -1).every((line) => /^reconnecting \d+ refused$/.test(line))).toBe(true);
    expect(lines.at(-1)).toBe('reconnected');
    const waits = statuses.events.flatMap((status) => (status.state === 'reconnecting' ? [status.delayMs] : []));
    expect(waits.slice(0, 4)).toEqual([20, 40, 80, 100].slice(0, Math.min(4, waits.length)));
    expect(Math.max(...waits)).toBeLessThanOrEqual(100);
  });

  it("run-updates watch: the run's record after each change; a change made while the server was down comes once after the restart", async () => {
    const first = await startTestServer();
    servers.push(first);
    await reserveRun(first, 'run-u');
    const { client: typed, statuses } = client(first);
    const updates = new Seen<Run>();
    const watch = typed.watchRunUpdates('run-u', { onEvent: updates.push });
    await feedWaiters(first.server, 1, 'the run-updates subscription waits');
    await claim(first, 'run-u', 'token-u');
    await updates.until((events) => events.length === 1, 'the claim');

    await first.server.close();
    await statuses.until((seen) => seen.some((status) => status.state === 'reconnecting' && status.reason.refused), 'a refused reconnect');
    // The test server's clock: the claim's lease is still live at its time.
    const offline = WorkflowStore.open({ path: first.dbPath, projectPath: first.dir, clock: first.clock.now });
    offline.settleWorkflowRun({ runId: 'run-u', claimToken: 'token-u', status: 'completed' });
    offline.close();
    servers.push(await startTestServer({ dbPath: first.dbPath, port: first.port }));
    await updates.until((events) => events.length === 2, 'the settlement, read again after the reconnect');
    await statuses.until((seen) => seen.at(-1)?.state === 'connected', 'reconnected');

    expect(updates.events.map((run) => [run.status, run.queueStatus, run.claim === null])).toEqual([
      ['QUEUED', 'STARTING', false],
      ['COMPLETED', 'DONE', true],
    ]);
    expect(watch.last?.status).toBe('COMPLETED');
    expect(watch.stats).toMatchObject({ delivered: 2, subscriptions: 2 });
  });

  it('for await: a watch is an async iterator; break closes it and the socket when it was the last', async () => {
    const fx = await startTestServer();
    servers.push(fx);
    await reserveRun(fx, 'run-it');
    const { client: typed, statuses } = client(fx);
    const watch = typed.watchRun('run-it', { afterRevision: 1 });
    for (let k = 1; k <= 3; k += 1) commitMarker(fx.store, 'run-it', k);
    const seen: number[] = [];
    for await (const event of watch) {
      seen.push(revisionOf(event));
      if (seen.length === 3) break;
    }
    expect(seen).toEqual([2, 3, 4]);
    expect(await watch.finished).toEqual({ reason: 'closed' });
    await statuses.until((events) => events.at(-1)?.state === 'closed', 'the socket closed with the last watch');
  });

  it('typed query and mutation results; a typed error is a result, a GraphQL error a WorkflowClientError', async () => {
    const fx = await startTestServer();
    servers.push(fx);
    const { client: typed } = client(fx);
    const reserved = await typed.mutate(ReserveWorkflowRunDocument, { input: reserveInput('typed-1') });
    expect(reserved.reserveWorkflowRun.__typename).toBe('ReserveWorkflowRunSuccess');
    if (reserved.reserveWorkflowRun.__typename !== 'ReserveWorkflowRunSuccess') throw new Error('unreachable');
    expect(reserved.reserveWorkflowRun.run.runId).toBe('typed-1');
    expect(reserved.reserveWorkflowRun.adopted).toBe(false);

    const { workflowRun } = await typed.query(WorkflowRunDocument, { runId: 'typed-1' });
    expect(workflowRun).toMatchObject({ runId: 'typed-1', workflowName: 'demo', status: 'QUEUED', queueStatus: 'QUEUED', rootRunId: 'typed-1' });
    const { workflowRuns } = await typed.query(WorkflowRunsDocument, { first: 5 });
    expect(workflowRuns.edges.map((edge) => edge.node.runId)).toEqual(['typed-1']);

    const restartUnknown = await typed.mutate(RestartWorkflowRunDocument, { input: { runId: 'nope', originSessionId: 'session-1' } });
    expect(restartUnknown.restartWorkflowRun).toMatchObject({ __typename: 'NotFoundError', code: 'NOT_FOUND', message: 'Workflow run not found: nope' });

    const error = await typed.query(WorkflowRunDocument, { runId: 42 as unknown as string }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WorkflowClientError);
    expect((error as WorkflowClientError).kind).toBe('graphql');
    expect((error as WorkflowClientError).message).toBe('Variable "$runId" got invalid value; String cannot represent a non string value.');
  });

  it('a runtime without a WebSocket (Node 20, no webSocketImpl): queries and mutations work, a watch says what to pass', async () => {
    const fx = await startTestServer();
    servers.push(fx);
    const missing = "no WebSocket implementation: this runtime has no global WebSocket (Node 20); pass webSocketImpl (import WebSocket from 'ws')";
    const global = globalThis as { WebSocket?: unknown };
    const saved = Object.getOwnPropertyDescriptor(global, 'WebSocket');
    // Node 24 has a global WebSocket: take it away for this test, as Node 20 has none.
    Reflect.deleteProperty(global, 'WebSocket');
    try {
      const plain = createWorkflowClient({ url: fx.url });
      clients.push(plain);
      const reserved = await plain.mutate(ReserveWorkflowRunDocument, { input: reserveInput('no-socket-1') });
      expect(reserved.reserveWorkflowRun.__typename).toBe('ReserveWorkflowRunSuccess');
      const { workflowRun } = await plain.query(WorkflowRunDocument, { runId: 'no-socket-1' });
      expect(workflowRun?.runId).toBe('no-socket-1');
      expect(await plain.watchRun('no-socket-1').finished).toMatchObject({ reason: 'failed', error: { kind: 'closed', message: missing } });
      expect(await plain.watchRunList().finished).toMatchObject({ reason: 'failed', error: { kind: 'closed', message: missing } });
      expect(() => createWorkflowClient({ url: fx.url, lazy: false })).toThrow(new WorkflowClientError('closed', missing));
    } finally {
      if (saved !== undefined) Object.defineProperty(global, 'WebSocket', saved);
    }
  });

  it('a bad token: HTTP says 401 and what to do, a watch ends with 4403 Forbidden, no retry', async () => {
    const fx = await startTestServer({ token: 'right-token' });
    servers.push(fx);
    await reserveRun(fx, 'run-sec');
    const { client: wrong, statuses } = client(fx, { token: 'wrong-token' });
    const error = await wrong.query(WorkflowRunDocument, { runId: 'run-sec' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WorkflowClientError);
    expect((error as WorkflowClientError).kind).toBe('unauthorized');
    expect((error as WorkflowClientError).message).toBe(
      `the server at ${fx.url} refused the request (401: Unauthorized: the token sent is not accepted: send Authorization: Bearer <token> with the server's --token, a --read-token or a --metadata-token): the token is not one the server accepts`,
    );
    const { client: none } = client(fx);
    const missing = await none.query(WorkflowRunDocument, { runId: 'run-sec' }).catch((caught: unknown) => caught);
    expect((missing as WorkflowClientError).message).toBe(
      `the server at ${fx.url} refused the request (401: Unauthorized: send Authorization: Bearer <token>): it needs a token: pass \`token\``,
    );

    const end = await wrong.watchRun('run-sec', { afterRevision: 1 }).finished;
    expect(end.reason).toBe('failed');
    const failure = (end as { error: WorkflowClientError }).error;
    expect(failure.kind).toBe('unauthorized');
    expect(failure.message).toBe(`the server at ${wrong.wsUrl} refused the WebSocket (4403 Forbidden): the token is not one the server accepts`);
    expect(statuses.events.filter((status) => status.state === 'reconnecting')).toEqual([]);

    const { client: right } = client(fx, { token: 'right-token' });
    expect((await right.query(WorkflowRunDocument, { runId: 'run-sec' })).workflowRun?.runId).toBe('run-sec');
  });

  it('an unknown run: the run watch fails with the server-side message', async () => {
    const fx = await startTestServer();
    servers.push(fx);
    const { client: typed } = client(fx);
    const end = await typed.watchRun('no-such-run').finished;
    expect(end).toMatchObject({ reason: 'failed', error: { kind: 'graphql', message: 'Workflow run not found: no-such-run' } });
    const live = await typed.watchRun('no-such-run', { afterRevision: 0 }).finished;
    expect(live).toMatchObject({ reason: 'failed', error: { kind: 'graphql', message: 'Workflow run not found: no-such-run' } });
  });

  it("chain watch (workflowRunChainDeltas): follows the chain's latest run into its restart, also one reserved while the server was down", async () => {
    const first = await startTestServer();
    servers.push(first);
    await failedRoot(first, 'chain-1', 'boom');
    const { client: typed, statuses } = client(first);
    const chain = new Seen<ChainEvent>();
    const watch = typed.watchChain('chain-1', { onEvent: chain.push });
    await chain.until((events) => events.length === 1, 'the chain watch started');
    expect(chain.events[0]).toMatchObject({ type: 'run', run: { runId: 'chain-1', status: 'FAILED' }, previousRunId: null });
    await statuses.until((seen) => seen.some((status) => status.state === 'connected'), 'the client connected');

    const restarted = await typed.mutate(RestartWorkflowRunDocument, { input: { runId: 'chain-1', originSessionId: 'session-1' } });
    if (restarted.restartWorkflowRun.__typename !== 'RestartWorkflowRunSuccess') throw new Error(JSON.stringify(restarted));
    const restartId = restarted.restartWorkflowRun.run.runId;
    await chain.until((events) => events.some((event) => event.type === 'run' && event.run.runId === restartId), 'moved to the restart');
    expect(chain.events[1]).toMatchObject({ type: 'run', run: { runId: restartId, restartNumber: 1 }, previousRunId: 'chain-1' });
    // The move stands for the restart's revision at that moment: live revisions follow it.
    const head = commitMarker(first.store, restartId, 1);
    await chain.until(
      (events) => events.some((event) => event.type === 'delta' && event.event.__typename === 'ViewerDeltaBatch' && event.event.presentationRevision === head),
      'a live revision of the restart',
    );
    expect(watch.revision).toBe(head);

    // The server goes down; the restart fails and is restarted again with the store meanwhile.
    await first.server.close();
    await statuses.until((seen) => seen.some((status) => status.state === 'reconnecting' && status.reason.refused), 'a refused reconnect');
    const offline = WorkflowStore.open({ path: first.dbPath, projectPath: first.dir });
    stores.push(offline);
    offline.claimWorkflowRun({ runId: restartId, runnerId: 'runner-1', claimToken: 'token-restart', leaseMs: 60_000 });
    offline.settleWorkflowRun({ runId: restartId, claimToken: 'token-restart', status: 'failed', error: 'boom again' });
    const second = offline.restartWorkflowRun({ runId: restartId, originSessionId: 'session-1' }).run.runId;
    stores.splice(0).forEach((store) => store.close());

    servers.push(await startTestServer({ dbPath: first.dbPath, port: first.port }));
    await chain.until((events) => events.some((event) => event.type === 'run' && event.run.runId === second), 'moved to the second restart');
    const moves = chain.events.filter((event) => event.type === 'run').map((event) => (event.type === 'run' ? [event.run.runId, event.previousRunId] : []));
    expect(moves).toEqual([
      ['chain-1', null],
      [restartId, 'chain-1'],
      [second, restartId],
    ]);
    expect(watch.runId).toBe(second);
    expect(watch.rootRunId).toBe('chain-1');
    // One resume after the restart, from the last cursor: the server moved it straight to the
    // second restart, nothing delivered twice.
    expect(watch.stats).toMatchObject({ duplicates: 0, subscriptions: 2 });
    // The restart's revisions: the live one, then the claim, settlement and restart written while
    // the server was down (replayed from the cursor, once, in order), then the move.
    const told = chain.events.map((event) =>
      event.type === 'delta'
        ? `${event.runId} ${event.event.__typename === 'ViewerDeltaBatch' ? event.event.presentationRevision : 'snapshot'}`
        : `run ${event.run.runId}`,
    );
    expect(told).toEqual(['run chain-1', `run ${restartId}`, ...range(head, head + 3).map((revision) => `${restartId} ${revision}`), `run ${second}`]);
  });

  it('reads a run view typed: title, steps with prompts and outputs, the conversation with its tool call (WorkflowRunViewDocument)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'typed-client-view-'));
    try {
      const path = join(dir, 'state.sqlite');
      buildReferenceFile(path);
      const fx = await startTestServer({ dbPath: path });
      servers.push(fx);
      const { client: typed } = client(fx);
      const views = loadReferenceViews();
      const translate = (await typed.query(WorkflowRunViewDocument, { runId: 'ref-translate-31' })).workflowRun?.view;
      expect(translate?.title).toBe(views['ref-translate-31'].state.runTitle);
      expect(translate?.steps.edges.map((edge) => [edge.node.nodeId, edge.node.outcome, edge.node.prompt?.text ?? null])).toEqual(
        views['ref-translate-31'].state.steps.map((step) => [step.nodeId, step.outcome.toUpperCase(), step.prompt]),
      );
      const explain = (await typed.query(WorkflowRunViewDocument, { runId: 'ref-explain-14', entries: 2 })).workflowRun?.view;
      expect(explain?.session?.entries.totalCount).toBe(views['ref-explain-14'].session.entryPage.total);
      expect(explain?.session?.entries.edges.map((edge) => edge.node.seq)).toEqual(
        views['ref-explain-14'].session.entryPage.items.slice(-2).map((item) => item.seq),
      );
      const calls = (await typed.query(WorkflowRunViewDocument, { runId: 'ref-explain-14' })).workflowRun?.view.session?.entries.edges.flatMap(
        (edge) => edge.node.toolCalls ?? [],
      );
      expect(calls?.map((call) => call.name)).toEqual(['read']);
      // A metadata-scope token: the same answer with the content null, not a failure.
      const metaServer = await startTestServer({ dbPath: path, token: 'full', metadataTokens: ['meta'] });
      servers.push(metaServer);
      const { client: meta } = client(metaServer, { token: 'meta' });
      const hidden = (await meta.query(WorkflowRunViewDocument, { runId: 'ref-translate-31' })).workflowRun?.view;
      expect(hidden?.title).toBe(views['ref-translate-31'].state.runTitle);
      expect(hidden?.steps.edges.map((edge) => [edge.node.nodeId, edge.node.prompt?.text ?? null])).toEqual(
        views['ref-translate-31'].state.steps.map((step) => [step.nodeId, null]),
      );
    } finally {
      for (const server of servers.splice(0).reverse()) await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('watchRunView: the whole view, then each step and conversation entry once, across a server restart with commits while it was down', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'typed-client-view-watch-'));
    const path = join(dir, 'state.sqlite');
    createPiWorkflowsFile(path).close();
    const first = await startTestServer({ dbPath: path });
    servers.push(first);
    // A definition snapshot in pi-workflows' form (values invented for this test).
    const definition = {
      schema: 'pi-workflows.definition-snapshot.v1',
      name: 'watch',
      startAt: 'a',
      nodes: { a: { nodeType: 'agent' }, b: { nodeType: 'agent' } },
      edges: [{ from: 'a', to: 'b' }],
    };
    await first.data(ReserveWorkflowRunDocument, { input: reserveInput('view-run', { definition, workflowName: 'watch' }) });
    const engine = EngineRowWriter.open({ path });
    try {
      engine.startRun({ runId: 'view-run', title: 'Watched' });
      engine.bindSession({ runId: 'view-run', piSessionId: 'pi-watch', cwd: '/work' });
      const step = (nodeId: string): void => {
        const { attemptId } = engine.startStep({ runId: 'view-run', nodeId, nodeType: 'agent' });
        engine.appendSessionEntry({
          runId: 'view-run',
          entry: { type: 'message', id: `e-${nodeId}`, parentId: null, message: { role: 'assistant', content: [{ type: 'text', text: `${nodeId} said` }] } },
        });
        engine.finishStep({ runId: 'view-run', attemptId, outcome: 'ok', output: `${nodeId} out` });
      };
      const { client: typed, statuses } = client(first);
      const seen = new Seen<RunViewEvent>();
      const watch = typed.watchRunView('view-run', { onEvent: seen.push });
      await seen.until((events) => events.length === 1, 'the whole view');
      expect(seen.events[0]).toMatchObject({ __typename: 'WorkflowRunViewReset', view: { title: 'Watched', status: 'RUNNING' } });
      step('a');
      const stepsOf = (events: readonly RunViewEvent[]): string[] =>
        events.flatMap((event) => (event.__typename === 'WorkflowRunViewChanged' ? event.steps.map((each) => `${each.nodeId}:${each.output?.text}`) : []));
      await seen.until((events) => stepsOf(events).length === 1, 'step a');

      await first.server.close();
      await statuses.until((seenStatuses) => seenStatuses.some((status) => status.state === 'reconnecting'), 'a reconnect');
      step('b'); // committed while no server runs
      const second = await startTestServer({ dbPath: path, port: first.port });
      servers.push(second);
      await seen.until((events) => stepsOf(events).length === 2, 'step b after the restart');
      expect(stepsOf(seen.events)).toEqual(['a:a out', 'b:b out']);
      const entries = seen.events.flatMap((event) => (event.__typename === 'WorkflowRunViewChanged' ? event.sessionEntries.map((entry) => entry.text) : []));
      expect(entries).toEqual(['a said', 'b said']);
      // Every revision once, in order.
      const changed = seen.events.filter((event) => event.__typename === 'WorkflowRunViewChanged');
      let at = seen.events[0]?.revision as number;
      for (const event of changed) {
        expect(event.fromRevision).toBe(at);
        at = event.revision;
      }
      expect(watch.stats.duplicates).toBe(0);
      watch.close();
    } finally {
      engine.close();
      for (const server of servers.splice(0).reverse()) await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
