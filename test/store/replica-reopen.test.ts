/**
 * The store side of replica mode (docs/DEPLOYMENT.md "Read replicas"): `WorkflowStore.open({
 * replica: true })`, `reopenIfReplaced` and `ReplicaFollower`, without a server. A primary store
 * writes its own file; the replica store reads a copy (VACUUM INTO) that the test renames over
 * its path. The servers and subscribers over real sockets are in test/live/replica.test.ts.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ReplicaFollower, WorkflowStore } from '../../src/store/index.js';
import { ChangeFeed } from '../../src/delivery/index.js';
import { createPiWorkflowsFile } from '../../fixtures/pi-workflows-file.js';
import { expectStoreError, openTestStore, reserve, type TestStore } from '../helpers/store-fixtures.js';

let primary: TestStore;
let replicaPath: string;
let replica: WorkflowStore | undefined;

/** A consistent copy of the primary's file renamed over `replicaPath`. */
function installCopy(): void {
  const staged = `${replicaPath}.new`;
  const source = new Database(primary.path, { readonly: true, fileMustExist: true });
  try {
    source.exec(`VACUUM INTO '${staged}'`);
  } finally {
    source.close();
  }
  renameSync(staged, replicaPath);
}

/** Which of run-a, run-b the store holds. */
function runIds(store: WorkflowStore): string[] {
  return ['run-a', 'run-b'].filter((runId) => store.getWorkflowRun(runId) !== undefined);
}

beforeEach(() => {
  primary = openTestStore({ file: true });
  replicaPath = join(primary.dir, 'replica.db');
  reserve(primary.store, 'run-a');
  installCopy();
});

afterEach(() => {
  replica?.close();
  replica = undefined;
  primary.close();
});

function openReplica(): WorkflowStore {
  replica = WorkflowStore.open({ path: replicaPath, replica: true, projectPath: primary.dir });
  return replica;
}

describe('replica store', () => {
  it('is read-only, and reopenIfReplaced is false while the file is the same one', () => {
    const store = openReplica();
    expect(store.readOnly).toBe(true);
    expect(store.replica).toBe(true);
    expect(store.reopenIfReplaced()).toBe(false);
    expectStoreError(() => reserve(store, 'run-x'), 'Controller store is read-only', 'forbidden');
  });

  it('reopens a copy renamed over its path: reads the new file, same database id, head moved on', () => {
    const store = openReplica();
    const before = store.runChangeHead();
    reserve(primary.store, 'run-b');
    installCopy();
    expect(runIds(store)).toEqual(['run-a']); // still the old, unlinked file
    expect(store.reopenIfReplaced()).toBe(true);
    expect(runIds(store)).toEqual(['run-a', 'run-b']);
    expect(store.runChangeHead()).toEqual({ ...primary.store.runChangeHead(), floor: 0 });
    expect(store.runChangeHead().databaseId).toBe(before.databaseId);
    expect(store.reopenIfReplaced()).toBe(false);
  });

  it('a replacement it refuses leaves the old file served; the next good copy is taken', () => {
    const store = openReplica();
    const staged = `${replicaPath}.new`;
    writeFileSync(staged, 'not a database at all, but long enough to be read as one'.repeat(4));
    renameSync(staged, replicaPath);
    const told: string[] = [];
    const follower = new ReplicaFollower(store, { intervalMs: 60_000, onError: (error) => told.push(error.message) });
    try {
      expect(follower.check()).toBe(false);
      expect(follower.check()).toBe(false); // the same refusal again: not told twice
      expect(follower.state().lastError).toMatch(/^Not a workflow state database: .*replica\.db \(file is not a database\)$/);
      expect(told).toEqual([follower.state().lastError]);
      expect(follower.state().reopens).toBe(0);
      expect(runIds(store)).toEqual(['run-a']);
      reserve(primary.store, 'run-b');
      installCopy();
      expect(follower.check()).toBe(true);
      expect(follower.state()).toMatchObject({ reopens: 1, lastError: null, head: { databaseId: primary.store.runChangeHead().databaseId } });
      expect(runIds(store)).toEqual(['run-a', 'run-b']);
    } finally {
      follower.close();
    }
  });

  it("the change feed wakes its waiters on a reopen: a follower gets the new file's change after its own cursor", async () => {
    const store = openReplica();
    const feed = new ChangeFeed(store, { pollIntervalMs: 5 });
    try {
      const stream = feed.followRunChanges(undefined, store.runChangeCursor());
      reserve(primary.store, 'run-b');
      installCopy();
      const next = stream.next();
      expect(store.reopenIfReplaced()).toBe(true);
      const first = await next;
      expect(first.done).toBe(false);
      expect(first.value).toMatchObject({ kind: 'change', run: { runId: 'run-b' } });
      await stream.return?.(undefined);
    } finally {
      feed.close();
    }
  });

  it('refuses a pi-workflows state file and :memory:', () => {
    const path = join(primary.dir, 'pi-workflows-state.db');
    createPiWorkflowsFile(path).close();
    expectStoreError(
      () => WorkflowStore.open({ path, replica: true }),
      `Replica mode serves a copy of this server's own database file only: ${path} is a pi-workflows state file ` +
        '(a replication tool such as Litestream adds its own tables to the file it replicates, which pi-workflows refuses)',
      'integrity',
    );
    expectStoreError(() => WorkflowStore.open({ path: ':memory:', replica: true }), 'Replica mode needs a database file, not :memory:', 'validation');
  });

  it('reopenIfReplaced and ReplicaFollower need a replica store', () => {
    expect(() => primary.store.reopenIfReplaced()).toThrow('reopenIfReplaced needs a store opened with replica: true');
    expect(() => new ReplicaFollower(primary.store, { intervalMs: 10 })).toThrow('ReplicaFollower needs a store opened with replica: true');
  });
});
