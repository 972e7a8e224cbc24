/**
 * `--db` in a directory that does not exist: only the default `data/` is
 * created; any other missing directory is refused with a clear message, exit 1, and nothing
 * is created (a typo must not give an empty database). A `--db` naming a missing file in an
 * existing directory is created, and the banner says so in words, naming the pi-workflows state
 * files beside it and in pi-workflows' default folder ("did you mean …?").
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_DB_PATH } from '../../src/server/config.js';
import { DatabaseDirectoryError, prepareDatabaseDirectory } from '../../src/server/database/database-directory.js';
import { createPiWorkflowsFile } from '../../fixtures/pi-workflows-file.js';
import { NEW_DATABASE_LOG } from '../../src/server/database/new-database.js';
import { REPO_ROOT } from '../helpers/live-fixtures.js';
import { databaseClosedCleanly, spawnService, TSX_IMPORT, type ServiceProcess } from '../helpers/service-process.js';

let dir: string;
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function fresh(): string {
  dir = mkdtempSync(join(tmpdir(), 'pi-workflows-dbdir-'));
  return dir;
}

describe('prepareDatabaseDirectory', () => {
  it('creates the default data/ directory when it is missing', () => {
    const cwd = fresh();
    expect(prepareDatabaseDirectory(join(cwd, DEFAULT_DB_PATH), DEFAULT_DB_PATH, { cwd })).toBe('created');
    expect(readdirSync(cwd)).toEqual(['data']);
    expect(readdirSync(join(cwd, 'data'))).toEqual([]);
    expect(prepareDatabaseDirectory(DEFAULT_DB_PATH, DEFAULT_DB_PATH, { cwd })).toBe('exists');
  });

  it('refuses any other missing directory, creating nothing', () => {
    const cwd = fresh();
    const typo = join(cwd, 'dta', 'pi-workflows.db');
    expect(() => prepareDatabaseDirectory(typo, DEFAULT_DB_PATH, { cwd })).toThrow(
      new DatabaseDirectoryError(
        `--db ${typo}: directory ${join(cwd, 'dta')} does not exist. Create it first (mkdir -p ${join(cwd, 'dta')}) or check the path for a typo; ` +
          `only the default directory ${join(cwd, 'data')} is created automatically.`,
      ),
    );
    expect(() => prepareDatabaseDirectory(join(cwd, 'data', 'other.db'), DEFAULT_DB_PATH, { cwd })).toThrow(/directory .*\/data does not exist/);
    expect(() => prepareDatabaseDirectory(join(cwd, 'a', 'b', 'c.db'), DEFAULT_DB_PATH, { cwd, option: 'PI_WORKFLOWS_DB' })).toThrow(/^PI_WORKFLOWS_DB /);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('accepts an existing directory, and refuses a path whose directory is a file or that is a directory', () => {
    const cwd = fresh();
    mkdirSync(join(cwd, 'state'));
    expect(prepareDatabaseDirectory(join(cwd, 'state', 'x.db'), DEFAULT_DB_PATH, { cwd })).toBe('exists');
    expect(prepareDatabaseDirectory('state/x.db', DEFAULT_DB_PATH, { cwd })).toBe('exists');
    writeFileSync(join(cwd, 'file'), '');
    expect(() => prepareDatabaseDirectory(join(cwd, 'file', 'x.db'), DEFAULT_DB_PATH, { cwd })).toThrow(
      new DatabaseDirectoryError(`--db ${join(cwd, 'file', 'x.db')}: ${join(cwd, 'file')} is not a directory`),
    );
    expect(() => prepareDatabaseDirectory('state', DEFAULT_DB_PATH, { cwd })).toThrow(
      new DatabaseDirectoryError(
        `--db ${join(cwd, 'state')} is a directory, not a database file: name the file in it (e.g. ${join(cwd, 'state', 'state.sqlite')})`,
      ),
    );
  });

  it('creates nothing for :memory: or in read-only mode', () => {
    const cwd = fresh();
    expect(prepareDatabaseDirectory(':memory:', DEFAULT_DB_PATH, { cwd })).toBe('exists');
    expect(prepareDatabaseDirectory(join(cwd, DEFAULT_DB_PATH), DEFAULT_DB_PATH, { cwd, readOnly: true })).toBe('exists');
    expect(readdirSync(cwd)).toEqual([]);
  });
});

describe('the server command with --db', () => {
  let service: ServiceProcess | undefined;
  afterEach(() => {
    service?.kill();
  });

  /** `node --import tsx src/server/main.ts …args` in `cwd`; resolves with exit code and stderr. */
  function runMain(cwd: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number | null; stderr: string; stdout: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, ['--import', TSX_IMPORT, join(REPO_ROOT, 'src/server/main.ts'), ...args], {
        cwd,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      let stdout = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.on('exit', (code) => resolve({ code, stderr, stdout }));
    });
  }

  it('a missing directory: exit 1 with the message on stderr, nothing created', async () => {
    const cwd = fresh();
    const typo = join(cwd, 'missing', 'state.db');
    const result = await runMain(cwd, ['--db', typo, '--port', '0']);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        `pi-workflows-graphql: --db ${typo}: directory ${join(cwd, 'missing')} does not exist. Create it first (mkdir -p ${join(cwd, 'missing')}) ` +
        `or check the path for a typo; only the default directory ${join(cwd, 'data')} is created automatically.\n`,
    });
    const fromEnv = await runMain(cwd, ['--port', '0'], { ...process.env, PI_WORKFLOWS_DB: typo });
    expect(fromEnv.code).toBe(1);
    expect(fromEnv.stderr).toMatch(/^pi-workflows-graphql: PI_WORKFLOWS_DB .* does not exist/);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('the default database: data/ is created and the server starts on it', async () => {
    const cwd = fresh();
    const env = { ...process.env };
    delete env.PI_WORKFLOWS_DB;
    service = spawnService(process.execPath, ['--import', TSX_IMPORT, join(REPO_ROOT, 'src/server/main.ts'), '--port', '0'], {
      cwd,
      env,
      label: 'main',
    });
    await service.listening();
    expect(service.lines.events[0]).toMatchObject({ msg: 'listening', database: join(cwd, DEFAULT_DB_PATH), runs: 0 });
    expect(await service.stop('SIGTERM')).toBe(0);
    expect(databaseClosedCleanly(join(cwd, DEFAULT_DB_PATH))).toBe(true);
    expect(existsSync(join(cwd, 'data'))).toBe(true);
  });

  it.each([
    ['one process', ['--workers', '1']],
    ['workers (the banner printed by the primary)', ['--workers', '2']],
  ])('a --db naming no file (%s): a new, empty database is created and the banner says so, naming the state files near it', async (_name, flags) => {
    const cwd = fresh();
    const home = join(cwd, 'home');
    const piFolder = join(home, '.pi', 'agent', 'workflows');
    mkdirSync(piFolder, { recursive: true });
    createPiWorkflowsFile(join(piFolder, 'state.sqlite')).close();
    createPiWorkflowsFile(join(cwd, 'state.sqlite')).close();
    writeFileSync(join(cwd, 'notes.sqlite'), 'not a database');
    const typo = join(cwd, 'stat.sqlite');
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
    delete env.PI_WORKFLOWS_DB;
    service = spawnService(process.execPath, ['--import', TSX_IMPORT, join(REPO_ROOT, 'src/server/main.ts'), '--port', '0', '--db', typo, ...flags], {
      cwd,
      env,
      label: 'main',
    });
    const banner = await new Promise<string>((resolve, reject) => {
      const seen = (): void => {
        if (service?.stderr().includes('Health:')) resolve(service.stderr());
      };
      service?.child.stderr?.on('data', seen);
      void service?.exited.then(() => reject(new Error(`exited: ${service?.describe()}`)));
      seen();
    });
    expect(banner).toContain(
      `  Database:  ${typo} (0 runs)\n` +
        `  New file:  no file was at ${typo}, so a new, empty database was created there\n` +
        `  Did you mean --db ${join(piFolder, 'state.sqlite')}? (a pi-workflows state file)\n` +
        `  Did you mean --db ${join(cwd, 'state.sqlite')}? (a pi-workflows state file)\n`,
    );
    // stdout (the JSON log) and stderr (the banner) arrive through two pipes: wait for the line.
    await service.lines.until((lines) => lines.some((line) => line.msg === NEW_DATABASE_LOG), 'the new-database log line');
    const logged = service.lines.events.find((line) => line.msg === NEW_DATABASE_LOG);
    expect(logged).toMatchObject({ level: 40, database: typo, stateFiles: [join(piFolder, 'state.sqlite'), join(cwd, 'state.sqlite')].sort() });
    expect(await service.stop('SIGTERM')).toBe(0);
    expect(existsSync(typo)).toBe(true);
  });

  it('an existing file: nothing about a new file', async () => {
    const cwd = fresh();
    const path = join(cwd, 'state.sqlite');
    createPiWorkflowsFile(path).close();
    service = spawnService(process.execPath, ['--import', TSX_IMPORT, join(REPO_ROOT, 'src/server/main.ts'), '--port', '0', '--db', path, '--workers', '1'], {
      cwd,
      env: { ...process.env, HOME: join(cwd, 'home') },
      label: 'main',
    });
    await service.listening();
    const banner = await new Promise<string>((resolve) => {
      const seen = (): void => {
        if (service?.stderr().includes('Health:')) resolve(service.stderr());
      };
      service?.child.stderr?.on('data', seen);
      seen();
    });
    expect(banner).toContain(`  Database:  ${path} (pi-workflows state file: schema 1, layout of pi-workflows 0.16.1, 0.16.2`);
    expect(banner).not.toContain('New file:');
    expect(await service.stop('SIGTERM')).toBe(0);
  });
});
