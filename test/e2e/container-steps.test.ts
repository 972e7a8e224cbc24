/**
 * The production image's steps (deploy/Dockerfile), carried out here: no container engine runs
 * on this machine, so the test reads the Dockerfile and performs each stage's instructions
 * itself, with the image's paths (`/app`, `/data`, `/home/node`) mapped under a temporary
 * directory and the runtime command run as the image's non-root user (uid/gid 1000, through
 * `setpriv`, when the test runs as root).
 *
 * Two steps are not run verbatim, and the test says why:
 * - `apt-get install` of the compiler toolchain: this machine runs the image's distribution
 *   (Debian bookworm); the test checks the tools are there instead of installing them.
 * - `npm ci`: the checkout's node_modules were installed by `npm ci` from the same lock file
 *   on the same platform; they are hard-linked in (a second install compiles better-sqlite3
 *   for minutes). Every later step — `npm run build`, `npm prune --omit=dev`, the copies into
 *   the runtime stage, `mkdir`/`chown` of the volume — runs as written.
 *
 * Then the container command (`npm run --silent start:prod`) serves GraphQL, the live page's
 * files and /health; the HEALTHCHECK command passes; SIGTERM (`docker stop`) and SIGINT to the
 * process stop it cleanly: the graphql-ws subscriber gets a close, the database is closed.
 */
import { execFile } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';
import { promisify } from 'node:util';
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerignore, parseDockerfile, type Instruction, type Stage } from '../helpers/dockerfile-steps.js';
import { REPO_ROOT } from '../helpers/live-fixtures.js';
import { databaseClosedCleanly, freePort, openSubscriber, spawnService, stillAnswering, type ServiceProcess } from '../helpers/service-process.js';

const run = promisify(execFile);
const DOCKERFILE = join(REPO_ROOT, 'deploy', 'Dockerfile');
const SYSTEMD_UNIT = join(REPO_ROOT, 'deploy', 'pi-workflows-graphql.service');

/** The `[Service]` section of a systemd unit: every key's values in order (`Environment` repeats). */
function serviceSection(path: string): Map<string, string[]> {
  const keys = new Map<string, string[]>();
  let section = '';
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const header = /^\[(.+)\]$/.exec(trimmed);
    if (header !== null) {
      section = header[1] as string;
      continue;
    }
    if (section !== 'Service') continue;
    const at = trimmed.indexOf('=');
    const key = trimmed.slice(0, at);
    keys.set(key, [...(keys.get(key) ?? []), trimmed.slice(at + 1)]);
  }
  return keys;
}
const IS_ROOT = process.getuid?.() === 0;
/** The official node images' `node` user. */
const NODE_USER = { uid: 1000, gid: 1000 };
/** Tools the build stage's `apt-get install` provides, by package. */
const TOOL_OF_PACKAGE: Record<string, string> = { python3: 'python3', make: 'make', 'g++': 'g++' };

/** The filesystem of one stage, under the temporary root. */
interface StageState {
  stage: Stage;
  root: string;
  workdir: string;
  env: Record<string, string>;
  user: string;
  healthcheck?: Extract<Instruction, { kind: 'HEALTHCHECK' }>;
  cmd?: string[];
}

/** Hard-links `source` at `dest`; false when they are on different file systems (then copy). */
function linkOrCopy(source: string, dest: string): boolean {
  try {
    linkSync(source, dest);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EXDEV') return false;
    throw error;
  }
}

/**
 * Copies a tree; `link` hard-links files instead (never for files a later step may rewrite).
 * The top of the copy is followed when it is a symlink (a worktree's `node_modules` linked to
 * another checkout's): copied as a link, the image's `npm prune --omit=dev` would prune the
 * other checkout's packages. Links inside the tree stay links.
 */
function copyTree(source: string, dest: string, options: { link?: boolean; exclude?: (path: string) => boolean; base?: string } = {}): void {
  const base = options.base ?? source;
  const stats = source === base ? statSync(source) : lstatSync(source);
  if (options.exclude?.(relative(base, source).split('\\').join('/')) === true && source !== base) return;
  if (stats.isSymbolicLink()) {
    symlinkSync(readlinkSync(source), dest);
  } else if (stats.isDirectory()) {
    mkdirSync(dest, { recursive: true, mode: stats.mode & 0o7777 });
    for (const entry of readdirSync(source)) copyTree(join(source, entry), join(dest, entry), { ...options, base });
  } else if (options.link === true && basename(source) !== '.package-lock.json' && linkOrCopy(source, dest)) {
    // hard-linked
  } else {
    copyFileSync(source, dest);
    chmodSync(dest, stats.mode & 0o7777);
  }
}

describe('the production image (deploy/Dockerfile), its steps run here', () => {
  const top = mkdtempSync(join(tmpdir(), 'pi-workflows-image-'));
  chmodSync(top, 0o755); // the image's user must reach its files
  const stages = parseDockerfile(DOCKERFILE);
  const runtimeStage = stages.at(-1) as Stage;
  const states = new Map<string, StageState>();
  /** The image's absolute directories that the test maps under a stage's root. */
  const imageRoots = [
    ...new Set(stages.flatMap((stage) => stage.instructions.flatMap((i) => (i.kind === 'WORKDIR' ? [i.path] : i.kind === 'VOLUME' ? i.paths : [])))),
    '/home/node',
  ];
  const runtimeUser = IS_ROOT ? NODE_USER : { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
  let service: ServiceProcess | undefined;
  let client: Client | undefined;
  const timings: Record<string, number> = {};

  const mapPath = (state: StageState, path: string) => (isAbsolute(path) ? join(state.root, path) : join(state.root, state.workdir, path));
  /** Rewrites the image's absolute paths and the `node` user in a shell command. */
  const mapCommand = (state: StageState, command: string) => {
    let mapped = command.replace(/\bnode:node\b/g, `${runtimeUser.uid}:${runtimeUser.gid}`);
    for (const root of imageRoots) mapped = mapped.replace(new RegExp(`(^|[\\s='"])${root}(?=[/\\s'"]|$)`, 'g'), `$1${join(state.root, root)}`);
    return mapped;
  };
  const mappedEnv = (state: StageState) =>
    Object.fromEntries(Object.entries(state.env).map(([key, value]) => [key, value.startsWith('/') ? mapPath(state, value) : value]));

  async function runStep(state: StageState, command: string): Promise<void> {
    const install = /^apt-get update && apt-get install -y --no-install-recommends ([^&]+) && rm -rf \/var\/lib\/apt\/lists\/\*$/.exec(command);
    if (install !== null) {
      for (const pkg of (install[1] as string).trim().split(/\s+/)) {
        const tool = TOOL_OF_PACKAGE[pkg];
        expect(tool, `the test does not know what package ${pkg} provides`).toBeDefined();
        await run('sh', ['-c', `command -v ${tool}`]);
      }
      return;
    }
    if (/^npm ci\b/.test(command)) {
      expect(readFileSync(mapPath(state, 'package-lock.json'), 'utf8')).toBe(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8'));
      copyTree(join(REPO_ROOT, 'node_modules'), mapPath(state, 'node_modules'), { link: true });
      return;
    }
    const started = performance.now();
    await run('sh', ['-c', mapCommand(state, command)], {
      cwd: mapPath(state, '.'),
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? top, ...mappedEnv(state) },
      maxBuffer: 64 * 1024 * 1024,
    });
    timings[command] = Math.round(performance.now() - started);
  }

  beforeAll(async () => {
    const context = dockerignore(join(REPO_ROOT, '.dockerignore'));
    for (const stage of stages) {
      const state: StageState = { stage, root: join(top, stage.name), workdir: '/', env: {}, user: 'root' };
      states.set(stage.name, state);
      mkdirSync(state.root, { recursive: true });
      for (const instruction of stage.instructions) {
        switch (instruction.kind) {
          case 'WORKDIR':
            state.workdir = instruction.path;
            mkdirSync(mapPath(state, '.'), { recursive: true });
            break;
          case 'COPY': {
            const from = instruction.from === null ? undefined : states.get(instruction.from);
            if (instruction.from !== null && from === undefined) throw new Error(`COPY --from=${instruction.from}: no such stage`);
            const into = instruction.dest.endsWith('/') || instruction.sources.length > 1;
            for (const source of instruction.sources) {
              const path = from === undefined ? join(REPO_ROOT, source) : join(from.root, source);
              const dest = into ? join(mapPath(state, instruction.dest), basename(path)) : mapPath(state, instruction.dest);
              if (statSync(path).isDirectory()) {
                copyTree(path, dest, { link: basename(path) === 'node_modules', ...(from === undefined ? { exclude: context } : {}) });
              } else {
                mkdirSync(dirname(dest), { recursive: true });
                copyTree(path, dest);
              }
            }
            break;
          }
          case 'RUN':
            await runStep(state, instruction.command);
            break;
          case 'ENV':
            Object.assign(state.env, instruction.values);
            break;
          case 'USER':
            state.user = instruction.user;
            break;
          case 'HEALTHCHECK':
            state.healthcheck = instruction;
            break;
          case 'CMD':
            state.cmd = instruction.command;
            break;
          case 'VOLUME':
          case 'EXPOSE':
            break;
        }
      }
    }
    const runtime = states.get(runtimeStage.name) as StageState;
    const home = mapPath(runtime, '/home/node');
    mkdirSync(home, { recursive: true });
    if (IS_ROOT) chownSync(home, runtimeUser.uid, runtimeUser.gid);
  }, 300_000);

  afterAll(async () => {
    service?.kill();
    await client?.dispose();
    rmSync(top, { recursive: true, force: true });
  });

  /** Starts the runtime stage's CMD as its user, on 127.0.0.1:port (`docker run -e HOST -e PORT`). */
  function startContainer(port: number, extraEnv: Record<string, string> = {}): { service: ServiceProcess; env: Record<string, string>; user: string[] } {
    const runtime = states.get(runtimeStage.name) as StageState;
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: mapPath(runtime, '/home/node'),
      ...mappedEnv(runtime),
      HOST: '127.0.0.1',
      PORT: String(port),
      ...extraEnv,
    };
    const user = IS_ROOT && runtime.user === 'node' ? ['setpriv', `--reuid=${NODE_USER.uid}`, `--regid=${NODE_USER.gid}`, '--clear-groups', '--'] : [];
    const [command, ...args] = [...user, ...(runtime.cmd ?? [])] as [string, ...string[]];
    service = spawnService(command, args, { cwd: mapPath(runtime, '.'), env, label: 'container' });
    return { service, env, user };
  }

  /** Runs the HEALTHCHECK command as the container's user; resolves with its exit code. */
  async function healthcheck(env: Record<string, string>, user: string[]): Promise<number> {
    const runtime = states.get(runtimeStage.name) as StageState;
    const [command, ...args] = [...user, ...(runtime.healthcheck?.command ?? [])] as [string, ...string[]];
    try {
      await run(command, args, { cwd: mapPath(runtime, '.'), env, timeout: 10_000 });
      return 0;
    } catch (error) {
      return (error as { code?: number }).code ?? 1;
    }
  }

  it('is multi-stage on Node 24 LTS slim; the runtime holds only what the built server reads, runs as node, keeps the database on a volume', () => {
    expect(stages.map((stage) => stage.name)).toEqual(['build', 'runtime']);
    for (const stage of stages) expect(stage.image).toMatch(/^node:24(\.\d+)*-(bookworm-)?slim$/);
    const runtime = states.get('runtime') as StageState;
    expect(runtime.user).toBe('node');
    expect(runtimeStage.instructions.filter((i) => i.kind === 'VOLUME')).toEqual([{ kind: 'VOLUME', paths: ['/data'] }]);
    expect(runtime.env.PI_WORKFLOWS_DB).toBe('/data/pi-workflows.db');
    expect(runtime.healthcheck?.command.slice(0, 2)).toEqual(['node', '-e']);
    expect(runtime.cmd).toEqual(['npm', 'run', '--silent', 'start:prod']);
    expect(readdirSync(mapPath(runtime, '.')).sort()).toEqual(['dist', 'migrations', 'node_modules', 'package-lock.json', 'package.json']);
    // The page's files, its operation documents (schema/operations) as public/operations/, and
    // the typed client's browser bundle as public/vendor/client.js (written by npm run build).
    expect(readdirSync(mapPath(runtime, 'dist/server/public')).sort()).toEqual(
      [...readdirSync(join(REPO_ROOT, 'src/server/public')), 'operations', 'vendor'].sort(),
    );
    expect(readdirSync(mapPath(runtime, 'dist/server/public/vendor'))).toEqual(['client.js']);
    expect(readdirSync(mapPath(runtime, 'dist/server/public/operations')).sort()).toEqual(readdirSync(join(REPO_ROOT, 'schema/operations')).sort());
    expect(existsSync(mapPath(runtime, 'node_modules/better-sqlite3'))).toBe(true);
    expect(existsSync(mapPath(runtime, 'node_modules/vitest'))).toBe(false); // devDependencies pruned
    expect(existsSync(mapPath(runtime, 'node_modules/typescript'))).toBe(false);
    expect(statSync(mapPath(runtime, '/data')).uid).toBe(runtimeUser.uid);
    // The application files stay root's: the server cannot rewrite itself.
    if (IS_ROOT) expect(statSync(mapPath(runtime, 'dist/server/main.js')).uid).toBe(0);
  });

  it('serves GraphQL, the live page and /health as the non-root user; the HEALTHCHECK passes; docker stop (SIGTERM) stops it cleanly', async () => {
    const runtime = states.get('runtime') as StageState;
    const dbPath = mapPath(runtime, '/data/pi-workflows.db');
    const started = startContainer(await freePort());
    const url = await started.service.listening();
    const base = url.replace(/\/graphql$/, '');

    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('<script');
    for (const file of readdirSync(join(REPO_ROOT, 'src/server/public')).filter((name) => name !== 'index.html')) {
      expect((await fetch(`${base}/app/${file}`)).status, file).toBe(200);
    }
    // The page's graphql-ws client, from the image's node_modules.
    expect((await fetch(`${base}/app/vendor/graphql-ws/client.js`)).status).toBe(200);
    // The page's operations, copied into dist by the build.
    expect((await fetch(`${base}/app/operations/live-page.graphql`)).status).toBe(200);
    expect(Object.keys(await (await fetch(`${base}/app/operations/live-page.json`)).json())).toContain('LivePageRuns');
    const health = await fetch(`${base}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', database: { path: dbPath, readOnly: false, quickCheck: 'ok' } });
    const typename = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' });
    expect(await typename.json()).toEqual({ data: { __typename: 'Query' } });
    expect(await healthcheck(started.env, started.user)).toBe(0);
    expect(statSync(dbPath).uid).toBe(runtimeUser.uid); // created by the image's user

    const subscriber = await openSubscriber(url, 'run-container');
    client = subscriber.client;
    expect(await started.service.stop('SIGTERM'), started.service.describe()).toBe(0);
    expect(await subscriber.ended()).toMatchObject({ code: 1001 });
    expect(await stillAnswering(`${base}/health`)).toBe(false);
    expect(databaseClosedCleanly(dbPath)).toBe(true);
    expect(await healthcheck(started.env, started.user)).toBe(1);

    expect(started.service.lines.events.filter((line) => 'notJson' in line)).toEqual([]);
    // pino's asynchronous stdout may flush the last two lines in either order: assert presence.
    expect(started.service.lines.events.map((line) => line.msg)).toContain('database closed, bye');
    expect(started.service.stderr()).toContain(`pi-workflows-graphql listening on ${url}\n`);
  });

  it('the systemd unit: verified by systemd-analyze; its ExecStart serves as an unprivileged user with no home and stops cleanly on its KillSignal', async () => {
    if (existsSync('/usr/bin/systemd-analyze')) {
      const verify = await run('systemd-analyze', ['verify', SYSTEMD_UNIT]).catch((error: { stderr?: string }) => ({ stderr: error.stderr ?? String(error) }));
      expect(verify.stderr.split('\n').filter((line) => line.includes(basename(SYSTEMD_UNIT)))).toEqual([]);
    }
    const unit = serviceSection(SYSTEMD_UNIT);
    const one = (key: string) => {
      const values = unit.get(key) ?? [];
      expect(values, key).toHaveLength(1);
      return values[0] as string;
    };
    expect(one('User')).not.toBe('root');
    expect(one('KillSignal')).toBe('SIGTERM');
    expect(one('KillMode')).toBe('mixed'); // the signal goes to the main process only, as here
    expect(Number(one('TimeoutStopSec'))).toBeGreaterThanOrEqual(10);
    const environment = Object.fromEntries((unit.get('Environment') ?? []).map((entry) => entry.split(/=(.*)/s).slice(0, 2) as [string, string]));
    const stateDirectory = `/var/lib/${one('StateDirectory')}`;
    expect(dirname(environment.PI_WORKFLOWS_DB ?? '')).toBe(stateDirectory);
    const [execPath, ...execArgs] = one('ExecStart').split(' ') as [string, ...string[]];
    expect(execArgs).toEqual(['npm', 'run', '--silent', 'start:prod']);

    // WorkingDirectory is the built tree (the image's /app); StateDirectory is made for User.
    const runtime = states.get('runtime') as StageState;
    const state = join(top, 'systemd', stateDirectory);
    mkdirSync(state, { recursive: true });
    chmodSync(state, 0o750);
    if (IS_ROOT) chownSync(state, runtimeUser.uid, runtimeUser.gid);
    const dbPath = join(state, basename(environment.PI_WORKFLOWS_DB ?? ''));
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: '/nonexistent', // a system user's home: npm must not need one
      ...environment,
      PI_WORKFLOWS_DB: dbPath,
      PORT: String(await freePort()), // a drop-in's Environment=PORT=…
    };
    const user = IS_ROOT ? ['setpriv', `--reuid=${runtimeUser.uid}`, `--regid=${runtimeUser.gid}`, '--clear-groups', '--'] : [];
    const [command, ...args] = [...user, execPath, ...execArgs] as [string, ...string[]];
    service = spawnService(command, args, { cwd: mapPath(runtime, '.'), env, label: 'systemd' });
    const url = await service.listening();
    expect(url).toBe(`http://127.0.0.1:${env.PORT}/graphql`);
    expect((await fetch(url.replace(/\/graphql$/, '/'))).status).toBe(200);
    expect(await service.stop('SIGTERM'), service.describe()).toBe(0);
    expect(databaseClosedCleanly(dbPath)).toBe(true);
    expect(service.stderr()).not.toMatch(/npm (warn|error)/i);
  });

  it('SIGINT stops it cleanly too, on the database the first start left on the volume', async () => {
    const runtime = states.get('runtime') as StageState;
    const dbPath = mapPath(runtime, '/data/pi-workflows.db');
    // One process (the image's default is a worker per core): its log lines are counted below.
    const started = startContainer(await freePort(), { PI_WORKFLOWS_WORKERS: '1' });
    await started.service.listening();
    expect(started.service.lines.events[0]).toMatchObject({ msg: 'listening', database: dbPath, runs: 1 });
    expect(await started.service.stop('SIGINT'), started.service.describe()).toBe(0);
    expect(databaseClosedCleanly(dbPath)).toBe(true);
    // pino's asynchronous stdout may flush the last two lines in either order.
    expect(started.service.lines.events.map((line) => line.msg).sort()).toEqual([
      'database closed, bye',
      'listening',
      'shutting down: finishing in-flight requests',
    ]);
  });
});
