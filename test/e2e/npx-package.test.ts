/**
 * The npm package as a user gets it (README "For Pi users", docs/OPERATIONS.md "Installing from
 * npm"): `npm pack` of this working tree, the tarball installed into an empty folder without the
 * network, then
 * - the bin: `npx pi-workflows-graphql --pi` on a pi-workflows state file at its default place
 *   under a temporary home, `npx pi-workflows-graphql` on the embedded default (created under the
 *   working directory, as `npm start` does), both queried over HTTP; `--help`, the page, GraphiQL,
 *   `/mcp` and a graphql-ws subscription; the exact errors of `--pi` without a file and of `--pi`
 *   with `--db`;
 * - the typed client as a dependency: `pi-workflows-graphql/client` type-checked by tsc and run
 *   by Node as an ES module against the server, and bundled by esbuild for the browser with
 *   nothing of the server in the bundle; publint and are-the-types-wrong on the tarball.
 *
 * How it installs offline (docs/TESTING.md "The package test"):
 * - The package is packed from a copy of the sources (node_modules linked), so its `prepack`
 *   build writes the copy's dist/, never the checkout's that other tests may be reading.
 * - An install of a tarball resolves its dependencies' version ranges from registry metadata,
 *   which `--offline` cannot fetch, and npm ignores the shrinkwrap inside a local tarball (it
 *   honours it only for a package from the registry). So the folder gets a lock file made from
 *   the tarball's own `npm-shrinkwrap.json`, its entries placed under
 *   `node_modules/pi-workflows-graphql/` exactly where npm puts a registry package's
 *   shrinkwrapped dependencies, with their registry tarball URLs: `npm ci --offline` then takes
 *   every tarball from npm's cache, where the checkout's own `npm ci` of the same lock put them.
 * - better-sqlite3's install script downloads a prebuilt binary from GitHub (unreachable here)
 *   or compiles SQLite (minutes on 2 cores): the install runs with `--ignore-scripts` and the
 *   checkout's own build (`node_modules/better-sqlite3/build/Release/better_sqlite3.node`, the
 *   same version, built for the Node running this test) is copied in. Real users get the
 *   prebuilt binary.
 *
 * Servers listen on 127.0.0.1 only; every wait is on the process's output or its exit.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { build } from 'esbuild';
import type { Client } from 'graphql-ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildReferenceFile, REFERENCE_RUN_IDS } from '../../fixtures/pi-workflows-reference-file.js';
import { REPO_ROOT } from '../helpers/live-fixtures.js';
import { databaseClosedCleanly, npmCommand, openSubscriber, spawnService, type ServiceProcess } from '../helpers/service-process.js';

const execFileAsync = promisify(execFile);

/** execFile, promised; a failure's message carries the command's stdout and stderr. */
async function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; maxBuffer?: number } = {}) {
  try {
    return await execFileAsync(command, args, { maxBuffer: 16 * 1024 * 1024, ...options });
  } catch (error) {
    const failed = error as Error & { stdout?: string; stderr?: string };
    failed.message = `${failed.message}\n${failed.stdout ?? ''}${failed.stderr ?? ''}`;
    throw failed;
  }
}
const require = createRequire(import.meta.url);

/** What the package is packed from: everything `npm pack` and its `prepack` build read. */
const SOURCES = [
  'package.json',
  'package-lock.json',
  'README.md',
  'tsconfig.json',
  'tsconfig.build.json',
  'tsconfig.client.json',
  'scripts',
  'src',
  'schema',
  'migrations',
  'docs',
];

/** The package's name, its folder in the consumer's node_modules, and its bin. */
const NAME = 'pi-workflows-graphql';

/** One entry of a lock file's `packages`. */
interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
  [key: string]: unknown;
}

/** The environment of `npm` run by the test: the parent `npm test`'s own `npm_*` settings left out. */
function npmEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith('npm_')));
  return { ...env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', ...extra };
}

/** Runs npm (the one running this test, else npm on PATH) in `cwd`; resolves with its stdout. */
async function npm(args: string[], cwd: string, env: NodeJS.ProcessEnv = npmEnv()): Promise<string> {
  const command = npmCommand();
  const { stdout } = await run(command.command, [...command.prefix, ...args], { cwd, env, maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/** The registry tarball URL of a lock entry at `path` (`node_modules/@scope/name`, possibly nested). */
function tarballUrl(path: string, version: string): string {
  const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
  return `https://registry.npmjs.org/${name}/-/${name.split('/').pop() ?? name}-${version}.tgz`;
}

/** A lock entry with its registry tarball URL, so no registry metadata is needed to fetch it. */
function withTarballUrl(path: string, entry: LockEntry): LockEntry {
  return entry.link === true || entry.version === undefined ? entry : { ...entry, resolved: tarballUrl(path, entry.version) };
}

/**
 * The consumer's package.json dependencies: the tarball, and `ws` at the shrinkwrap's version
 * (a Node 20 project gives the typed client its WebSocket class: docs/IDE.md "The typed client").
 */
function consumerDependencies(tarball: string, shrinkwrap: { packages: Record<string, LockEntry> }): Record<string, string> {
  return { [NAME]: `file:${tarball}`, ws: String(shrinkwrap.packages['node_modules/ws']?.version) };
}

/**
 * The consumer's lock file: the root depends on the tarball (and `ws`), and the tarball's
 * shrinkwrap entries sit under `node_modules/pi-workflows-graphql/`, as npm places a
 * shrinkwrapped package's tree.
 */
function consumerLock(tarball: string, integrity: string, shrinkwrap: { packages: Record<string, LockEntry> }): unknown {
  const { '': root, ...entries } = shrinkwrap.packages;
  const { devDependencies: _dev, ...manifest } = root as LockEntry;
  const packages: Record<string, unknown> = {
    '': { name: 'app', version: '1.0.0', dependencies: consumerDependencies(tarball, shrinkwrap) },
    [`node_modules/${NAME}`]: { ...manifest, resolved: `file:${tarball}`, integrity },
    'node_modules/ws': withTarballUrl('node_modules/ws', entries['node_modules/ws'] as LockEntry),
  };
  for (const [path, entry] of Object.entries(entries)) packages[`node_modules/${NAME}/${path}`] = withTarballUrl(path, entry);
  return { name: 'app', version: '1.0.0', lockfileVersion: 3, requires: true, packages };
}

/** The packed and installed package, made once for the whole file. */
interface Installed {
  dir: string;
  /** The consumer folder: package.json, the lock file and node_modules. */
  app: string;
  /** `node_modules/pi-workflows-graphql` in {@link app}. */
  packageDir: string;
  tarball: string;
  /** `npm pack --json`'s report of the tarball. */
  packed: { files: Array<{ path: string }>; size: number; unpackedSize: number; entryCount: number };
  /** A home directory of its own for the servers (`--pi` reads `~/.pi/agent/workflows/state.sqlite`). */
  home: string;
}

let installed: Installed;
/** The temporary folder of this file's run, removed after it even when `beforeAll` failed. */
let tempDir: string | undefined;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pi-workflows-npx-'));
  tempDir = dir;
  const source = join(dir, 'source');
  for (const path of SOURCES) cpSync(join(REPO_ROOT, path), join(source, path), { recursive: true });
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(source, 'node_modules'), 'dir');
  const [packed] = JSON.parse(await npm(['pack', '--json', '--pack-destination', dir], source)) as [
    Installed['packed'] & { filename: string; integrity: string },
  ];
  const tarball = join(dir, packed.filename);

  const app = join(dir, 'app');
  mkdirSync(app);
  const shrinkwrap = JSON.parse((await run('tar', ['-xOzf', tarball, 'package/npm-shrinkwrap.json'], { maxBuffer: 16 * 1024 * 1024 })).stdout) as {
    packages: Record<string, LockEntry>;
  };
  writeFileSync(
    join(app, 'package.json'),
    `${JSON.stringify({ name: 'app', version: '1.0.0', private: true, type: 'module', dependencies: consumerDependencies(tarball, shrinkwrap) }, null, 2)}\n`,
  );
  writeFileSync(join(app, 'package-lock.json'), `${JSON.stringify(consumerLock(tarball, packed.integrity, shrinkwrap), null, 2)}\n`);
  await npm(['ci', '--offline', '--ignore-scripts'], app);

  const packageDir = join(app, 'node_modules', NAME);
  // better-sqlite3: the checkout's build for this Node (see the file's comment).
  const ownSqlite = dirname(require.resolve('better-sqlite3/package.json'));
  const theirSqlite = join(packageDir, 'node_modules', 'better-sqlite3');
  expect(JSON.parse(readFileSync(join(theirSqlite, 'package.json'), 'utf8')).version).toBe(
    JSON.parse(readFileSync(join(ownSqlite, 'package.json'), 'utf8')).version,
  );
  mkdirSync(join(theirSqlite, 'build', 'Release'), { recursive: true });
  copyFileSync(join(ownSqlite, 'build', 'Release', 'better_sqlite3.node'), join(theirSqlite, 'build', 'Release', 'better_sqlite3.node'));

  const home = join(dir, 'home');
  mkdirSync(home);
  installed = { dir, app, packageDir, tarball, packed, home };
}, 240_000);

afterAll(() => {
  if (tempDir !== undefined) rmSync(tempDir, { recursive: true, force: true });
});

/** Runs `npx pi-workflows-graphql <args>` in `cwd` to its end; never rejects. */
async function npxRun(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(npmCommand().command, [...npmCommand().prefix, 'exec', '--offline', '--', NAME, ...args], {
      cwd,
      env: npmEnv({ HOME: installed.home }),
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/**
 * Starts `npx pi-workflows-graphql <args>` in `cwd` (in or under the consumer folder, where npx
 * finds the installed bin), or with `direct` the installed bin itself
 * (`node_modules/.bin/pi-workflows-graphql`, as a service manager runs it).
 */
function startBin(args: string[], cwd: string, direct = false): ServiceProcess {
  const env = npmEnv({ HOME: installed.home });
  if (direct) return spawnService(join(installed.app, 'node_modules', '.bin', NAME), args, { cwd, env, label: NAME });
  const command = npmCommand();
  return spawnService(command.command, [...command.prefix, 'exec', '--offline', '--', NAME, ...args], { cwd, env, label: 'npx' });
}

/** POSTs a GraphQL request and returns its JSON answer. */
async function graphql(url: string, query: string, variables: Record<string, unknown> = {}): Promise<unknown> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
  return response.json();
}

describe('the packed package', () => {
  it('holds what runs, and the shrinkwrap of the runtime dependencies; publint and are-the-types-wrong find no problem', async () => {
    const paths = installed.packed.files.map((file) => file.path);
    const tops = [...new Set(paths.map((path) => (path.includes('/') ? `${path.slice(0, path.indexOf('/'))}/` : path)))].sort();
    expect(tops).toEqual(['README.md', 'dist/', 'docs/', 'migrations/', 'npm-shrinkwrap.json', 'package.json', 'schema/']);
    expect(paths.filter((path) => path.startsWith('schema/')).sort()).toEqual(
      [
        'schema/schema.graphql',
        ...['fragments', 'live-page', 'mcp', 'mutations', 'queries', 'subscriptions'].map((name) => `schema/operations/${name}.graphql`),
      ].sort(),
    );
    for (const path of [
      'dist/server/main.js',
      'dist/client/src/client/index.js',
      'dist/client/src/client/index.d.ts',
      'dist/server/public/vendor/client.js',
      'migrations/0001_state_store.sql',
    ]) {
      expect(paths, path).toContain(path);
    }
    expect(readFileSync(join(installed.packageDir, 'dist/server/main.js'), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    const manifest = JSON.parse(readFileSync(join(installed.packageDir, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.private).toBeUndefined();
    expect(manifest.bin).toEqual({ [NAME]: 'dist/server/main.js' });
    const shrinkwrap = JSON.parse(readFileSync(join(installed.packageDir, 'npm-shrinkwrap.json'), 'utf8')) as { packages: Record<string, LockEntry> };
    const locked = Object.keys(shrinkwrap.packages);
    for (const name of ['tsx', 'vitest', 'typescript', 'esbuild', '@envelop/live-query']) expect(locked, name).not.toContain(`node_modules/${name}`);
    expect(locked).toContain('node_modules/better-sqlite3');

    const publintCli = join(dirname(require.resolve('publint')), 'cli.js');
    const publint = await run(process.execPath, [publintCli, 'run', '--strict', installed.tarball], { cwd: installed.dir });
    expect(publint.stdout).toContain('All good!');
    // The package is ESM only (the client is `import`-only): the esm-only profile leaves out the
    // node10 and CommonJS resolutions, which cannot load it by design.
    const attw = join(dirname(require.resolve('@arethetypeswrong/cli/package.json')), 'dist', 'index.js');
    const types = await run(process.execPath, [attw, installed.tarball, '--profile', 'esm-only', '--format', 'json'], {
      cwd: installed.dir,
      maxBuffer: 16 * 1024 * 1024,
    });
    // attw exits 1 on a problem of the profile (run() rejects then); the JSON lists the ignored ones too.
    const { problems } = (JSON.parse(types.stdout) as { analysis: { problems: Array<{ kind: string; resolutionKind: string }> } }).analysis;
    expect(problems.filter((problem) => !['node10', 'node16-cjs'].includes(problem.resolutionKind))).toEqual([]);
  });
});

describe('npx pi-workflows-graphql', () => {
  let service: ServiceProcess | undefined;
  let client: Client | undefined;
  // After each test: a server a failed test left running is killed with its process group.
  afterEach(async () => {
    service?.kill();
    service = undefined;
    await client?.dispose();
    client = undefined;
  });

  it('--help lists --pi with the file it serves; --pi without a file and --pi with --db are one-line errors (exit 1)', async () => {
    const piFile = join(installed.home, '.pi', 'agent', 'workflows', 'state.sqlite');
    const help = await npxRun(['--help'], installed.app);
    expect(help.code).toBe(0);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      `--pi serve your pi-workflows state file where pi-workflows keeps it (${piFile}); it must exist; not with --db`,
    );
    expect(help.stdout).toContain('npx pi-workflows-graphql --pi\n');

    const missing = await npxRun(['--pi'], installed.app);
    expect(missing).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: --pi: no pi-workflows state file at ${piFile} (pi-workflows creates it on its first run; --db <path> names another file)\n`,
    });
    const both = await npxRun(['--pi', '--db', 'other.db'], installed.app);
    expect(both).toEqual({ code: 1, stdout: '', stderr: `error: --pi and --db both name the database: use one (--pi is --db ${piFile})\n` });
  });

  it('--pi serves the pi-workflows state file at ~/.pi/agent/workflows/state.sqlite (the installed bin run directly; SIGTERM stops it)', async () => {
    const piFile = join(installed.home, '.pi', 'agent', 'workflows', 'state.sqlite');
    mkdirSync(dirname(piFile), { recursive: true });
    buildReferenceFile(piFile);
    service = startBin(['--pi', '--port', '0', '--workers', '1'], installed.app, true);
    const url = await service.listening();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/graphql$/);
    expect(service.lines.events.find((line) => line.msg === 'listening')).toMatchObject({
      database: piFile,
      runs: REFERENCE_RUN_IDS.length,
      kind: 'pi-workflows',
    });
    const runs = (await graphql(url, '{ workflowRuns(first: 20) { totalCount edges { node { runId } } } }')) as {
      data: { workflowRuns: { totalCount: number; edges: Array<{ node: { runId: string } }> } };
    };
    expect(runs.data.workflowRuns.totalCount).toBe(REFERENCE_RUN_IDS.length);
    expect(runs.data.workflowRuns.edges.map((edge) => edge.node.runId).sort()).toEqual([...REFERENCE_RUN_IDS].sort());
    expect(await service.stop('SIGTERM'), service.describe()).toBe(0);
    expect(service.lines.events.map((line) => line.msg)).toContain('database closed, bye');
    service = undefined;
  });

  it('with no option serves the embedded default under the working directory, as npm start does: page, GraphiQL, /mcp, a subscription, the typed client from Node', async () => {
    const cwd = join(installed.app, 'work');
    mkdirSync(cwd);
    const dbPath = join(cwd, 'data', 'pi-workflows.db');
    service = startBin(['--port', '0', '--workers', '1'], cwd);
    const url = await service.listening();
    const base = url.replace(/\/graphql$/, '');
    expect(service.lines.events.find((line) => line.msg === 'listening')).toMatchObject({ database: dbPath, runs: 0, kind: 'own' });

    const page = await fetch(`${base}/`);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('<script');
    for (const path of ['/app/vendor/client/client.js', '/app/vendor/graphql-ws/client.js', '/app/operations/live-page.graphql']) {
      expect((await fetch(`${base}${path}`)).status, path).toBe(200);
    }
    expect(Object.keys(await (await fetch(`${base}/app/operations/live-page.json`)).json())).toContain('LivePageRuns');
    const graphiql = await fetch(url, { headers: { accept: 'text/html' } });
    expect(graphiql.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await graphiql.text()).toContain('<title>pi-workflows GraphQL</title>');

    const mcp = new McpClient({ name: 'npx-package-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL('/mcp', base)));
    expect((await mcp.listTools()).tools.map((tool) => tool.name)).toContain('inspect_run');
    await mcp.close();

    // The typed client, imported by Node from the installed package (type-checked by tsc first).
    // A Node project's own devDependencies @types/node and @types/ws: the checkout's, linked in.
    mkdirSync(join(installed.app, 'node_modules', '@types'), { recursive: true });
    for (const name of ['node', 'ws']) symlinkSync(join(REPO_ROOT, 'node_modules', '@types', name), join(installed.app, 'node_modules', '@types', name), 'dir');
    writeFileSync(
      join(installed.app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2023', 'DOM'],
          strict: true,
          skipLibCheck: false,
          types: ['node', 'ws'],
        },
        files: ['node-check.ts'],
      }),
    );
    writeFileSync(
      join(installed.app, 'node-check.ts'),
      [
        "import { createWorkflowClient, ReserveWorkflowRunDocument, WorkflowRunDocument, type WorkflowRunQuery } from 'pi-workflows-graphql/client';",
        "import WebSocket from 'ws';",
        'const client = createWorkflowClient({ url: process.argv[2] as string, webSocketImpl: WebSocket });',
        "const input = { runId: 'run-npx', workflowName: 'npx', workflowRef: 'workflows/npx.ts', definition: { name: 'npx', steps: [] }, input: {}, originSessionId: 'session-npx' };",
        'const reserved = await client.mutate(ReserveWorkflowRunDocument, { input });',
        "const found: WorkflowRunQuery = await client.query(WorkflowRunDocument, { runId: 'run-npx' });",
        'const status: string | undefined = found.workflowRun?.status;',
        '// @ts-expect-error the result is typed: no such field',
        'void found.workflowRun?.noSuchField;',
        'console.log(JSON.stringify({ reserved: reserved.reserveWorkflowRun.__typename, status }));',
        'await client.close();',
        '',
      ].join('\n'),
    );
    await run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: installed.app });
    const fromNode = await run(process.execPath, ['node-check.js', url], { cwd: installed.app });
    expect(JSON.parse(fromNode.stdout)).toEqual({ reserved: 'ReserveWorkflowRunSuccess', status: 'QUEUED' });

    const subscriber = await openSubscriber(url, 'run-npx-subscriber');
    client = subscriber.client;
    // Ctrl-C in the terminal npx runs in: SIGINT to the whole process group (npm, its shell and
    // the server). The server closes cleanly; npm then ends by SIGINT itself, as a program
    // interrupted in a terminal does. SIGTERM to npm alone would not reach the server: npm exec
    // runs the bin through `sh -c`, which passes no signal on (a service manager runs the bin
    // itself, as above).
    expect(await service.stopGroup('SIGINT'), service.describe()).toBe('SIGINT');
    expect(service.lines.events.map((line) => line.msg)).toContain('database closed, bye');
    expect(await subscriber.ended()).toMatchObject({ code: 1001 });
    expect(databaseClosedCleanly(dbPath)).toBe(true);
    expect(service.stderr()).toContain(`  Database:  ${dbPath} (0 runs)\n  New file:  no file was at ${dbPath}, so a new, empty database was created there\n`);
    service = undefined;
  });
});

describe('pi-workflows-graphql/client in a browser bundle', () => {
  it('esbuild bundles the installed client for the browser with graphql-ws and nothing of the server', async () => {
    writeFileSync(
      join(installed.app, 'browser.ts'),
      [
        "import { createWorkflowClient, WorkflowRunsDocument } from 'pi-workflows-graphql/client';",
        "const client = createWorkflowClient({ url: '/graphql' });",
        'export const firstRuns = () => client.query(WorkflowRunsDocument, { first: 10 });',
        'export const watch = (runId: string) => client.watchRun(runId, { onEvent: () => undefined });',
        '',
      ].join('\n'),
    );
    const bundled = await build({
      absWorkingDir: installed.app,
      entryPoints: ['browser.ts'],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    // What the bundle is made of: the inputs with bytes in the output (esbuild also reads modules
    // it then drops, such as graphql-ws's server half and the graphql it imports).
    const [output] = Object.values(bundled.metafile.outputs);
    const inputs = Object.entries(output?.inputs ?? {})
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([path]) => path);
    const packageOf = (path: string) => /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1] ?? path;
    expect([...new Set(inputs.map(packageOf))].sort()).toEqual(['browser.ts', 'graphql-ws', NAME]);
    const own = inputs.filter((path) => packageOf(path) === NAME);
    expect(own.length).toBeGreaterThan(0);
    expect(own.filter((path) => !path.startsWith(`node_modules/${NAME}/dist/client/`))).toEqual([]);
    const text = bundled.outputFiles[0]?.text ?? '';
    expect(text).not.toMatch(/\brequire\(|from ["']node:|better-sqlite3|graphql-yoga/);
  });
});
