/**
 * `@live` queries (docs/PROTOCOL.md "Live queries") over real graphql-ws and
 * graphql-sse clients: the initial result, a push for a change made in this process and in
 * another one, coalescing under a throttle, the per-connection limit, JSON-patch results, no push
 * for a failed mutation, the cost limit, and resources released when a live query stops.
 */
import { applyJSONPatch } from '@n1ru4l/graphql-live-query-patch-json-patch';
import { createClient as createSseClient, type Client as SseClient } from 'graphql-sse';
import type { Client } from 'graphql-ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  commitMarker,
  EventCollector,
  reserveRun,
  spawnReadyChild,
  subscribeSse,
  subscribeWs,
  wsClient,
  type ChildProcessHandle,
  type StreamResult,
} from '../helpers/live-fixtures.js';
import { liveQueriesActive } from '../helpers/server-signals.js';
import { claim, park, reserve, reserveInput, startTestServer, type TestServer } from '../helpers/server-fixture.js';

const LIVE_RUN = /* GraphQL */ `
  query LiveRun($runId: String!) @live {
    workflowRun(runId: $runId) {
      id
      runId
      status
      presentationRevision
    }
  }
`;
const LIVE_LIST = /* GraphQL */ `
  query LiveList @live {
    workflowRuns(first: 100) {
      edges {
        node {
          id
          runId
          status
        }
      }
    }
  }
`;
const LIVE_LINEAGE = /* GraphQL */ `
  query LiveLineage($runId: String!) @live {
    workflowRun(runId: $runId) {
      runId
      lineage {
        edges {
          node {
            runId
            status
          }
        }
      }
    }
  }
`;

interface RunData {
  workflowRun: { id: string; runId: string; status: string; presentationRevision: number } | null;
}
interface ListData {
  workflowRuns: { edges: Array<{ node: { id: string; runId: string; status: string } }> };
}

/** Unsubscribes of the running test's streams (each test ends them all). */
const running: Array<() => void> = [];

/**
 * Ends the test's streams and waits until the server released them, so the next test (in any
 * order) starts with no live query running.
 */
async function stopAll(fx: TestServer): Promise<void> {
  for (const stop of running.splice(0)) stop();
  await liveQueriesActive(fx.server, 0, "the test's live queries stopped");
}

function liveWs<TData>(client: Client, query: string, variables: Record<string, unknown> = {}, label = 'ws') {
  const subscription = subscribeWs<TData>(client, query, variables, label);
  running.push(subscription.unsubscribe);
  return subscription;
}

/** A live query through a graphql-sse client; every result is collected. */
function liveSse<TData>(client: SseClient<boolean>, query: string, variables: Record<string, unknown>, label: string) {
  const collector = new EventCollector<StreamResult<TData>>(label);
  const unsubscribe = client.subscribe<TData>(
    { query, variables },
    { next: (value) => collector.push(value as StreamResult<TData>), error: (error) => collector.fail(error), complete: () => collector.complete() },
  );
  running.push(unsubscribe);
  return { collector, unsubscribe };
}

function revisionOf(result: StreamResult<RunData> | undefined): number | undefined {
  return result?.data?.workflowRun?.presentationRevision;
}

describe('@live queries', () => {
  let fx: TestServer;
  let client: Client;
  const sseClients: Array<SseClient<boolean>> = [];
  beforeAll(async () => {
    fx = await startTestServer();
    client = wsClient(fx.url);
  });
  afterAll(async () => {
    for (const sse of sseClients) sse.dispose();
    await client.dispose();
    await fx.close();
  });
  afterEach(async () => {
    await stopAll(fx);
  });

  it('the @live directive is in the schema', async () => {
    const { __schema } = await fx.data<{ __schema: { directives: Array<{ name: string; args: Array<{ name: string }> }> } }, undefined>(
      '{ __schema { directives { name args { name } } } }',
    );
    expect(__schema.directives.find((directive) => directive.name === 'live')?.args.map((arg) => arg.name)).toEqual(['if', 'throttle']);
  });

  it('graphql-ws: the initial result, then a push with the state after each change in this process', async () => {
    const run = await reserveRun(fx, 'live-ws');
    const { collector } = liveWs<RunData>(client, LIVE_RUN, { runId: 'live-ws' });
    const [initial] = await collector.take(1);
    expect(initial).toEqual({ data: { workflowRun: { id: run.id, runId: 'live-ws', status: 'QUEUED', presentationRevision: run.presentationRevision } } });
    await claim(fx, 'live-ws', 'token-live-ws');
    const claimed = await fx.data<RunData, { runId: string }>(LIVE_RUN.replace(' @live', ''), { runId: 'live-ws' });
    expect(claimed.workflowRun?.presentationRevision).toBeGreaterThan(run.presentationRevision);
    await collector.until((events) => revisionOf(events.at(-1)) === claimed.workflowRun?.presentationRevision, 'the claimed run');
    expect(collector.events.at(-1)).toEqual({ data: claimed });
    expect(collector.error).toBeUndefined();
  });

  it('a run joining the list and a run joining a chain are pushed', async () => {
    await reserveRun(fx, 'live-root');
    await claim(fx, 'live-root', 'token-live-root');
    await park(fx, 'live-root', 'token-live-root');
    const list = liveWs<ListData>(client, LIVE_LIST, {}, 'list').collector;
    const lineage = liveWs<{ workflowRun: { lineage: { edges: Array<{ node: { runId: string } }> } } }>(
      client,
      LIVE_LINEAGE,
      { runId: 'live-root' },
      'lineage',
    ).collector;
    await list.take(1);
    await lineage.take(1);
    expect(lineage.events[0]?.data?.workflowRun.lineage.edges.map((edge) => edge.node.runId)).toEqual(['live-root']);
    await reserve(fx, reserveInput('live-child', { parentRunId: 'live-root', lineageKind: 'CONTINUATION', originSessionId: 'session-live-root' }));
    await list.until((events) => events.at(-1)?.data?.workflowRuns.edges.some((edge) => edge.node.runId === 'live-child') === true, 'the new run in the list');
    await lineage.until((events) => events.at(-1)?.data?.workflowRun.lineage.edges.length === 2, 'the new run in the chain');
    expect(lineage.events.at(-1)?.data?.workflowRun.lineage.edges.map((edge) => edge.node.runId)).toEqual(['live-root', 'live-child']);
  });

  it.each([
    { mode: 'distinct-connections', singleConnection: false },
    { mode: 'single-connection', singleConnection: true },
  ])('graphql-sse ($mode): the initial result, then a push per change', async ({ mode, singleConnection }) => {
    const runId = `live-sse-${mode}`;
    const run = await reserveRun(fx, runId);
    const sse = createSseClient({ url: fx.url, singleConnection, retryAttempts: 0 });
    sseClients.push(sse);
    const { collector } = liveSse<RunData>(sse, LIVE_RUN, { runId }, mode);
    const [initial] = await collector.take(1);
    expect(revisionOf(initial)).toBe(run.presentationRevision);
    const revision = commitMarker(fx.store, runId, 1);
    await collector.until((events) => revisionOf(events.at(-1)) === revision, `revision ${revision}`);
    expect(collector.events.at(-1)).toEqual({ data: { workflowRun: { id: run.id, runId, status: 'QUEUED', presentationRevision: revision } } });
  });

  it('over plain HTTP (no event stream accepted) a @live query is answered once', async () => {
    await reserveRun(fx, 'live-http');
    const response = await fx.gql<RunData, { runId: string }>(LIVE_RUN, { runId: 'live-http' });
    expect(response.status).toBe(200);
    expect(response.errors).toBeUndefined();
    expect(response.data?.workflowRun?.runId).toBe('live-http');
    expect(fx.server.liveQueries.active).toBe(0);
  });

  it('a failed mutation pushes nothing: the next push is the next committed change', async () => {
    const run = await reserveRun(fx, 'live-failed');
    const { collector } = liveWs<RunData>(client, LIVE_RUN, { runId: 'live-failed' });
    await collector.take(1);
    const refused = await fx.gql(`mutation Refused($input: ReserveWorkflowRunInput!) { reserveWorkflowRun(input: $input) { __typename } }`, {
      input: reserveInput('live-failed-child', { parentRunId: 'no-such-run', lineageKind: 'CONTINUATION' }),
    });
    expect(refused.data).toEqual({ reserveWorkflowRun: { __typename: 'NotFoundError' } });
    const revision = commitMarker(fx.store, 'live-failed', 1);
    await collector.until((events) => events.length >= 2, 'the push of the marker');
    expect(collector.events.map(revisionOf)).toEqual([run.presentationRevision, revision]);
  });

  it('JSON-patch results on request: patches applied to the previous result give the full result', async () => {
    await reserveRun(fx, 'live-patch');
    const full = liveWs<RunData>(client, LIVE_RUN, { runId: 'live-patch' }, 'full').collector;
    const patches = new EventCollector<{ data?: RunData; patch?: unknown; revision: number; errors?: unknown }>('patches');
    running.push(
      client.subscribe(
        { query: LIVE_RUN, variables: { runId: 'live-patch' }, extensions: { livePatch: 'json-patch' } },
        { next: (value) => patches.push(value as never), error: (error) => patches.fail(error), complete: () => patches.complete() },
      ),
    );
    await full.take(1);
    await patches.take(1);
    expect(patches.events[0]).toEqual({ data: full.events[0]?.data, revision: 1 });
    const last = commitMarker(fx.store, 'live-patch', 2);
    await full.until((events) => revisionOf(events.at(-1)) === last, 'the full result');
    let applied = patches.events[0]?.data as RunData;
    await patches.until((events) => {
      applied = patches.events[0]?.data as RunData;
      for (const event of events.slice(1)) applied = applyJSONPatch(applied as never, event.patch as never) as unknown as RunData;
      return applied.workflowRun?.presentationRevision === last;
    }, 'the patched result');
    expect(patches.events.slice(1).every((event, index) => event.patch !== undefined && event.data === undefined && event.revision === index + 2)).toBe(true);
    expect(applied).toEqual(full.events.at(-1)?.data);
  });

  it('a live query that cannot run (bad variables) answers its errors once and ends', async () => {
    const { collector } = liveWs<RunData>(client, LIVE_RUN, { runId: 42 }, 'bad-variables');
    await collector.ended();
    expect(collector.events).toEqual([
      { errors: [expect.objectContaining({ message: expect.stringMatching(/^Variable "\$runId" got invalid value/) as unknown })] },
    ]);
    expect(collector.completed).toBe(true);
    await liveQueriesActive(fx.server, 0, 'the live query released');
  });

  it('an unknown patch format is refused', async () => {
    const refused = new EventCollector<StreamResult<RunData>>('refused');
    running.push(
      client.subscribe(
        { query: LIVE_RUN, variables: { runId: 'live-ws' }, extensions: { livePatch: 'merge-patch' } },
        { next: (value) => refused.push(value as never), error: (error) => refused.fail(error), complete: () => refused.complete() },
      ),
    );
    await refused.ended();
    expect(refused.events).toEqual([
      {
        errors: [
          {
            message: 'Unknown extensions.livePatch "merge-patch": use "json-patch" for JSON-patch results, or leave it out for full results.',
            extensions: { code: 'BAD_USER_INPUT' },
          },
        ],
      },
    ]);
  });

  it('a live query over the cost limit is refused like any query, and nothing keeps running', async () => {
    const selection = 'edges { node { children { children { children { runId workflowName status queueStatus } } } } }';
    const fields = Array.from({ length: 20 }, (_, index) => `a${index}: workflowRuns(first: 100) { ${selection} }`).join(' ');
    const { collector } = liveWs<unknown>(client, `query Costly @live { ${fields} }`, {}, 'costly');
    await collector.ended();
    const errors = collector.error as Array<{ message: string; extensions?: { limit?: { found?: number } } }>;
    const found = errors[0]?.extensions?.limit?.found as number;
    expect(found).toBeGreaterThan(20_000);
    expect(errors.map((error) => error.message)).toEqual([`Query cost ${found} exceeds the maximum of 20000 by ${found - 20_000}.`]);
    expect(fx.server.liveQueries.active).toBe(0);
  });

  it('stopping live queries releases them: nothing active, no identifier tracked', async () => {
    await reserveRun(fx, 'live-stop');
    const first = liveWs<RunData>(client, LIVE_RUN, { runId: 'live-stop' }, 'stop-1');
    const second = liveWs<ListData>(client, LIVE_LIST, {}, 'stop-2');
    const { collector: third, close } = subscribeSse<RunData>(fx.url, LIVE_RUN, { runId: 'live-stop' });
    running.push(close);
    await first.collector.take(1);
    await second.collector.take(1);
    await third.take(1);
    expect(fx.server.liveQueries.active).toBe(3);
    expect(fx.server.liveQueries.trackedIdentifiers).toBeGreaterThan(0);
    for (const stop of running.splice(0)) stop();
    await liveQueriesActive(fx.server, 0, 'every live query stopped');
    expect(fx.server.liveQueries.trackedIdentifiers).toBe(0);
  });
});

describe('@live queries: bounds', () => {
  let fx: TestServer;
  beforeAll(async () => {
    fx = await startTestServer({ liveThrottleMs: 1_000, maxLiveQueriesPerConnection: 2 });
  });
  afterAll(async () => {
    await fx.close();
  });
  afterEach(async () => {
    await stopAll(fx);
  });

  it('20 commits in one burst: fewer pushes, the last one with the final state', async () => {
    const client = wsClient(fx.url);
    try {
      const run = await reserveRun(fx, 'burst');
      const { collector } = liveWs<RunData>(client, LIVE_RUN, { runId: 'burst' });
      await collector.take(1);
      let last = 0;
      for (let k = 1; k <= 20; k += 1) last = commitMarker(fx.store, 'burst', k);
      await collector.until((events) => revisionOf(events.at(-1)) === last, `revision ${last}`);
      expect(last).toBe(run.presentationRevision + 20);
      expect(collector.events.length).toBeLessThan(1 + 20);
      const revisions = collector.events.map(revisionOf) as number[];
      expect(revisions).toEqual([...revisions].sort((a, b) => a - b));
    } finally {
      await client.dispose();
    }
  });

  it('20 commits on separate turns within one throttle window: fewer pushes, the last one with the final state', async () => {
    const client = wsClient(fx.url);
    try {
      await reserveRun(fx, 'spread');
      const { collector } = liveWs<RunData>(client, LIVE_RUN, { runId: 'spread' });
      await collector.take(1);
      const executions = fx.server.liveQueries.executions;
      let last = 0;
      for (let k = 1; k <= 20; k += 1) {
        last = commitMarker(fx.store, 'spread', k);
        await new Promise((resolve) => setImmediate(resolve));
      }
      await collector.until((events) => revisionOf(events.at(-1)) === last, `revision ${last}`);
      expect(fx.server.liveQueries.executions - executions).toBeLessThan(20);
      expect(collector.events.length).toBeLessThan(1 + 20);
    } finally {
      await client.dispose();
    }
  });

  it('a connection holds at most the configured number of live queries; the next one is refused', async () => {
    await reserveRun(fx, 'limited');
    const client = wsClient(fx.url);
    const other = wsClient(fx.url);
    try {
      const first = liveWs<RunData>(client, LIVE_RUN, { runId: 'limited' }, 'first');
      const second = liveWs<RunData>(client, LIVE_RUN, { runId: 'limited' }, 'second');
      await first.collector.take(1);
      await second.collector.take(1);
      const third = liveWs<RunData>(client, LIVE_RUN, { runId: 'limited' }, 'third');
      await third.collector.ended();
      expect(third.collector.events).toEqual([
        {
          errors: [
            {
              message: 'Too many live queries on this connection: at most 2 at once. Stop one before starting another.',
              extensions: { code: 'LIVE_QUERY_LIMIT', limit: { name: 'maxLiveQueries', maximum: 2 } },
            },
          ],
        },
      ]);
      // Another connection has its own allowance; a stopped live query frees its place.
      const elsewhere = liveWs<RunData>(other, LIVE_RUN, { runId: 'limited' }, 'elsewhere');
      await elsewhere.collector.take(1);
      first.unsubscribe();
      await liveQueriesActive(fx.server, 2, 'the first live query stopped');
      const again = liveWs<RunData>(client, LIVE_RUN, { runId: 'limited' }, 'again');
      const [result] = await again.collector.take(1);
      expect(result?.data?.workflowRun?.runId).toBe('limited');
    } finally {
      await client.dispose();
      await other.dispose();
    }
  });
});

describe('@live queries: targeted invalidation', () => {
  let fx: TestServer;
  let client: Client;
  beforeAll(async () => {
    // No throttle: an invalidated live query re-executes at once, so the count below is exact.
    fx = await startTestServer({ liveThrottleMs: 0 });
    client = wsClient(fx.url);
  });
  afterAll(async () => {
    await client.dispose();
    await fx.close();
  });
  afterEach(async () => {
    await stopAll(fx);
  });

  it('a change of one run re-executes only the live queries that read it', async () => {
    await reserveRun(fx, 'target-a');
    await reserveRun(fx, 'target-b');
    const a = liveWs<RunData>(client, LIVE_RUN, { runId: 'target-a' }, 'a').collector;
    const b = liveWs<RunData>(client, LIVE_RUN, { runId: 'target-b' }, 'b').collector;
    await a.take(1);
    await b.take(1);
    const executions = fx.server.liveQueries.executions;
    const revisionB = commitMarker(fx.store, 'target-b', 1);
    await b.until((events) => revisionOf(events.at(-1)) === revisionB, 'the change of b');
    expect(fx.server.liveQueries.executions - executions).toBe(1);
    const revisionA = commitMarker(fx.store, 'target-a', 1);
    await a.until((events) => revisionOf(events.at(-1)) === revisionA, 'the change of a');
    expect(fx.server.liveQueries.executions - executions).toBe(2);
    expect(a.events.map(revisionOf)).toEqual([revisionA - 1, revisionA]);
  });

  it('equal live queries re-executed for the same change execute once and share the result', async () => {
    await reserveRun(fx, 'shared');
    const other = wsClient(fx.url);
    try {
      const collectors = [
        liveWs<RunData>(client, LIVE_RUN, { runId: 'shared' }, 'shared-1').collector,
        liveWs<RunData>(client, LIVE_RUN, { runId: 'shared' }, 'shared-2').collector,
        liveWs<RunData>(other, LIVE_RUN, { runId: 'shared' }, 'shared-3').collector,
      ];
      for (const collector of collectors) await collector.take(1);
      const { executions, shared } = fx.server.liveQueries;
      const revision = commitMarker(fx.store, 'shared', 1);
      for (const collector of collectors) await collector.until((events) => revisionOf(events.at(-1)) === revision, `revision ${revision}`);
      expect(fx.server.liveQueries.executions - executions).toBe(1);
      expect(fx.server.liveQueries.shared - shared).toBe(2);
      // The sharers tracked what the execution read: the next change reaches all three again.
      const next = commitMarker(fx.store, 'shared', 2);
      for (const collector of collectors) await collector.until((events) => revisionOf(events.at(-1)) === next, `revision ${next}`);
      expect(collectors.map((collector) => collector.events.map(revisionOf))).toEqual(Array.from({ length: 3 }, () => [revision - 1, revision, next]));
    } finally {
      await other.dispose();
    }
  });
});

describe('@live queries: access', () => {
  const TOKEN = 'live-write';
  const READ_TOKEN = 'live-read';
  let fx: TestServer;
  beforeAll(async () => {
    fx = await startTestServer({ token: TOKEN, readTokens: [READ_TOKEN] });
    await reserveRun(fx, 'access');
  });
  afterAll(async () => {
    await fx.close();
  });
  afterEach(async () => {
    await stopAll(fx);
  });

  it('a read token runs live queries (graphql-ws and SSE) and gets pushes', async () => {
    const client = wsClient(fx.url, { token: READ_TOKEN });
    try {
      const ws = liveWs<RunData>(client, LIVE_RUN, { runId: 'access' }, 'read-ws').collector;
      const sse = subscribeSse<RunData>(fx.url, LIVE_RUN, { runId: 'access' }, { authorization: `Bearer ${READ_TOKEN}` }, 'read-sse');
      running.push(sse.close);
      await ws.take(1);
      await sse.collector.take(1);
      const revision = commitMarker(fx.store, 'access', 1);
      await ws.until((events) => revisionOf(events.at(-1)) === revision, `revision ${revision}`);
      await sse.collector.until((events) => revisionOf(events.at(-1)) === revision, `revision ${revision}`);
    } finally {
      await client.dispose();
    }
  });

  it('without a token: graphql-ws closes with 4403, SSE answers 401, and nothing starts', async () => {
    const client = wsClient(fx.url, { token: 'nope' });
    try {
      const ws = liveWs<RunData>(client, LIVE_RUN, { runId: 'access' }, 'no-token-ws').collector;
      await ws.ended();
      expect(ws.error).toMatchObject({ code: 4403 });
      const sse = subscribeSse<RunData>(fx.url, LIVE_RUN, { runId: 'access' }, {}, 'no-token-sse');
      expect((await sse.response).status).toBe(401);
      expect(ws.events).toEqual([]);
      expect(fx.server.liveQueries.active).toBe(0);
    } finally {
      await client.dispose();
    }
  });
});

describe('@live queries: shutdown', () => {
  it('close() ends open live queries and releases them', async () => {
    const fx = await startTestServer();
    const client = wsClient(fx.url);
    try {
      await reserveRun(fx, 'shutdown');
      const { collector } = subscribeWs<RunData>(client, LIVE_RUN, { runId: 'shutdown' }, 'shutdown');
      await collector.take(1);
      expect(fx.server.liveQueries.active).toBe(1);
      await fx.close();
      await collector.ended();
      expect(collector.error).toMatchObject({ code: 1001 });
      await liveQueriesActive(fx.server, 0, 'the live query released at shutdown');
      expect(fx.server.liveQueries.trackedIdentifiers).toBe(0);
    } finally {
      await client.dispose();
    }
  });
});

describe('@live queries: commits of another process', () => {
  let fx: TestServer;
  let client: Client;
  let writer: ChildProcessHandle;
  beforeAll(async () => {
    fx = await startTestServer();
    await reserveRun(fx, 'live-cross');
    client = wsClient(fx.url);
    writer = await spawnReadyChild('test/children/writer.ts', [fx.dbPath, fx.dir, 'live-cross'], 'writer', 'the writer to open the store');
  });
  afterAll(async () => {
    writer.send('exit');
    expect(await writer.exited).toBe(0);
    await client.dispose();
    await fx.close();
  });
  afterEach(async () => {
    await stopAll(fx);
  });

  it('a commit by another process is pushed', async () => {
    const { collector } = liveWs<RunData>(client, LIVE_RUN, { runId: 'live-cross' });
    const [initial] = await collector.take(1);
    writer.send('one 1');
    await writer.lines.until((lines) => lines.some((line) => line.done === 1), 'the commit');
    const expected = (revisionOf(initial) as number) + 1;
    await collector.until((events) => revisionOf(events.at(-1)) === expected, `revision ${expected}`);
    expect(collector.events.map(revisionOf)).toEqual([expected - 1, expected]);
  });
});
