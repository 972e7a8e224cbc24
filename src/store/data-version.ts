import Database from 'better-sqlite3';

/**
 * A read-only connection of its own that only reads `PRAGMA data_version`: the number SQLite
 * changes when another connection (this process's or another's) committed to the file since
 * this connection's last read. The change feed (src/delivery/commit-watcher.ts) polls it to notice
 * foreign commits; it never reads a table.
 */
export interface DataVersionProbe {
  /** The file's `data_version` now; undefined when the read failed (the file is gone, the connection broke). */
  read(): number | undefined;
  /** Closes the connection. Idempotent. */
  close(): void;
}

/**
 * Opens a {@link DataVersionProbe} on the database file at `path` (read only, `query_only`).
 *
 * @returns the probe, or undefined when the file cannot be opened (`:memory:`, no file yet):
 *   the caller then relies on this process's own commit hook only
 */
export function openDataVersionProbe(path: string): DataVersionProbe | undefined {
  if (path === ':memory:' || path === '') return undefined;
  let connection: Database.Database;
  let statement: Database.Statement;
  try {
    connection = new Database(path, { readonly: true, fileMustExist: true });
    connection.pragma('query_only = ON'); // it only ever reads data_version
    statement = connection.prepare('PRAGMA data_version').pluck();
  } catch {
    return undefined;
  }
  return {
    read() {
      try {
        return statement.get() as number | undefined;
      } catch {
        return undefined;
      }
    },
    close() {
      if (connection.open) connection.close();
    },
  };
}
