/**
 * Migrations at the server level (the store-level rules are in
 * test/store/migrations.test.ts):
 *
 * - a database made by an older migration set (0001 only, with runs in it) is upgraded when the
 *   server starts on it, in one transaction: both migrations recorded, the data kept and served;
 *   a migration that fails half-way leaves nothing of itself behind and the server says why;
 * - the server CLI refuses a database with a newer migration, a file that is not a database,
 *   and (read-only) a missing file, with a clear message and exit code 1, leaving the file's
 *   bytes as they were.
 */
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server/app.js';
import type { ServerConfig } from '../../src/server/config.js';
import { applyMigrations, canonicalJson, loadMigrations, type StateDatabase, WorkflowStore } from '../../src/store/index.js';
import { contentDigest, faultTempDir, postGraphQL, spawnTsx } from '../helpers/fault-fixtures.js';
import { testServerConfig } from '../helpers/server-config.js';
import { UNDO_MIGRATION_0009 } from '../helpers/undo-migration-0009.js';

const MIGRATIONS = loadMigrations();

function fileHash(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

function config(dir: string, dbPath: string, overrides: Partial<ServerConfig> = {}): ServerConfig {
  return testServerConfig(dbPath, dir, overrides);
}

/** The StateDatabase surface `applyMigrations` uses, over a plain connection (no migration at open). */
function bareDatabase(connection: Database.Database, path: string): StateDatabase {
  return {
    path,
    transaction: <T>(fn: () => T): T => connection.transaction(fn).immediate(),
    exec: (sql: string) => void connection.exec(sql),
    get: (sql: string, ...params: unknown[]) => connection.prepare(sql).get(...params),
    all: (sql: string, ...params: unknown[]) => connection.prepare(sql).all(...params),
    run: (sql: string, ...params: unknown[]) => connection.prepare(sql).run(...params),
  } as unknown as StateDatabase;
}

/** Runs the server CLI to its exit (it is expected to refuse to start). */
async function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnTsx('src/server/main.ts', ['--port', '0', '--log-level', 'silent', ...args]);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

describe('migrations at the server level', () => {
  let dir: string;
  /** A database made by migration 0001 alone, holding three runs. */
  let olderDb: string;

  beforeAll(() => {
    dir = faultTempDir();
    olderDb = join(dir, 'older.db');
    const connection = new Database(olderDb);
    connection.pragma('journal_mode = WAL');
    expect(applyMigrations(bareDatabase(connection, olderDb), MIGRATIONS.slice(0, 1))).toEqual([1]);
    connection.close();
    // Data written by a store against the 0001 layout (0002 and 0004 only add indexes, 0003 a log
    // fed by triggers): open a copy with the full store, write, then drop what 0002 to 0004 added
    // and their records.
    const scratch = join(dir, 'scratch.db');
    copyFileSync(olderDb, scratch);
    const store = WorkflowStore.open({ path: scratch, projectPath: dir });
    const definition = { name: 'old' };
    const digest = createHash('sha256').update(canonicalJson(definition)).digest('hex');
    for (const runId of ['old-1', 'old-2', 'old-3']) {
      store.reserveWorkflowRun({
        runId,
        workflowName: 'old',
        workflowSourceRef: 'old.ts',
        workflowSource: { kind: 'file', path: 'old.ts', hash: digest },
        definitionDigest: digest,
        definitionSnapshot: definition,
        originSessionId: `session-${runId}`,
      });
    }
    store.close();
    const downgrade = new Database(scratch);
    downgrade.exec(UNDO_MIGRATION_0009);
    const added = downgrade.prepare("SELECT name FROM sqlite_master WHERE type = 'index'").all() as Array<{ name: string }>;
    const introduced = [MIGRATIONS[1], MIGRATIONS[3]].flatMap(
      (migration) => migration?.sql.match(/CREATE INDEX (\w+)/g)?.map((statement) => statement.split(' ')[2] as string) ?? [],
    );
    expect(introduced.length).toBeGreaterThan(1);
    expect(added.map((row) => row.name)).toEqual(expect.arrayContaining(introduced));
    for (const name of introduced) downgrade.exec(`DROP INDEX ${name}`);
    // 0003 (the run change log): its triggers, view and tables.
    for (const kind of ['TRIGGER', 'VIEW', 'TABLE']) {
      const names = MIGRATIONS[2]?.sql.match(new RegExp(`CREATE ${kind} (\\w+)`, 'g'))?.map((statement) => statement.split(' ')[2] as string) ?? [];
      expect(names.length).toBeGreaterThan(0);
      for (const name of names) downgrade.exec(`DROP ${kind} ${name}`);
    }
    // 0008 dropped the column 0001 made: back it comes (no message rows here).
    downgrade.exec('ALTER TABLE workflow_messages ADD COLUMN trigger_turn INTEGER NOT NULL DEFAULT 0 CHECK (trigger_turn IN (0, 1))');
    downgrade.exec('DELETE FROM schema_migrations WHERE version > 1');
    downgrade.close();
    copyFileSync(scratch, olderDb);
    rmSync(scratch);
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  function schemaOf(path: string): { versions: number[]; indexes: string[]; runs: number } {
    const db = new Database(path, { readonly: true });
    try {
      return {
        versions: (db.prepare('SELECT version FROM schema_migrations ORDER BY version').all() as Array<{ version: number }>).map((row) => row.version),
        indexes: (
          db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string }>
        ).map((row) => row.name),
        runs: (db.prepare('SELECT count(*) AS n FROM runs').get() as { n: number }).n,
      };
    } finally {
      db.close();
    }
  }

  it('a server started on a database of an older migration set upgrades it and serves its data', async () => {
    const path = join(dir, 'upgrade.db');
    copyFileSync(olderDb, path);
    expect(schemaOf(path)).toMatchObject({ versions: [1], runs: 3 });
    const server = await startServer(config(dir, path), { logger: pino({ level: 'silent' }) });
    try {
      const response = await postGraphQL(server.url, { query: '{ workflowRuns { totalCount edges { node { runId status } } } }' });
      expect(response.body?.data).toEqual({
        workflowRuns: {
          totalCount: 3,
          edges: expect.arrayContaining(['old-1', 'old-2', 'old-3'].map((runId) => ({ node: { runId, status: 'QUEUED' } }))),
        },
      });
    } finally {
      await server.close();
    }
    const after = schemaOf(path);
    expect(after.versions).toEqual(MIGRATIONS.map((migration) => migration.version));
    const introduced = MIGRATIONS[1]?.sql.match(/CREATE INDEX (\w+)/g)?.map((statement) => statement.split(' ')[2] as string) ?? [];
    expect(after.indexes).toEqual(expect.arrayContaining(introduced));
    // The rows are the ones that were there (schema_migrations gained one; nothing else changed).
    const check = new Database(path, { readonly: true });
    const runsNow = check.prepare('SELECT run_id FROM runs ORDER BY run_id').all();
    check.close();
    expect(runsNow).toEqual([{ run_id: 'old-1' }, { run_id: 'old-2' }, { run_id: 'old-3' }]);
  });

  it('an upgrade that fails half-way leaves nothing of the migration behind, and the server says which failed', async () => {
    const path = join(dir, 'half.db');
    copyFileSync(olderDb, path);
    // The second index of 0002 cannot be created: a table of that name is in the way, so its
    // first index would be created and must be rolled back with the rest.
    const introduced = MIGRATIONS[1]?.sql.match(/CREATE INDEX (\w+)/g)?.map((statement) => statement.split(' ')[2] as string) ?? [];
    expect(introduced.length).toBeGreaterThan(1);
    const db = new Database(path);
    db.exec(`CREATE TABLE ${introduced[1]} (x INTEGER)`);
    const before = contentDigest(db);
    const schemaBefore = db.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY name').all();
    db.close();

    await expect(startServer(config(dir, path), { logger: pino({ level: 'silent' }) })).rejects.toThrow(
      `Migration ${MIGRATIONS[1]?.name} failed on workflow state database ${path}: there is already a table named ${introduced[1]}; ` +
        'no pending migration was applied',
    );
    const after = new Database(path);
    expect(contentDigest(after)).toBe(before);
    expect(after.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY name').all()).toEqual(schemaBefore);
    after.close();
    expect(schemaOf(path).versions).toEqual([1]);
  });

  it('the CLI refuses a database with a newer migration: exit 1, a clear message, bytes unchanged', async () => {
    const path = join(dir, 'newer.db');
    const store = WorkflowStore.open({ path, projectPath: dir });
    store.close();
    const db = new Database(path);
    db.prepare("INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, '0099_from_the_future', 1)").run(MIGRATIONS.length + 1);
    db.close();
    const before = fileHash(path);
    const result = await runCli(['--db', path, '--project', dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `pi-workflows-graphql: Workflow state database ${path} has migration 0099_from_the_future, newer than this server knows ` +
        `(latest ${MIGRATIONS.at(-1)?.name}); upgrade the server\n`,
    );
    expect(result.stdout).not.toContain('listening');
    expect(fileHash(path)).toBe(before);
    // Read-only: the same refusal.
    const readOnly = await runCli(['--db', path, '--project', dir, '--read-only']);
    expect(readOnly.code).toBe(1);
    expect(readOnly.stderr).toContain('newer than this server knows');
    expect(fileHash(path)).toBe(before);
  });

  it('the CLI refuses a file that is not a database, and a missing file read-only: exit 1, a clear message, nothing written', async () => {
    const path = join(dir, 'notes.txt');
    writeFileSync(path, 'These are notes, not a SQLite database.\n'.repeat(100));
    const before = fileHash(path);
    const result = await runCli(['--db', path, '--project', dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`pi-workflows-graphql: Not a workflow state database: ${path} (file is not a database)\n`);
    expect(fileHash(path)).toBe(before);
    expect(existsSync(`${path}-wal`)).toBe(false);

    const missing = join(dir, 'missing.db');
    const readOnly = await runCli(['--db', missing, '--project', dir, '--read-only']);
    expect(readOnly.code).toBe(1);
    expect(readOnly.stderr).toMatch(new RegExp(`^pi-workflows-graphql: Cannot open workflow state database ${missing}: .+\\n$`));
    expect(existsSync(missing)).toBe(false);
  });
});
