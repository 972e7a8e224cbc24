/**
 * newDatabaseNotice: a database path naming no file is told as a new, empty database, with the
 * pi-workflows state files in its folder and in pi-workflows' default folder; nothing is opened
 * or written to find them (docs/OPERATIONS.md "Serving a pi-workflows state file").
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createPiWorkflowsFile } from '../../fixtures/pi-workflows-file.js';
import { describeNewDatabase, newDatabaseNotice, piWorkflowsDefaultDirectory, withNewDatabaseNotice } from '../../src/server/database/new-database.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('newDatabaseNotice', () => {
  it('names the state files beside a missing file and in the default folder, sorted; nothing else', () => {
    dir = mkdtempSync(join(tmpdir(), 'pi-new-db-'));
    const home = join(dir, 'home');
    const piFolder = piWorkflowsDefaultDirectory(home);
    expect(piFolder).toBe(join(home, '.pi', 'agent', 'workflows'));
    mkdirSync(piFolder, { recursive: true });
    createPiWorkflowsFile(join(piFolder, 'state.sqlite')).close();
    createPiWorkflowsFile(join(dir, 'b.sqlite')).close();
    writeFileSync(join(dir, 'a.sqlite'), 'SQLite format 3\u0000 but not pi-workflows');
    mkdirSync(join(dir, 'folder.sqlite'));
    const before = readdirSync(dir).sort();
    expect(newDatabaseNotice('typo.sqlite', { cwd: dir, home })).toEqual({
      path: join(dir, 'typo.sqlite'),
      stateFiles: [join(dir, 'b.sqlite'), join(piFolder, 'state.sqlite')].sort(),
    });
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  it('is null for an existing file and for :memory:; an unreadable default folder finds nothing', () => {
    dir = mkdtempSync(join(tmpdir(), 'pi-new-db-'));
    writeFileSync(join(dir, 'x.db'), '');
    expect(newDatabaseNotice('x.db', { cwd: dir, home: dir })).toBeNull();
    expect(newDatabaseNotice(':memory:', { cwd: dir, home: dir })).toBeNull();
    expect(newDatabaseNotice(join(dir, 'y.db'), { home: join(dir, 'nowhere') })).toEqual({ path: join(dir, 'y.db'), stateFiles: [] });
  });

  it('goes right after the banner’s Database line', () => {
    const notice = { path: '/srv/stat.sqlite', stateFiles: ['/srv/state.sqlite'] };
    expect(describeNewDatabase(notice)).toBe(
      '  New file:  no file was at /srv/stat.sqlite, so a new, empty database was created there\n' +
        '  Did you mean --db /srv/state.sqlite? (a pi-workflows state file)\n',
    );
    const banner = '\nlistening\n  Database:  /srv/stat.sqlite (0 runs)\n  Health:    h\n\n';
    expect(withNewDatabaseNotice(banner, notice)).toBe(
      '\nlistening\n  Database:  /srv/stat.sqlite (0 runs)\n' + describeNewDatabase(notice) + '  Health:    h\n\n',
    );
    expect(withNewDatabaseNotice(banner, null)).toBe(banner);
  });
});
