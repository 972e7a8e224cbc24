/**
 * `closeWriteAheadLog` (docs/OPERATIONS.md "Workers"): the last process out of a file ends its
 * write-ahead log — checkpointed into the file, `-wal` and `-shm` removed — unless another
 * connection still has the file open; it never creates a file.
 */
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { closeWriteAheadLog } from '../../src/store/index.js';
import { tempDir } from '../helpers/store-fixtures.js';

/** A WAL-mode file whose last commit is still only in its `-wal` (as a process leaves it when it cannot end the log). */
function fileWithLog(dir: string, name: string): string {
  const source = join(dir, `${name}-source.sqlite`);
  const writer = new Database(source);
  writer.pragma('journal_mode = WAL');
  writer.pragma('wal_autocheckpoint = 0');
  writer.exec("CREATE TABLE t (x TEXT); INSERT INTO t VALUES ('in the log')");
  const path = join(dir, `${name}.sqlite`);
  for (const suffix of ['', '-wal', '-shm']) copyFileSync(`${source}${suffix}`, `${path}${suffix}`);
  writer.close();
  return path;
}

describe('closeWriteAheadLog', () => {
  it('ends a log left behind: the commit is in the file, -wal and -shm are gone', () => {
    const path = fileWithLog(tempDir('wal-end-'), 'left');
    expect(existsSync(`${path}-wal`)).toBe(true);
    expect(closeWriteAheadLog(path)).toBe(true);
    expect([existsSync(`${path}-wal`), existsSync(`${path}-shm`)]).toEqual([false, false]);
    const reader = new Database(path, { readonly: true });
    expect(reader.prepare('SELECT x FROM t').all()).toEqual([{ x: 'in the log' }]);
    reader.close();
  });

  it('leaves the log to a connection that still has the file open', () => {
    const path = fileWithLog(tempDir('wal-open-'), 'open');
    const other = new Database(path);
    other.prepare('SELECT count(*) FROM t').get();
    expect(closeWriteAheadLog(path)).toBe(false);
    expect(existsSync(`${path}-wal`)).toBe(true);
    other.close();
  });

  it('creates nothing where there is no file; an in-memory database has no log', () => {
    const path = join(tempDir('wal-none-'), 'missing.sqlite');
    expect(closeWriteAheadLog(path)).toBe(true);
    expect(existsSync(path)).toBe(false);
    expect(closeWriteAheadLog(':memory:')).toBe(true);
  });
});
