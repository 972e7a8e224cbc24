/**
 * Request limits (API.md "Access"): query depth and aliases are bounded and refused before
 * anything runs (no SQL statement); a body over maxBodyBytes gets 413.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUERY_LIMITS } from '../../src/server/app.js';
import { reserve, reserveInput, startTestServer, type TestServer } from '../helpers/server-fixture.js';

const MAX_BODY_BYTES = 4_096;

describe('limits', () => {
  let fx: TestServer;
  beforeAll(async () => {
    fx = await startTestServer({ maxBodyBytes: MAX_BODY_BYTES });
    await reserve(fx, reserveInput('run-1'));
  });
  afterAll(async () => {
    await fx.close();
  });

  /** `workflowRun { parent { parent { … runId } } }` with a total depth of `depth`. */
  function nested(depth: number): string {
    let selection = 'runId';
    for (let level = 0; level < depth - 2; level += 1) selection = `parent { ${selection} }`;
    return `query Deep { workflowRun(runId: "run-1") { ${selection} } }`;
  }

  async function refusedBeforeRunning(query: string) {
    fx.store.database.resetStatementCount();
    const response = await fx.gql(query);
    expect(fx.store.database.statementCount).toBe(0);
    expect(response.data).toBeUndefined();
    return response;
  }

  it(`accepts a query of depth ${QUERY_LIMITS.maxDepth}`, async () => {
    expect(QUERY_LIMITS.maxDepth).toBe(12);
    const response = await fx.gql(nested(12));
    expect(response.status).toBe(200);
    expect(response.errors).toBeUndefined();
    expect(response.data).toEqual({ workflowRun: { parent: null } });
  });

  it('refuses an over-deep query with a 400 and an error about depth', async () => {
    const response = await refusedBeforeRunning(nested(13));
    expect(response.status).toBe(400);
    expect(response.errors).toEqual([
      expect.objectContaining({
        message: 'Syntax Error: Query depth limit of 12 exceeded, found 13.',
        extensions: expect.objectContaining({ code: 'GRAPHQL_VALIDATION_FAILED' }),
      }),
    ]);
    expect(response.errors?.[0]?.message).toMatch(/depth/);
  });

  it('refuses too many aliases with a 400', async () => {
    const aliases = (count: number) => Array.from({ length: count }, (_, index) => `a${index}: runId`).join(' ');
    const ok = await fx.gql(`{ workflowRun(runId: "run-1") { ${aliases(QUERY_LIMITS.maxAliases)} } }`);
    expect(ok.errors).toBeUndefined();
    const response = await refusedBeforeRunning(`{ workflowRun(runId: "run-1") { ${aliases(31)} } }`);
    expect(response.status).toBe(400);
    expect(response.errors).toEqual([
      expect.objectContaining({
        message: 'Syntax Error: Aliases limit of 30 exceeded, found 31.',
        extensions: expect.objectContaining({ code: 'GRAPHQL_VALIDATION_FAILED' }),
      }),
    ]);
  });

  it('refuses a query whose cost is over the limit with a 400', async () => {
    const selection = 'edges { node { children { children { children { runId workflowName status queueStatus } } } } }';
    const fields = Array.from({ length: 20 }, (_, index) => `a${index}: workflowRuns(first: 100) { ${selection} }`).join(' ');
    const response = await refusedBeforeRunning(`{ ${fields} }`);
    expect(response.status).toBe(400);
    expect(response.errors?.[0]?.message).toMatch(/^Syntax Error: Query Cost limit of 20000 exceeded, found \d+\.$/);
  });

  it('answers 413 to a body over maxBodyBytes, without running it', async () => {
    fx.store.database.resetStatementCount();
    const response = await fx.gql('{ workflowRuns { totalCount } }', { padding: 'x'.repeat(MAX_BODY_BYTES) });
    expect(response.status).toBe(413);
    expect(response.errors?.[0]?.message).toBe(`Request body larger than ${MAX_BODY_BYTES} bytes`);
    expect(fx.store.database.statementCount).toBe(0);
    // A body just under the limit still runs.
    const fits = await fx.gql('{ workflowRuns { totalCount } }', { padding: 'x'.repeat(MAX_BODY_BYTES - 200) });
    expect(fits.status).toBe(200);
  });

  it('refuses a POST without Content-Length (a chunked body cannot slip past the size limit)', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(JSON.stringify({ query: '{ workflowRuns { totalCount } }', variables: { p: 'x'.repeat(MAX_BODY_BYTES) } })));
        controller.close();
      },
    });
    const response = await fetch(fx.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit & { duplex: 'half' });
    expect(response.status).toBe(411);
    expect(await response.json()).toEqual({ errors: [{ message: 'POST requests need a Content-Length header' }] });
  });
});
