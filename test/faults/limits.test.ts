/**
 * Limits under abuse, beyond test/graphql/limits.test.ts: requests far past every
 * limit — 10,000 aliases, a 50 MB variable, a value literal nested thousands of levels deep,
 * over-deep / over-costly documents — are refused before anything runs (no SQL statement) with
 * a clear error, over HTTP and over graphql-ws (where the socket and its other subscriptions
 * survive), and a bounded loop of them leaves the server's memory where it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUERY_LIMITS } from '../../src/server/graphql/query-limits.js';
import { postGraphQL, type RawResponse } from '../helpers/fault-fixtures.js';
import { ALIASES_10K, COSTLY, deepLiteral, MAX_BODY_BYTES, nested } from '../helpers/limits-bodies.js';
import { commitMarker, DELTAS_SUBSCRIPTION, openRawWs, spawnTsChild, untilRevision, type DeltasData } from '../helpers/live-fixtures.js';
import { reserve, reserveInput, startTestServer, type TestServer } from '../helpers/server-fixture.js';

/** The memory check's child process (see its module comment). */
const MEMORY_CHILD = 'test/children/limits-memory.ts';

describe('limits under abuse', () => {
  let fx: TestServer;
  /** A 50 MB variable, built once. */
  let fiftyMegabytes: string;

  beforeAll(async () => {
    fx = await startTestServer();
    await reserve(fx, reserveInput('run-1'));
    fiftyMegabytes = JSON.stringify({
      query: 'mutation Big($input: ReserveWorkflowRunInput!) { reserveWorkflowRun(input: $input) { __typename } }',
      variables: { input: { ...reserveInput('big-1'), definition: { blob: 'x'.repeat(50 * 1024 * 1024) } } },
    });
  });
  afterAll(async () => {
    await fx?.close();
  });

  /** Sends `body`; expects a refusal that ran no SQL statement and wrote nothing. */
  async function refused(body: unknown): Promise<RawResponse> {
    fx.store.resetStatementCount();
    const runs = fx.store.countWorkflowRuns();
    fx.store.resetStatementCount();
    const response = await postGraphQL(fx.url, body);
    expect(fx.store.statementCount, response.text.slice(0, 300)).toBe(0);
    expect(response.body?.data ?? undefined).toBeUndefined();
    expect(response.text).not.toContain('Unexpected error');
    expect(fx.store.countWorkflowRuns()).toBe(runs);
    return response;
  }

  const cases: Array<{ name: string; body: () => unknown; status: number; message: RegExp }> = [
    {
      name: 'an over-deep query',
      body: () => ({ query: nested(QUERY_LIMITS.maxDepth + 8) }),
      status: 400,
      message: /^Query depth 20 exceeds the maximum of 12 by 8\.$/,
    },
    {
      name: '10,000 aliases',
      body: () => ({ query: ALIASES_10K }),
      status: 400,
      message: /^Document has more than the maximum of 5000 tokens\.$/,
    },
    {
      name: 'an over-costly query',
      body: () => ({ query: COSTLY }),
      status: 400,
      message: /^Query cost \d+ exceeds the maximum of 20000 by \d+\.$/,
    },
    {
      name: 'a 50 MB variable',
      body: () => fiftyMegabytes,
      status: 413,
      message: new RegExp(`^Request body larger than ${MAX_BODY_BYTES} bytes$`),
    },
    {
      name: 'a value literal nested 2,400 levels deep (under the token limit)',
      body: () => ({ query: deepLiteral(2_400) }),
      status: 400,
      message: /^Syntax Error: Document is nested too deeply\.$/,
    },
  ];

  for (const { name, body, status, message } of cases) {
    it(`refuses ${name} before running it: HTTP ${status}, a clear message`, async () => {
      const response = await refused(body());
      expect(response.status, response.text.slice(0, 300)).toBe(status);
      expect(response.body?.errors?.[0]?.message).toMatch(message);
    });
  }

  it('over graphql-ws: each over-limit subscription gets its own error; the socket and its live subscription go on', async () => {
    const raw = await openRawWs(fx.url);
    try {
      await raw.initAndAck();
      const live = raw.subscribe<DeltasData>('live', DELTAS_SUBSCRIPTION, { runId: 'run-1' });
      const refusedStreams: Array<[ReturnType<typeof raw.subscribe>, RegExp]> = [
        [
          raw.subscribe('deep', nested(QUERY_LIMITS.maxDepth + 1, 'subscription').replace('workflowRun(runId: "run-1")', 'workflowRunUpdated(runId: "run-1")')),
          /^Query depth 13 exceeds the maximum of 12 by 1\.$/,
        ],
        [
          raw.subscribe(
            'aliases',
            `subscription { ${Array.from({ length: 10_000 }, (_, index) => `a${index}: workflowRunUpdated(runId: "run-1") { runId }`).join(' ')} }`,
          ),
          /^Document has more than the maximum of 5000 tokens\.$/,
        ],
        [raw.subscribe('syntax', 'subscription { workflowRunUpdated(runId: "run-1" '), /^Syntax Error: .{10,}/],
        [
          raw.subscribe(
            'literal',
            `subscription { workflowRunDeltas(runId: "run-1", afterRevision: ${'['.repeat(2_400)}${']'.repeat(2_400)}) { __typename } }`,
          ),
          /^Syntax Error: Document is nested too deeply\.$/,
        ],
      ];
      for (const [stream, message] of refusedStreams) {
        await stream.ended();
        expect(stream.error, stream.label).toEqual([expect.objectContaining({ message: expect.stringMatching(message) })]);
      }
      const revision = commitMarker(fx.store, 'run-1', 1);
      await untilRevision(live, revision);
      expect(raw.ws.readyState).toBe(raw.ws.OPEN);
    } finally {
      raw.ws.close();
      await raw.closed;
    }
  });

  it('over graphql-ws: a 50 MB message closes that socket with 1009 (message too big)', async () => {
    const raw = await openRawWs(fx.url);
    await raw.initAndAck();
    raw.ws.send(JSON.stringify({ id: 'big', type: 'subscribe', payload: { query: 'subscription { x }', variables: { big: 'x'.repeat(50 * 1024 * 1024) } } }));
    expect((await raw.closed).code).toBe(1009);
  });

  it('keeps memory steady over a bounded loop of refused requests', { timeout: 180_000 }, async () => {
    // Measured in a child started with --expose-gc (test/children/limits-memory.ts): its own
    // server and client, settled heaps (forced collections), nothing else allocating in that
    // process.
    const child = spawnTsChild(MEMORY_CHILD, [], 'limits-memory', ['--expose-gc']);
    try {
      const [line] = await child.lines.take(1, 170_000);
      expect(await child.exited, child.stderr()).toBe(0);
      const figures = line as { rounds: number; statuses: number[][]; baselineBytes: number; afterBytes: number; rssBefore: number; rssAfter: number };
      // Every request of every round refused with its own status.
      expect(figures.rounds).toBe(15);
      for (const statuses of figures.statuses) expect(statuses).toEqual([...cases.map((entry) => entry.status), 400]);
      const growth = (figures.afterBytes - figures.baselineBytes) / 1024 / 1024;
      const rssGrowth = (figures.rssAfter - figures.rssBefore) / 1024 / 1024;
      console.info(
        `limits: ${15 * figures.statuses[0]!.length} refused requests (15 × 50 MB bodies); settled heapUsed ${(figures.baselineBytes / 1048576).toFixed(1)} → ` +
          `${(figures.afterBytes / 1048576).toFixed(1)} MB, rss ${(figures.rssBefore / 1048576).toFixed(1)} → ${(figures.rssAfter / 1048576).toFixed(1)} MB`,
      );
      // 15 rounds pushed 750 MB of bodies through; what stays must be a small fraction of one
      // body: a bound of half a body (25 MB) is wide against noise (a settled heap in a quiet
      // child moves by well under 1 MB) yet any retained 50 MB body breaks it.
      expect(growth).toBeLessThan(25);
      // RSS (the allocator may keep freed pages): four bodies' worth, so a leak of every round's
      // body (15 × 50 MB) fails it while allocator slack does not.
      expect(rssGrowth).toBeLessThan(200);
    } finally {
      child.kill();
    }
  });
});
