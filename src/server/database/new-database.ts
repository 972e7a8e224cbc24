/**
 * A database path that names no file yet is created as a new, empty database (the default, for a
 * first start); the start banner then says so in words, and names the pi-workflows state files
 * near it, so a mistyped `--db` is told rather than hidden behind "0 runs"
 * (docs/OPERATIONS.md "Serving a pi-workflows state file").
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { headerApplicationId, PI_WORKFLOWS_APPLICATION_ID } from '../../store/index.js';

/** Where pi-workflows keeps its state by default: `~/.pi/agent/workflows/` (its file: `state.sqlite`). */
export function piWorkflowsDefaultDirectory(home: string = homedir()): string {
  return join(home, '.pi', 'agent', 'workflows');
}

/** The `msg` of the warning logged (with `database` and `stateFiles`) when the start created the database file. */
export const NEW_DATABASE_LOG = 'no file was at the database path: a new, empty database was created';

/** At most this many entries of a folder are looked at for state files: a huge folder is not walked. */
const MAX_ENTRIES = 1_000;

/** What the banner says about a database file the start creates. */
export interface NewDatabaseNotice {
  /** The absolute path of the file that did not exist. */
  path: string;
  /** pi-workflows state files in its folder and in pi-workflows' default folder (absolute paths, sorted). */
  stateFiles: string[];
}

/**
 * Whether the start is about to create `dbPath` (it names no file), and the pi-workflows state
 * files beside it or in pi-workflows' default folder (recognised by the application id in their
 * header; nothing is opened or written). Call before the store opens the file.
 *
 * @param dbPath the database file (absolute or relative to `cwd`), or `:memory:`
 * @param options `cwd` (default `process.cwd()`), `home` (default the user's home folder)
 * @returns null when the file exists or the database is in memory
 */
export function newDatabaseNotice(dbPath: string, options: { cwd?: string; home?: string } = {}): NewDatabaseNotice | null {
  if (dbPath === ':memory:') return null;
  const path = resolve(options.cwd ?? process.cwd(), dbPath);
  if (existsSync(path)) return null;
  const folders = [...new Set([dirname(path), piWorkflowsDefaultDirectory(options.home)])];
  const stateFiles = folders.flatMap(stateFilesIn).sort();
  return { path, stateFiles: [...new Set(stateFiles)] };
}

/** The pi-workflows state files directly in `folder` (none when it cannot be read). */
function stateFilesIn(folder: string): string[] {
  let names: string[];
  try {
    names = readdirSync(folder).slice(0, MAX_ENTRIES);
  } catch {
    return [];
  }
  return names
    .filter((name) => !/-(wal|shm|journal)$/.test(name))
    .map((name) => join(folder, name))
    .filter((file) => statSync(file, { throwIfNoEntry: false })?.isFile() === true && headerApplicationId(file) === PI_WORKFLOWS_APPLICATION_ID);
}

/**
 * The banner's lines for a created database, e.g.
 * `  New file:  no file was at /home/u/.pi/agent/workflows/stat.sqlite, so a new, empty database was created there`
 * and, per state file found, `  Did you mean --db /home/u/.pi/agent/workflows/state.sqlite? (a pi-workflows state file)`.
 */
export function describeNewDatabase(notice: NewDatabaseNotice): string {
  return (
    `  New file:  no file was at ${notice.path}, so a new, empty database was created there\n` +
    notice.stateFiles.map((file) => `  Did you mean --db ${file}? (a pi-workflows state file)\n`).join('')
  );
}

/**
 * The start banner with the lines of {@link describeNewDatabase} right after its `Database:` line;
 * the banner unchanged when `notice` is null.
 */
export function withNewDatabaseNotice(banner: string, notice: NewDatabaseNotice | null): string {
  if (notice === null) return banner;
  return banner.replace(/^( {2}Database: .*\n)/m, (line) => line + describeNewDatabase(notice));
}
