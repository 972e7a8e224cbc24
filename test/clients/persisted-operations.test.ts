/**
 * Persisted operations against the real server: the manifest `npm run codegen`
 * writes for `schema/operations/`, served by id over HTTP (GraphQL over HTTP's `documentId` and
 * Apollo's `extensions.persistedQuery`), yoga's SSE, graphql-sse's single-connection mode and
 * graphql-ws; `--only-persisted` refuses any other operation on every transport and changes
 * nothing; a manifest that cannot be used stops the start with a clear error.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient as createSseClient } from 'graphql-sse';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as generated from '../../schema/generated/graphql.js';
import {
  ClaimWorkflowRunDocument,
  ReserveWorkflowRunDocument,
  WorkflowRunDocument,
  WorkflowRunUpdatedDocument,
  type TypedDocumentString,
} from '../../schema/generated/graphql.js';
import { closeAfterSse, EventCollector, REPO_ROOT, subscribeSse, wsClient, type StreamResult } from '../helpers/live-fixtures.js';
import { feedWaiters } from '../helpers/server-signals.js';
import { claim, reserve, reserveInput, snapshotTables, startTestServer, type TestServer } from '../helpers/server-fixture.js';
import { parseServerConfig } from '../../src/server/config.js';
import { PERSISTED_ERRORS } from '../../src/server/ops/persisted-operations.js';

const MANIFEST = join(REPO_ROOT, 'schema', 'generated', 'persisted-documents.json');

/** The id codegen embedded in a generated document (`sha256:<hex>`). */
function idOf<TResult, TVariables>(document: TypedDocumentString<TResult, TVariables>): string {
  const hash = (document.__meta__ as { hash?: string } | undefined)?.hash;
  expect(hash, 'codegen embeds the persisted id').toMatch(/^sha256:[0-9a-f]{64}$/);
  return hash as string;
}

/** POSTs a GraphQL body as it is. */
async function post(
  fx: TestServer,
  body: Record<string, unknown>,
): Promise<{ status: number; json: { data?: unknown; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> } }> {
  const response = await fetch(fx.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as never };
}

const ARBITRARY = 'query Arbitrary { workflowRuns(first: 1) { totalCount } }';

describe('the codegen manifest', () => {
  it('holds every operation of schema/operations under the id embedded in its generated document, and each text hashes to its id', () => {
    const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8')) as Record<string, string>;
    const documents = Object.entries(generated).filter(
      ([name, value]) => name.endsWith('Document') && value instanceof generated.TypedDocumentString && /^\s*(query|mutation|subscription)/.test(String(value)),
    );
    // One document per operation written in schema/operations/*.graphql.
    const operationsDir = join(REPO_ROOT, 'schema', 'operations');
    const written = readdirSync(operationsDir)
      .filter((name) => name.endsWith('.graphql'))
      .flatMap((name) => readFileSync(join(operationsDir, name), 'utf8').match(/^(query|mutation|subscription) \w+/gm) ?? []);
    expect(written.length).toBeGreaterThanOrEqual(15);
    expect(documents.length).toBe(written.length);
    expect(Object.keys(manifest).sort()).toEqual(documents.map(([, document]) => idOf(document as TypedDocumentString<unknown, unknown>)).sort());
    for (const [id, text] of Object.entries(manifest)) expect(`sha256:${createHash('sha256').update(text).digest('hex')}`).toBe(id);
  });
});

describe('--persisted-operations', () => {
  let fx: TestServer;
  beforeAll(async () => {
    fx = await startTestServer({ persistedOperations: MANIFEST });
    await reserve(fx, reserveInput('run-1'));
    await claim(fx, 'run-1', 'token-1');
  });
  afterAll(() => fx.close());

  it('runs a persisted operation by documentId or by extensions.persistedQuery, and still any query', async () => {
    const expected = await fx.data(WorkflowRunDocument, { runId: 'run-1' });
    const byDocumentId = await post(fx, { documentId: idOf(WorkflowRunDocument), variables: { runId: 'run-1' } });
    expect(byDocumentId).toEqual({ status: 200, json: { data: expected } });
    const hex = idOf(WorkflowRunDocument).slice('sha256:'.length);
    const byApq = await post(fx, { extensions: { persistedQuery: { version: 1, sha256Hash: hex } }, variables: { runId: 'run-1' } });
    expect(byApq).toEqual({ status: 200, json: { data: expected } });
    const get = await fetch(`${fx.url}?documentId=${encodeURIComponent(idOf(WorkflowRunDocument))}&variables=${encodeURIComponent('{"runId":"run-1"}')}`, {
      headers: { accept: 'application/graphql-response+json' },
    });
    expect(await get.json()).toEqual({ data: expected });
    expect((await post(fx, { query: ARBITRARY })).json).toEqual({ data: { workflowRuns: { totalCount: 1 } } });
  });

  it('an unknown id is refused with PERSISTED_QUERY_NOT_FOUND', async () => {
    const unknown = `sha256:${'0'.repeat(64)}`;
    expect(await post(fx, { documentId: unknown })).toEqual({
      status: 400,
      json: { errors: [{ message: PERSISTED_ERRORS.notFound, extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] },
    });
  });
});

describe('--only-persisted', () => {
  let fx: TestServer;
  beforeAll(async () => {
    fx = await startTestServer({ persistedOperations: MANIFEST, onlyPersisted: true });
  });
  afterAll(() => closeAfterSse(fx));

  const refused = { errors: [{ message: PERSISTED_ERRORS.onlyPersisted, extensions: { code: 'PERSISTED_QUERY_ONLY' } }] };

  it('HTTP: refuses a query text (also a mutation, which writes nothing) and runs persisted ones', async () => {
    const before = snapshotTables(fx.store);
    expect(await post(fx, { query: ARBITRARY })).toEqual({ status: 400, json: refused });
    expect(await post(fx, { query: ReserveWorkflowRunDocument.toString(), variables: { input: reserveInput('nope') } })).toEqual({
      status: 400,
      json: refused,
    });
    expect(snapshotTables(fx.store)).toEqual(before);
    const reserved = await post(fx, { documentId: idOf(ReserveWorkflowRunDocument), variables: { input: reserveInput('run-p') } });
    expect(reserved.status).toBe(200);
    expect(reserved.json.data).toMatchObject({ reserveWorkflowRun: { __typename: 'ReserveWorkflowRunSuccess', run: { runId: 'run-p', status: 'QUEUED' } } });
  });

  it('SSE (yoga), graphql-sse single connection and graphql-ws: query texts refused, persisted subscriptions served', async () => {
    const sse = subscribeSse<unknown>(fx.url, ARBITRARY, {}, {}, 'sse arbitrary');
    expect((await sse.response).status).toBe(400);
    expect((await sse.response).text).toBe(`:\n\nevent: next\ndata: ${JSON.stringify(refused)}\n\nevent: complete\ndata:\n\n`);

    const single = createSseClient({ url: fx.url, singleConnection: true, retryAttempts: 0 });
    const ws = wsClient(fx.url);
    try {
      const results = async (subscribe: (sink: EventCollector<StreamResult<unknown>>) => void): Promise<Array<StreamResult<unknown>>> => {
        const collector = new EventCollector<StreamResult<unknown>>('once');
        subscribe(collector);
        await collector.ended();
        return collector.events.length > 0 ? collector.events : [collector.error as StreamResult<unknown>];
      };
      const sink = (collector: EventCollector<StreamResult<unknown>>) => ({
        next: (value: unknown) => collector.push(value as StreamResult<unknown>),
        error: (error: unknown) => collector.fail(error),
        complete: () => collector.complete(),
      });
      expect(await results((collector) => single.subscribe({ query: ARBITRARY }, sink(collector)))).toEqual([refused]);
      expect(await results((collector) => ws.subscribe({ query: ARBITRARY }, sink(collector)))).toEqual([refused.errors]);

      // Persisted: one subscription on each transport, all woken by one commit.
      const persisted = {
        query: '',
        variables: { runId: 'run-p' },
        extensions: { persistedQuery: { version: 1, sha256Hash: idOf(WorkflowRunUpdatedDocument).slice(7) } },
      };
      const overSingle = new EventCollector<StreamResult<unknown>>('single');
      const overWs = new EventCollector<StreamResult<unknown>>('ws');
      const stops = [single.subscribe(persisted, sink(overSingle)), ws.subscribe(persisted, sink(overWs))];
      try {
        await feedWaiters(fx.server, 2, 'graphql-sse and graphql-ws subscriptions wait on the feed');
        const sseById = await fetch(fx.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
          body: JSON.stringify({ documentId: idOf(WorkflowRunUpdatedDocument), variables: { runId: 'run-p' } }),
        });
        expect(sseById.status).toBe(200);
        await feedWaiters(fx.server, 3, 'the SSE subscription waits on the feed too');
        // Only persisted operations here: the claim goes by id too.
        const claimed = await post(fx, {
          documentId: idOf(ClaimWorkflowRunDocument),
          variables: { input: { runId: 'run-p', runnerId: 'runner-1', claimToken: 'token-p', leaseMs: 60_000 } },
        });
        expect(claimed.json.data).toMatchObject({ claimWorkflowRun: { __typename: 'ClaimWorkflowRunSuccess' } });
        await overSingle.take(1);
        await overWs.take(1);
        expect(overSingle.events[0]).toMatchObject({ data: { workflowRunUpdated: { runId: 'run-p', queueStatus: 'STARTING' } } });
        expect(overWs.events).toEqual(overSingle.events);
        await sseById.body?.cancel();
      } finally {
        for (const stop of stops) stop();
      }
    } finally {
      single.dispose();
      await ws.dispose();
    }
  });
});

describe('a manifest that cannot be used stops the start', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pi-workflows-persisted-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, content: string): string => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };
  const sha = (text: string): string => `sha256:${createHash('sha256').update(text).digest('hex')}`;

  it.each([
    ['missing.json', null, 'no such file'],
    ['not-json.json', '{', "Expected property name or '}' in JSON at position 1"],
    ['array.json', '[]', 'expected a JSON object of id → document (npm run codegen writes schema/generated/persisted-documents.json)'],
    ['bad-id.json', JSON.stringify({ abc: '{ __typename }' }), 'id "abc" is not sha256:<64 hex digits>'],
    ['wrong-hash.json', JSON.stringify({ [sha('{ a }')]: '{ __typename }' }), `the document of ${sha('{ a }')} does not hash to its id (SHA-256 of the text)`],
    [
      'other-schema.json',
      JSON.stringify({ [sha('{ nope }')]: '{ nope }' }),
      `the document of ${sha('{ nope }')} does not match this server's schema: Cannot query field "nope" on type "Query". Did you mean "node"?`,
    ],
  ])('%s', async (name, content, reason) => {
    const path = content === null ? join(dir, name) : write(name, content);
    await expect(startTestServer({ persistedOperations: path })).rejects.toThrow(`persisted operations manifest ${path}: ${reason}`);
  });

  it('the CLI: --only-persisted without a manifest is a usage error', () => {
    const written: string[] = [];
    const write = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (written.push(String(chunk)), true));
    const exit = vi.spyOn(process, 'exit').mockImplementation((code) => {
      throw new Error(`exit ${String(code)}`);
    });
    try {
      expect(() => parseServerConfig(['node', 'main', '--only-persisted'])).toThrow('exit 1');
    } finally {
      write.mockRestore();
      exit.mockRestore();
    }
    expect(written.join('')).toBe('error: --only-persisted needs --persisted-operations <manifest.json> (the operations to allow)\n');
    expect(parseServerConfig(['node', 'main', '--persisted-operations', 'm.json', '--only-persisted'])).toMatchObject({
      persistedOperations: join(process.cwd(), 'm.json'),
      onlyPersisted: true,
    });
  });
});
