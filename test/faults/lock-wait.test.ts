/**
 * Writes waiting for SQLite's write lock never stop the event loop: another
 * process takes the lock (`BEGIN IMMEDIATE` on its own connection) and holds it until told to
 * let go; meanwhile a server's mutation waits and its queries keep answering. At the deadline
 * the asynchronous path fails with the same error as the synchronous one. Everything is
 * sequenced by awaited events (the holder's lines, the store's entry), never by sleeps.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createRequire } from 'node:module';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ReserveWorkflowRunDocument } from '../../schema/generated/graphql.js';
import { WorkflowStore } from '../../src/store/index.js';
import { memoryTempDir } from '../helpers/fault-fixtures.js';
import { reserve, reserveInput, startTestServer, type TestServer } from '../helpers/server-fixture.js';
import { reserveInput as reservation } from '../helpers/store-fixtures.js';
import { storeInternals } from '../helpers/store-internals.js';

const require = createRequire(import.meta.url);

/** A child process holding the write lock of `path` until `release()`. */
interface LockHolder {
  release(): Promise<void>;
  child: ChildProcessWithoutNullStreams;
}

/** Spawns a process that takes the write lock of `path`; resolves once it holds it. */
async function holdWriteLock(path: string): Promise<LockHolder> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const Database = require(process.argv[1]);
       const db = new Database(process.argv[2]);
       db.exec('BEGIN IMMEDIATE');
       process.stdout.write('locked\\n');
       process.stdin.once('data', () => {
         db.exec('COMMIT');
         db.close();
         process.stdout.write('released\\n', () => process.exit(0));
       });`,
      require.resolve('better-sqlite3'),
      path,
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  holders.push(child);
  const lines = lineReader(child);
  await lines('locked');
  return {
    child,
    release: async () => {
      child.stdin.write('release\n');
      await lines('released');
    },
  };
}

/** Resolves when the child printed `line` (each line awaited once, in order). */
function lineReader(child: ChildProcessWithoutNullStreams): (line: string) => Promise<void> {
  let buffer = '';
  let stderr = '';
  const waiting: Array<{ line: string; resolve: () => void; reject: (error: Error) => void }> = [];
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    let end = buffer.indexOf('\n');
    while (end >= 0) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      const index = waiting.findIndex((entry) => entry.line === line);
      if (index >= 0) waiting.splice(index, 1)[0]?.resolve();
      end = buffer.indexOf('\n');
    }
  });
  child.once('exit', (code) => {
    for (const entry of waiting.splice(0)) entry.reject(new Error(`lock holder exited ${String(code)} before "${entry.line}": ${stderr}`));
  });
  return (line) => new Promise((resolve, reject) => waiting.push({ line, resolve, reject }));
}

const holders: ChildProcessWithoutNullStreams[] = [];
let fx: TestServer | undefined;

afterEach(async () => {
  for (const child of holders.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await fx?.close();
  fx = undefined;
});

describe('a write waiting for the lock of another process', () => {
  it('does not block a query on the same server: the query answers while the mutation waits, then the mutation commits', async () => {
    fx = await startTestServer();
    const server = fx;
    await reserve(server, reserveInput('before-lock'));
    const database = storeInternals(server.store).database;

    // Resolves once the mutation's resolver asked the store for the write lock.
    let entered!: () => void;
    const writeEntered = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const writeAsync = server.store.writeAsync.bind(server.store);
    server.store.writeAsync = <T>(fn: () => T): Promise<T> => {
      const result = writeAsync(fn);
      entered();
      return result;
    };

    const holder = await holdWriteLock(server.dbPath);
    let settled = false;
    const mutation = server
      .data(ReserveWorkflowRunDocument, { input: reserveInput('while-locked', { originSessionId: 'session-while-locked' }) })
      .finally(() => {
        settled = true;
      });
    await writeEntered;
    expect(database.lockWaiters).toBe(1);

    const page = await server.data('query Runs { workflowRuns(first: 10) { edges { node { id runId } } } }');
    expect((page as { workflowRuns: { edges: Array<{ node: { runId: string } }> } }).workflowRuns.edges.map((edge) => edge.node.runId)).toEqual([
      'before-lock',
    ]);
    expect(settled).toBe(false);
    expect(database.lockWaiters).toBe(1);
    expect(server.store.getWorkflowRun('while-locked')).toBeUndefined();

    await holder.release();
    const { reserveWorkflowRun } = await mutation;
    expect(reserveWorkflowRun).toMatchObject({ __typename: 'ReserveWorkflowRunSuccess', run: { runId: 'while-locked' } });
    expect(database.lockWaiters).toBe(0);
    expect(server.store.getWorkflowRun('while-locked')?.runId).toBe('while-locked');
  });
});

describe('StateDatabase.transactionAsync (store.writeAsync)', () => {
  it('fails at the deadline with the same error as the synchronous path, having written nothing', async () => {
    const dir = memoryTempDir();
    const path = join(dir, 'state.db');
    const store = WorkflowStore.open({ path, projectPath: dir, busyTimeoutMs: 50 });
    try {
      const holder = await holdWriteLock(path);
      let syncError: unknown;
      try {
        store.reserveWorkflowRun(reservation('sync-run'));
      } catch (error) {
        syncError = error;
      }
      let asyncError: unknown;
      await store
        .writeAsync(() => store.reserveWorkflowRun(reservation('async-run')))
        .catch((error: unknown) => {
          asyncError = error;
        });
      expect(syncError).toBeInstanceOf(Error);
      expect(asyncError).toBeInstanceOf((syncError as Error).constructor);
      expect({ name: (asyncError as Error).name, code: (asyncError as { code?: string }).code, message: (asyncError as Error).message }).toEqual({
        name: (syncError as Error).name,
        code: 'SQLITE_BUSY',
        message: 'database is locked',
      });
      expect((syncError as { code?: string }).code).toBe('SQLITE_BUSY');
      expect(storeInternals(store).database.lockWaiters).toBe(0);

      await holder.release();
      expect(store.getWorkflowRun('sync-run')).toBeUndefined();
      expect(store.getWorkflowRun('async-run')).toBeUndefined();
      expect((await store.writeAsync(() => store.reserveWorkflowRun(reservation('after-release')).run)).runId).toBe('after-release');
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rolls back everything the function wrote when it throws, and notifies commit listeners once per committed write', async () => {
    const dir = memoryTempDir();
    const store = WorkflowStore.open({ path: join(dir, 'state.db'), projectPath: dir });
    try {
      let commits = 0;
      store.onCommit(() => {
        commits += 1;
      });
      await expect(
        store.writeAsync(() => {
          store.reserveWorkflowRun(reservation('rolled-back'));
          throw new Error('host failed after the reservation');
        }),
      ).rejects.toThrow('host failed after the reservation');
      expect(store.getWorkflowRun('rolled-back')).toBeUndefined();
      expect(commits).toBe(0);

      const runs = await store.writeAsync(() => [store.reserveWorkflowRun(reservation('one')).run, store.reserveWorkflowRun(reservation('two')).run]);
      expect(runs.map((run) => run.runId)).toEqual(['one', 'two']);
      expect(commits).toBe(1);
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('serves writes that waited oldest first once the lock is free', async () => {
    const dir = memoryTempDir();
    const path = join(dir, 'state.db');
    const store = WorkflowStore.open({ path, projectPath: dir });
    try {
      const holder = await holdWriteLock(path);
      const order: string[] = [];
      const writes = ['first', 'second', 'third'].map((runId) =>
        store.writeAsync(() => {
          order.push(runId);
          return store.reserveWorkflowRun(reservation(runId)).run.runId;
        }),
      );
      expect(storeInternals(store).database.lockWaiters).toBe(3);
      await holder.release();
      expect(await Promise.all(writes)).toEqual(['first', 'second', 'third']);
      expect(order).toEqual(['first', 'second', 'third']);
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
