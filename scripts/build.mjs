/**
 * `npm run build`: compiles `src/` into `dist/` (tsconfig.build.json; the typed client
 * `src/client/` into `dist/client/` with declarations, tsconfig.client.json) and copies the live
 * page's files (`src/server/public/`, plus `schema/operations/` as `public/operations/`) beside
 * the compiled server, with the typed client bundled for the page (`public/vendor/client.js`), so `npm run start:prod`
 * (plain `node dist/server/main.js`, no tsx) serves everything `npm start` serves.
 * `dist/` is emptied first: nothing stale from a renamed or deleted source survives.
 * Plain JavaScript on purpose: it runs with `node` alone. Exits with tsc's status on a type error.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);
// The typed client (`pi-workflows-graphql/client`, package.json "exports"): src/client/ and the
// generated documents it imports, with declarations, into dist/client/ (tsconfig.client.json;
// no Node types, so a Node-only API in the client is a build error).
const client = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.client.json')], { stdio: 'inherit' });
if (client.status !== 0) process.exit(client.status ?? 1);
cpSync(join(root, 'src', 'server', 'public'), join(dist, 'server', 'public'), { recursive: true });
// The page loads its GraphQL operations as text (src/server/page/static-files.ts OPERATIONS_DIR).
cpSync(join(root, 'schema', 'operations'), join(dist, 'server', 'public', 'operations'), { recursive: true });
// The page's client: src/client/ bundled for browsers (src/server/page/client-bundle.ts), so
// start:prod serves it without a bundler.
const { bundleClient } = await import(pathToFileURL(join(dist, 'server', 'page', 'client-bundle.js')).href);
mkdirSync(join(dist, 'server', 'public', 'vendor'), { recursive: true });
writeFileSync(join(dist, 'server', 'public', 'vendor', 'client.js'), await bundleClient());
// On stderr: `npm pack --json` (whose prepack runs this build) keeps stdout for its JSON.
process.stderr.write(`built ${dist} (server, schema, store, the live page and the typed client)\n`);
