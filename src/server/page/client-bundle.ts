/**
 * The typed client (`src/client/`, `pi-workflows-graphql/client`) as one browser ES module for
 * the live page, served at {@link CLIENT_BUNDLE_PATH} (docs/CLIENTS.md "The live lineage page").
 * It imports graphql-ws from the server's own copy at `/app/vendor/graphql-ws/client.js`
 * (./static-files.ts), so the page loads one graphql-ws, byte for byte the package's.
 *
 * Where it comes from:
 * - `npm run build` writes it to `dist/server/public/vendor/client.js` ({@link bundleClient}
 *   called by scripts/build.mjs): `npm run start:prod` reads that file and needs no bundler;
 * - otherwise (`npm start`, tests) it is bundled from `src/client/index.ts` at the first request
 *   and kept in memory, with the esbuild that tsx itself runs on (both development dependencies,
 *   present in a clone, where `npm start` runs through tsx; the installed package serves the built file).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The URL of the bundle; the page imports it. */
export const CLIENT_BUNDLE_PATH = '/app/vendor/client/client.js';

/** Where graphql-ws is served to the page (./static-files.ts GRAPHQL_WS_PREFIX). */
const GRAPHQL_WS_URL = '/app/vendor/graphql-ws/client.js';

/** The subset of esbuild's API used here. */
interface Esbuild {
  build(options: Record<string, unknown>): Promise<{ outputFiles: Array<{ text: string }> }>;
}

/** esbuild as tsx resolves it (tsx depends on it): the copy `npm start` already runs on. */
function loadEsbuild(): Esbuild {
  const require = createRequire(import.meta.url);
  const fromTsx = createRequire(require.resolve('tsx/package.json'));
  return fromTsx('esbuild') as Esbuild;
}

/**
 * `src/client/index.ts` of the repository, looked for in this module's folder and the folders
 * above it (src/server/page/ and dist/server/page/ both find it).
 */
function clientEntry(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'src', 'client', 'index.ts');
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * Bundles the typed client for browsers: one ES module (ES2022), graphql-ws imported from
 * {@link GRAPHQL_WS_URL}, type-only imports dropped.
 *
 * @returns the module's text
 * @throws Error when `src/client/index.ts` is not found or esbuild fails (its message)
 */
export async function bundleClient(): Promise<string> {
  const entry = clientEntry();
  if (entry === undefined) throw new Error('src/client/index.ts not found: run `npm run build` to write the page client bundle');
  const result = await loadEsbuild().build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
    legalComments: 'none',
    plugins: [
      {
        name: 'graphql-ws-from-the-server',
        setup(build: { onResolve(options: { filter: RegExp }, callback: () => { path: string; external: boolean }): void }) {
          build.onResolve({ filter: /^graphql-ws$/ }, () => ({ path: GRAPHQL_WS_URL, external: true }));
        },
      },
    ],
  });
  const text = result.outputFiles[0]?.text;
  if (text === undefined) throw new Error('esbuild wrote no output for the page client bundle');
  return text;
}

let bundled: Promise<Buffer> | undefined;

/**
 * The bundle's bytes: the file `npm run build` wrote beside the page (`publicDir/vendor/client.js`),
 * else {@link bundleClient}'s output, made once per process (a failure is not kept: the next
 * request tries again).
 *
 * @throws Error as {@link bundleClient}
 */
export function clientBundle(publicDir: string): Promise<Buffer> {
  const built = join(publicDir, 'vendor', 'client.js');
  if (existsSync(built)) return Promise.resolve(readFileSync(built));
  bundled ??= bundleClient().then(
    (text) => Buffer.from(text),
    (error: unknown) => {
      bundled = undefined;
      throw error;
    },
  );
  return bundled;
}
