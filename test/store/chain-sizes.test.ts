/**
 * The chain sizes the database keeps (migration 0007): `chainSizes`
 * (docs/GRAPHQL-CONTRACT.md `lineage { totalCount }`) reads `run_chain_sizes`, which triggers keep equal to the
 * number of `runs` rows per root_run_id through every write: reserve, continuation, restart,
 * raw SQL inserts, deletes and re-roots by another writer, and the migration's backfill.
 */
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { describe, expect } from 'vitest';
import { WorkflowStore } from '../../src/store/index.js';
import { claim, expectRejectedUnchanged, reserve, sql, tempDir, terminalRun, TestClock, type TestStore } from '../helpers/store-fixtures.js';
import { storeTest as it } from '../helpers/store-test.js';
import { connectionOf } from '../helpers/store-internals.js';
import { UNDO_MIGRATION_0009 } from '../helpers/undo-migration-0009.js';

type SizeRow = { root_run_id: string; run_count: number };

/** The kept sizes, by root. */
const kept = (store: WorkflowStore): SizeRow[] =>
  connectionOf(store).prepare('SELECT root_run_id, run_count FROM run_chain_sizes ORDER BY root_run_id').all() as SizeRow[];

/** The sizes counted from `runs`, by root. */
const counted = (store: WorkflowStore): SizeRow[] =>
  connectionOf(store).prepare('SELECT root_run_id, count(*) AS run_count FROM runs GROUP BY root_run_id ORDER BY root_run_id').all() as SizeRow[];

/** Kept sizes equal counted ones, and `chainSizes` answers them. */
function expectExact(store: WorkflowStore, expected: Record<string, number>): void {
  const rows = Object.entries(expected)
    .filter(([, size]) => size > 0)
    .map(([root, size]) => ({ root_run_id: root, run_count: size }))
    .sort((a, b) => (a.root_run_id < b.root_run_id ? -1 : 1));
  expect(counted(store)).toEqual(rows);
  expect(kept(store)).toEqual(rows);
  expect(store.chainSizes(Object.keys(expected))).toEqual(Object.values(expected));
}

/** root ─▶ c-1 ─▶ c-2 (continuations of parked parents), and a lone run `other`. */
function chain(t: TestStore): void {
  reserve(t.store, 'root', { originSessionId: 'session-chain' });
  let parent = 'root';
  for (const runId of ['c-1', 'c-2']) {
    claim(t.store, parent);
    expect(t.store.parkWorkflowRun({ runId: parent, claimToken: `token-${parent}` })).toBe(true);
    reserve(t.store, runId, { originSessionId: 'session-chain', parentRunId: parent, lineageKind: 'continuation' });
    parent = runId;
  }
  reserve(t.store, 'other', { originSessionId: 'session-other' });
}

/** A raw copy of run `from` as run `runId` with root `rootRunId` (another writer's insert). */
function insertRaw(t: TestStore, from: string, runId: string, rootRunId: string): void {
  sql(
    t.store,
    "INSERT INTO resources(resource_id, resource_type, aggregate_key, revision, created_at, updated_at) SELECT 'res-' || ?, resource_type, ?, 1, created_at, updated_at FROM resources WHERE resource_id = (SELECT resource_id FROM runs WHERE run_id = ?)",
    runId,
    runId,
    from,
  );
  const columns = (connectionOf(t.store).prepare("SELECT name FROM pragma_table_info('runs')").all() as Array<{ name: string }>)
    .map((row) => row.name)
    .filter((name) => !['run_id', 'resource_id', 'root_run_id', 'parent_run_id', 'lineage_kind'].includes(name));
  sql(
    t.store,
    `INSERT INTO runs(run_id, resource_id, root_run_id, parent_run_id, lineage_kind, ${columns.join(', ')})
     SELECT ?, 'res-' || ?, ?, NULL, NULL, ${columns.join(', ')} FROM runs WHERE run_id = ?`,
    runId,
    runId,
    rootRunId,
    from,
  );
}

describe('chain sizes kept by the database (migration 0007)', () => {
  it('counts reserve, continuation and restart; a missing or non-root id is 0', ({ t }) => {
    chain(t);
    expectExact(t.store, { root: 3, other: 1, 'c-1': 0, missing: 0 });
    terminalRun(t, 'lonely');
    const restart = t.store.restartWorkflowRun({ runId: 'lonely', originSessionId: 'session-lonely' }).run.runId;
    expect(restart).not.toBe('lonely');
    expectExact(t.store, { root: 3, other: 1, lonely: 2, [restart]: 0 });
    expect(t.store.chainSizes([])).toEqual([]);
    expect(t.store.chainSizes(['lonely', 'root', 'lonely'])).toEqual([2, 3, 2]);
  });

  it('a refused reservation (the id already reserved) counts nothing', ({ t }) => {
    reserve(t.store, 'root');
    expectRejectedUnchanged(t.store, () => reserve(t.store, 'root'), 'Workflow run already reserved: root', 'conflict');
    expectExact(t.store, { root: 1 });
  });

  it('follows raw SQL inserts, deletes and re-roots of another writer; the last run of a chain takes its row', ({ t }) => {
    chain(t);
    insertRaw(t, 'other', 'raw-1', 'other');
    expectExact(t.store, { root: 3, other: 2 });
    insertRaw(t, 'other', 'raw-root', 'raw-root');
    expectExact(t.store, { root: 3, other: 2, 'raw-root': 1 });
    // A re-root by another writer moves the run between chains.
    sql(t.store, "UPDATE runs SET root_run_id = 'raw-root' WHERE run_id = 'raw-1'");
    expectExact(t.store, { root: 3, other: 1, 'raw-root': 2 });
    sql(t.store, "UPDATE runs SET root_run_id = 'raw-root' WHERE run_id = 'raw-1'");
    expectExact(t.store, { root: 3, other: 1, 'raw-root': 2 });
    // Deletes through the resources' cascade (a run's resource owns it), newest first.
    sql(t.store, "DELETE FROM resources WHERE resource_id = 'res-raw-1'");
    expectExact(t.store, { root: 3, other: 1, 'raw-root': 1 });
    sql(t.store, "DELETE FROM resources WHERE resource_id = 'res-raw-root'");
    expectExact(t.store, { root: 3, other: 1, 'raw-root': 0 });
    connectionOf(t.store).pragma('foreign_keys = OFF');
    sql(t.store, "DELETE FROM runs WHERE run_id IN ('c-2', 'other')");
    connectionOf(t.store).pragma('foreign_keys = ON');
    expectExact(t.store, { root: 2, other: 0 });
  });

  it('a write rolled back leaves the sizes as they were', ({ t }) => {
    chain(t);
    expect(() =>
      t.store.transaction(() => {
        insertRaw(t, 'other', 'raw-1', 'other');
        expectExact(t.store, { root: 3, other: 2 });
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    expectExact(t.store, { root: 3, other: 1 });
  });
});

describe('migration 0007 backfill', () => {
  it('counts every chain of a database written before it, then keeps counting', () => {
    const dir = tempDir();
    const path = join(dir, 'state.db');
    const clock = new TestClock();
    try {
      const store = WorkflowStore.open({ path, projectPath: dir, clock: clock.now });
      chain({ store, clock } as unknown as TestStore);
      reserve(store, 'third');
      // Taken back to 0006 by dropping only what 0007 added (and giving back the column 0008 dropped, undoing 0009): a database written before it.
      connectionOf(store).exec(UNDO_MIGRATION_0009);
      connectionOf(store).exec(`DROP TRIGGER run_chain_size_inserted; DROP TRIGGER run_chain_size_deleted; DROP TRIGGER run_chain_size_rerooted;
        DROP TABLE run_chain_sizes; DELETE FROM schema_migrations WHERE version >= 7;
        ALTER TABLE workflow_messages ADD COLUMN trigger_turn INTEGER NOT NULL DEFAULT 0 CHECK (trigger_turn IN (0, 1));`);
      reserve(store, 'fourth');
      store.close();
      const migrated = WorkflowStore.open({ path, projectPath: dir, clock: clock.now });
      try {
        expectExact(migrated, { root: 3, other: 1, third: 1, fourth: 1 });
        reserve(migrated, 'fifth');
        expectExact(migrated, { root: 3, other: 1, third: 1, fourth: 1, fifth: 1 });
      } finally {
        migrated.close();
      }
      const db = new Database(path, { readonly: true });
      try {
        expect(db.prepare('SELECT version, name FROM schema_migrations WHERE version = 7').get()).toMatchObject({ version: 7, name: '0007_chain_sizes' });
      } finally {
        db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
