/**
 * Concurrent mutations over HTTP committed as one group: while another
 * connection holds the write lock, four `reserveWorkflowRun` mutations queue in the server's
 * store, one after the other; when the lock is freed they run in one transaction, one savepoint
 * each. The good ones succeed, the bad ones get their typed errors with the store's exact texts,
 * and only the good ones are in the database afterwards, committed by one COMMIT.
 */
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { ReserveWorkflowRunDocument } from '../../schema/generated/graphql.js';
import { reserveInput, type TestServer } from '../helpers/server-fixture.js';
import { freshServerTest as it } from '../helpers/server-test.js';
import { storeInternals } from '../helpers/store-internals.js';

/** Resolves each time the server's store takes a new write into its queue, with the count queued. */
function writeQueueWatcher(fx: TestServer): (count: number) => Promise<void> {
  const database = storeInternals(fx.store).database;
  const waiting: Array<{ count: number; resolve: () => void }> = [];
  const writeAsync = fx.store.writeAsync.bind(fx.store);
  fx.store.writeAsync = <T>(fn: () => T): Promise<T> => {
    const result = writeAsync(fn);
    for (const entry of waiting.filter((each) => database.lockWaiters >= each.count)) {
      waiting.splice(waiting.indexOf(entry), 1);
      entry.resolve();
    }
    return result;
  };
  return (count) =>
    database.lockWaiters >= count
      ? Promise.resolve()
      : new Promise((resolve) => {
          waiting.push({ count, resolve });
        });
}

it('concurrent mutations in one group: the bad ones fail alone with their typed errors, the good ones commit together', async ({ fx }) => {
  const queued = writeQueueWatcher(fx);
  let commits = 0;
  fx.store.onCommit(() => {
    commits += 1;
  });
  const holder = new Database(fx.dbPath);
  try {
    holder.exec('BEGIN IMMEDIATE');
    // Sent one at a time, each once the previous one waits in the store: the group's order is known.
    const inputs = [
      reserveInput('run-a', { originSessionId: 'session-a' }),
      reserveInput('run-a', { originSessionId: 'session-b' }), // sees run-a of the same group: already reserved
      reserveInput('bad id!', { originSessionId: 'session-c' }),
      reserveInput('run-d', { originSessionId: 'session-d' }),
    ];
    const answers = [];
    for (const [index, input] of inputs.entries()) {
      answers.push(fx.data(ReserveWorkflowRunDocument, { input }));
      await queued(index + 1);
    }
    expect(holder.prepare('SELECT count(*) AS n FROM runs').get()).toEqual({ n: 0 });
    holder.exec('COMMIT');
    const results = (await Promise.all(answers)).map(({ reserveWorkflowRun }) =>
      reserveWorkflowRun.__typename === 'ReserveWorkflowRunSuccess' ? { ok: reserveWorkflowRun.run.runId } : reserveWorkflowRun,
    );
    expect(results).toEqual([
      { ok: 'run-a' },
      { __typename: 'ConflictError', code: 'CONFLICT', message: 'Workflow run already reserved: run-a' },
      { __typename: 'ValidationError', code: 'INVALID_INPUT', message: 'Invalid workflow run id: bad id!', field: 'runId' },
      { ok: 'run-d' },
    ]);
    expect(commits).toBe(1);
    // Read back through another connection: the good ones only, each with its own session.
    expect(holder.prepare('SELECT run_id FROM runs ORDER BY run_id').all()).toEqual([{ run_id: 'run-a' }, { run_id: 'run-d' }]);
    expect(holder.prepare('SELECT run_id, origin_session_id FROM run_queue ORDER BY run_id').all()).toEqual([
      { run_id: 'run-a', origin_session_id: 'session-a' },
      { run_id: 'run-d', origin_session_id: 'session-d' },
    ]);
    expect(holder.prepare("SELECT count(*) AS n FROM run_queue WHERE origin_session_id IN ('session-b', 'session-c')").get()).toEqual({ n: 0 });
  } finally {
    holder.close();
  }
});
