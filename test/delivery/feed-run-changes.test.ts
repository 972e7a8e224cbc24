/**
 * The run-list change feed on its own, without GraphQL: `ChangeFeed.followRunChanges`
 * over the durable order of migration 0003 (`run_changes`), its cursors, resets, filter rule and
 * resume after a reopen. The subscription over real sockets is covered by
 * test/live/run-changes.test.ts.
 */
import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect } from 'vitest';
import { MALFORMED_RUN_CHANGE_CURSOR, WorkflowStore } from '../../src/store/index.js';
import { ChangeFeed, type RunChangeEvent } from '../../src/delivery/index.js';
import { READ_PAGE } from '../../src/delivery/feed-run-changes.js';
import { claim, expectStoreError, openTestStore, reserve, reserveInput, snapshotTables, T0, tempDir, type TestStore, take } from '../helpers/store-fixtures.js';
import { storeTest as it } from '../helpers/store-test.js';
import { connectionOf } from '../helpers/store-internals.js';
import { UNDO_MIGRATION_0009 } from '../helpers/undo-migration-0009.js';
import { createPiWorkflowsFile } from '../../fixtures/pi-workflows-file.js';
let feed: ChangeFeed;
it.beforeEach(({ t }) => {
  feed = new ChangeFeed(t.store, { pollIntervalMs: 25 });
});
afterEach(() => {
  feed.close();
});

/** What a test compares: run id, queue status, durable status, presentation revision; or the reset. */
const label = (event: RunChangeEvent): string =>
  event.kind === 'change' ? `${event.run.runId} ${event.run.status}/${event.run.runStateStatus} r${event.run.presentationRevision}` : 'reset';

const decoded = (cursor: string): string => Buffer.from(cursor, 'base64url').toString('utf8');
/** A decoded cursor without its expiry mark (a store on the system clock). */
const withoutMark = (cursor: string): string => decoded(cursor).split(':').slice(0, 3).join(':');
const databaseId = (t: TestStore): string => t.store.runChangeHead().databaseId;
const cursorAt = (t: TestStore, seq: number, id = databaseId(t)): string => Buffer.from(`v1:${id}:${seq}`).toString('base64url');

/** Lets the stream run until it waits (the store is synchronous). */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('ChangeFeed.followRunChanges: order and cursors', () => {
  it('after null: live from the head at the call, in commit order, each run in the state its commit left', async ({ t }) => {
    reserve(t.store, 'run-old');
    const stream = feed.followRunChanges(undefined, null);
    reserve(t.store, 'run-1', { originSessionId: 'session-1' }); // after the call, before the first pull
    reserve(t.store, 'run-2', { originSessionId: 'session-2' });
    const first = await take(stream, 2);
    expect(first.map(label)).toEqual(['run-1 queued/queued r1', 'run-2 queued/queued r1']);
    const next = stream.next();
    await settle();
    claim(t.store, 'run-1');
    expect(label((await next).value as RunChangeEvent)).toBe('run-1 starting/queued r2');
    await stream.return?.();
    expect(feed.waiterCount).toBe(0);
  });

  it('replay after a cursor: each run that changed since once, in its latest state, ordered by its latest change; then live', async ({ t }) => {
    const live = feed.followRunChanges(undefined, null);
    reserve(t.store, 'run-1', { originSessionId: 'session-1' });
    const [seen] = await take(live, 1);
    await live.return?.();
    if (seen?.kind !== 'change') throw new Error('expected a change');
    // Away: run-2 created, run-1 claimed and renewed (two changes), run-2 claimed.
    reserve(t.store, 'run-2', { originSessionId: 'session-2' });
    claim(t.store, 'run-1');
    t.store.renewWorkflowRunClaim({ runId: 'run-1', claimToken: 'token-run-1', leaseMs: 60_000 });
    claim(t.store, 'run-2');
    const stream = feed.followRunChanges(undefined, seen.cursor);
    expect((await take(stream, 2)).map(label)).toEqual(['run-1 starting/queued r3', 'run-2 starting/queued r2']);
    const next = stream.next();
    await settle();
    t.store.recordViewerDeltas('run-1', [{ targetType: 'timeline' }]);
    expect(label((await next).value as RunChangeEvent)).toBe('run-1 starting/queued r4');
    await stream.return?.();
  });

  it('followers at the same position share one read and the same event objects (one GraphQL execution per event)', async ({ t }) => {
    const first = feed.followRunChanges(undefined, null);
    const second = feed.followRunChanges(undefined, null);
    const filtered = feed.followRunChanges({ originSessionId: 'session-2' }, null);
    const pending = [first.next(), second.next(), filtered.next()];
    await settle();
    reserve(t.store, 'run-1');
    reserve(t.store, 'run-2', { originSessionId: 'session-2' });
    const [a, b, c] = await Promise.all(pending);
    expect(a?.value).toBe(b?.value);
    expect(label(a?.value as RunChangeEvent)).toBe('run-1 queued/queued r1');
    const [a2, b2] = [await first.next(), await second.next()];
    expect(a2.value).toBe(b2.value);
    expect(c?.value).toBe(a2.value);
    for (const stream of [first, second, filtered]) await stream.return?.();
  });

  it('no wake-up without a new commit: a follower that reads after another waited again still gets the shared event object', async () => {
    // File-backed, so the feed watches data_version. The commit below happens while nobody waits
    // (both streams exist, neither was pulled). When the first follower waits again, the watcher
    // checks data_version: this process's commit must not count a second time (a second wake-up
    // would drop the shared page, and the late follower would get a fresh event object).
    const file = openTestStore({ file: true });
    const fileFeed = new ChangeFeed(file.store, { pollIntervalMs: 25 });
    try {
      const warm = fileFeed.followRunChanges(undefined, null);
      const warmed = warm.next();
      await settle();
      reserve(file.store, 'run-0');
      await warmed; // the watcher exists; nobody waits now
      await warm.return?.();
      const first = fileFeed.followRunChanges(undefined, null);
      const second = fileFeed.followRunChanges(undefined, null);
      reserve(file.store, 'run-1');
      await settle();
      const a = await first.next();
      const ticks = fileFeed.ticks;
      const pendingFirst = first.next(); // waits again: the watcher checks data_version
      await settle();
      await settle();
      expect(fileFeed.ticks).toBe(ticks);
      const b = await second.next();
      expect(label(a.value as RunChangeEvent)).toBe('run-1 queued/queued r1');
      expect(b.value).toBe(a.value);
      reserve(file.store, 'run-2');
      const [a2, b2] = [await pendingFirst, await second.next()];
      expect(label(a2.value as RunChangeEvent)).toBe('run-2 queued/queued r1');
      expect(b2.value).toBe(a2.value);
      for (const stream of [first, second]) await stream.return?.();
    } finally {
      fileFeed.close();
      file.close();
    }
  });

  it('the cursor is opaque base64url of v2:<database id>:<position>:<expiry mark>; positions grow by commit', async ({ t }) => {
    const stream = feed.followRunChanges(undefined, null);
    reserve(t.store, 'run-1');
    reserve(t.store, 'run-2', { originSessionId: 'session-2' });
    const events = await take(stream, 2);
    await stream.return?.();
    const cursors = events.map((event) => decoded(event.cursor));
    expect(cursors.map((cursor) => cursor.split(':').slice(0, 2).join(':'))).toEqual([`v2:${databaseId(t)}`, `v2:${databaseId(t)}`]);
    // The expiry mark: the lease clock the page was read at (docs/PROTOCOL.md "Lease expiry").
    expect(cursors.map((cursor) => Number(cursor.split(':')[3]))).toEqual([t.clock.t, t.clock.t]);
    const positions = cursors.map((cursor) => Number(cursor.split(':')[2]));
    expect(positions[1]).toBeGreaterThan(positions[0] as number);
    expect(positions[1]).toBe(t.store.runChangeHead().head);
    expect(databaseId(t)).toMatch(/^[0-9a-f]{32}$/);
  });

  it('a replay longer than a page: every run once, in order, no gap, no duplicate', async ({ t }) => {
    const start = cursorAt(t, t.store.runChangeHead().head);
    const ids = Array.from({ length: READ_PAGE * 2 + 5 }, (_, index) => `run-${String(index).padStart(3, '0')}`);
    t.store.transaction(() => ids.forEach((id) => reserve(t.store, id, { originSessionId: `session-${id}` })));
    const stream = feed.followRunChanges(undefined, start);
    const events = await take(stream, ids.length);
    expect(events.map((event) => (event.kind === 'change' ? event.run.runId : 'reset'))).toEqual(ids);
    const next = stream.next();
    await settle();
    claim(t.store, 'run-000');
    expect(label((await next).value as RunChangeEvent)).toBe('run-000 starting/queued r2');
    await stream.return?.();
  });

  it('a cursor of another database, or ahead of the head: reset first (cursor = head), then live', async ({ t }) => {
    reserve(t.store, 'run-1');
    for (const ahead of [false, true]) {
      const head = t.store.runChangeHead().head;
      const cursor = ahead ? cursorAt(t, head + 1) : cursorAt(t, 3, '0123456789abcdef0123456789abcdef');
      const stream = feed.followRunChanges(undefined, cursor);
      const [reset] = await take(stream, 1);
      expect(reset).toEqual({ kind: 'reset_required', cursor: Buffer.from(`v2:${databaseId(t)}:${head}:${t.clock.t}`).toString('base64url') });
      const next = stream.next();
      await settle();
      claim(t.store, 'run-1', 'runner-1', `token-${cursor}`);
      expect(((await next).value as RunChangeEvent).kind).toBe('change');
      await stream.return?.();
    }
  });

  it('a malformed cursor: the exact error at the call, nothing read or written', ({ t }) => {
    reserve(t.store, 'run-1');
    const before = snapshotTables(t.store);
    for (const cursor of [
      '',
      'not a cursor',
      Buffer.from('v2:abc:1').toString('base64url'),
      Buffer.from('v2:abc:1:01').toString('base64url'),
      Buffer.from('v2:abc:1:1:-run').toString('base64url'),
      cursorAt(t, 1).slice(0, -1) + '!',
      `${cursorAt(t, 1)}=`,
      Buffer.from('v1:abc:01').toString('base64url'),
      'x'.repeat(10_000),
    ]) {
      const error = expectStoreError(() => feed.followRunChanges(undefined, cursor), MALFORMED_RUN_CHANGE_CURSOR, 'validation');
      expect(error.field).toBe('after');
    }
    expect(MALFORMED_RUN_CHANGE_CURSOR).toBe(
      'Malformed run change cursor: pass the cursor of a WorkflowRunChange or WorkflowRunChangesResetRequired event, or null for live only',
    );
    expect(snapshotTables(t.store)).toEqual(before);
  });

  it('a failed write changes no position: no row, no event', async ({ t }) => {
    reserve(t.store, 'run-1');
    const head = t.store.runChangeHead();
    const before = connectionOf(t.store).prepare('SELECT * FROM run_changes ORDER BY change_seq').all();
    expect(() => t.store.reserveWorkflowRun(reserveInput('run-1', { workflowSourceRef: 'other.json' }))).toThrow();
    expect(() => t.store.claimWorkflowRun({ runId: 'run-1', runnerId: 'r', claimToken: 'tok', leaseMs: -1 })).toThrow();
    expect(t.store.runChangeHead()).toEqual(head);
    expect(connectionOf(t.store).prepare('SELECT * FROM run_changes ORDER BY change_seq').all()).toEqual(before);
  });
});

describe('ChangeFeed.followRunChanges: filter', () => {
  const statuses = (event: RunChangeEvent | undefined): string =>
    event?.kind === 'change' ? `${event.run.runId} ${event.run.status}/${event.run.runStateStatus}` : String(event?.kind);

  it('only runs that match; a run that leaves the filter comes once more (so a list drops it); one that never matched never comes', async ({ t }) => {
    reserve(t.store, 'run-a', { originSessionId: 'session-a' });
    reserve(t.store, 'run-b', { originSessionId: 'session-b' });
    const stream = feed.followRunChanges({ queueStatus: ['starting', 'running'] }, null);
    const step = async (write: () => void): Promise<string> => {
      const next = stream.next();
      await settle();
      write();
      return statuses((await next).value as RunChangeEvent);
    };
    expect(await step(() => claim(t.store, 'run-a'))).toBe('run-a starting/queued'); // joins
    expect(
      await step(() => {
        t.store.recordViewerDeltas('run-b', [{ targetType: 'timeline' }]); // queued, never matched: skipped
        t.store.markWorkflowRunRunning({ runId: 'run-a', claimToken: 'token-run-a' });
      }),
    ).toBe('run-a running/queued');
    expect(await step(() => t.store.settleWorkflowRun({ runId: 'run-a', claimToken: 'token-run-a', status: 'completed' }))).toBe('run-a done/completed'); // leaves
    expect(await step(() => claim(t.store, 'run-b'))).toBe('run-b starting/queued');
    await stream.return?.();
  });

  it('replay with a filter: what left the filter while away comes in its latest state; the fixed parts (session, workflow, lineage) exclude for good', async ({
    t,
  }) => {
    reserve(t.store, 'run-a', { originSessionId: 'session-a' });
    reserve(t.store, 'run-c', { originSessionId: 'session-c' });
    const start = cursorAt(t, t.store.runChangeHead().head);
    claim(t.store, 'run-a');
    t.store.settleWorkflowRun({ runId: 'run-a', claimToken: 'token-run-a', status: 'failed', error: 'boom' });
    claim(t.store, 'run-c');
    reserve(t.store, 'run-d', { originSessionId: 'session-d' }); // queued only: never matched
    const stream = feed.followRunChanges({ queueStatus: ['starting'] }, start);
    expect((await take(stream, 2)).map(statuses)).toEqual(['run-a failed/failed', 'run-c starting/queued']);
    await stream.return?.();
    const bySession = feed.followRunChanges({ originSessionId: 'session-c', queueStatus: ['starting'] }, start);
    expect((await take(bySession, 1)).map(statuses)).toEqual(['run-c starting/queued']);
    const next = bySession.next();
    await settle();
    claim(t.store, 'run-d'); // another session: not delivered
    t.store.recordViewerDeltas('run-c', [{ targetType: 'timeline' }]);
    expect(statuses((await next).value as RunChangeEvent)).toBe('run-c starting/queued');
    await bySession.return?.();
  });
});

describe('the durable order: migration 0003', () => {
  it('survives a reopen: a cursor of the last session replays what changed since, with the same database id', async () => {
    const dir = tempDir();
    const path = join(dir, 'state.db');
    try {
      let store = WorkflowStore.open({ path, projectPath: dir });
      store.reserveWorkflowRun(reserveInput('run-1'));
      const { databaseId: id, head } = store.runChangeHead();
      store.close();
      store = WorkflowStore.open({ path, projectPath: dir });
      store.reserveWorkflowRun(reserveInput('run-2', { originSessionId: 'session-2' }));
      const reopened = new ChangeFeed(store, { pollIntervalMs: 25 });
      const stream = reopened.followRunChanges(undefined, Buffer.from(`v1:${id}:${head}`).toString('base64url'));
      expect((await take(stream, 1)).map((event) => (event.kind === 'change' ? event.run.runId : 'reset'))).toEqual(['run-2']);
      expect(store.runChangeHead().databaseId).toBe(id);
      await stream.return?.();
      reopened.close();
      store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('backfills the runs of a database written before it, oldest change first, with their statuses', () => {
    const dir = tempDir();
    const path = join(dir, 'state.db');
    const clock = { t: 1_000 };
    try {
      let store = WorkflowStore.open({ path, projectPath: dir, clock: () => clock.t });
      store.reserveWorkflowRun(reserveInput('run-1'));
      clock.t += 10;
      store.reserveWorkflowRun(reserveInput('run-2', { originSessionId: 'session-2' }));
      clock.t += 10;
      store.claimWorkflowRun({ runId: 'run-1', runnerId: 'runner-1', claimToken: 'token-1', leaseMs: 60_000 }); // run-1 now newest
      store.close();
      // Back to a database of migration 0002 (as an older server left it), then reopen: 0003 to 0008 run (0008 drops the column 0001 made).
      const raw = new Database(path);
      raw.exec(UNDO_MIGRATION_0009);
      raw.exec(`DROP TRIGGER run_changes_viewer_insert; DROP TRIGGER run_changes_viewer_revision;
        DROP TRIGGER run_changes_run_status; DROP TRIGGER run_changes_queue_insert; DROP TRIGGER run_changes_queue_status;
        DROP VIEW run_change_marks; DROP TABLE run_changes; DROP TABLE run_change_head;
        DROP INDEX run_queue_updated_idx;
        ALTER TABLE workflow_messages ADD COLUMN trigger_turn INTEGER NOT NULL DEFAULT 0 CHECK (trigger_turn IN (0, 1));
        DELETE FROM schema_migrations WHERE version >= 3;`);
      raw.close();
      store = WorkflowStore.open({ path, projectPath: dir, clock: () => clock.t });
      const rows = connectionOf(store).prepare('SELECT * FROM run_changes ORDER BY change_seq').all();
      expect(rows).toEqual([
        { change_seq: 1, run_id: 'run-2', statuses: ',queued,', queue_statuses: ',queued,' },
        { change_seq: 2, run_id: 'run-1', statuses: ',queued,', queue_statuses: ',starting,' },
      ]);
      expect(store.runChangeHead()).toEqual({ databaseId: expect.stringMatching(/^[0-9a-f]{32}$/), head: 2, floor: 0 });
      store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a pi-workflows state file: the order it keeps (events.event_seq), read only', () => {
  it('replay, then live from another connection; a viewer revision without an event is no position there; a foreign or too old cursor resets', async ({
    t,
  }) => {
    const dir = tempDir('pi-feed-');
    const path = join(dir, 'state.sqlite');
    const writer = createPiWorkflowsFile(path, { schemaDigest: 'ddl' });
    let store: WorkflowStore | undefined;
    let piFeed: ChangeFeed | undefined;
    try {
      writer.transaction(() => writer.reserveRun({ runId: 'run-1', originSessionId: 'session-1', at: T0 }));
      writer.transaction(() => writer.reserveRun({ runId: 'run-2', originSessionId: 'session-2', at: T0 + 1 }));
      store = WorkflowStore.open({ path, projectPath: dir });
      piFeed = new ChangeFeed(store, { pollIntervalMs: 10 });
      const head = store.runChangeHead();
      expect(head).toEqual({ databaseId: `piwf-${T0}`, head: 2, floor: 0 });
      const stream = piFeed.followRunChanges(undefined, cursorAt(t, 0, head.databaseId));
      const replay = await take(stream, 2);
      expect(replay.map(label)).toEqual(['run-1 queued/queued r1', 'run-2 queued/queued r1']);
      expect(replay.map((event) => withoutMark(event.cursor))).toEqual([`v2:piwf-${T0}:1`, `v2:piwf-${T0}:2`]);
      writer.transaction(() => writer.claim('run-1', 'runner-1', 'token-1', T0 + 60_000, T0 + 2));
      expect((await take(stream, 1)).map(label)).toEqual(['run-1 starting/queued r2']);
      writer.transaction(() => writer.recordViewerRevision('run-2', [{ targetType: 'timeline' }], T0 + 3));
      writer.transaction(() => writer.claim('run-2', 'runner-1', 'token-2', T0 + 60_000, T0 + 4));
      expect((await take(stream, 1)).map(label)).toEqual(['run-2 starting/queued r3']);
      await stream.return?.();
      const foreign = piFeed.followRunChanges(undefined, cursorAt(t, 1));
      expect((await take(foreign, 1)).map((event) => [event.kind, withoutMark(event.cursor)])).toEqual([['reset_required', `v2:piwf-${T0}:4`]]);
      await foreign.return?.();
      // pi-workflows prunes old events: a cursor below the oldest event still held cannot be
      // replayed completely (floor = oldest kept − 1).
      writer.run('DELETE FROM events WHERE event_seq <= 2');
      expect(store.runChangeHead()).toEqual({ databaseId: `piwf-${T0}`, head: 4, floor: 2 });
      const tooOld = piFeed.followRunChanges(undefined, cursorAt(t, 1, `piwf-${T0}`));
      expect((await take(tooOld, 1)).map((event) => [event.kind, withoutMark(event.cursor)])).toEqual([['reset_required', `v2:piwf-${T0}:4`]]);
      await tooOld.return?.();
      const atFloor = piFeed.followRunChanges(undefined, cursorAt(t, 2, `piwf-${T0}`));
      expect((await take(atFloor, 2)).map(label)).toEqual(['run-1 starting/queued r2', 'run-2 starting/queued r3']);
      await atFloor.return?.();
    } finally {
      piFeed?.close();
      store?.close();
      writer.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
