/**
 * `--workers 2`: the real CLI as a child process, two worker processes on one port and one
 * database file (docs/OPERATIONS.md "Workers"). Every request below is pinned to a worker: an
 * HTTP keep-alive connection, or a graphql-ws socket, is kept only once its answer's
 * `x-pi-workflows-worker` header names the wanted worker (node:cluster deals connections
 * round-robin), and every later answer on it is checked to come from that worker again.
 */
import { Agent, request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { EventCollector, REPO_ROOT, WAIT_MS, wsUrlOf, type StreamResult } from '../helpers/live-fixtures.js';
import { EngineRowWriter } from '../../src/store/engine-rows/index.js';
import { reserveInput } from '../helpers/server-fixture.js';
import { databaseClosedCleanly, spawnService, TSX_IMPORT, type ServiceProcess } from '../helpers/service-process.js';

const MAIN = join(REPO_ROOT, 'src/server/main.ts');
const HEADER = 'x-pi-workflows-worker';

/** Starts `main.ts args` as the service manager would. */
function startCli(args: string[], label: string): ServiceProcess {
  return spawnService(process.execPath, ['--import', TSX_IMPORT, MAIN, ...args], { cwd: REPO_ROOT, env: process.env, label });
}

/** The `workers started` line of the primary: the URL and the workers' pids. */
async function workersStarted(service: ServiceProcess): Promise<{ url: string; pids: number[] }> {
  await service.lines
    .until((lines) => lines.some((line) => line.msg === 'workers started'), 'workers started', WAIT_MS * 3)
    .catch((error: Error) => {
      throw new Error(`${error.message}\n${service.describe()}`);
    });
  const line = service.lines.events.find((each) => each.msg === 'workers started') as { url: string; pids: number[] };
  return { url: line.url, pids: line.pids };
}

/** The worker named by an `x-pi-workflows-worker` value (`<id> <pid>`). */
function workerOf(header: string | string[] | undefined): { id: number; pid: number } {
  const [id, pid] = String(header).split(' ').map(Number);
  return { id: id ?? Number.NaN, pid: pid ?? Number.NaN };
}

/** An HTTP connection kept to one worker. */
interface Pinned {
  pid: number;
  /** POSTs a GraphQL request on the pinned connection; fails the test when another worker answered. */
  graphql<T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>, operationName?: string): Promise<{ data?: T; errors?: unknown }>;
  /** GETs `path` on the pinned connection. */
  get(path: string): Promise<{ status: number; body: string; worker: number }>;
  close(): void;
}

/** One request on `agent`: status, the answering worker's pid, the body. */
function send(agent: Agent, url: URL, method: string, body?: string): Promise<{ status: number; worker: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      { method, agent, headers: body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, worker: workerOf(response.headers[HEADER]).pid, body: text }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** A keep-alive connection to the worker `pid` (new connections until one lands there). */
async function pinTo(httpUrl: string, pid: number): Promise<Pinned> {
  const base = new URL(httpUrl);
  for (let attempt = 0; attempt < 40; attempt++) {
    const agent = new Agent({ keepAlive: true, maxSockets: 1, keepAliveMsecs: 60_000 });
    const probe = await send(agent, base, 'POST', JSON.stringify({ query: '{ __typename }' }));
    if (probe.worker !== pid) {
      agent.destroy();
      continue;
    }
    const checked = <T>(answer: { status: number; worker: number; body: string }): T => {
      expect(answer.worker, `answered by ${answer.worker}, pinned to ${pid}`).toBe(pid);
      return JSON.parse(answer.body) as T;
    };
    return {
      pid,
      async graphql(query, variables = {}, operationName) {
        return checked(await send(agent, base, 'POST', JSON.stringify({ query, variables, ...(operationName === undefined ? {} : { operationName }) })));
      },
      async get(path) {
        const answer = await send(agent, new URL(path, base), 'GET');
        expect(answer.worker, `answered by ${answer.worker}, pinned to ${pid}`).toBe(pid);
        return answer;
      },
      close: () => agent.destroy(),
    };
  }
  throw new Error(`no connection reached worker ${pid}`);
}

/** A graphql-ws client whose socket is served by the worker `pid`. */
async function wsClientOn(httpUrl: string, pid: number): Promise<Client> {
  for (let attempt = 0; attempt < 40; attempt++) {
    let served: number | undefined;
    class Recording extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols);
        this.on('upgrade', (response) => (served = workerOf(response.headers[HEADER]).pid));
      }
    }
    const client = createClient({
      url: wsUrlOf(httpUrl),
      webSocketImpl: Recording,
      retryAttempts: 0,
      shouldRetry: () => false,
      lazy: false,
      onNonLazyError: () => undefined,
      lazyCloseTimeout: 0,
    });
    await new Promise<void>((resolve, reject) => {
      client.on('connected', () => resolve());
      client.on('error', reject);
    });
    if (served === pid) return client;
    await client.dispose();
  }
  throw new Error(`no socket reached worker ${pid}`);
}

interface ChangesData {
  workflowRunChanges: { __typename: string; cursor: string; run?: { runId: string } };
}
const CHANGES =
  'subscription C($after: String) { workflowRunChanges(after: $after) { __typename ... on WorkflowRunChange { cursor run { runId } } ... on WorkflowRunChangesResetRequired { cursor } } }';
const RESERVE = 'mutation R($input: ReserveWorkflowRunInput!) { reserveWorkflowRun(input: $input) { __typename } }';
const CLAIM =
  'mutation C($input: ClaimWorkflowRunInput!) { claimWorkflowRun(input: $input) { __typename ... on ClaimWorkflowRunSuccess { run { runId claim { ownerId leaseGeneration } } } } }';

/** A reserve input of a root run in a session of its own (one active run per session). */
function runInput(runId: string): ReturnType<typeof reserveInput> {
  return reserveInput(runId, { originSessionId: `session-${runId}` });
}

/** Subscribes to the run-list change feed on `client`. */
function followChanges(client: Client, after: string | null, label: string): EventCollector<StreamResult<ChangesData>> {
  const collector = new EventCollector<StreamResult<ChangesData>>(label);
  client.subscribe<ChangesData>(
    { query: CHANGES, variables: { after } },
    { next: (value) => collector.push(value as StreamResult<ChangesData>), error: (error) => collector.fail(error), complete: () => collector.complete() },
  );
  return collector;
}

/** The run ids of change events. */
function runIdsOf(events: ReadonlyArray<StreamResult<ChangesData>>): string[] {
  return events.map((event) => event.data?.workflowRunChanges.run?.runId ?? `(${event.data?.workflowRunChanges.__typename})`);
}

interface ViewEvent {
  __typename: string;
  revision: number;
  fromRevision?: number;
  steps: Array<{ nodeId: string; output: { json: unknown } | null }>;
}
const FOLLOW_VIEW = /* GraphQL */ `
  subscription FollowView($runId: String!) {
    workflowRunView(runId: $runId) {
      __typename
      ... on WorkflowRunViewReset { revision }
      ... on WorkflowRunViewChanged { fromRevision revision steps { nodeId output { json } } }
    }
  }
`;

/** Follows a run's view on `client`. */
function followView(client: Client, runId: string, label: string): EventCollector<ViewEvent> {
  const collector = new EventCollector<ViewEvent>(label);
  client.subscribe<{ workflowRunView: ViewEvent }>(
    { query: FOLLOW_VIEW, variables: { runId } },
    {
      next: (value) => {
        if (value.errors !== undefined || value.data == null) collector.fail(new Error(JSON.stringify(value.errors)));
        else collector.push(value.data.workflowRunView);
      },
      error: (error) => collector.fail(error),
      complete: () => collector.complete(),
    },
  );
  return collector;
}

/** `pi_workflows_view_reads_total` of the whole server (summed over the workers). */
async function viewReads(pinned: Pinned): Promise<number> {
  const { body } = await pinned.get('/metrics');
  const line = /^pi_workflows_view_reads_total (\d+)$/m.exec(body);
  if (line === null) throw new Error(`no pi_workflows_view_reads_total in /metrics:\n${body.slice(0, 2000)}`);
  return Number(line[1]);
}

/** Whether the process `pid` still exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('--workers 2: two processes, one port, one database file', () => {
  let dir: string;
  let dbPath: string;
  let service: ServiceProcess;
  let url: string;
  let pids: number[];
  let onA: Pinned;
  let onB: Pinned;
  const clients: Client[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pi-workflows-workers-'));
    dbPath = join(dir, 'state.db');
    service = startCli(['--db', dbPath, '--port', '0', '--workers', '2', '--project', dir], 'workers');
    ({ url, pids } = await workersStarted(service));
    onA = await pinTo(url, pids[0] ?? 0);
    onB = await pinTo(url, pids[1] ?? 0);
  }, WAIT_MS * 4);

  afterAll(async () => {
    onA?.close();
    onB?.close();
    await Promise.all(clients.map((client) => client.dispose()));
    service?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts two workers, logs carry the worker id, one banner says how many', () => {
    expect(pids).toHaveLength(2);
    expect(new Set(pids).size).toBe(2);
    const listening = service.lines.events.filter((line) => line.msg === 'listening');
    expect(listening.map((line) => line.pid).sort()).toEqual([...pids].sort());
    expect(listening.map((line) => line.worker).sort()).toEqual([1, 2]);
    expect(service.stderr()).toContain(`  Workers:   2 processes (docs/OPERATIONS.md "Workers")\n`);
    expect(service.stderr().match(/pi-workflows-graphql listening on/g)).toHaveLength(1);
  });

  it("a graphql-ws subscriber on each worker sees the other worker's commits", async () => {
    const clientA = await wsClientOn(url, onA.pid);
    const clientB = await wsClientOn(url, onB.pid);
    clients.push(clientA, clientB);
    const seenOnA = followChanges(clientA, null, 'changes on A');
    const seenOnB = followChanges(clientB, null, 'changes on B');
    // Live from the subscribe on: a marker run from each side proves both streams are live.
    await onA.graphql(RESERVE, { input: runInput('marker-a') });
    await seenOnA.until((events) => runIdsOf(events).includes('marker-a'), 'marker-a on A');
    await seenOnB.until((events) => runIdsOf(events).includes('marker-a'), 'marker-a on B');

    expect(await onB.graphql(RESERVE, { input: runInput('from-b') })).toEqual({
      data: { reserveWorkflowRun: { __typename: 'ReserveWorkflowRunSuccess' } },
    });
    expect(await onA.graphql(RESERVE, { input: runInput('from-a') })).toEqual({
      data: { reserveWorkflowRun: { __typename: 'ReserveWorkflowRunSuccess' } },
    });
    await seenOnA.until((events) => events.length >= 3, 'three changes on A');
    await seenOnB.until((events) => events.length >= 3, 'three changes on B');
    expect(runIdsOf(seenOnA.events)).toEqual(['marker-a', 'from-b', 'from-a']);
    expect(runIdsOf(seenOnB.events)).toEqual(['marker-a', 'from-b', 'from-a']);
  });

  it('a durable cursor minted on one worker resumes on the other', async () => {
    const page = await onA.graphql<{ workflowRuns: { changeCursor: string } }>('{ workflowRuns(first: 1) { changeCursor } }');
    const minted = page.data?.workflowRuns.changeCursor ?? '';
    await onA.graphql(RESERVE, { input: runInput('after-cursor-1') });
    await onA.graphql(RESERVE, { input: runInput('after-cursor-2') });
    const clientB = await wsClientOn(url, onB.pid);
    clients.push(clientB);
    const resumedOnB = followChanges(clientB, minted, 'resumed on B');
    await resumedOnB.take(2);
    expect(runIdsOf(resumedOnB.events)).toEqual(['after-cursor-1', 'after-cursor-2']);

    // And back: the cursor of B's last event, on A.
    const last = resumedOnB.events[1]?.data?.workflowRunChanges.cursor ?? '';
    await onB.graphql(RESERVE, { input: runInput('after-cursor-3') });
    const clientA = await wsClientOn(url, onA.pid);
    clients.push(clientA);
    const resumedOnA = followChanges(clientA, last, 'resumed on A');
    await resumedOnA.take(1);
    expect(runIdsOf(resumedOnA.events)).toEqual(['after-cursor-3']);
  });

  it('two clients racing claims on different workers: each run is claimed once', async () => {
    const runIds = Array.from({ length: 16 }, (_, index) => `race-${index}`);
    for (const runId of runIds) await onA.graphql(RESERVE, { input: runInput(runId) });
    type Claimed = { claimWorkflowRun: { __typename: string; run: { runId: string; claim: { ownerId: string; leaseGeneration: number } } | null } };
    const race = (pinned: Pinned, runner: string) =>
      Promise.all(
        runIds.map((runId) => pinned.graphql<Claimed>(CLAIM, { input: { runId, runnerId: runner, claimToken: `${runner}-${runId}`, leaseMs: 60_000 } })),
      );
    const [fromA, fromB] = await Promise.all([race(onA, 'runner-a'), race(onB, 'runner-b')]);
    const winners = runIds.map((runId, index) => {
      const a = fromA[index]?.data?.claimWorkflowRun;
      const b = fromB[index]?.data?.claimWorkflowRun;
      expect([a?.__typename, b?.__typename], runId).toEqual(['ClaimWorkflowRunSuccess', 'ClaimWorkflowRunSuccess']);
      const claimed = [a?.run, b?.run].filter((run) => run != null);
      expect(claimed, runId).toHaveLength(1);
      expect(claimed[0]?.claim.leaseGeneration).toBe(1);
      return claimed[0]?.claim.ownerId;
    });
    // What the file holds, read through either worker: the winner's lease, generation 1.
    const stored = await onB.graphql<{
      workflowRuns: { edges: Array<{ node: { runId: string; claim: { ownerId: string; leaseGeneration: number } | null } }> };
    }>('{ workflowRuns(first: 100) { edges { node { runId claim { ownerId leaseGeneration } } } } }');
    const byId = new Map(stored.data?.workflowRuns.edges.map(({ node }) => [node.runId, node.claim]));
    expect(runIds.map((runId) => byId.get(runId))).toEqual(winners.map((ownerId) => ({ ownerId, leaseGeneration: 1 })));
  });

  it('/metrics sums the counters of both workers and labels each worker’s process metrics', async () => {
    for (let i = 0; i < 3; i++) await onA.graphql('query Counted { __typename }');
    for (let i = 0; i < 2; i++) await onB.graphql('query Counted { __typename }');
    const metrics = await onA.get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.body).toContain('pi_workflows_graphql_requests_total{operation="Counted",type="query",status="200"} 5\n');
    expect(metrics.body).toMatch(/^process_cpu_user_seconds_total\{worker="1"\} /m);
    expect(metrics.body).toMatch(/^process_cpu_user_seconds_total\{worker="2"\} /m);
  });

  it('/health answers for both workers and names the one that answered', async () => {
    for (const pinned of [onA, onB]) {
      const health = await pinned.get('/health');
      expect(health.status).toBe(200);
      const body = JSON.parse(health.body) as { status: string; worker: { pid: number }; workers: Array<{ id: number; pid: number; status: string }> };
      expect(body.status).toBe('ok');
      expect(body.worker.pid).toBe(pinned.pid);
      expect(body.workers).toEqual([
        { id: 1, pid: pids[0], status: 'ok' },
        { id: 2, pid: pids[1], status: 'ok' },
      ]);
    }
  });

  it("a run's view followed on both workers: each event read once for all of them, every revision once to every follower", async () => {
    const runId = 'view-shared';
    const definition = {
      schema: 'pi-workflows.definition-snapshot.v1',
      name: 'shared-view',
      startAt: 'plan',
      nodes: { plan: { nodeType: 'agent' }, build: { nodeType: 'agent' } },
      edges: [{ from: 'plan', to: 'build' }],
    }; // invented for this test, in pi-workflows' definition-snapshot form
    await onA.graphql(RESERVE, { input: reserveInput(runId, { definition, workflowName: 'shared-view', originSessionId: 'session-view' }) });
    const engine = EngineRowWriter.open({ path: dbPath });
    try {
      engine.startRun({ runId, title: 'Shared view' });
      const clientA = await wsClientOn(url, onA.pid);
      const clientB = await wsClientOn(url, onB.pid);
      clients.push(clientA, clientB);
      const followers = [clientA, clientA, clientB, clientB].map((client, index) => followView(client, runId, `view follower ${index}`));
      for (const follower of followers) await follower.take(1);
      const readsBefore = await viewReads(onA);

      for (const nodeId of ['plan', 'build']) {
        const { attemptId } = engine.startStep({ runId, nodeId, nodeType: 'agent' });
        engine.sendPrompt({ runId, attemptId, prompt: `Do ${nodeId}.` });
        engine.finishStep({ runId, attemptId, outcome: 'ok', output: { done: nodeId } });
      }
      const last = engine.finishRun({ runId, status: 'completed', finalOutput: { done: true } }).revision;
      for (const follower of followers) await follower.until((events) => events.at(-1)?.revision === last, `revision ${last}`);

      const distinct = new Set<string>();
      for (const follower of followers) {
        const [reset, ...changes] = follower.events;
        let at = reset?.revision ?? Number.NaN;
        for (const change of changes) {
          // Every revision once, in order: each event starts where the one before ended.
          expect(change).toMatchObject({ __typename: 'WorkflowRunViewChanged', fromRevision: at });
          distinct.add(`${change.fromRevision}->${change.revision}`);
          at = change.revision;
        }
        expect(changes.flatMap((change) => change.steps.map((step) => [step.nodeId, step.output?.json]))).toEqual([
          ['plan', { done: 'plan' }],
          ['build', { done: 'build' }],
        ]);
      }
      // One read per event any follower on either worker got: never one per worker or per follower.
      expect((await viewReads(onA)) - readsBefore).toBe(distinct.size);
    } finally {
      engine.close();
    }
  });

  it('a worker killed with SIGKILL is logged and replaced', async () => {
    const killed = pids[1] ?? 0;
    onB.close();
    process.kill(killed, 'SIGKILL');
    await service.lines.until((lines) => lines.some((line) => line.msg === 'worker replaced'), 'worker replaced');
    const exited = service.lines.events.find((line) => line.msg === 'worker exited unexpectedly: starting another');
    expect(exited).toMatchObject({ role: 'primary', worker: 2, workerPid: killed, exit: 'SIGKILL' });
    const replaced = service.lines.events.find((line) => line.msg === 'worker replaced') as { worker: number; workerPid: number };
    expect(replaced.worker).toBe(3);
    expect(alive(killed)).toBe(false);
    const health = JSON.parse((await onA.get('/health')).body) as { workers: unknown };
    expect(health.workers).toEqual([
      { id: 1, pid: pids[0], status: 'ok' },
      { id: 3, pid: replaced.workerPid, status: 'ok' },
    ]);
    pids = [pids[0] ?? 0, replaced.workerPid];
  });

  it('one SIGTERM to the primary drains every worker; the primary exits 0 after them, nothing left running', async () => {
    const clientA = await wsClientOn(url, pids[0] ?? 0);
    const closed = new Promise<unknown>((resolve) => clientA.on('closed', resolve));
    followChanges(clientA, null, 'open at shutdown');
    onA.close();
    expect(await service.stop('SIGTERM'), service.describe()).toBe(0);
    expect(await closed).toMatchObject({ code: 1001 });
    expect(pids.filter(alive)).toEqual([]);
    expect(databaseClosedCleanly(dbPath)).toBe(true);
    const byes = service.lines.events.filter((line) => line.msg === 'database closed, bye').map((line) => line.pid);
    expect(byes.sort()).toEqual([...pids].sort());
    expect(service.lines.events.at(-1)).toMatchObject({ role: 'primary', msg: 'every worker stopped, bye', signal: 'SIGTERM' });
  });
});

describe('--workers 2 where one process must serve', () => {
  let service: ServiceProcess | undefined;
  afterAll(() => service?.kill());

  it('a busy port: the primary prints the one-line error once and exits 1', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    const dir = mkdtempSync(join(tmpdir(), 'pi-workflows-workers-busy-'));
    try {
      service = startCli(['--db', join(dir, 'state.db'), '--port', String(port), '--workers', '2'], 'busy');
      expect(await service.exited).toBe(1);
      expect(service.stderr()).toBe(
        `pi-workflows-graphql: port ${port} is already in use on 127.0.0.1 (another server or demo running?): stop it, or pass --port N (0 = any free port)\n`,
      );
      expect(service.lines.events).toEqual([]);
    } finally {
      busy.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--db :memory: runs one process and says why', async () => {
    service = startCli(['--db', ':memory:', '--port', '0', '--workers', '2'], 'memory');
    const listeningUrl = await service.listening();
    expect(service.lines.events[0]).toMatchObject({
      msg: 'one process instead of 2 workers: an in-memory database (--db :memory:) exists in one process only',
      workers: 1,
      requested: 2,
    });
    const health = await fetch(listeningUrl.replace(/\/graphql$/, '/health'));
    expect(health.headers.get(HEADER)).toBeNull();
    expect(await health.json()).not.toHaveProperty('workers');
    expect(await service.stop('SIGTERM')).toBe(0);
    expect(service.lines.events.some((line) => line.msg === 'workers started')).toBe(false);
  });
});
