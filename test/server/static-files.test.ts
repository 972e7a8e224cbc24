/**
 * The live page's graphql-ws client comes from the installed package, served by the server
 * itself: no CDN, no build step. Only the ES modules beside the package's
 * declared browser entry are served, and no path leaves that directory.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, print, separateOperations } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server-fixture.js';

const manifestPath = createRequire(import.meta.url).resolve('graphql-ws/package.json');
const CLIENT_FILE = join(dirname(manifestPath), 'dist', 'client.js');

/** GET `path` exactly as written (fetch would normalise `..` before sending). */
function rawGet(base: string, path: string): Promise<{ status: number; type: string | undefined; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method: 'GET' }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, type: response.headers['content-type'], body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** The relative module specifiers a file imports or re-exports (`from './x.js'`). */
const relativeImports = (source: string): string[] => [...source.matchAll(/from\s*['"]\.\/([^'"]+)['"]/g)].map((match) => match[1] as string);

describe('the graphql-ws browser client at /app/vendor/graphql-ws/', () => {
  let fx: TestServer;
  let base: string;
  beforeAll(async () => {
    fx = await startTestServer();
    base = fx.url.replace(/\/graphql$/, '');
  });
  afterAll(async () => {
    await fx.close();
  });

  it('the page imports the client from there', () => {
    const app = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'server', 'public', 'connection.js'), 'utf8');
    expect(app).toContain("import { createClient } from '/app/vendor/graphql-ws/client.js';");
    expect(app).not.toContain('graphql-transport-ws');
  });

  it("client.js is the package's browser build, byte for byte, with the page's headers; so is every module it imports", async () => {
    const client = await rawGet(base, '/app/vendor/graphql-ws/client.js');
    expect(client.status).toBe(200);
    expect(client.type).toBe('text/javascript; charset=utf-8');
    expect(client.body).toBe(readFileSync(CLIENT_FILE, 'utf8'));
    const imports = relativeImports(client.body);
    expect(imports.length).toBeGreaterThan(0);
    for (const name of imports) {
      const chunk = await rawGet(base, `/app/vendor/graphql-ws/${name}`);
      expect(chunk.status, name).toBe(200);
      expect(chunk.body, name).toBe(readFileSync(join(dirname(CLIENT_FILE), name), 'utf8'));
      expect(
        relativeImports(chunk.body).every((nested) => imports.includes(nested)),
        `${name} imports nothing else`,
      ).toBe(true);
    }
  });

  it.each([
    '/app/vendor/graphql-ws/../../../package.json',
    '/app/vendor/graphql-ws/..%2F..%2Fpackage.json',
    '/app/vendor/graphql-ws/use/ws.js',
    '/app/vendor/graphql-ws/client.d.ts',
    '/app/vendor/graphql-ws/client.cjs',
    '/app/vendor/graphql-ws/missing.js',
    '/app/vendor/graphql-ws/',
    '/app/vendor/other/client.js',
  ])('%s: 404, nothing else is served', async (path) => {
    const response = await rawGet(base, path);
    expect(response.status).toBe(404);
    expect(response.body).toBe('Not found\n');
  });
});

describe('the client operation documents at /app/operations/', () => {
  let fx: TestServer;
  let base: string;
  beforeAll(async () => {
    fx = await startTestServer();
    base = fx.url.replace(/\/graphql$/, '');
  });
  afterAll(async () => {
    await fx.close();
  });

  it('live-page.graphql is schema/operations/live-page.graphql, byte for byte; the page loads it', async () => {
    const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
    const response = await rawGet(base, '/app/operations/live-page.graphql');
    expect(response.status).toBe(200);
    expect(response.type).toBe('application/graphql; charset=utf-8');
    expect(response.body).toBe(readFileSync(join(root, 'schema', 'operations', 'live-page.graphql'), 'utf8'));
  });

  it('live-page.json is live-page.graphql split per operation (graphql-js separateOperations); the page loads it', async () => {
    const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
    const response = await rawGet(base, '/app/operations/live-page.json');
    expect(response.status).toBe(200);
    expect(response.type).toBe('application/json; charset=utf-8');
    const document = parse(readFileSync(join(root, 'schema', 'operations', 'live-page.graphql'), 'utf8'));
    expect(JSON.parse(response.body)).toEqual(Object.fromEntries(Object.entries(separateOperations(document)).map(([name, doc]) => [name, print(doc)])));
    const session = readFileSync(join(root, 'src', 'server', 'public', 'session.js'), 'utf8');
    expect(session).toContain("'/app/operations/live-page.json'");
  });

  it.each([
    '/app/operations/../schema.graphql',
    '/app/operations/..%2Fschema.graphql',
    '/app/operations/missing.graphql',
    '/app/operations/missing.json',
    '/app/operations/../package.json',
    '/app/operations/sub/live-page.json',
    '/app/operations/live-page.js',
    '/app/operations/',
    '/app/operations/sub/live-page.graphql',
  ])('%s: 404', async (path) => {
    const response = await rawGet(base, path);
    expect(response.status).toBe(404);
    expect(response.body).toBe('Not found\n');
  });
});
