import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { Database as SqliteDatabase } from 'better-sqlite3';
import { StoreError } from './errors.js';

/**
 * What kind of database file is opened (docs/ARCHITECTURE.md "Three kinds of database file"):
 * our own store (migrations tracked in `schema_migrations`), a pi-workflows state file (its
 * application id and its one-row `schema_meta`), or anything else, refused untouched.
 */

/** `PRAGMA application_id` of a pi-workflows state file ("PIWF"). */
export const PI_WORKFLOWS_APPLICATION_ID = 0x50495746;

/** `schema_meta.schema_name` of a pi-workflows state file. */
export const PI_WORKFLOWS_SCHEMA_NAME = 'pi-workflows-state';

/**
 * The pi-workflows schema versions this server reads, with the releases known to write them:
 * the one place to add a version. Every release so far writes schema version 1 (and
 * `user_version` 1) while its tables, columns and `schema_digest` change from release to
 * release; so a known version is not trusted blindly: every table and column the read side
 * uses is checked at open (see `read-side-schema.ts`).
 */
export const PI_WORKFLOWS_SCHEMA_VERSIONS: ReadonlyArray<{ version: number; releases: string }> = [
  { version: 1, releases: '0.12.x to 0.16.x (the lineage columns since 0.14.0)' },
];

/**
 * The pi-workflows release lines this server WRITES (docs/PI-WORKFLOWS-FILES.md §2): the one
 * place to add a line. A file is written when its `schema_meta.app_version` is a release of a
 * listed line (`<line>.<patch>`, e.g. `0.16.2`), its `schema_version` is the line's, and it has
 * every table and column the write path uses (`WRITE_SIDE_COLUMNS`); any other pi-workflows file
 * is served read-only.
 */
export const PI_WORKFLOWS_WRITTEN_RELEASES: ReadonlyArray<{ line: string; schemaVersion: number }> = [{ line: '0.16', schemaVersion: 1 }];

/** The written release lines as the messages name them, e.g. `pi-workflows 0.16.x`. */
export const PI_WORKFLOWS_WRITTEN_RELEASES_TEXT = `pi-workflows ${PI_WORKFLOWS_WRITTEN_RELEASES.map((entry) => `${entry.line}.x`).join(', ')}`;

/**
 * True when `appVersion` (`schema_meta.app_version`) with `schemaVersion` is a release of a line
 * of {@link PI_WORKFLOWS_WRITTEN_RELEASES}: `<line>.<patch>` with a decimal patch number.
 */
export function isWrittenRelease(appVersion: string, schemaVersion: number): boolean {
  return PI_WORKFLOWS_WRITTEN_RELEASES.some(
    (entry) =>
      entry.schemaVersion === schemaVersion && appVersion.startsWith(`${entry.line}.`) && /^(0|[1-9][0-9]*)$/.test(appVersion.slice(entry.line.length + 1)),
  );
}

/** A database file of this server: migrations in `schema_migrations` (or a new, empty file). */
export interface OwnStateFile {
  kind: 'own';
}

/**
 * A pi-workflows state file: served read-write when this server writes its release (and it has
 * every column the writes use), else read-only; its schema is never changed
 * (docs/PI-WORKFLOWS-FILES.md §1–§3).
 */
export interface PiWorkflowsStateFile {
  kind: 'pi-workflows';
  /** `schema_meta.schema_version` (equal to `PRAGMA user_version`). */
  schemaVersion: number;
  /** `schema_meta.app_version`: the pi-workflows release that created the file, e.g. `0.16.2`. */
  appVersion: string;
  /**
   * `schema_meta.schema_digest` as 64 lowercase hex (null when not 32 bytes). It differs
   * between pi-workflows releases: reported, never checked.
   */
  schemaDigest: string | null;
  /** Number of tables in the file (sqlite_ internals excluded). */
  tableCount: number;
  /**
   * Columns that differ between pi-workflows releases, as found in this file (`table.column`
   * → present; see `VERSION_DEPENDENT_COLUMNS`, none today). Filled by the read-side check at open.
   */
  optionalColumns: Record<string, boolean>;
  /**
   * Why this server does not write such a file, e.g. `pi-workflows 0.14.0 is not a release this
   * server writes (it writes pi-workflows 0.16.x)`; null when it writes it (then it is served
   * read-write unless opened read-only). Filled at open (docs/PI-WORKFLOWS-FILES.md §2).
   */
  writeRefusal: string | null;
}

/** The kind of an opened database file. */
export type StateFile = OwnStateFile | PiWorkflowsStateFile;

/** What {@link detectStateFile} found: a known kind, or a database without any table yet. */
export type DetectedStateFile = StateFile | { kind: 'empty' };

/**
 * Reads `PRAGMA application_id` from the file header (bytes 68–71) without opening a
 * connection, so nothing (not even a `-wal` or `-shm` file) is created.
 *
 * @returns the application id, or undefined when the file is missing, shorter than a header
 *   or not a SQLite file
 */
export function headerApplicationId(path: string): number | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const header = Buffer.alloc(100);
    if (readSync(fd, header, 0, 100, 0) < 100 || header.toString('latin1', 0, 16) !== 'SQLite format 3\u0000') return undefined;
    return header.readUInt32BE(68);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * True when the file's write-ahead log holds frames: its header may then be older than its
 * content (a pi-workflows host sets the application id inside a WAL transaction).
 */
export function walHasFrames(path: string): boolean {
  try {
    return statSync(`${path}-wal`).size > 0;
  } catch {
    return false;
  }
}

function hex32(value: number): string {
  return `0x${(value >>> 0).toString(16).padStart(8, '0')}`;
}

function listTables(connection: SqliteDatabase): string[] {
  return (
    connection.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{
      name: string;
    }>
  ).map((row) => row.name);
}

interface SchemaMetaRow {
  schema_name: unknown;
  schema_version: unknown;
  schema_digest: unknown;
  app_version: unknown;
}

function readSchemaMeta(connection: SqliteDatabase): SchemaMetaRow | undefined {
  try {
    return connection.prepare('SELECT schema_name, schema_version, schema_digest, app_version FROM schema_meta WHERE id = 1').get() as
      SchemaMetaRow | undefined;
  } catch {
    return undefined; // a schema_meta table of another shape
  }
}

function refuse(path: string, what: string): never {
  throw new StoreError('integrity', `Not a workflow state database: ${path} ${what}; it was not changed`);
}

/**
 * Decides what kind of file an open connection holds, reading only.
 *
 * - `own`: it has this server's `schema_migrations` table;
 * - `pi-workflows`: `PRAGMA application_id` = {@link PI_WORKFLOWS_APPLICATION_ID}, a
 *   `schema_meta` row with `schema_name` = {@link PI_WORKFLOWS_SCHEMA_NAME} and a schema version
 *   listed in {@link PI_WORKFLOWS_SCHEMA_VERSIONS} (equal to `PRAGMA user_version`);
 * - `empty`: no table at all (a new file);
 * - anything else is refused, naming what was found.
 *
 * @param path the file path, for messages
 * @throws StoreError(integrity) `Not a workflow state database: <path> …; it was not changed` for
 *   a file of neither kind (or half of a pi-workflows file), and
 *   `pi-workflows state file <path> has schema version <v> (pi-workflows <app>), which this server
 *   cannot read (it reads schema version 1); it was not changed` for an unknown version
 */
export function detectStateFile(connection: SqliteDatabase, path: string): DetectedStateFile {
  const tables = listTables(connection);
  const applicationId = connection.pragma('application_id', { simple: true }) as number;
  const userVersion = connection.pragma('user_version', { simple: true }) as number;
  const hasMeta = tables.includes('schema_meta');
  if (applicationId === PI_WORKFLOWS_APPLICATION_ID || hasMeta) {
    if (!hasMeta) {
      refuse(path, `carries the pi-workflows application id ${hex32(applicationId)} but has no schema_meta table`);
    }
    const meta = readSchemaMeta(connection);
    if (meta === undefined || meta.schema_name !== PI_WORKFLOWS_SCHEMA_NAME) {
      refuse(path, `has a schema_meta table without a pi-workflows row (schema_name ${meta === undefined ? 'unreadable' : JSON.stringify(meta.schema_name)})`);
    }
    if (applicationId !== PI_WORKFLOWS_APPLICATION_ID) {
      refuse(path, `has a pi-workflows schema_meta but application_id ${hex32(applicationId)}, not ${hex32(PI_WORKFLOWS_APPLICATION_ID)}`);
    }
    const version = meta.schema_version;
    const appVersion = typeof meta.app_version === 'string' ? meta.app_version : String(meta.app_version);
    const known = PI_WORKFLOWS_SCHEMA_VERSIONS.map((entry) => entry.version);
    if (typeof version !== 'number' || !known.includes(version)) {
      throw new StoreError(
        'integrity',
        `pi-workflows state file ${path} has schema version ${String(version)} (pi-workflows ${appVersion}), which this server cannot read (it reads schema version ${known.join(', ')}); it was not changed`,
      );
    }
    if (userVersion !== version) {
      throw new StoreError(
        'integrity',
        `pi-workflows state file ${path} has user_version ${userVersion} but schema_meta schema_version ${version} (pi-workflows ${appVersion}); it was not changed`,
      );
    }
    const digest = meta.schema_digest;
    return {
      kind: 'pi-workflows',
      schemaVersion: version,
      appVersion,
      schemaDigest: Buffer.isBuffer(digest) && digest.length === 32 ? digest.toString('hex') : null,
      tableCount: tables.length,
      optionalColumns: {},
      writeRefusal: null,
    };
  }
  if (tables.includes('schema_migrations')) return { kind: 'own' };
  if (tables.length === 0 && applicationId === 0) return { kind: 'empty' };
  const shown = tables.slice(0, 5).join(', ') + (tables.length > 5 ? `, … (${tables.length - 5} more)` : '');
  return refuse(
    path,
    `holds ${tables.length} table${tables.length === 1 ? '' : 's'}${tables.length === 0 ? '' : ` (${shown})`} but neither this server's schema_migrations table nor a pi-workflows schema_meta (application_id ${hex32(applicationId)})`,
  );
}
