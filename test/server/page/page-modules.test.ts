/**
 * The live page's modules (src/server/public/*.js) as the browser gets them: starting from
 * index.html's script, every module the page imports is served with the page's JavaScript type,
 * every module of the directory is part of the page, and each one is type-checked
 * (`// @ts-check` first; `npm run typecheck` checks them with tsconfig.page.json).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.js';

const PUBLIC_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'src', 'server', 'public');
const MODULES = readdirSync(PUBLIC_DIR).filter((name) => name.endsWith('.js'));

/** The `/app/…` specifiers a module imports statically (`from '/app/x.js'`). */
const pageImports = (source: string): string[] => [...source.matchAll(/from\s*'(\/app\/[^']+)'/g)].map((match) => match[1] as string);

describe('the live page modules at /app/', () => {
  let fx: TestServer;
  let base: string;
  beforeAll(async () => {
    fx = await startTestServer();
    base = fx.url.replace(/\/graphql$/, '');
  });
  afterAll(async () => {
    await fx.close();
  });

  it('every module reached from index.html is served as JavaScript, byte for byte; together they are every module of the directory', async () => {
    const html = await (await fetch(`${base}/`)).text();
    const entries = [...html.matchAll(/<script type="module" src="([^"]+)"><\/script>/g)].map((match) => match[1] as string);
    expect(entries).toEqual(['/app/app.js']);
    const seen = new Set<string>();
    const queue = [...entries];
    while (queue.length > 0) {
      const path = queue.shift() as string;
      if (seen.has(path)) continue;
      seen.add(path);
      if (path.startsWith('/app/vendor/')) continue; // the typed client's bundle, the graphql-ws package (test/server/static-files.test.ts)
      const response = await fetch(`${base}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toBe('text/javascript; charset=utf-8');
      const body = await response.text();
      expect(body, path).toBe(readFileSync(join(PUBLIC_DIR, path.slice('/app/'.length)), 'utf8'));
      queue.push(...pageImports(body));
    }
    const own = [...seen].filter((path) => !path.startsWith('/app/vendor/')).map((path) => path.slice('/app/'.length));
    expect(own.sort()).toEqual([...MODULES].sort());
    expect([...seen].filter((path) => path.startsWith('/app/vendor/'))).toEqual(['/app/vendor/client/client.js']);
  });

  it.each(MODULES)('%s starts with // @ts-check', (name) => {
    expect(readFileSync(join(PUBLIC_DIR, name), 'utf8').split('\n')[0]).toBe('// @ts-check');
  });
});
