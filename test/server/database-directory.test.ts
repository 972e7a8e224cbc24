/**
 * `--db` in a directory that does not exist: only the default `data/` is
 * created; any other missing directory is refused with a clear message, exit 1, and nothing
 * is created (a typo must not give an empty database).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_DB_PATH } from '../../src/server/config.js';
import { DatabaseDirectoryError, prepareDatabaseDirectory } from '../../src/server/database/database-directory.js';
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

  it('accepts an existing directory, and refuses a path whose directory is a file', () => {
    const cwd = fresh();
    mkdirSync(join(cwd, 'state'));
    expect(prepareDatabaseDirectory(join(cwd, 'state', 'x.db'), DEFAULT_DB_PATH, { cwd })).toBe('exists');
    expect(prepareDatabaseDirectory('state/x.db', DEFAULT_DB_PATH, { cwd })).toBe('exists');
    writeFileSync(join(cwd, 'file'), '');
    expect(() => prepareDatabaseDirectory(join(cwd, 'file', 'x.db'), DEFAULT_DB_PATH, { cwd })).toThrow(
      new DatabaseDirectoryError(`--db ${join(cwd, 'file', 'x.db')}: ${join(cwd, 'file')} is not a directory`),
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
});
