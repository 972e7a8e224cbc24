import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyMigrations, loadMigrations, StateDatabase, WorkflowStore } from '../../src/store/index.js';
import { claim, expectStoreError, reserve, reserveInput, sha256Hex, snapshotTables, tempDir, TestClock } from '../helpers/store-fixtures.js';
import { storeInternals, connectionOf } from '../helpers/store-internals.js';
import { UNDO_MIGRATION_0009 } from '../helpers/undo-migration-0009.js';

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

describe('migrations (docs/STORE-RULES.md §13.9)', () => {
  it('applies the numbered migrations once and records them', () => {
    expect(loadMigrations().map((migration) => [migration.version, migration.name])).toEqual([
      [1, '0001_state_store'],
      [2, '0002_lineage_indexes'],
      [3, '0003_run_changes'],
      [4, '0004_run_list_order'],
      [5, '0005_write_pages'],
      [6, '0006_claim_candidates'],
      [7, '0007_chain_sizes'],
      [8, '0008_message_turn_flag_in_content'],
      [9, '0009_run_view_tables'],
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
      [8, '0008_message_turn_flag_in_content'],
      [9, '0009_run_view_tables'],
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
        'attempt_entries',
        'blobs',
        'continuations',
        'effects',
        'events',
        'human_decision_resolutions',
        'human_decision_submissions',
        'human_decisions',
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
        'run_steps',
        'runs',
        'schema_migrations',
        'session_entries',
        'session_events',
        'session_segments',
        'unowned_started_runs',
        'viewer_deltas',
        'viewer_runs',
        'workflow_definitions',
        'workflow_follow_ups',
        'workflow_messages',
        'workflow_setting_changes',
        'workflow_settings',
        'workflow_turns',
        'workflow_updates',
      ]);
      for (const table of tables) expect(table.sql, table.name).toMatch(/\)\s*(WITHOUT ROWID,\s*)?STRICT$/);
    } finally {
      store.close();
    }
  });

  it('refuses a database with a newer migration, leaving its bytes unchanged', () => {
    open().close();
    const db = new Database(path);
    db.prepare("INSERT INTO schema_migrations(version, name, applied_at) VALUES (10, '0010_future', 1)").run();
    db.close();
    const before = fileHash(path);
    expectStoreError(
      () => open(),
      `Workflow state database ${path} has migration 0010_future, newer than this server knows (latest 0009_run_view_tables); upgrade the server`,
      'integrity',
    );
    expect(fileHash(path)).toBe(before);
    expect(existsSync(`${path}-wal`)).toBe(false);
    expectStoreError(
      () => open({ readOnly: true }),
      `Workflow state database ${path} has migration 0010_future, newer than this server knows (latest 0009_run_view_tables); upgrade the server`,
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
      `Workflow state database ${path} is not migrated to 0009_run_view_tables; open it read-write once to upgrade`,
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

  describe('0008: the turn flag only in the message content (docs/PI-WORKFLOWS-FILES.md §8)', () => {
    const content = (triggerTurn: boolean) => ({
      schema: 'pi-workflows.workflow-message-content.v1' as const,
      customType: 'c',
      content: 'hello',
      display: true,
      details: null,
      triggerTurn,
    });
    const messageColumns = (file = path) => {
      const db = new Database(file, { readonly: true });
      try {
        return (db.prepare("SELECT name FROM pragma_table_info('workflow_messages')").all() as Array<{ name: string }>).map((row) => row.name);
      } finally {
        db.close();
      }
    };
    /** A file with two messages, taken back to 0007: the trigger_turn column 0001 made, filled as the store wrote it. */
    function fileBefore0008(): void {
      const store = open();
      reserve(store, 'run-1');
      store.createWorkflowMessage({ idempotencyKey: 'a', runId: 'run-1', targetSessionId: 'S', kind: 'step', sourceId: 's', content: content(true) });
      store.createWorkflowMessage({ idempotencyKey: 'b', runId: 'run-1', targetSessionId: 'S', kind: 'notification', sourceId: 'n', content: content(false) });
      store.close();
      const db = new Database(path);
      db.exec(UNDO_MIGRATION_0009);
      db.exec(`ALTER TABLE workflow_messages ADD COLUMN trigger_turn INTEGER NOT NULL DEFAULT 0 CHECK (trigger_turn IN (0, 1));
        UPDATE workflow_messages SET trigger_turn = (SELECT json_extract(CAST(content AS TEXT), '$.triggerTurn') FROM blobs WHERE blob_hash = content_hash);
        DELETE FROM schema_migrations WHERE version >= 8;`);
      db.close();
    }
    const rows = () => {
      const db = new Database(path, { readonly: true });
      try {
        return db
          .prepare(
            'SELECT workflow_message_id, kind, status, order_number, content_hash, CAST(b.content AS TEXT) AS content FROM workflow_messages JOIN blobs b ON b.blob_hash = content_hash ORDER BY order_number',
          )
          .all();
      } finally {
        db.close();
      }
    };

    it('drops workflow_messages.trigger_turn and keeps every message and its content (the flag in it)', () => {
      fileBefore0008();
      expect(messageColumns()).toContain('trigger_turn');
      const before = rows();
      expect(before.map((row) => JSON.parse((row as { content: string }).content).triggerTurn)).toEqual([true, false]);
      const store = open();
      try {
        expect(store.listWorkflowMessages('run-1').map((message) => (message.content as { triggerTurn: boolean }).triggerTurn)).toEqual([true, false]);
        store.createWorkflowMessage({ idempotencyKey: 'c', runId: 'run-1', targetSessionId: 'S', kind: 'followUp', sourceId: 'f', content: content(true) });
      } finally {
        store.close();
      }
      expect(messageColumns()).not.toContain('trigger_turn');
      expect(rows().slice(0, 2)).toEqual(before);
      expect(JSON.parse((rows()[2] as { content: string }).content).triggerTurn).toBe(true);
      expect((migrationRows() as Array<{ version: number }>).map((row) => row.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    });

    it.each([
      ['lacks the flag', { schema: 'pi-workflows.workflow-message-content.v1', customType: 'c', content: 'x', display: true, details: null }],
      ['says otherwise than the column', content(false)],
    ])('refuses, applying nothing, a file where a message content %s', (_case, other) => {
      fileBefore0008();
      const text = JSON.stringify(other);
      const db = new Database(path);
      const hash = Buffer.from(sha256Hex(text), 'hex');
      db.prepare("INSERT OR IGNORE INTO blobs(blob_hash, media_type, byte_length, content, created_at) VALUES (?, 'application/json', ?, ?, 0)").run(
        hash,
        Buffer.byteLength(text),
        Buffer.from(text),
      );
      db.prepare("UPDATE workflow_messages SET content_hash = ? WHERE kind = 'step'").run(hash);
      db.close();
      const before = rows();
      expectStoreError(
        () => open(),
        `Migration 0008_message_turn_flag_in_content failed on workflow state database ${path}: CHECK constraint failed: message_content_carries_trigger_turn; no pending migration was applied`,
        'integrity',
      );
      expect(messageColumns()).toContain('trigger_turn');
      expect(rows()).toEqual(before);
      expect((migrationRows() as Array<{ version: number }>).map((row) => row.version)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    });
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

describe('read-only store (docs/STORE-RULES.md §1)', () => {
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
    ['prepare', (s) => s.reserveWorkflowRun(reserveInput('run-2'), { runnerId: 'r', claimToken: 't', leaseMs: 1000 })],
    ['reserve a restart', (s) => s.reserveWorkflowRun(reserveInput('run-2', { parentRunId: 'run-1', lineageKind: 'restart' }))],
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

describe('projects (docs/STORE-RULES.md §3.1, §13.5)', () => {
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
