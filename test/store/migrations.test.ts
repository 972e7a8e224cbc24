import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyMigrations, loadMigrations, StateDatabase, WorkflowStore } from '../../src/store/index.js';
import { claim, expectStoreError, reserve, reserveInput, sha256Hex, snapshotTables, tempDir, TestClock } from '../helpers/store-fixtures.js';
import { storeInternals, connectionOf } from '../helpers/store-internals.js';

let dir: string;
let path: string;
const clock = new TestClock();
beforeEach(() => {
  dir = tempDir();
  path = join(dir, 'state.db');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const open = (options: { readOnly?: boolean; projectPath?: string | null } = {}) =>
  WorkflowStore.open({ path, projectPath: dir, clock: clock.now, ...options });

const fileHash = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

function migrationRows(file = path): unknown[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT version, name, applied_at FROM schema_migrations ORDER BY version').all();
  } finally {
    db.close();
  }
}

describe('migrations (STORE.md §13.9)', () => {
  it('applies the numbered migrations once and records them', () => {
    expect(loadMigrations().map((migration) => [migration.version, migration.name])).toEqual([
      [1, '0001_state_store'],
      [2, '0002_lineage_indexes'],
      [3, '0003_run_changes'],
      [4, '0004_run_list_order'],
      [5, '0005_write_pages'],
      [6, '0006_claim_candidates'],
      [7, '0007_chain_sizes'],
    ]);
    open().close();
    const rows = migrationRows() as Array<{ version: number; name: string }>;
    expect(rows.map((row) => [row.version, row.name])).toEqual([
      [1, '0001_state_store'],
      [2, '0002_lineage_indexes'],
      [3, '0003_run_changes'],
      [4, '0004_run_list_order'],
      [5, '0005_write_pages'],
      [6, '0006_claim_candidates'],
      [7, '0007_chain_sizes'],
    ]);
  });

  it('a reopen applies nothing twice: schema_migrations rows are unchanged', () => {
    open().close();
    const before = migrationRows();
    const store = open();
    expect(applyMigrations(storeInternals(store).database)).toEqual([]);
    store.close();
    expect(migrationRows()).toEqual(before);
  });

  it('opens with WAL, synchronous FULL, foreign keys and a 5000 ms busy timeout; every table is STRICT', () => {
    const store = open();
    try {
      const connection = connectionOf(store);
      expect(connection.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(connection.pragma('synchronous', { simple: true })).toBe(2);
      expect(connection.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(connection.pragma('busy_timeout', { simple: true })).toBe(5000);
      const tables = connection.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{
        name: string;
        sql: string;
      }>;
      expect(tables.map((table) => table.name)).toEqual([
        'blobs',
        'events',
        'interactive_requests',
        'interactive_submissions',
        'leases',
        'node_attempts',
        'projects',
        'resources',
        'run_bindings',
        'run_chain_sizes',
        'run_change_head',
        'run_changes',
        'run_queue',
        'run_sources',
        'runs',
        'schema_migrations',
        'unowned_started_runs',
        'viewer_deltas',
        'viewer_runs',
        'workflow_definitions',
        'workflow_messages',
        'workflow_turns',
      ]);
      for (const table of tables) expect(table.sql, table.name).toMatch(/\)\s*(WITHOUT ROWID,\s*)?STRICT$/);
    } finally {
      store.close();
    }
  });

  it('refuses a database with a newer migration, leaving its bytes unchanged', () => {
    open().close();
    const db = new Database(path);
    db.prepare("INSERT INTO schema_migrations(version, name, applied_at) VALUES (8, '0008_future', 1)").run();
    db.close();
    const before = fileHash(path);
    expectStoreError(
      () => open(),
      `Workflow state database ${path} has migration 0008_future, newer than this server knows (latest 0007_chain_sizes); upgrade the server`,
      'integrity',
    );
    expect(fileHash(path)).toBe(before);
    expect(existsSync(`${path}-wal`)).toBe(false);
    expectStoreError(
      () => open({ readOnly: true }),
      `Workflow state database ${path} has migration 0008_future, newer than this server knows (latest 0007_chain_sizes); upgrade the server`,
      'integrity',
    );
    expect(fileHash(path)).toBe(before);
  });

  it('refuses a database whose recorded migration names diverge', () => {
    open().close();
    const db = new Database(path);
    db.prepare("UPDATE schema_migrations SET name = '0002_something_else' WHERE version = 2").run();
    db.close();
    const before = fileHash(path);
    expectStoreError(
      () => open(),
      `Workflow state database ${path} recorded migration 0002_something_else where this server has 0002_lineage_indexes`,
      'integrity',
    );
    expect(fileHash(path)).toBe(before);
  });

  it('refuses a file that is not a database, leaving it unchanged', () => {
    writeFileSync(path, 'this is not a sqlite database, just some text that is long enough to look like a header'.repeat(20));
    const before = fileHash(path);
    expectStoreError(() => open(), `Not a workflow state database: ${path} (file is not a database)`, 'integrity');
    expect(fileHash(path)).toBe(before);
  });

  it('a read-only open of a missing file or an unmigrated database is refused', () => {
    expectStoreError(() => open({ readOnly: true }), `Cannot open workflow state database ${path}: unable to open database file`, 'integrity');
    new Database(path).close();
    expectStoreError(
      () => open({ readOnly: true }),
      `Workflow state database ${path} is not migrated to 0007_chain_sizes; open it read-write once to upgrade`,
      'integrity',
    );
  });

  it('a read-write open prunes blobs nothing references', () => {
    const store = open();
    reserve(store, 'run-1');
    store.close();
    const db = new Database(path);
    const orphan = Buffer.from('orphan');
    db.prepare("INSERT INTO blobs(blob_hash, media_type, byte_length, content, created_at) VALUES (?, 'text/plain', ?, ?, 0)").run(
      Buffer.from(sha256Hex(orphan), 'hex'),
      orphan.length,
      orphan,
    );
    const count = (db.prepare('SELECT count(*) AS n FROM blobs').get() as { n: number }).n;
    db.close();
    const reopened = open();
    try {
      expect((snapshotTables(reopened).blobs as unknown[]).length).toBe(count - 1);
      expect(reopened.getWorkflowRun('run-1')?.input).toEqual({ topic: 'tests' });
    } finally {
      reopened.close();
    }
  });

  it('StateDatabase.transaction joins an open transaction (helpers join the caller’s)', () => {
    const database = StateDatabase.open({ path });
    try {
      const inner = database.transaction(() => database.transaction(() => database.inTransaction));
      expect(inner).toBe(true);
      expect(database.inTransaction).toBe(false);
    } finally {
      database.close();
    }
  });
});

describe('read-only store (STORE.md §1)', () => {
  let store: WorkflowStore;
  beforeEach(() => {
    const writer = open();
    reserve(writer, 'run-1');
    claim(writer, 'run-1', 'runner-1', 'tok');
    writer.close();
    store = open({ readOnly: true });
  });
  afterEach(() => store.close());

  it('reads', () => {
    expect(store.getWorkflowRun('run-1')?.status).toBe('starting');
    expect(store.verifyWorkflowRunClaim({ runId: 'run-1', claimToken: 'tok' })).toBe(true);
    expect(store.readViewerDeltas('run-1', 1)?.kind).toBe('deltas');
  });

  it.each<[string, (s: WorkflowStore) => unknown]>([
    ['reserve', (s) => s.reserveWorkflowRun(reserveInput('run-2'))],
    ['prepare', (s) => s.prepareOrAdoptWorkflowRun(reserveInput('run-2'), { runnerId: 'r', claimToken: 't', leaseMs: 1000 })],
    ['reserveWithPolicy', (s) => s.reserveWithPolicy(reserveInput('run-2', { parentRunId: 'run-1', lineageKind: 'restart' }))],
    ['restart', (s) => s.restartWorkflowRun({ runId: 'run-1', originSessionId: 'session-run-1' })],
    ['claim', (s) => s.claimWorkflowRun({ runId: 'run-1', runnerId: 'r', claimToken: 't', leaseMs: 1000 })],
    ['claimNext', (s) => s.claimNextWorkflowRun({ runnerId: 'r', claimToken: 't', leaseMs: 1000 })],
    ['renew', (s) => s.renewWorkflowRunClaim({ runId: 'run-1', claimToken: 'tok', leaseMs: 1000 })],
    ['markRunning', (s) => s.markWorkflowRunRunning({ runId: 'run-1', claimToken: 'tok' })],
    ['park', (s) => s.parkWorkflowRun({ runId: 'run-1', claimToken: 'tok' })],
    ['complete', (s) => s.completeWorkflowRun({ runId: 'run-1', claimToken: 'tok' })],
    ['noProgress', (s) => s.parkWorkflowRunForWorkerNoProgress({ runId: 'run-1', claimToken: 'tok', detail: 'd' })],
    ['pause', (s) => s.pauseParkedWorkflowRun({ runId: 'run-1' })],
    ['resume', (s) => s.resumePausedInteraction({ runId: 'run-1' })],
    ['timeout', (s) => s.beginWorkflowRunInteractionTimeout({ runId: 'run-1', claimToken: 'tok', targetSessionId: 'x' })],
    ['fail', (s) => s.failWorkflowRun({ runId: 'run-1', errorCode: 'x', errorMessage: 'y' })],
    ['cancel', (s) => s.cancelWorkflowRun({ runId: 'run-1' })],
    ['settle', (s) => s.settleWorkflowRun({ runId: 'run-1', claimToken: 'tok', status: 'completed' })],
    ['recordRunEvent', (s) => s.recordRunEvent({ runId: 'run-1', type: 'x' })],
    ['recordViewerDeltas', (s) => s.recordViewerDeltas('run-1', [{ targetType: 'summary' }])],
    [
      'createWorkflowMessage',
      (s) =>
        s.createWorkflowMessage({
          idempotencyKey: 'k',
          runId: 'run-1',
          targetSessionId: 'S',
          kind: 'notification',
          sourceId: 'n',
          content: { schema: 'pi-workflows.workflow-message-content.v1', customType: 'c', content: '', display: true, details: null, triggerTurn: false },
        }),
    ],
    ['markWorkflowMessageSent', (s) => s.markWorkflowMessageSent({ workflowMessageId: 'm', targetSessionId: 'S', piSessionEntryId: 'e' })],
    ['openInteraction', (s) => s.openInteraction({ runId: 'run-1', nodeId: 'n', attemptId: 'a', requestId: 'q', targetSessionId: 'S' })],
  ])('%s: Controller store is read-only', (_name, write) => {
    const before = snapshotTables(store);
    expectStoreError(() => write(store), 'Controller store is read-only', 'forbidden');
    expect(snapshotTables(store)).toEqual(before);
  });
});

describe('projects (STORE.md §3.1, §13.5)', () => {
  it('registers the real path once; a read-only store only looks it up', () => {
    const real = join(dir, 'project');
    mkdirSync(real);
    const first = WorkflowStore.open({ path, projectPath: real, clock: clock.now });
    const second = WorkflowStore.open({ path, projectPath: join(dir, 'project', '..', 'project'), clock: clock.now });
    const readOnly = WorkflowStore.open({ path, projectPath: real, readOnly: true });
    const unknown = WorkflowStore.open({ path, projectPath: join(dir, 'elsewhere'), readOnly: true });
    try {
      expect(first.projectId).toMatch(/^project-[0-9a-f]{40}$/);
      expect(second.projectId).toBe(first.projectId);
      expect(readOnly.projectId).toBe(first.projectId);
      expect(unknown.projectId).toBeNull();
      expect(snapshotTables(first).projects).toHaveLength(1);
    } finally {
      first.close();
      second.close();
      readOnly.close();
      unknown.close();
    }
  });
});
