/**
 * graphql.config.yml as an IDE extension reads it (graphql-config, the loader of the VS Code and
 * JetBrains GraphQL extensions and of @graphql-eslint; docs/IDE.md): its default endpoint is
 * where `npm start` listens, its token comes from the variable the server reads for --token,
 * and with it an IDE's request and WebSocket reach a server started with that token.
 */
import { loadConfig } from 'graphql-config';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { parseServerConfig } from '../../src/server/config.js';
import { REPO_ROOT } from '../helpers/live-fixtures.js';
import { reserve, reserveInput, startTestServer, type TestServer } from '../helpers/server-fixture.js';

interface Endpoint {
  url: string;
  headers?: Record<string, string>;
  subscription?: { url: string; connectionParams?: Record<string, string> };
}

const TOKEN = 'ide-token';

/** Runs `read` with PI_WORKFLOWS_TOKEN set to `value` (the other server variables unset), then restores them. */
async function withEnv<T>(value: string, read: () => Promise<T> | T): Promise<T> {
  const names = ['PI_WORKFLOWS_TOKEN', 'PORT', 'HOST'];
  const saved = names.map((name) => process.env[name]);
  for (const name of names) delete process.env[name];
  process.env.PI_WORKFLOWS_TOKEN = value;
  try {
    return await read();
  } finally {
    names.forEach((name, index) => {
      if (saved[index] === undefined) delete process.env[name];
      else process.env[name] = saved[index];
    });
  }
}

async function loadEndpoints(): Promise<{ endpoints: Record<string, Endpoint>; schema: unknown; documents: unknown; sdl: string }> {
  const config = await loadConfig({ rootDir: REPO_ROOT, extensions: [() => ({ name: 'endpoints' })], throwOnMissing: true });
  const project = config?.getDefault();
  if (project === undefined) throw new Error('graphql.config.yml has no default project');
  return {
    endpoints: project.extension('endpoints') as Record<string, Endpoint>,
    schema: project.schema,
    documents: project.documents,
    sdl: await project.getSchema('string'),
  };
}

describe('graphql.config.yml', () => {
  let fx: TestServer;
  beforeAll(async () => {
    fx = await startTestServer({ token: TOKEN });
    await reserve(fx, reserveInput('ide-run'));
  });
  afterAll(async () => {
    await fx.close();
  });

  it('keeps the schema and documents @graphql-eslint lints with; the default endpoint is npm start with the --token variable', async () => {
    const { endpoints, schema, documents, sdl } = await withEnv(TOKEN, loadEndpoints);
    expect(schema).toBe('schema/schema.graphql');
    expect(documents).toBe('schema/operations/**/*.graphql');
    expect(sdl).toContain('type Subscription {');
    const { host, port, token } = await withEnv(TOKEN, () => parseServerConfig(['node', 'main.ts']));
    expect(token).toBe(TOKEN);
    expect(endpoints.default).toEqual({
      url: `http://${host}:${port}/graphql`,
      headers: { Authorization: `Bearer ${token}` },
      subscription: { url: `ws://${host}:${port}/graphql`, connectionParams: { authorization: `Bearer ${token}` } },
    });
    expect(endpoints.demo).toEqual({ url: 'http://127.0.0.1:4100/graphql', subscription: { url: 'ws://127.0.0.1:4100/graphql' } });
  });

  it("an IDE's query (its headers) and subscription (its connectionParams) reach a server with that token", async () => {
    const { endpoints } = await withEnv(TOKEN, loadEndpoints);
    const endpoint = endpoints.default as Endpoint;
    const onTestServer = (url: string): string => url.replace(/:4000\//, `:${fx.port}/`);
    const response = await fetch(onTestServer(endpoint.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...endpoint.headers },
      body: JSON.stringify({ query: '{ workflowRun(runId: "ide-run") { runId } }' }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: { workflowRun: { runId: 'ide-run' } } });

    const client = createClient({
      url: onTestServer(endpoint.subscription?.url ?? ''),
      webSocketImpl: WebSocket,
      connectionParams: endpoint.subscription?.connectionParams,
      retryAttempts: 0,
    });
    try {
      const events = client.iterate({ query: 'subscription { workflowRunDeltas(runId: "ide-run", afterRevision: 0) { __typename } }' });
      const first = await events.next();
      expect(first.value).toEqual({ data: { workflowRunDeltas: { __typename: 'ViewerSnapshotRequired' } } });
      await events.return?.();
    } finally {
      await client.dispose();
    }
  });
});
