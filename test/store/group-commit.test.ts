/**
 * Grouped commits of `store.writeAsync` (`StateDatabase.transactionAsync`):
 * the writes of one turn of the event loop run in one `BEGIN IMMEDIATE … COMMIT`, each in its
 * own savepoint. Every guarantee of a single write holds for each write of a group: answered
 * only after the shared commit (a second connection already reads it), a failing write rolled
 * back alone (no rows, events, blobs, viewer deltas, feed deliveries), a failing COMMIT
 * rejecting every write of the group with nothing written, the exact docs/STORE-RULES.md error texts, and
 * the change feed delivering each committed write once, in commit order. Every test reads the
 * database afterwards.
 *
 * In-memory state: no store code changes memory inside a write's
 * transaction — the run order index of a pi-workflows file is brought up to date by reads only
 * (one made inside a write keeps no version and looks again after, see `RunOrderIndex.refresh`),
 * the change log's identity is read once — and the change feed's state (its delta and run-change read caches,
 * the heads it knows, its wake-up count, its own-commit baseline) changes only on reads outside
 * a transaction (a group runs in one tick, nothing else runs in between) or in the commit
 * listener, once per committed group. The test of a failing write in a group checks that the
 * feed's caches never serve the rolled-back revision and that the group is one wake-up.
 */
import Database from 'better-sqlite3';
import type { Database as SqliteDatabase } from 'better-sqlite3';
import { afterEach, describe, expect } from 'vitest';
import { MAX_GROUP_WRITES } from '../../src/store/database.js';
import { StoreError, type WorkflowRunRecord } from '../../src/store/index.js';
import { ChangeFeed, type RunChangeEvent, type RunDeltaEvent } from '../../src/delivery/index.js';
import { eventsOf, reserve, snapshotTables, take, viewerRevisions, type TestStore } from '../helpers/store-fixtures.js';
import { storeTest } from '../helpers/store-test.js';
import { connectionOf, storeInternals, unreferencedBlobs } from '../helpers/store-internals.js';

const it = storeTest.extend('storeOptions', { file: true });

let feed: ChangeFeed | undefined;
let reader: SqliteDatabase | undefined;
afterEach(() => {
  feed?.close();
  feed = undefined;
  reader?.close();
  reader = undefined;
});

/** A second connection on the test store's file: what another process would read. */
function readerOf(t: TestStore): SqliteDatabase {
  reader = new Database(t.path, { readonly: true, fileMustExist: true });
  return reader;
}

/** Run ids in `runs`, sorted, as a second connection reads them. */
function runIdsSeenBy(connection: SqliteDatabase): string[] {
  return (connection.prepare('SELECT run_id FROM runs ORDER BY run_id').all() as Array<{ run_id: string }>).map((row) => row.run_id);
}

/** One timeline revision appending `text` (a host's viewer change). */
function timeline(text: string) {
  return [{ targetType: 'timeline' as const, targetKey: 'items', ops: [{ op: 'append' as const, path: '/items', value: [{ text }] }] }];
}

/** The texts a run's stored timeline revisions appended, by revision. */
function timelineTexts(t: TestStore, runId: string): Array<[number, unknown]> {
  return viewerRevisions(t.store, runId)
    .filter((revision) => revision.targets.includes('timeline/items'))
    .map((revision) => [revision.revision, ((revision.patches[0] as unknown[]).at(-1) as { value: Array<{ text: string }> }).value[0]?.text]);
}

/** What a promise settled with: the value, or the error's class, code/kind and message. */
async function outcome(promise: Promise<unknown>): Promise<{ ok: unknown } | { error: { name: string; kind?: string; code?: string; message: string } }> {
  try {
    return { ok: await promise };
  } catch (error) {
    const { name, message } = error as Error;
    const kind = error instanceof StoreError ? error.kind : undefined;
    const code = (error as { code?: unknown }).code;
    return { error: { name, message, ...(kind === undefined ? {} : { kind }), ...(typeof code === 'string' ? { code } : {}) } };
  }
}

const runIdOf = (run: WorkflowRunRecord): string => run.runId;
const label = (event: RunChangeEvent): string => (event.kind === 'change' ? `${event.run.runId} r${event.run.presentationRevision}` : 'reset');

describe('grouped commits of writeAsync', () => {
  it('writes of one turn share one COMMIT, and each promise settles only once a second connection reads its rows', async ({ t }) => {
    const other = readerOf(t);
    const groups = { ...storeInternals(t.store).database.writeGroups };
    let commits = 0;
    t.store.onCommit(() => {
      commits += 1;
    });
    const seenAtSettle: Array<string[]> = [];
    const writes = ['run-1', 'run-2', 'run-3', 'run-4', 'run-5'].map((runId) =>
      t.store
        .writeAsync(() => reserve(t.store, runId))
        .then((run) => {
          seenAtSettle.push(runIdsSeenBy(other));
          return runIdOf(run);
        }),
    );
    expect(runIdsSeenBy(other)).toEqual([]);
    expect(await Promise.all(writes)).toEqual(['run-1', 'run-2', 'run-3', 'run-4', 'run-5']);
    expect(commits).toBe(1);
    const after = storeInternals(t.store).database.writeGroups;
    expect({ commits: after.commits - groups.commits, writes: after.writes - groups.writes, failed: after.failed - groups.failed }).toEqual({
      commits: 1,
      writes: 5,
      failed: 0,
    });
    // Every answer came after the shared commit: the other connection already read all five.
    expect(seenAtSettle).toEqual(Array.from({ length: 5 }, () => ['run-1', 'run-2', 'run-3', 'run-4', 'run-5']));
  });

  it(`at most ${MAX_GROUP_WRITES} writes per group: the rest commit in the next one, in call order`, async ({ t }) => {
    const groups = storeInternals(t.store).database.writeGroups.commits;
    const count = MAX_GROUP_WRITES + 6;
    const runIds = Array.from({ length: count }, (_, index) => `run-${String(index).padStart(3, '0')}`);
    const results = await Promise.all(runIds.map((runId) => t.store.writeAsync(() => reserve(t.store, runId).runId)));
    expect(results).toEqual(runIds);
    expect(storeInternals(t.store).database.writeGroups.commits - groups).toBe(2);
    const positions = connectionOf(t.store).prepare('SELECT run_id FROM run_changes ORDER BY change_seq').all() as Array<{ run_id: string }>;
    expect(positions.map((row) => row.run_id)).toEqual(runIds);
  });

  it('a write that throws is rolled back alone with its own error (exact docs/STORE-RULES.md texts); the others commit; nothing of it remains and the feed never delivers it', async ({
    t,
  }) => {
    reserve(t.store, 'run-viewer');
    t.store.recordViewerDeltas('run-viewer', timeline('committed before'));
    feed = new ChangeFeed(t.store, { pollIntervalMs: 25 });
    const changes = feed.followRunChanges(undefined, null);
    const deltas = feed.followRunDeltas('run-viewer', 2);
    const firstChange = changes.next();
    const firstDelta = deltas.next();
    await new Promise((resolve) => setImmediate(resolve));
    expect(feed.waiterCount).toBe(2);
    const other = readerOf(t);
    const ticks = feed.ticks;
    let commits = 0;
    t.store.onCommit(() => {
      commits += 1;
    });

    const a = t.store.writeAsync(() => reserve(t.store, 'run-a').runId);
    // A host write that reserves, records a viewer revision (blob included), then fails on a
    // store rule: the reservation of run-a, made earlier in the same transaction, is visible to it.
    const b = t.store.writeAsync(() => {
      reserve(t.store, 'run-bad');
      t.store.recordViewerDeltas('run-viewer', timeline('rolled back'));
      return reserve(t.store, 'run-a').runId;
    });
    const c = t.store.writeAsync(() => reserve(t.store, 'bad id!').runId);
    const d = t.store.writeAsync(() => t.store.recordViewerDeltas('run-viewer', timeline('committed in the group')));
    const e = t.store.writeAsync(() => reserve(t.store, 'run-e').runId);
    const settled = await Promise.all([a, b, c, d, e].map(outcome));
    expect(settled).toEqual([
      { ok: 'run-a' },
      { error: { name: 'StoreError', kind: 'conflict', message: 'Workflow run already reserved: run-a' } },
      { error: { name: 'StoreError', kind: 'validation', message: 'Invalid workflow run id: bad id!' } },
      { ok: 3 }, // not 4: revision 3 of the failed write was rolled back with it
      { ok: 'run-e' },
    ]);
    expect(commits).toBe(1);

    // The database, as another connection reads it: the three good writes, nothing of the failed ones.
    expect(runIdsSeenBy(other)).toEqual(['run-a', 'run-e', 'run-viewer']);
    expect(other.prepare("SELECT count(*) AS n FROM resources WHERE aggregate_key = 'run-bad'").get()).toEqual({ n: 0 });
    expect(eventsOf(t.store, 'run-bad')).toEqual([]);
    expect(timelineTexts(t, 'run-viewer')).toEqual([
      [2, 'committed before'],
      [3, 'committed in the group'],
    ]);
    expect(unreferencedBlobs(t.store)).toEqual([]);
    expect(other.prepare("SELECT count(*) AS n FROM blobs WHERE content LIKE '%rolled back%'").get()).toEqual({ n: 0 });

    // The feed: one wake-up for the one commit; each committed write once, in commit order.
    expect(label((await firstChange).value as RunChangeEvent)).toBe('run-a r1');
    expect((await take(changes, 2)).map(label)).toEqual(['run-viewer r3', 'run-e r1']);
    expect(((await firstDelta).value as RunDeltaEvent & { presentationRevision: number }).presentationRevision).toBe(3);
    expect(feed.ticks).toBe(ticks + 1);
    // The next commit is the next thing either stream delivers: nothing of the failed writes came in between.
    await t.store.writeAsync(() => t.store.recordViewerDeltas('run-viewer', timeline('after the group')));
    expect((await take(changes, 1)).map(label)).toEqual(['run-viewer r4']);
    const [revision4] = await take(deltas, 1);
    expect(revision4).toMatchObject({ runId: 'run-viewer', presentationRevision: 4 });
    expect(JSON.stringify(revision4)).toContain('after the group');
    expect(timelineTexts(t, 'run-viewer').at(-1)).toEqual([4, 'after the group']);
    await changes.return?.();
    await deltas.return?.();
  });

  it('a COMMIT that fails (a deferred foreign-key violation) rejects every write of the group and writes nothing', async ({ t }) => {
    reserve(t.store, 'run-before');
    const other = readerOf(t);
    const before = snapshotTables(t.store);
    let commits = 0;
    t.store.onCommit(() => {
      commits += 1;
    });
    const a = t.store.writeAsync(() => reserve(t.store, 'run-x').runId);
    const b = t.store.writeAsync(() => {
      // A host write whose foreign key is checked only at COMMIT.
      const connection = connectionOf(t.store);
      connection.pragma('defer_foreign_keys = ON');
      connection.prepare("INSERT INTO leases(resource_id) VALUES ('no-such-resource')").run();
      return 'deferred';
    });
    const c = t.store.writeAsync(() => reserve(t.store, 'run-y').runId);
    const failure = { error: { name: 'SqliteError', code: 'SQLITE_CONSTRAINT_FOREIGNKEY', message: 'FOREIGN KEY constraint failed' } };
    expect(await Promise.all([a, b, c].map(outcome))).toEqual([failure, failure, failure]);
    expect(commits).toBe(0);
    expect(snapshotTables(t.store)).toEqual(before);
    expect(runIdsSeenBy(other)).toEqual(['run-before']);
    expect(storeInternals(t.store).database.inTransaction).toBe(false);
    // The connection is clean afterwards (deferred keys off again): the next group commits.
    expect(await t.store.writeAsync(() => reserve(t.store, 'run-z').runId)).toBe('run-z');
    expect(runIdsSeenBy(other)).toEqual(['run-before', 'run-z']);
  });

  it('a write in which SQLite abandons the whole transaction fails the writes before it with its error; the writes after it commit in the next group', async ({
    t,
  }) => {
    const other = readerOf(t);
    connectionOf(t.store).exec(
      "CREATE TEMP TRIGGER abandon BEFORE INSERT ON main.runs WHEN NEW.run_id = 'run-boom' BEGIN SELECT RAISE(ROLLBACK, 'host aborted the transaction'); END",
    );
    const groups = storeInternals(t.store).database.writeGroups.commits;
    const writes = ['run-1', 'run-boom', 'run-3'].map((runId) => t.store.writeAsync(() => reserve(t.store, runId).runId));
    const abandoned = { error: { name: 'SqliteError', code: 'SQLITE_CONSTRAINT_TRIGGER', message: 'host aborted the transaction' } };
    expect(await Promise.all(writes.map(outcome))).toEqual([abandoned, abandoned, { ok: 'run-3' }]);
    expect(runIdsSeenBy(other)).toEqual(['run-3']);
    expect(eventsOf(t.store, 'run-1')).toEqual([]);
    expect(storeInternals(t.store).database.writeGroups.commits - groups).toBe(1);
  });

  it('a group whose writes all fail is rolled back: no COMMIT, no commit listener, no change', async ({ t }) => {
    reserve(t.store, 'run-1');
    const before = snapshotTables(t.store);
    let commits = 0;
    t.store.onCommit(() => {
      commits += 1;
    });
    const writes = [
      t.store.writeAsync(() => reserve(t.store, 'run-1').runId),
      t.store.writeAsync(() => {
        reserve(t.store, 'run-2');
        throw new Error('host failed after the reservation');
      }),
    ];
    expect(await Promise.all(writes.map(outcome))).toEqual([
      { error: { name: 'StoreError', kind: 'conflict', message: 'Workflow run already reserved: run-1' } },
      { error: { name: 'Error', message: 'host failed after the reservation' } },
    ]);
    expect(commits).toBe(0);
    expect(snapshotTables(t.store)).toEqual(before);
  });

  it('a write that calls writeAsync joins its own savepoint: rolled back with it when it throws after', async ({ t }) => {
    const writes = [
      t.store.writeAsync(() => reserve(t.store, 'run-1').runId),
      t.store.writeAsync(() => {
        void t.store.writeAsync(() => reserve(t.store, 'run-inner'));
        throw new Error('outer failed');
      }),
      t.store.writeAsync(() => reserve(t.store, 'run-3').runId),
    ];
    expect(await Promise.all(writes.map(outcome))).toEqual([{ ok: 'run-1' }, { error: { name: 'Error', message: 'outer failed' } }, { ok: 'run-3' }]);
    expect(runIdsSeenBy(readerOf(t))).toEqual(['run-1', 'run-3']);
  });

  it('writes that waited for another connection’s lock run as one group once it is free, oldest first', async ({ t }) => {
    const holder = new Database(t.path);
    try {
      holder.exec('BEGIN IMMEDIATE');
      const database = storeInternals(t.store).database;
      const groups = database.writeGroups.commits;
      const retries = database.beginRetries;
      const order: string[] = [];
      const writes = ['first', 'second', 'third'].map((runId) =>
        t.store.writeAsync(() => {
          order.push(runId);
          return reserve(t.store, runId).runId;
        }),
      );
      // Let the group try the lock and find it taken (one turn), then free it.
      await new Promise((resolve) => setImmediate(resolve));
      expect(database.lockWaiters).toBe(3);
      expect(database.beginRetries - retries).toBe(3);
      holder.exec('COMMIT');
      expect(await Promise.all(writes)).toEqual(['first', 'second', 'third']);
      expect(order).toEqual(['first', 'second', 'third']);
      expect(database.writeGroups.commits - groups).toBe(1);
      expect(database.lockWaiters).toBe(0);
      expect(runIdsSeenBy(holder)).toEqual(['first', 'second', 'third']);
    } finally {
      holder.close();
    }
  });
});
