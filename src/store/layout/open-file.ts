import type { Database as SqliteDatabase } from 'better-sqlite3';
import { connect, type StateDatabaseOptions } from '../connection.js';
import { StoreError } from '../errors.js';
import { applyMigrations, checkMigrations, refuseNewerDatabase, type MigrationConnection } from '../migrations.js';
import { checkPiWorkflowsReadSide } from './read-side-schema.js';
import { detectStateFile, headerApplicationId, PI_WORKFLOWS_APPLICATION_ID, walHasFrames, type StateFile } from './state-file.js';

/**
 * The open of a database file, which depends on its kind (docs/STORE-RULES.md §1,
 * docs/PI-WORKFLOWS-FILES.md §2): the one place outside the layout adapters that tells the
 * kinds apart, because nothing else is known before the file is looked at.
 */

/** A connection opened in the mode its file's kind allows, and what is left to do once it is wrapped. */
export interface OpenedStateFile {
  connection: SqliteDatabase;
  /** True when every write is refused: asked for, or a pi-workflows file this server does not write. */
  readOnly: boolean;
  /** What kind of file it is. */
  file: StateFile;
  /**
   * Finishes the open on the wrapped connection: for this server's own file, the refusal of a
   * newer file, the pragmas and the migrations (read-write) or their check (read-only); nothing
   * for a pi-workflows file (set up already, never migrated).
   *
   * @throws StoreError(integrity) a newer or (read-only) unmigrated own file
   */
  prepare(database: MigrationConnection): void;
}

/**
 * The settings of a read-write connection to a pi-workflows state file, as pi-workflows sets
 * them on its own (docs/PI-WORKFLOWS-FILES.md §2): foreign keys on, WAL (already the file's
 * mode: pi-workflows sets it at every open), `synchronous=FULL`, `wal_autocheckpoint` 1000 pages
 * and `journal_size_limit` 64 MiB; the busy timeout was set by `connect`. Each is a
 * setting of this connection only; none changes the schema.
 */
function setPiWorkflowsPragmas(connection: SqliteDatabase): void {
  connection.pragma('foreign_keys = ON');
  connection.pragma('journal_mode = WAL');
  connection.pragma('synchronous = FULL');
  connection.pragma('wal_autocheckpoint = 1000');
  connection.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
}

/**
 * Opens a connection after deciding what kind of file it is:
 *
 * - this server's own file (or a new one): read-write opens migrate it and set WAL,
 *   `synchronous=FULL`, `foreign_keys=ON` and the busy timeout (docs/STORE-RULES.md §1); read-only opens
 *   require it to be fully migrated (both in {@link OpenedStateFile.prepare});
 * - a pi-workflows state file: every table and column the read side uses is checked first
 *   (`read-side-schema.ts`); then, unless `readOnly`, a file of a layout this server writes
 *   (and holding every column the writes use) is opened read-write with pi-workflows' own
 *   connection settings (docs/PI-WORKFLOWS-FILES.md §2); any other one read-only with
 *   `query_only` on. Never a migration, never a schema change;
 * - anything else: refused before anything is written.
 *
 * A read-write request on a file whose header carries the pi-workflows application id (or
 * whose WAL holds frames the header may not show yet) first looks with a read-only
 * connection, so a file to be served read-only is never touched by a read-write one (closing
 * it would checkpoint someone else's WAL into the file); only a file this server writes is
 * then reopened read-write.
 *
 * @throws StoreError(integrity) when the file is not a SQLite database, is of neither kind,
 *   is a pi-workflows file of an unknown schema version or lacking a column the read side
 *   uses (see `detectStateFile`, `checkPiWorkflowsReadSide`)
 */
export function openStateFile(options: StateDatabaseOptions): OpenedStateFile {
  const requestedReadOnly = options.readOnly === true;
  const path = options.path;
  const onDisk = path !== ':memory:' && path !== '';
  const lookFirst = !requestedReadOnly && onDisk && (headerApplicationId(path) === PI_WORKFLOWS_APPLICATION_ID || walHasFrames(path));
  let readOnly = requestedReadOnly || lookFirst;
  let connection = connect(options, readOnly);
  try {
    const detected = detectStateFile(connection, path);
    if (detected.kind === 'pi-workflows') {
      const checked = checkPiWorkflowsReadSide(connection, path, detected);
      const writable = !requestedReadOnly && checked.writeRefusal === null;
      if (readOnly !== !writable) {
        // Reopen in the mode decided: read-write for a layout this server writes, else read-only.
        connection.close();
        readOnly = !writable;
        connection = connect(options, readOnly);
        const again = detectStateFile(connection, path);
        if (again.kind !== 'pi-workflows' || again.appVersion !== detected.appVersion) {
          throw new StoreError('integrity', `Workflow state database ${path} changed kind while it was opened`);
        }
      }
      if (readOnly) {
        connection.pragma('query_only = ON');
        connection.pragma('foreign_keys = ON');
      } else {
        setPiWorkflowsPragmas(connection);
      }
      return { connection, readOnly, file: checked, prepare: () => undefined };
    }
    if (readOnly && !requestedReadOnly) {
      // Our own file behind a WAL with frames: now open it as asked.
      connection.close();
      readOnly = false;
      connection = connect(options, false);
    }
  } catch (error) {
    connection.close();
    throw error;
  }
  const ownConnection = connection;
  const ownReadOnly = readOnly;
  return {
    connection: ownConnection,
    readOnly: ownReadOnly,
    file: { kind: 'own' },
    prepare(database) {
      // Nothing is written before we know the file is not newer than this code.
      refuseNewerDatabase(database);
      if (!ownReadOnly) ownConnection.pragma('journal_mode = WAL');
      ownConnection.pragma('synchronous = FULL');
      ownConnection.pragma('foreign_keys = ON');
      if (ownReadOnly) {
        ownConnection.pragma('query_only = ON');
        checkMigrations(database);
      } else {
        applyMigrations(database);
      }
    },
  };
}
