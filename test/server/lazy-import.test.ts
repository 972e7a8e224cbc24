/**
 * What the server loads when first needed (src/server/ops/lazy-import.ts): importing the server
 * loads neither the MCP SDK, nor the GraphiQL bundle, nor the trace SDK and its OTLP exporters;
 * concurrent first uses share one import; a failed import is an error naming the package, tried
 * again on the next use.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import { lazyImport } from '../../src/server/ops/lazy-import.js';
import { TSX_IMPORT } from '../helpers/service-process.js';

/** Packages the server imports only when a request (or tracing) needs them. */
const LAZY_PACKAGES = [
  '@modelcontextprotocol/sdk',
  '@graphql-yoga/render-graphiql',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/exporter-trace-otlp-proto',
  '@opentelemetry/sdk-trace-base',
];

/** A loader hook that appends every module URL Node loads to the file `$LOADED_LOG` (written synchronously: nothing is lost when the process exits). */
const RECORDING_HOOKS = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.LOADED_LOG, url + '\\n');
  return next(url, context);
}`;

/** The package names (`@scope/name` or `name`) of the node_modules files a fresh Node process loads when it imports `module`. */
function packagesLoadedBy(module: string): Set<string> {
  const dir = mkdtempSync(join(tmpdir(), 'lazy-import-'));
  try {
    const log = join(dir, 'loaded.log');
    const script = [
      "import { register } from 'node:module';",
      `register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(RECORDING_HOOKS)}`)});`,
      `await import(${JSON.stringify(pathToFileURL(resolve(module)).href)});`,
      'process.exit(0);',
    ].join('\n');
    const child = spawnSync(process.execPath, ['--import', TSX_IMPORT, '--input-type=module', '-e', script], {
      env: { ...process.env, LOADED_LOG: log },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(child.stderr).not.toMatch(/Error/);
    expect(child.status).toBe(0);
    const packages = new Set<string>();
    for (const url of readFileSync(log, 'utf8').split('\n')) {
      const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
      if (match?.[1] !== undefined) packages.add(match[1]);
    }
    return packages;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('lazy imports', () => {
  test('importing the server loads none of the packages a request or tracing loads when first needed', () => {
    const loaded = packagesLoadedBy('src/server/app.ts');
    // The recording sees the server's eager packages (so an empty list would not pass unnoticed).
    expect(loaded).toContain('graphql-yoga');
    expect(loaded).toContain('better-sqlite3');
    expect(LAZY_PACKAGES.filter((name) => loaded.has(name))).toEqual([]);
  });

  test('concurrent first calls share one import; later calls get the loaded value without importing again', async () => {
    let imports = 0;
    const load = lazyImport('a module', async () => {
      imports += 1;
      await new Promise((resolve) => setTimeout(resolve, 10));
      return { value: 42 };
    });
    const [first, second] = [load(), load()];
    expect(second).toBe(first);
    expect(await first).toEqual({ value: 42 });
    expect(await load()).toBe(await first);
    expect(imports).toBe(1);
  });

  test('a failed import rejects with an error naming the module, with the cause; the next call imports again', async () => {
    let imports = 0;
    const cause = new Error("Cannot find package 'missing-package'");
    const load = lazyImport('the missing module (missing-package)', async () => {
      imports += 1;
      if (imports === 1) throw cause;
      return 'loaded';
    });
    const failed = await load().catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(Error);
    expect((failed as Error).message).toBe("the missing module (missing-package) could not be loaded: Cannot find package 'missing-package'");
    expect((failed as Error).cause).toBe(cause);
    expect(await load()).toBe('loaded');
    expect(imports).toBe(2);
  });

  test('a real package that does not exist: the error names it', async () => {
    const missing = 'pi-workflows-graphql-no-such-package';
    const load = lazyImport(`the test package (${missing})`, () => import(/* @vite-ignore */ missing));
    await expect(load()).rejects.toThrow(`the test package (${missing}) could not be loaded: `);
  });
});
