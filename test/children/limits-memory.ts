/**
 * Child process of test/faults/limits.test.ts's memory check, run with `--expose-gc`: the real
 * server and its HTTP client in one process, so the heap it measures holds whatever a refused
 * request leaves behind on either side, and nothing else allocates in it (a vitest worker would
 * add the runner's own allocations).
 *
 * One warm-up round of the over-limit bodies (test/helpers/limits-bodies.ts: an over-deep
 * query, 10,000 aliases, an over-costly query, a 50 MB body, a literal nested 2,400 and 10,000
 * levels), the settled heap (test/helpers/settled-heap.ts), 15 more rounds, the settled heap
 * again.
 *
 * stdout: one JSON line `{"rounds","statuses","baselineBytes","afterBytes","rssBefore","rssAfter"}`
 *   (`statuses`: the HTTP status of each request, one array per measured round)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { startServer } from '../../src/server/app.js';
import { QUERY_LIMITS } from '../../src/server/graphql/query-limits.js';
import { settledHeap } from '../helpers/settled-heap.js';
import { ALIASES_10K, COSTLY, deepLiteral, MAX_BODY_BYTES, nested } from '../helpers/limits-bodies.js';
import { testServerConfig } from '../helpers/server-config.js';

const ROUNDS = 15;
const dir = mkdtempSync(join(tmpdir(), 'pi-workflows-limits-memory-'));
const server = await startServer(testServerConfig(join(dir, 'state.db'), dir, { maxBodyBytes: MAX_BODY_BYTES }), { logger: pino({ level: 'silent' }) });

const fiftyMegabytes = JSON.stringify({
  query: 'mutation Big($input: ReserveWorkflowRunInput!) { reserveWorkflowRun(input: $input) { __typename } }',
  variables: { input: { runId: 'big-1', definition: { blob: 'x'.repeat(50 * 1024 * 1024) } } },
});
const bodies: string[] = [
  JSON.stringify({ query: nested(QUERY_LIMITS.maxDepth + 8) }),
  JSON.stringify({ query: ALIASES_10K }),
  JSON.stringify({ query: COSTLY }),
  fiftyMegabytes,
  JSON.stringify({ query: deepLiteral(2_400) }),
  JSON.stringify({ query: deepLiteral(10_000) }),
];

/** Sends every body once; returns the statuses. */
async function round(): Promise<number[]> {
  const statuses: number[] = [];
  for (const body of bodies) {
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body,
    });
    await response.arrayBuffer();
    statuses.push(response.status);
  }
  return statuses;
}

try {
  await round(); // warm-up: code paths compiled, pools allocated
  const baselineBytes = await settledHeap();
  const rssBefore = process.memoryUsage().rss;
  const statuses: number[][] = [];
  for (let index = 0; index < ROUNDS; index += 1) statuses.push(await round());
  const afterBytes = await settledHeap();
  const rssAfter = process.memoryUsage().rss;
  process.stdout.write(`${JSON.stringify({ rounds: ROUNDS, statuses, baselineBytes, afterBytes, rssBefore, rssAfter })}\n`);
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
