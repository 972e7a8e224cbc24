/**
 * Request limits (docs/GRAPHQL-CONTRACT.md "Access"): query depth and aliases are bounded and refused before
 * anything runs (no SQL statement); a body over maxBodyBytes gets 413.
 */
import { describe, expect } from 'vitest';
import { QUERY_LIMITS } from '../../src/server/graphql/query-limits.js';
import { reserve, reserveInput, snapshotTables, type TestServer } from '../helpers/server-fixture.js';
import { serverTest } from '../helpers/server-test.js';

const MAX_BODY_BYTES = 4_096;
/** This file's server: a small body limit. */
const it = serverTest.extend('serverOptions', { scope: 'file' }, { maxBodyBytes: MAX_BODY_BYTES });

describe('limits', () => {
  it.beforeAll(async ({ fx }) => {
    await reserve(fx, reserveInput('run-1'));
  });

  /** `workflowRun { parent { parent { … runId } } }` with a total depth of `depth`. */
  function nested(depth: number): string {
    let selection = 'runId';
    for (let level = 0; level < depth - 2; level += 1) selection = `parent { ${selection} }`;
    return `query Deep { workflowRun(runId: "run-1") { ${selection} } }`;
  }

  async function refusedBeforeRunning(fx: TestServer, query: string) {
    fx.store.resetStatementCount();
    const response = await fx.gql(query);
    expect(fx.store.statementCount).toBe(0);
    expect(response.data).toBeUndefined();
    return response;
  }

  it(`accepts a query of depth ${QUERY_LIMITS.maxDepth}`, async ({ fx }) => {
    expect(QUERY_LIMITS.maxDepth).toBe(12);
    const response = await fx.gql(nested(12));
    expect(response.status).toBe(200);
    expect(response.errors).toBeUndefined();
    expect(response.data).toEqual({ workflowRun: { parent: null } });
  });

  it('refuses an over-deep query with a 400 and an error about depth', async ({ fx }) => {
    const response = await refusedBeforeRunning(fx, nested(13));
    expect(response.status).toBe(400);
    expect(response.errors).toEqual([
      expect.objectContaining({
        message: 'Query depth 13 exceeds the maximum of 12 by 1.',
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: { name: 'maxDepth', maximum: 12, found: 13 } },
      }),
    ]);
  });

  it('refuses too many aliases with a 400', async ({ fx }) => {
    const aliases = (count: number) => Array.from({ length: count }, (_, index) => `a${index}: runId`).join(' ');
    const ok = await fx.gql(`{ workflowRun(runId: "run-1") { ${aliases(QUERY_LIMITS.maxAliases)} } }`);
    expect(ok.errors).toBeUndefined();
    const response = await refusedBeforeRunning(fx, `{ workflowRun(runId: "run-1") { ${aliases(31)} } }`);
    expect(response.status).toBe(400);
    expect(response.errors).toEqual([
      expect.objectContaining({
        message: 'Aliases 31 exceeds the maximum of 30 by 1.',
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: { name: 'maxAliases', maximum: 30, found: 31 } },
      }),
    ]);
  });

  it('refuses a query whose cost is over the limit with a 400', async ({ fx }) => {
    const selection = 'edges { node { children { children { children { runId workflowName status queueStatus } } } } }';
    const fields = Array.from({ length: 20 }, (_, index) => `a${index}: workflowRuns(first: 100) { ${selection} }`).join(' ');
    const response = await refusedBeforeRunning(fx, `{ ${fields} }`);
    expect(response.status).toBe(400);
    const [error] = response.errors ?? [];
    const found = (error?.extensions?.limit as { found?: number } | undefined)?.found as number;
    expect(found).toBeGreaterThan(20_000);
    expect(error).toEqual({
      message: `Query cost ${found} exceeds the maximum of 20000 by ${found - 20_000}.`,
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: { name: 'maxCost', maximum: 20_000, found } },
    });
  });

  /** `count` aliased `claimWorkflowRun` fields, each claiming its own run `claimable-<n>`. */
  function claims(count: number): string {
    const fields = Array.from(
      { length: count },
      (_, index) =>
        `c${index}: claimWorkflowRun(input: { runId: "claimable-${index}", runnerId: "runner-1", claimToken: "t-${index}", leaseMs: 60000 }) { __typename }`,
    );
    return `mutation Claims { ${fields.join(' ')} }`;
  }

  it(`refuses a mutation with more than ${QUERY_LIMITS.maxMutationFields} root fields: 15 claims run nothing and write nothing`, async ({ fx }) => {
    expect(QUERY_LIMITS.maxMutationFields).toBe(5);
    for (let index = 0; index < 15; index += 1) {
      await reserve(fx, reserveInput(`claimable-${index}`, { originSessionId: `claimer-session-${index}` }));
    }
    const before = snapshotTables(fx.store);
    const response = await refusedBeforeRunning(fx, claims(15));
    expect(response.status).toBe(400);
    expect(response.errors).toEqual([
      {
        message: 'Mutation root fields 15 exceeds the maximum of 5 by 10.',
        locations: [{ line: 1, column: 1 }],
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: { name: 'maxMutationFields', maximum: 5, found: 15 } },
      },
    ]);
    expect(snapshotTables(fx.store)).toEqual(before);
    expect((await fx.store.getWorkflowRuns(['claimable-0', 'claimable-14'])).map((run) => run?.claim)).toEqual([null, null]);
  });

  it('counts root fields through fragments, and not __typename', async ({ fx }) => {
    const field = (index: number) =>
      `n${index}: claimWorkflowRun(input: { runnerId: "runner-1", claimToken: "t", leaseMs: 1000, sessionId: "nobody" }) { __typename }`;
    // Five fields and __typename: accepted, and they run.
    const five = await fx.gql(`mutation Five { __typename ${[0, 1, 2, 3, 4].map(field).join(' ')} }`);
    expect(five.status).toBe(200);
    expect(five.errors).toBeUndefined();
    expect(Object.keys(five.data as object)).toEqual(['__typename', 'n0', 'n1', 'n2', 'n3', 'n4']);
    // Six, split over a fragment and an inline fragment: refused.
    const response = await refusedBeforeRunning(
      fx,
      `mutation Six { ...Three ... on Mutation { ${[3, 4, 5].map(field).join(' ')} } } fragment Three on Mutation { ${[0, 1, 2].map(field).join(' ')} }`,
    );
    expect(response.status).toBe(400);
    expect(response.errors?.map((error) => error.message)).toEqual(['Mutation root fields 6 exceeds the maximum of 5 by 1.']);
  });

  it('refuses too many directives with the limit named, not as a syntax error', async ({ fx }) => {
    const directives = Array.from({ length: QUERY_LIMITS.maxDirectives + 1 }, () => 'runId @include(if: true)').join(' ');
    const response = await refusedBeforeRunning(fx, `{ workflowRun(runId: "run-1") { ${directives} } }`);
    expect(response.status).toBe(400);
    expect(response.errors).toEqual([
      expect.objectContaining({
        message: 'Directives 51 exceeds the maximum of 50 by 1.',
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: { name: 'maxDirectives', maximum: 50, found: 51 } },
      }),
    ]);
  });

  it('answers 413 to a body over maxBodyBytes, without running it', async ({ fx }) => {
    fx.store.resetStatementCount();
    const response = await fx.gql('{ workflowRuns { totalCount } }', { padding: 'x'.repeat(MAX_BODY_BYTES) });
    expect(response.status).toBe(413);
    expect(response.errors?.[0]?.message).toBe(`Request body larger than ${MAX_BODY_BYTES} bytes`);
    expect(fx.store.statementCount).toBe(0);
    // A body just under the limit still runs.
    const fits = await fx.gql('{ workflowRuns { totalCount } }', { padding: 'x'.repeat(MAX_BODY_BYTES - 200) });
    expect(fits.status).toBe(200);
  });

  it('a chunked POST (no Content-Length, e.g. fetch with a stream body) counts against the same limit', async ({ fx }) => {
    const send = (padding: number) =>
      fetch(fx.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(JSON.stringify({ query: '{ workflowRuns { totalCount } }', variables: { p: 'x'.repeat(padding) } })));
            controller.close();
          },
        }),
        duplex: 'half',
      } as RequestInit & { duplex: 'half' });
    fx.store.resetStatementCount();
    const over = await send(MAX_BODY_BYTES);
    expect(over.status).toBe(413);
    expect(await over.json()).toEqual({ errors: [{ message: `Request body larger than ${MAX_BODY_BYTES} bytes` }] });
    expect(fx.store.statementCount).toBe(0);
    const fits = await send(MAX_BODY_BYTES - 200);
    expect(fits.status).toBe(200);
    expect(await fits.json()).toEqual({ data: { workflowRuns: { totalCount: expect.any(Number) } } });
  });
});
