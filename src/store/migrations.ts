import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StoreError } from './errors.js';

/**
 * What the migrations use of the connection (`StateDatabase` is one), named here so that this
 * module need not import `database.ts`, which imports it.
 */
export interface MigrationConnection {
  /** The file path, or `:memory:`. */
  readonly path: string;
  run(sql: string, ...params: readonly unknown[]): unknown;
  get<T>(sql: string, ...params: readonly unknown[]): T | undefined;
  all<T>(sql: string, ...params: readonly unknown[]): T[];
  exec(sql: string): void;
  transaction<T>(fn: () => T): T;
}

/** One migration file: `migrations/NNNN_name.sql`. */
export interface Migration {
  /** The number in the file name (1, 2, …). */
  version: number;
  /** The file name without `.sql`. */
  name: string;
  /** The SQL text. */
  sql: string;
}

/** Folder holding the numbered `.sql` migrations (the repository's `migrations/`). */
export const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'migrations');

const MIGRATION_FILE = /^(\d{4})_[a-z0-9_]+\.sql$/;

/**
 * Reads the migrations of `dir` in version order.
 *
 * @param dir folder of `NNNN_name.sql` files (default {@link MIGRATIONS_DIR})
 * @returns the migrations, versions 1..n without gaps
 * @throws Error when versions repeat or have a gap (a packaging fault)
 */
export function loadMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  const migrations = readdirSync(dir)
    .filter((file) => MIGRATION_FILE.test(file))
    .sort()
    .map((file) => ({
      version: Number(file.slice(0, 4)),
      name: file.slice(0, -4),
      sql: readFileSync(join(dir, file), 'utf8'),
    }));
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new Error(`Migration ${migration.name} is out of sequence: expected version ${index + 1}`);
    }
  });
  return migrations;
}

interface AppliedRow {
  version: number;
  name: string;
}

function appliedMigrations(database: MigrationConnection): AppliedRow[] {
  const table = database.get<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'");
  if (table === undefined) return [];
  return database.all<AppliedRow>('SELECT version, name FROM schema_migrations ORDER BY version');
}

function refuseNewer(database: MigrationConnection, applied: AppliedRow[], known: Migration[]): void {
  const newest = applied.at(-1);
  if (newest !== undefined && newest.version > known.length) {
    throw new StoreError(
      'integrity',
      `Workflow state database ${database.path} has migration ${newest.name}, newer than this server knows (latest ${known.at(-1)?.name ?? 'none'}); upgrade the server`,
    );
  }
  for (const row of applied) {
    const migration = known[row.version - 1];
    if (migration !== undefined && migration.name !== row.name) {
      throw new StoreError('integrity', `Workflow state database ${database.path} recorded migration ${row.name} where this server has ${migration.name}`);
    }
  }
}

/**
 * Refuses, without writing, a database whose recorded migrations are newer than (or diverge
 * from) this code. Called before anything touches the file.
 *
 * @throws StoreError(integrity) for a newer or diverging database
 */
export function refuseNewerDatabase(database: MigrationConnection, migrations: Migration[] = loadMigrations()): void {
  refuseNewer(database, appliedMigrations(database), migrations);
}

/**
 * Applies the pending migrations in order inside one `BEGIN IMMEDIATE` transaction and
 * records each in `schema_migrations`, so a reopen applies nothing twice (docs/STORE-RULES.md §13.9).
 * A database whose recorded migrations are newer than the code is refused untouched.
 *
 * @returns the versions applied now (empty when up to date)
 * @throws StoreError(integrity) for a newer or diverging database, or when a migration's SQL
 *   fails (`Migration <name> failed on workflow state database <path>: …`; everything rolled back)
 */
export function applyMigrations(database: MigrationConnection, migrations: Migration[] = loadMigrations()): number[] {
  return database.transaction(() => {
    database.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_at INTEGER NOT NULL
    ) STRICT`);
    const applied = appliedMigrations(database);
    refuseNewer(database, applied, migrations);
    const pending = migrations.slice(applied.length);
    for (const migration of pending) {
      try {
        database.exec(migration.sql);
      } catch (error) {
        throw new StoreError(
          'integrity',
          `Migration ${migration.name} failed on workflow state database ${database.path}: ${(error as Error).message}; no pending migration was applied`,
        );
      }
      database.run('INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, ?)', migration.version, migration.name, Date.now());
    }
    return pending.map((migration) => migration.version);
  });
}

/**
 * Checks, without writing, that a database opened read-only is fully migrated.
 *
 * @throws StoreError(integrity) when it is not migrated, behind, or newer than this code
 */
export function checkMigrations(database: MigrationConnection, migrations: Migration[] = loadMigrations()): void {
  const applied = appliedMigrations(database);
  refuseNewer(database, applied, migrations);
  if (applied.length < migrations.length) {
    throw new StoreError(
      'integrity',
      `Workflow state database ${database.path} is not migrated to ${migrations.at(-1)?.name ?? 'none'}; open it read-write once to upgrade`,
    );
  }
}
