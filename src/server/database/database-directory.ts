/**
 * Where the database file may be created: a typo in `--db` must not
 * silently give an empty database in a freshly made directory. Only the default directory
 * (`data/` under the working directory, for `data/pi-workflows.db`) is created on first start;
 * any other directory has to exist already.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** A database path whose directory is missing (and not the default) or is not a directory. */
export class DatabaseDirectoryError extends Error {
  override readonly name = 'DatabaseDirectoryError';
}

/**
 * Makes sure the directory of `dbPath` exists before the store opens the file: creates the
 * default directory when it is missing, refuses every other missing directory. Creates
 * nothing when refusing, nothing for `:memory:`, and nothing in read-only mode (the store then
 * reports the missing file itself).
 *
 * @param dbPath the database file (absolute, or relative to `cwd`), or `:memory:`
 * @param defaultDbPath the default database file (e.g. `data/pi-workflows.db`), relative to `cwd`
 * @param options `readOnly`: create nothing; `cwd`: base of relative paths (default `process.cwd()`);
 *   `option`: how the user named the setting, for the message (default `--db`)
 * @returns `'created'` when the default directory was just made, `'exists'` otherwise
 * @throws DatabaseDirectoryError when the directory is missing and not the default one, when it
 *   exists but is not a directory, or when `dbPath` itself is a directory
 */
export function prepareDatabaseDirectory(
  dbPath: string,
  defaultDbPath: string,
  options: { readOnly?: boolean; cwd?: string; option?: string } = {},
): 'created' | 'exists' {
  if (dbPath === ':memory:') return 'exists';
  const cwd = options.cwd ?? process.cwd();
  const option = options.option ?? '--db';
  const file = resolve(cwd, dbPath);
  const directory = dirname(file);
  const stats = statSync(directory, { throwIfNoEntry: false });
  if (stats !== undefined) {
    if (!stats.isDirectory()) throw new DatabaseDirectoryError(`${option} ${file}: ${directory} is not a directory`);
    if (statSync(file, { throwIfNoEntry: false })?.isDirectory() === true) {
      throw new DatabaseDirectoryError(`${option} ${file} is a directory, not a database file: name the file in it (e.g. ${join(file, 'state.sqlite')})`);
    }
    return 'exists';
  }
  if (file !== resolve(cwd, defaultDbPath)) {
    throw new DatabaseDirectoryError(
      `${option} ${file}: directory ${directory} does not exist. Create it first (mkdir -p ${directory}) or check the path for a typo; ` +
        `only the default directory ${dirname(resolve(cwd, defaultDbPath))} is created automatically.`,
    );
  }
  if (options.readOnly === true) return 'exists';
  mkdirSync(directory, { recursive: true });
  return 'created';
}
