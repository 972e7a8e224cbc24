/**
 * `--pi` (src/server/config.ts): the database is pi-workflows' own state file at the place
 * pi-workflows puts it, `~/.pi/agent/workflows/state.sqlite` under the home directory
 * (`os.homedir()`, here a temporary `HOME`); a missing file and `--db` beside it are one-line
 * errors (exit 1); `PI_WORKFLOWS_DB` gives way to it, as the command line wins. The installed
 * package's bin is tested the same way end to end in test/e2e/npx-package.test.ts.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseServerConfig, piStateFilePath } from '../../src/server/config.js';
import { runCli } from '../helpers/run-cli.js';

describe('--pi', () => {
  let home: string;
  let file: string;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'pi-workflows-pi-option-'));
    file = join(home, '.pi', 'agent', 'workflows', 'state.sqlite');
    vi.stubEnv('HOME', home);
    vi.stubEnv('PI_WORKFLOWS_DB', undefined);
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    rmSync(home, { recursive: true, force: true });
  });

  it('is ~/.pi/agent/workflows/state.sqlite under the home directory', () => {
    expect(piStateFilePath()).toBe(file);
    expect(piStateFilePath('/home/someone')).toBe('/home/someone/.pi/agent/workflows/state.sqlite');
  });

  it('without a file there: a one-line error naming it, exit 1, nothing created', () => {
    expect(runCli(['--pi'])).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: --pi: no pi-workflows state file at ${file} (pi-workflows creates it on its first run; --db <path> names another file)\n`,
    });
    expect(() => mkdirSync(join(home, '.pi'))).not.toThrow(); // nothing was made under the home
  });

  it('with a file there: its path is the database, also over PI_WORKFLOWS_DB (the command line wins)', () => {
    mkdirSync(join(home, '.pi', 'agent', 'workflows'), { recursive: true });
    writeFileSync(file, '');
    expect(parseServerConfig(['node', 'main', '--pi', '--read-only'])).toMatchObject({ dbPath: file, readOnly: true });
    vi.stubEnv('PI_WORKFLOWS_DB', join(home, 'elsewhere.db'));
    expect(parseServerConfig(['node', 'main', '--pi']).dbPath).toBe(file);
  });

  it('with --db on the command line: a one-line error, exit 1', () => {
    mkdirSync(join(home, '.pi', 'agent', 'workflows'), { recursive: true });
    writeFileSync(file, '');
    expect(runCli(['--pi', '--db', 'other.db'])).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: --pi and --db both name the database: use one (--pi is --db ${file})\n`,
    });
  });
});
