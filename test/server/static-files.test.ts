/**
 * The live page's client comes from the server itself: the typed client (src/client/) bundled
 * for browsers at /app/vendor/client/client.js (by `npm run build`, else at the first request),
 * which imports the installed graphql-ws package's browser build at /app/vendor/graphql-ws/: no
 * CDN. Only the ES modules beside the package's declared browser entry are served, and no path
 * leaves that directory.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, print, separateOperations } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_BUNDLE_PATH, clientBundle } from '../../src/server/page/client-bundle.js';
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

  it('the page imports the typed client, whose bundle imports graphql-ws from there; the page has no graphql-ws client of its own', async () => {
    const publicDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'server', 'public');
    const connection = readFileSync(join(publicDir, 'connection.js'), 'utf8');
    expect(connection).toContain("import { createWorkflowClient } from '/app/vendor/client/client.js';");
    for (const name of ['app.js', 'connection.js', 'graphql-http.js', 'chain-list.js', 'chain-tree.js', 'run-panel.js', 'url-selection.js']) {
      expect(readFileSync(join(publicDir, name), 'utf8'), name).not.toContain('/app/vendor/graphql-ws/client.js');
    }
    const bundle = await rawGet(base, CLIENT_BUNDLE_PATH);
    expect([...bundle.body.matchAll(/^import .* from "([^"]+)";$/gm)].map((match) => match[1])).toEqual(['/app/vendor/graphql-ws/client.js']);
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

describe('the typed client bundle at /app/vendor/client/client.js', () => {
  let fx: TestServer;
  let base: string;
  beforeAll(async () => {
    fx = await startTestServer();
    base = fx.url.replace(/\/graphql$/, '');
  });
  afterAll(async () => {
    await fx.close();
  });

  it('is an ES module exporting the client, with the page headers; the same bytes twice (bundled once)', async () => {
    const { hostname, port } = new URL(base);
    const first = await new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
      const req = request({ hostname, port, path: CLIENT_BUNDLE_PATH, method: 'GET' }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(first.headers['cache-control']).toBe('no-cache');
    expect(String(first.headers['content-security-policy'])).toContain("script-src 'self'");
    expect(first.body).toMatch(/^export \{[^}]*\bcreateWorkflowClient\b[^}]*\};?$/m);
    expect(first.body).not.toMatch(/from "node:/);
    const second = await rawGet(base, CLIENT_BUNDLE_PATH);
    expect(second.body).toBe(first.body);
  });

  it.each(['/app/vendor/client/', '/app/vendor/client/index.js', '/app/vendor/client/../client.js'])('%s: 404', async (path) => {
    const response = await rawGet(base, path);
    expect(response.status).toBe(404);
  });

  it('a bundle written by `npm run build` beside the page (vendor/client.js) is served as it is, with no bundler', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'client-bundle-'));
    try {
      mkdirSync(join(dir, 'vendor'));
      writeFileSync(join(dir, 'vendor', 'client.js'), 'export const built = 1;\n');
      expect((await clientBundle(dir)).toString('utf8')).toBe('export const built = 1;\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
