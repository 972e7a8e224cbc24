/**
 * The SQL that takes our own file back from migration 0009 (pi-workflows' engine tables) to
 * what 0008 left, for the tests that rebuild a database of an older migration set and reopen
 * it: its indexes, the node_attempts columns it added, then its tables (last made, first
 * dropped). Read from the migration file, so a change there is followed. Run it on a file whose
 * 0009 tables are empty (the tests write no engine rows before taking a file back).
 */
import { loadMigrations } from '../../src/store/migrations.js';

function undoSql(): string {
  const migration = loadMigrations().find((entry) => entry.name === '0009_run_view_tables');
  if (migration === undefined) throw new Error('migration 0009_run_view_tables is missing');
  const names = (pattern: RegExp): string[] => [...migration.sql.matchAll(pattern)].map((match) => match[1] as string);
  const indexes = names(/CREATE (?:UNIQUE )?INDEX (\w+)/g).map((name) => `DROP INDEX ${name};`);
  const columns = [...migration.sql.matchAll(/ALTER TABLE (\w+) ADD COLUMN (\w+)/g)]
    .reverse()
    .map((match) => `ALTER TABLE ${match[1] as string} DROP COLUMN ${match[2] as string};`);
  const tables = names(/CREATE TABLE (\w+)/g)
    .reverse()
    .map((name) => `DROP TABLE ${name};`);
  return [...indexes, ...columns, ...tables].join('\n');
}

/** `DROP INDEX …; ALTER TABLE node_attempts DROP COLUMN …; DROP TABLE …;` undoing 0009 (not its `schema_migrations` row). */
export const UNDO_MIGRATION_0009 = undoSql();
