/**
 * The typed client's options the live page uses (docs/IDE.md "The typed client"): the backoff
 * with jitter, an eager socket (`lazy: false`) whose status events count failures and
 * reconnects, HTTP reads retried while the server is away (`retry`) and given up once no longer
 * wanted, and operations given as text (`request`, `subscribe`). Against a real server stopped
 * and started again on the same port and file; no sleeps.
 */
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  createWorkflowClient,
  isTransient,
  retryDelayMs,
  retryPolicy,
  WorkflowClientError,
  type ConnectionStatus,
  type WorkflowClient,
} from '../../src/client/index.js';
import { retrying } from '../../src/client/http.js';
import { commitMarker, reserveRun } from '../helpers/live-fixtures.js';
import { Signal } from '../helpers/server-signals.js';
import { startTestServer, type TestServer } from '../helpers/server-fixture.js';

describe('the typed client: retry policy', () => {
  it('waits min(initial · 2^n, max) plus up to jitterMs; the defaults are unchanged (250 ms doubling to 8 s, no jitter)', () => {
    const defaults = retryPolicy(undefined);
    expect(defaults).toEqual({ attempts: Number.POSITIVE_INFINITY, initialDelayMs: 250, maxDelayMs: 8000, jitterMs: 0 });
    expect([0, 1, 2, 5, 6].map((retries) => retryDelayMs(retries, defaults, () => 0.99))).toEqual([250, 500, 1000, 8000, 8000]);
    const page = retryPolicy({ initialDelayMs: 500, maxDelayMs: 8000, jitterMs: 250 });
    expect([0, 1, 4, 9].map((retries) => retryDelayMs(retries, page, () => 0))).toEqual([500, 1000, 8000, 8000]);
    expect([0, 4].map((retries) => retryDelayMs(retries, page, () => 0.999))).toEqual([749, 8249]);
  });

  it('counts as transient: no answer, 502, 503, 504; not a GraphQL error, 401, 400, 500', () => {
    expect(isTransient(new WorkflowClientError('network', 'x'))).toBe(true);
    expect([502, 503, 504].map((status) => isTransient(new WorkflowClientError('http', 'x', { status })))).toEqual([true, true, true]);
    expect(isTransient(new WorkflowClientError('graphql', 'x', { status: 200 }))).toBe(false);
    expect(isTransient(new WorkflowClientError('unauthorized', 'x', { status: 401 }))).toBe(false);
    expect([400, 500].map((status) => isTransient(new WorkflowClientError('http', 'x', { status })))).toEqual([false, false]);
    expect(isTransient(new Error('x'))).toBe(false);
  });
});

describe('the typed client: eager socket, counters, retried reads (real server restarted)', () => {
  const clients: WorkflowClient[] = [];
  const servers: TestServer[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
    for (const server of servers.splice(0).reverse()) await server.close();
  });

  it('lazy: false connects without a watch; a restart reports failures 1, 2, … and reconnects 1; a read retried while down answers after the restart; subscribe/request take text', async () => {
    const first = await startTestServer();
    servers.push(first);
    await reserveRun(first, 'run-1');
    const statuses: ConnectionStatus[] = [];
    const signal = new Signal();
    const client = createWorkflowClient({
      url: first.url,
      webSocketImpl: WebSocket,
      lazy: false,
      retry: { initialDelayMs: 20, maxDelayMs: 60, jitterMs: 5 },
      onStatus: (status) => {
        statuses.push(status);
        signal.notify();
      },
    });
    clients.push(client);
    await signal.until(() => client.status.state === 'connected', 'connected without any watch');
    expect(statuses).toEqual([{ state: 'connecting' }, { state: 'connected', reconnected: false, reconnects: 0 }]);

    // Text operations over the same socket and HTTP.
    const revisions: number[] = [];
    const unsubscribe = client.subscribe<{ workflowRunDeltas: { presentationRevision?: number } }>(
      'subscription Deltas($runId: String!, $after: Int) { workflowRunDeltas(runId: $runId, afterRevision: $after) { ... on ViewerDeltaBatch { presentationRevision } } }',
      () => ({ runId: 'run-1', after: revisions.at(-1) ?? 1 }),
      {
        next: (data) => {
          if (data.workflowRunDeltas.presentationRevision !== undefined) revisions.push(data.workflowRunDeltas.presentationRevision);
          signal.notify();
        },
        error: (error) => {
          throw error;
        },
      },
    );
    commitMarker(first.store, 'run-1', 1);
    await signal.until(() => revisions.length === 1, 'revision 2');
    const read = (): Promise<{ workflowRun: { runId: string } | null }> =>
      client.request(
        'query One($runId: String!) { workflowRun(runId: $runId) { runId } }',
        { runId: 'run-1' },
        { retry: { onRetry: (_error, delayMs) => retries.push(delayMs) } },
      );
    const retries: number[] = [];
    expect(await read()).toEqual({ workflowRun: { runId: 'run-1' } });
    expect(retries).toEqual([]);

    await first.server.close();
    await signal.until(() => statuses.filter((status) => status.state === 'reconnecting' && !status.reason.opened).length >= 2, 'two refused retries');
    const failures = statuses.flatMap((status) => (status.state === 'reconnecting' ? [status.failures] : []));
    expect(failures.slice(0, 2)).toEqual([1, 2]);
    const pending = read();
    const gone = client.request('{ __typename }', {}, { retry: { isCurrent: () => false } });
    await expect(gone).rejects.toMatchObject({ kind: 'aborted' });
    await signal.until(() => retries.length >= 1, 'the read was retried');
    expect(client.status.state).toBe('reconnecting');

    const second = await startTestServer({ dbPath: first.dbPath, port: first.port });
    servers.push(second);
    expect(await pending).toEqual({ workflowRun: { runId: 'run-1' } });
    await signal.until(() => client.status.state === 'connected', 'reconnected');
    expect(client.status).toEqual({ state: 'connected', reconnected: true, reconnects: 1 });
    commitMarker(second.store, 'run-1', 2);
    await signal.until(() => revisions.length === 2, 'revision 3 after the restart');
    expect(revisions).toEqual([2, 3]);
    // Without a watch the eager socket stays: no `closed` status until the client closes.
    unsubscribe();
    expect(statuses.some((status) => status.state === 'closed')).toBe(false);
    await client.close();
    expect(client.status.state).toBe('closed');
  });
});

describe('the typed client: retrying (HTTP reads with retry)', () => {
  /** Timers the test fires by hand: delays asked for, in order. */
  function manualTimers() {
    const pending: Array<{ callback: () => void; ms: number }> = [];
    return {
      pending,
      setTimer: (callback: () => void, ms: number) => pending.push({ callback, ms }),
      clearTimer: () => {},
      fire: () => pending.shift()?.callback(),
    };
  }
  const tick = () => new Promise((resolve) => setImmediate(resolve));
  const never = () => new Promise<void>(() => {});
  const noServer = () => new WorkflowClientError('network', 'cannot reach the server');

  it('tries a transient failure again after each backoff delay until it succeeds', async () => {
    const timers = manualTimers();
    const outcomes: Array<() => Promise<string>> = [
      () => Promise.reject(noServer()),
      () => Promise.reject(new WorkflowClientError('http', 'HTTP 503', { status: 503 })),
      () => Promise.resolve('data'),
    ];
    let attempts = 0;
    const retries: number[] = [];
    const result = retrying(
      () => (outcomes[attempts++] as () => Promise<string>)(),
      { onRetry: (_error, ms) => retries.push(ms) },
      (n) => 100 * (n + 1),
      never,
      timers.setTimer,
      timers.clearTimer,
    );
    await tick();
    expect(attempts).toBe(1);
    expect(timers.pending.map((timer) => timer.ms)).toEqual([100]);
    timers.fire();
    await tick();
    expect(attempts).toBe(2);
    timers.fire();
    await expect(result).resolves.toBe('data');
    expect(attempts).toBe(3);
    expect(retries).toEqual([100, 200]);
  });

  it('goes at once when `wake` resolves (the WebSocket is back), before the delay', async () => {
    const timers = manualTimers();
    let wake: () => void = () => {};
    let attempts = 0;
    const result = retrying(
      () => {
        attempts += 1;
        return attempts === 1 ? Promise.reject(noServer()) : Promise.resolve(attempts);
      },
      {},
      () => 100,
      () => new Promise<void>((resolve) => (wake = resolve)),
      timers.setTimer,
      timers.clearTimer,
    );
    await tick();
    wake();
    await expect(result).resolves.toBe(2);
    expect(timers.pending).toHaveLength(1); // the delay never had to fire
  });

  it('throws a failure that is not transient at once, and `aborted` once the read is no longer wanted', async () => {
    const timers = manualTimers();
    const notFound = new WorkflowClientError('graphql', 'Workflow run not found: x', { status: 200 });
    await expect(
      retrying(
        () => Promise.reject(notFound),
        {},
        () => 100,
        never,
        timers.setTimer,
        timers.clearTimer,
      ),
    ).rejects.toBe(notFound);
    expect(timers.pending).toHaveLength(0);
    let current = true;
    const result = retrying(
      () => Promise.reject(noServer()),
      { isCurrent: () => current },
      () => 100,
      never,
      timers.setTimer,
      timers.clearTimer,
    );
    await tick();
    current = false;
    timers.fire();
    await expect(result).rejects.toMatchObject({ kind: 'aborted', message: 'the answer is no longer wanted' });
  });
});
