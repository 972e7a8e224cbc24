import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { Database as SqliteDatabase } from 'better-sqlite3';
import { StoreError } from '../errors.js';

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
 * A layout of a pi-workflows state file that this server's write path is verified against
 * (docs/PI-WORKFLOWS-FILES.md §2): the file's `schema_meta.schema_digest` (SHA-256 of the DDL
 * text that pi-workflows created the file with), the `app_version` those releases store, and
 * the releases known to write it.
 */
export interface WrittenPiWorkflowsLayout {
  /** `schema_meta.schema_digest` as 64 lowercase hex. */
  readonly schemaDigest: string;
  /** `schema_meta.schema_version` (and `PRAGMA user_version`) of the layout. */
  readonly schemaVersion: number;
  /**
   * `schema_meta.app_version` these releases store: pi-workflows' `STATE_APP_VERSION` constant,
   * not its package version (the 0.16 layout says `0.14.0`). Reported, never checked.
   */
  readonly appVersion: string;
  /** The pi-workflows releases known to create files of this layout, e.g. `['0.16.1', '0.16.2']`. */
  readonly releases: readonly string[];
}

/**
 * The layouts this server WRITES (docs/PI-WORKFLOWS-FILES.md §2): the one place to add one. A
 * pi-workflows file is served read-write when its `schema_digest` is listed here and it has
 * every table and column the write path uses (`WRITE_SIDE_COLUMNS`), whatever its
 * `app_version` says; a file of any other layout is served read-only. Recognised by the layout,
 * as pi-workflows' own open check does, because a release number does not tell files apart:
 * pi-workflows 0.16.1 and 0.16.2 store `app_version` `0.14.0`.
 */
export const PI_WORKFLOWS_WRITTEN_LAYOUTS: readonly WrittenPiWorkflowsLayout[] = [
  {
    schemaDigest: '0469f429aad9046cacf63bf9df4ef8c98277ba633103a2478d9fc40226666327',
    schemaVersion: 1,
    appVersion: '0.14.0',
    releases: ['0.16.1', '0.16.2'],
  },
];

/**
 * What this server writes, as the messages say it: `the layout of pi-workflows 0.16.1, 0.16.2:
 * schema digest 0469f429aad9…` (several layouts joined with ` or `).
 */
export const PI_WORKFLOWS_WRITTEN_LAYOUTS_TEXT = `the layout of ${PI_WORKFLOWS_WRITTEN_LAYOUTS.map(
  (layout) => `pi-workflows ${layout.releases.join(', ')}: schema digest ${shortDigest(layout.schemaDigest)}`,
).join(' or ')}`;

/**
 * How a file's layout is named in the banner and the refusals: `layout of pi-workflows 0.16.1,
 * 0.16.2 (schema digest 0469f429aad9…, app version 0.14.0)` for a written one, `unlisted layout
 * (schema digest 1f2e3d4c5b6a…, app version 0.14.0)` otherwise (`schema digest none` when the
 * file has no 32-byte digest).
 */
export function describeLayout(file: Pick<PiWorkflowsStateFile, 'schemaDigest' | 'appVersion' | 'layout'>): string {
  const identity = `schema digest ${file.schemaDigest === null ? 'none' : shortDigest(file.schemaDigest)}, app version ${file.appVersion}`;
  return file.layout === null ? `unlisted layout (${identity})` : `layout of pi-workflows ${file.layout.releases.join(', ')} (${identity})`;
}

/** The first 12 hex of a schema digest and `…`, as the messages show it. */
export function shortDigest(digest: string): string {
  return `${digest.slice(0, 12)}…`;
}

/**
 * The written layout a file's `schema_digest` names, or undefined when it is not one of
 * {@link PI_WORKFLOWS_WRITTEN_LAYOUTS} (or the digest is missing).
 *
 * @param schemaDigest 64 lowercase hex, or null
 * @param schemaVersion the file's `schema_meta.schema_version`
 */
export function writtenLayoutOf(schemaDigest: string | null, schemaVersion: number): WrittenPiWorkflowsLayout | undefined {
  if (schemaDigest === null) return undefined;
  return PI_WORKFLOWS_WRITTEN_LAYOUTS.find((layout) => layout.schemaDigest === schemaDigest && layout.schemaVersion === schemaVersion);
}

/** A database file of this server: migrations in `schema_migrations` (or a new, empty file). */
export interface OwnStateFile {
  kind: 'own';
}

/**
 * A pi-workflows state file: served read-write when this server writes its layout (and it has
 * every column the writes use), else read-only; its schema is never changed
 * (docs/PI-WORKFLOWS-FILES.md §1–§3).
 */
export interface PiWorkflowsStateFile {
  kind: 'pi-workflows';
  /** `schema_meta.schema_version` (equal to `PRAGMA user_version`). */
  schemaVersion: number;
  /**
   * `schema_meta.app_version`: pi-workflows' `STATE_APP_VERSION` when it created the file, not its
   * package version (`0.14.0` in a file of pi-workflows 0.16.2). Reported, never checked.
   */
  appVersion: string;
  /**
   * `schema_meta.schema_digest` as 64 lowercase hex (null when not 32 bytes): names the file's
   * layout, and decides whether this server writes it ({@link PI_WORKFLOWS_WRITTEN_LAYOUTS}).
   */
  schemaDigest: string | null;
  /** The written layout {@link schemaDigest} names, or null for a layout this server does not write. */
  layout: WrittenPiWorkflowsLayout | null;
  /** Number of tables in the file (sqlite_ internals excluded). */
  tableCount: number;
  /**
   * Columns that differ between pi-workflows releases, as found in this file (`table.column`
   * → present; see `VERSION_DEPENDENT_COLUMNS`, none today). Filled by the read-side check at open.
   */
  optionalColumns: Record<string, boolean>;
  /**
   * Why this server does not write such a file, e.g. `its layout is not one this server writes:
   * schema digest <64 hex>, app version 0.14.0 (it writes pi-workflows 0.16.1, 0.16.2 (schema digest
   * 0469f429aad9…))`; null when it writes it (then it is served read-write unless opened
   * read-only). Filled at open (docs/PI-WORKFLOWS-FILES.md §2).
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
 *   `pi-workflows state file <path> has schema version <v> (app version <app>), which this server
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
        `pi-workflows state file ${path} has schema version ${String(version)} (app version ${appVersion}), which this server cannot read (it reads schema version ${known.join(', ')}); it was not changed`,
      );
    }
    if (userVersion !== version) {
      throw new StoreError(
        'integrity',
        `pi-workflows state file ${path} has user_version ${userVersion} but schema_meta schema_version ${version} (app version ${appVersion}); it was not changed`,
      );
    }
    const digest = meta.schema_digest;
    const schemaDigest = Buffer.isBuffer(digest) && digest.length === 32 ? digest.toString('hex') : null;
    return {
      kind: 'pi-workflows',
      schemaVersion: version,
      appVersion,
      schemaDigest,
      layout: writtenLayoutOf(schemaDigest, version) ?? null,
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
