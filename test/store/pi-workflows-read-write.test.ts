/**
 * docs/PI-WORKFLOWS-FILES.md §1–§3, §7 at the store level: a pi-workflows file of a layout this
 * server writes (the 0.16 layout: schema digest 0469f429…, app version 0.14.0, as a real 0.16.2
 * file carries them) opens read-write by default with pi-workflows' own connection settings;
 * `readOnly` keeps it read-only; a layout it does not write (or a file lacking a column the
 * writes use) is served read-only, saying why. After a run's life written through the store the
 * file still passes pi-workflows' open check (schema, ids, schema_meta unchanged; integrity and
 * foreign keys clean), the only project row is the one pi-workflows writes, no blob is pruned,
 * and what the server keeps in memory (run order, claim candidates, run-change positions) stays
 * right after its own writes and across a reopen.
 */
import { createHash } from 'node:crypto';
import { realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { projectIdFor, WorkflowStore } from '../../src/store/index.js';
import {
  copyIntoPiWorkflowsFile,
  createPiWorkflowsFile,
  piWorkflowsIdentity,
  piWorkflowsOpenCheck,
  seedPiWorkflowsRuns,
  type PiWorkflowsFileFacts,
  type PiWorkflowsFileOptions,
} from '../../fixtures/pi-workflows-file.js';
import { expectStoreError, reserveInput, T0, tempDir, TestClock } from '../helpers/store-fixtures.js';
import { connectionOf, storeInternals } from '../helpers/store-internals.js';

let dir: string;
let path: string;
let clock: TestClock;
beforeEach(() => {
  dir = tempDir('pi-writes-');
  path = join(dir, 'state.sqlite');
  clock = new TestClock(T0 + 86_400_000);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A seeded pi-workflows file, closed as pi-workflows leaves it. */
function seededFile(options: PiWorkflowsFileOptions = {}): PiWorkflowsFileFacts {
  const writer = createPiWorkflowsFile(path, options);
  seedPiWorkflowsRuns(writer, T0);
  writer.close();
  return writer.facts;
}

const open = (options: { readOnly?: boolean; projectPath?: string | null } = {}): WorkflowStore =>
  WorkflowStore.open({ path, projectPath: dir, clock: clock.now, ...options });

function rows<T>(file: string, sql: string, ...params: unknown[]): T[] {
  const connection = new Database(file, { readonly: true });
  try {
    return connection.prepare(sql).all(...params) as T[];
  } finally {
    connection.close();
  }
}

const WRITES = 'it writes the layout of pi-workflows 0.16.1, 0.16.2: schema digest 0469f429aad9…';
/** The schema digest a file made by pi-workflows 0.16.1 or 0.16.2 stores (docs/PI-WORKFLOWS-FILES.md §1). */
const DIGEST_0_16 = '0469f429aad9046cacf63bf9df4ef8c98277ba633103a2478d9fc40226666327';

describe('which pi-workflows files are served read-write', () => {
  it('a file of the 0.16 layout (app version 0.14.0, as pi-workflows 0.16.2 writes it) opens read-write by default, with the connection settings pi-workflows uses and nothing persistent', () => {
    const facts = seededFile();
    const before = piWorkflowsIdentity(path);
    expect(before.schemaMeta).toMatchObject({ schema_name: 'pi-workflows-state', schema_version: 1, schema_digest: DIGEST_0_16, app_version: '0.14.0' });
    const store = open();
    try {
      expect(store.readOnly).toBe(false);
      expect(store.file).toMatchObject({ kind: 'pi-workflows', appVersion: '0.14.0', schemaDigest: DIGEST_0_16, writeRefusal: null });
      const connection = connectionOf(store);
      expect(connection.readonly).toBe(false);
      expect({
        query_only: connection.pragma('query_only', { simple: true }),
        foreign_keys: connection.pragma('foreign_keys', { simple: true }),
        journal_mode: connection.pragma('journal_mode', { simple: true }),
        synchronous: connection.pragma('synchronous', { simple: true }),
        busy_timeout: connection.pragma('busy_timeout', { simple: true }),
        wal_autocheckpoint: connection.pragma('wal_autocheckpoint', { simple: true }),
        journal_size_limit: connection.pragma('journal_size_limit', { simple: true }),
      }).toEqual({
        query_only: 0,
        foreign_keys: 1,
        journal_mode: 'wal',
        synchronous: 2,
        busy_timeout: 5000,
        wal_autocheckpoint: 1000,
        journal_size_limit: 67108864,
      });
    } finally {
      store.close();
    }
    expect(piWorkflowsOpenCheck(facts, before)).toEqual([]);
  });

  it('the layout decides, not app_version: a listed digest with another app version is written too; a configured busy timeout is used', () => {
    seededFile({ appVersion: '0.16.2' }); // an app version no real 0.16 file carries (invented)
    const store = WorkflowStore.open({ path, projectPath: dir, busyTimeoutMs: 1234 });
    try {
      expect(store.readOnly).toBe(false);
      expect(connectionOf(store).pragma('busy_timeout', { simple: true })).toBe(1234);
    } finally {
      store.close();
    }
  });

  it('readOnly keeps a file of the 0.16 layout read-only (query_only), writing nothing, not even the project row', () => {
    seededFile();
    const store = open({ readOnly: true });
    try {
      expect(store.readOnly).toBe(true);
      expect(store.file).toMatchObject({ kind: 'pi-workflows', writeRefusal: null });
      expect(connectionOf(store).readonly).toBe(true);
      expect(connectionOf(store).pragma('query_only', { simple: true })).toBe(1);
      expect(store.projectId).toBeNull();
      expectStoreError(() => store.reserveWorkflowRun(reserveInput('new-run')), 'Controller store is read-only', 'forbidden');
    } finally {
      store.close();
    }
    expect(rows(path, 'SELECT * FROM projects')).toEqual([]);
  });

  /** A digest no pi-workflows release stores (invented: SHA-256 of `unlisted`). */
  const unlisted = createHash('sha256').update('unlisted').digest();
  const short = unlisted.toString('hex').slice(0, 12);
  it.each([
    [{ schemaDigest: unlisted }, `its unlisted layout (schema digest ${short}…, app version 0.14.0) is not one this server writes (${WRITES})`],
    [
      { schemaDigest: unlisted, appVersion: '0.16.2' },
      `its unlisted layout (schema digest ${short}…, app version 0.16.2) is not one this server writes (${WRITES})`,
    ],
    [
      { drop: ['node_attempts.deadline_at', 'interactive_submissions'] },
      `its layout of pi-workflows 0.16.1, 0.16.2 (schema digest 0469f429aad9…, app version 0.14.0) lacks what this server writes: node_attempts.deadline_at, table interactive_submissions (${WRITES})`,
    ],
  ])('%j is served read-only, naming its digest and app version and what this server writes', (options, refusal) => {
    const facts = seededFile(options);
    const before = piWorkflowsIdentity(path);
    const store = open();
    try {
      expect(store.readOnly).toBe(true);
      expect(store.file).toMatchObject({ kind: 'pi-workflows', writeRefusal: refusal });
      expect(connectionOf(store).pragma('query_only', { simple: true })).toBe(1);
      expect(store.countWorkflowRuns()).toBe(8);
      expectStoreError(() => store.reserveWorkflowRun(reserveInput('new-run')), 'Controller store is read-only', 'forbidden');
    } finally {
      store.close();
    }
    expect(piWorkflowsOpenCheck(facts, before)).toEqual([]);
  });
});

describe('writing a pi-workflows 0.16 file', () => {
  it('a run’s whole life leaves a file pi-workflows accepts: schema, ids and schema_meta unchanged, integrity and foreign keys clean', () => {
    const facts = seededFile();
    const before = piWorkflowsIdentity(path);
    const blobsBefore = rows<{ h: string }>(path, 'SELECT hex(blob_hash) AS h FROM blobs ORDER BY 1').map((row) => row.h);
    const store = open();
    try {
      const claimed = store.reserveWorkflowRun(reserveInput('life-1'), { runnerId: 'host-9', claimToken: 'tok-1', leaseMs: 60_000 });
      expect(claimed.state).toBe('claimed');
      expect(store.markWorkflowRunRunning({ runId: 'life-1', claimToken: 'tok-1' })).toBe(true);
      store.recordViewerDeltas('life-1', [{ targetType: 'timeline', targetKey: 'step-1', ops: [{ op: 'append', path: '/items', value: [1] }] }]);
      expect(store.renewWorkflowRunClaim({ runId: 'life-1', claimToken: 'tok-1', leaseMs: 60_000 })).toBeDefined();
      expect(store.parkWorkflowRun({ runId: 'life-1', claimToken: 'tok-1' })).toBe(true);
      clock.advance(1_000);
      const next = store.claimNextWorkflowRun({ runnerId: 'host-9', claimToken: 'tok-2', leaseMs: 60_000, sessionId: 'session-life-1' });
      expect(next?.runId).toBe('life-1');
      expect(store.settleWorkflowRun({ runId: 'life-1', claimToken: 'tok-2', status: 'completed', output: { done: true } }).runStateStatus).toBe('completed');
      store.reserveWorkflowRun(reserveInput('life-2'));
      expect(store.cancelWorkflowRun({ runId: 'life-2' })).toBe(true);
      store.reserveWorkflowRun(reserveInput('life-3'));
      store.claimWorkflowRun({ runId: 'life-3', runnerId: 'runner-3', claimToken: 'tok-3', leaseMs: 60_000 });
      expect(store.failWorkflowRun({ runId: 'life-3', claimToken: 'tok-3', errorCode: 'failed', errorMessage: 'it broke' })).toBe(true);
      expect(store.restartWorkflowRun({ runId: 'life-3', originSessionId: 'session-life-3' }).run.runId).not.toBe('life-3');
    } finally {
      store.close();
    }
    expect(piWorkflowsOpenCheck(facts, before)).toEqual([]);
    // No prune: every blob that was there still is.
    const blobsAfter = new Set(rows<{ h: string }>(path, 'SELECT hex(blob_hash) AS h FROM blobs').map((row) => row.h));
    expect(blobsBefore.filter((hash) => !blobsAfter.has(hash))).toEqual([]);
    expect(rows<{ n: number }>(path, "SELECT count(*) AS n FROM runs WHERE run_id LIKE 'life-%'")).toEqual([{ n: 3 }]);
  });

  it('the project row is the one pi-workflows’ own open writes, once; a global store writes none', () => {
    seededFile();
    const canonical = realpathSync(dir);
    open().close();
    clock.advance(60_000);
    open().close();
    expect(rows(path, 'SELECT project_id, canonical_path, created_at FROM projects')).toEqual([
      { project_id: projectIdFor(canonical), canonical_path: canonical, created_at: T0 + 86_400_000 },
    ]);
    const store = open();
    try {
      expect(store.projectId).toBe(projectIdFor(canonical));
      expect(store.reserveWorkflowRun(reserveInput('in-project')).run.runId).toBe('in-project');
    } finally {
      store.close();
    }
    expect(rows(path, 'SELECT project_id FROM runs WHERE run_id = ?', 'in-project')).toEqual([{ project_id: projectIdFor(canonical) }]);
    rmSync(path);
    rmSync(`${path}-wal`, { force: true });
    rmSync(`${path}-shm`, { force: true });
    seededFile();
    open({ projectPath: null }).close();
    expect(rows(path, 'SELECT * FROM projects')).toEqual([]);
  });

  it('a file holding only the read side’s and WRITE_SIDE_COLUMNS’ tables and columns takes every write', () => {
    const facts = seededFile({ writeSideOnly: true });
    const store = open();
    try {
      expect(store.readOnly).toBe(false);
      store.reserveWorkflowRun(reserveInput('w-1'), { runnerId: 'host-1', claimToken: 'tok-w1', leaseMs: 60_000 });
      store.markWorkflowRunRunning({ runId: 'w-1', claimToken: 'tok-w1' });
      store.reportWorkflowRunState({ runId: 'w-1', claimToken: 'tok-w1', status: 'running' });
      store.renewWorkflowRunClaim({ runId: 'w-1', claimToken: 'tok-w1', leaseMs: 60_000 });
      store.openInteraction({ runId: 'w-1', attemptId: 'attempt-1', requestId: 'request-1', nodeId: 'ask', targetSessionId: 'session-w-1', kind: 'agent' });
      store.beginWorkflowRunInteractionTimeout({ runId: 'w-1', claimToken: 'tok-w1', targetSessionId: 'session-w-1' });
      store.parkClaimedWorkflowRun({ runId: 'w-1', claimToken: 'tok-w1', noProgressDetail: 'stuck' });
      store.pauseParkedWorkflowRun({ runId: 'w-1' });
      store.resumePausedInteraction({ runId: 'w-1' });
      store.claimWorkflowRunForControl({ runId: 'w-1', runnerId: 'host-1', claimToken: 'tok-w1b', leaseMs: 60_000 });
      store.cancelWorkflowRun({ runId: 'w-1', claimToken: 'tok-w1b' });
      store.reserveWorkflowRun(reserveInput('w-2'));
      store.claimNextWorkflowRun({ runnerId: 'host-2', claimToken: 'tok-w2', leaseMs: 60_000, sessionId: 'session-w-2' });
      store.parkWorkflowRun({ runId: 'w-2', claimToken: 'tok-w2' });
      store.reserveWorkflowRun(reserveInput('w-3', { parentRunId: 'w-2', originSessionId: 'session-w-2' }));
      store.claimWorkflowRun({ runId: 'w-3', runnerId: 'host-2', claimToken: 'tok-w3', leaseMs: 60_000 });
      store.settleWorkflowRun({ runId: 'w-3', claimToken: 'tok-w3', status: 'failed', error: 'broke' });
      store.restartWorkflowRun({ runId: 'w-3', originSessionId: 'session-w-2' });
      store.recordRunEvent({ runId: 'w-2', type: 'host.note', payload: { note: 1 } });
      const message = store.createWorkflowMessage({
        idempotencyKey: 'key-w2',
        runId: 'w-2',
        targetSessionId: 'session-w-2',
        kind: 'step',
        sourceId: 'request-w2',
        content: {
          schema: 'pi-workflows.workflow-message-content.v1',
          customType: 'pi-workflows.step',
          content: 'hi',
          display: true,
          details: {},
          triggerTurn: true,
        },
      });
      store.markWorkflowMessageSent({ workflowMessageId: message.workflowMessageId, targetSessionId: 'session-w-2', piSessionEntryId: 'entry-1' });
      const turn = store.startWorkflowTurn({ workflowMessageId: message.workflowMessageId, runId: 'w-2', targetSessionId: 'session-w-2' });
      store.endWorkflowTurn({ workflowTurnId: turn.workflowTurnId, stopReason: 'completed', responseSessionEntryId: null });
      store.recordViewerDeltas('w-2', [{ targetType: 'summary' }]);
      expect(store.cancelWorkflowRun({ runId: 'run-h' })).toBe(true);
      expect(store.getWorkflowRuns(['w-1', 'w-2', 'w-3', 'run-h']).map((run) => [run?.runStateStatus, run?.status])).toEqual([
        ['cancelled', 'cancelled'],
        ['queued', 'done'],
        ['failed', 'failed'],
        ['cancelled', 'cancelled'],
      ]);
      expect(store.listWorkflowTurns('w-2').map((entry) => entry.state)).toEqual(['ended']);
    } finally {
      store.close();
    }
    expect(piWorkflowsOpenCheck(facts)).toEqual([]);
  });
});

describe('what the server keeps in memory stays right after its own writes', () => {
  it('run order, chain sizes and latest runs see our own reservations at once', () => {
    seededFile();
    const store = open();
    try {
      const index = storeInternals(store).runIndex;
      expect(store.chainSizes(['run-b'])).toEqual([3]);
      expect(store.countWorkflowRuns()).toBe(8);
      expect(index?.rebuilds).toBe(1);
      clock.advance(1_000);
      store.reserveWorkflowRun(reserveInput('own-root'));
      expect(store.countWorkflowRuns()).toBe(9);
      expect(store.listWorkflowRunSlice(undefined, { limit: 2, inverted: false }).map(({ run }) => run.runId)).toEqual(['own-root', 'run-c']);
      expect(store.chainSizes(['own-root'])).toEqual([1]);
      const restart = store.restartWorkflowRun({ runId: 'restart-b2', originSessionId: 'session-2' });
      expect(store.chainSizes(['run-b'])).toEqual([4]);
      expect(store.latestRunIdsOfChains(['run-b'])).toEqual([restart.run.runId]);
      expect(store.lineageSlice('run-b', { limit: 10, inverted: false }).map(({ run }) => run.runId)).toEqual([
        'run-b',
        'restart-b1',
        'restart-b2',
        restart.run.runId,
      ]);
      expect(store.chainViewerHeads('run-b').has(restart.run.runId)).toBe(true);
      expect(index?.rebuilds).toBe(1); // our own writes are caught up by rowid, never rebuilt
      // A write that rolled back leaves nothing behind in the index either.
      expect(() =>
        store.transaction(() => {
          store.reserveWorkflowRun(reserveInput('rolled-back'));
          expect(store.countWorkflowRuns()).toBe(11);
          throw new Error('roll back');
        }),
      ).toThrow('roll back');
      expect(store.countWorkflowRuns()).toBe(10);
      expect(index?.rebuilds).toBe(2); // the rolled-back run was seen inside its transaction: rebuilt once
      expect(store.listWorkflowRunSlice(undefined, { limit: 1, inverted: false }).map(({ run }) => run.runId)).toEqual([restart.run.runId]);
    } finally {
      store.close();
    }
  });

  it('run-change positions: each of our own changes once, in order, and the cursor stays valid across a reopen', () => {
    seededFile();
    let store = open();
    const start = store.runChangeHead();
    store.reserveWorkflowRun(reserveInput('feed-1'));
    store.reserveWorkflowRun(reserveInput('feed-2'));
    store.claimWorkflowRun({ runId: 'feed-1', runnerId: 'host-1', claimToken: 'tok-f1', leaseMs: 60_000 });
    const first = store.readRunChanges(start.head, 100);
    expect(first.changes.map((change) => [change.runId, change.run.status])).toEqual([
      ['feed-2', 'queued'],
      ['feed-1', 'starting'],
    ]);
    const mid = store.runChangeHead();
    expect(mid.head).toBe(first.scannedTo);
    store.close();
    store = open();
    try {
      expect(store.runChangeHead().databaseId).toBe(start.databaseId);
      expect(store.readRunChanges(mid.head, 100).changes).toEqual([]);
      store.parkWorkflowRun({ runId: 'feed-1', claimToken: 'tok-f1' });
      expect(store.readRunChanges(mid.head, 100).changes.map((change) => [change.runId, change.run.status])).toEqual([['feed-1', 'parked']]);
      expect(store.readRunChanges(start.head, 100).changes.map((change) => change.runId)).toEqual(['feed-2', 'feed-1']);
    } finally {
      store.close();
    }
  });
});

describe('claim next on a pi-workflows file', () => {
  /** Runs in every claimable state, built through our own file, then copied into a pi file. */
  function candidates(own: WorkflowStore): void {
    const lease = 60_000;
    const waiting = (runId: string): void => {
      connectionOf(own).prepare("UPDATE runs SET status = 'waiting', finished_at = ? WHERE run_id = ?").run(clock.t, runId);
    };
    const step = (): number => clock.advance(10);
    own.reserveWorkflowRun(reserveInput('q-first', { originSessionId: 's-1', executionMode: 'headless' }));
    step();
    own.reserveWorkflowRun(reserveInput('q-mine', { originSessionId: 's-2', runnerId: 'runner-a', executionMode: 'headless' }));
    own.reserveWorkflowRun(reserveInput('q-other', { originSessionId: 's-3', runnerId: 'runner-b', executionMode: 'headless' }));
    step();
    own.reserveWorkflowRun(reserveInput('q-interactive', { originSessionId: 's-4' }));
    step();
    own.reserveWorkflowRun(reserveInput('parked', { originSessionId: 's-5' }));
    own.claimWorkflowRun({ runId: 'parked', runnerId: 'runner-b', claimToken: 'tp', leaseMs: lease });
    own.parkWorkflowRun({ runId: 'parked', claimToken: 'tp' });
    own.reserveWorkflowRun(reserveInput('live', { originSessionId: 's-6' }));
    own.claimWorkflowRun({ runId: 'live', runnerId: 'runner-b', claimToken: 'tl', leaseMs: lease * 10 });
    step();
    own.reserveWorkflowRun(reserveInput('expiring', { originSessionId: 's-7' }));
    own.claimWorkflowRun({ runId: 'expiring', runnerId: 'runner-b', claimToken: 'te', leaseMs: 1_000 });
    own.markWorkflowRunRunning({ runId: 'expiring', claimToken: 'te' });
    step();
    own.reserveWorkflowRun(reserveInput('own-live', { originSessionId: 's-8' }));
    own.claimWorkflowRun({ runId: 'own-live', runnerId: 'runner-a', claimToken: 'to', leaseMs: lease * 10 });
    own.reserveWorkflowRun(reserveInput('pending-request', { originSessionId: 's-14', executionMode: 'headless' }));
    own.openInteraction({ runId: 'pending-request', attemptId: 'attempt-p', requestId: 'request-p', nodeId: 'ask', targetSessionId: 's-14' });
    own.reserveWorkflowRun(reserveInput('no-progress', { originSessionId: 's-9' }));
    own.claimWorkflowRun({ runId: 'no-progress', runnerId: 'runner-b', claimToken: 'tn', leaseMs: lease });
    own.parkClaimedWorkflowRun({ runId: 'no-progress', claimToken: 'tn', noProgressDetail: 'no progress' });
    own.reserveWorkflowRun(reserveInput('waiting', { originSessionId: 's-10' }));
    own.claimWorkflowRun({ runId: 'waiting', runnerId: 'runner-b', claimToken: 'tw', leaseMs: lease });
    own.parkWorkflowRun({ runId: 'waiting', claimToken: 'tw' });
    waiting('waiting');
    own.reserveWorkflowRun(reserveInput('paused', { originSessionId: 's-11' }));
    own.claimWorkflowRun({ runId: 'paused', runnerId: 'runner-b', claimToken: 'tz', leaseMs: lease });
    own.parkWorkflowRun({ runId: 'paused', claimToken: 'tz' });
    connectionOf(own).prepare('UPDATE runs SET paused = 1 WHERE run_id = ?').run('paused');
    step();
    own.reserveWorkflowRun(reserveInput('q-last', { originSessionId: 's-12', executionMode: 'headless' }));
    own.reserveWorkflowRun(reserveInput('q-future', { originSessionId: 's-13', executionMode: 'headless' }));
    connectionOf(own)
      .prepare('UPDATE run_queue SET available_at = ? WHERE run_id = ?')
      .run(clock.t + 3_600_000, 'q-future');
    clock.advance(5_000);
  }

  it('claims the same runs in the same order as on our own file, using only what the pi file has', () => {
    const ownPath = join(dir, 'own.db');
    const own = WorkflowStore.open({ path: ownPath, projectPath: dir, clock: clock.now });
    candidates(own);
    own.close();
    const facts = copyIntoPiWorkflowsFile(ownPath, path);
    const order = (store: WorkflowStore, runnerId: string, sessionId?: string): string[] => {
      const claimed: string[] = [];
      for (let i = 0; i < 20; i += 1) {
        const run = store.claimNextWorkflowRun({
          runnerId,
          claimToken: `${runnerId}-${i}`,
          leaseMs: 60_000,
          excludeRunIds: [...claimed],
          ...(sessionId === undefined ? {} : { sessionId }),
        });
        if (run === undefined) break;
        claimed.push(run.runId);
      }
      return claimed;
    };
    const results: string[][] = [];
    for (const file of [ownPath, path]) {
      const copy = join(dir, `copy-${results.length}.db`);
      // Each pass starts from the same rows: a copy of the file as it is now.
      const source = new Database(file);
      source.exec(`VACUUM INTO '${copy}'`);
      source.close();
      const store = WorkflowStore.open({ path: copy, projectPath: dir, clock: clock.now });
      try {
        expect(store.file.kind).toBe(file === path ? 'pi-workflows' : 'own');
        results.push([...order(store, 'runner-a'), '|', ...order(store, 'runner-c', 's-4')]);
      } finally {
        store.close();
      }
    }
    expect(results[0]).toEqual(['q-first', 'q-mine', 'parked', 'expiring', 'own-live', 'q-last', '|', 'q-interactive']);
    expect(results[1]).toEqual(results[0]);
    expect(piWorkflowsOpenCheck(facts)).toEqual([]);
  });
});
