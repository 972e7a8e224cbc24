/**
 * Contention: two processes with four runners each (worker threads, each with its
 * own WorkflowStore connection and the default 5 s busy timeout) race to claim 10,000 headless
 * runs with claimNextWorkflowRun, settle each one, and report what they won.
 *
 * - no run is claimed twice: 10,000 claims in all, each run exactly once, lease generation 1,
 *   one `lease.claimed` event per run, every run `completed`/`done` with its lease released;
 * - no store call fails, and in particular `SQLITE_BUSY` never reaches a caller.
 *
 * The database lives in memory (/dev/shm) when it can: this is about locking, and on this
 * machine's disk every commit's fsync (synchronous=FULL) would make it a disk benchmark.
 * `FAULT_CONTENTION_RUNS` overrides the number of runs.
 */
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { BEGIN_ATTEMPTS } from '../../src/store/database.js';
import { canonicalJson, WorkflowStore } from '../../src/store/index.js';
import { checkStoreInvariants, memoryTempDir, spawnTsx } from '../helpers/fault-fixtures.js';
import type { RunnerReport } from '../children/contention.js';
import { storeInternals } from '../helpers/store-internals.js';

const require = createRequire(import.meta.url);
const RUNS = Number(process.env.FAULT_CONTENTION_RUNS ?? 10_000);
const PROCESSES = 2;
const RUNNERS = 4;

describe('contention: 2 processes × 4 runners claim 10,000 runs', () => {
  let dir: string;
  let dbPath: string;
  const children: Array<ReturnType<typeof spawnTsx>> = [];

  beforeAll(() => {
    dir = memoryTempDir();
    dbPath = join(dir, 'state.db');
    const store = WorkflowStore.open({ path: dbPath, projectPath: dir });
    const definition = { name: 'contention', steps: [{ id: 'work' }] };
    const digest = createHash('sha256').update(canonicalJson(definition)).digest('hex');
    store.transaction(() => {
      for (let index = 0; index < RUNS; index += 1) {
        const runId = `run-${String(index).padStart(5, '0')}`;
        store.reserveWorkflowRun({
          runId,
          workflowName: 'contention',
          workflowSourceRef: 'workflows/contention.ts',
          workflowSource: { kind: 'file', path: 'workflows/contention.ts', hash: digest },
          definitionDigest: digest,
          definitionSnapshot: definition,
          input: { index },
          originSessionId: `session-${runId}`,
          executionMode: 'headless',
        });
      }
    });
    expect(store.countWorkflowRuns()).toBe(RUNS);
    store.close();
  }, 120_000);

  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('claims every run exactly once and never lets SQLITE_BUSY through', { timeout: 170_000 }, async () => {
    const outputs = Array.from({ length: PROCESSES }, (_, index) => {
      const child = spawnTsx('test/children/contention.ts', [dbPath, dir, `p${index}`, String(RUNNERS)]);
      children.push(child);
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8');
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (chunk: string) => {
        stderr += chunk;
      });
      const ready = new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: string) => {
          stdout += chunk;
          if (stdout.startsWith('ready\n')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`contention child p${index} exited ${code} before ready: ${stderr}`)));
      });
      const report = new Promise<{ reports: RunnerReport[]; failures: string[] }>((resolve, reject) => {
        child.once('exit', (code) => {
          const line = stdout.split('\n').find((text) => text.startsWith('{'));
          if (code !== 0 || line === undefined) reject(new Error(`contention child p${index} exited ${code}: ${stderr}`));
          else resolve(JSON.parse(line) as { reports: RunnerReport[]; failures: string[] });
        });
      });
      report.catch(() => undefined);
      return { child, ready, report };
    });
    await Promise.all(outputs.map((output) => output.ready));
    const started = performance.now();
    for (const { child } of outputs) child.stdin.write('go\n');
    const results = await Promise.all(outputs.map((output) => output.report));
    const seconds = (performance.now() - started) / 1000;

    const reports = results.flatMap((result) => result.reports);
    expect(results.flatMap((result) => result.failures)).toEqual([]);
    expect(reports).toHaveLength(PROCESSES * RUNNERS);
    const errors = reports.flatMap((report) => report.errors.map((error) => ({ runner: report.runnerId, ...error })));
    expect(
      errors.filter((error) => error.code?.startsWith('SQLITE_BUSY') === true),
      'SQLITE_BUSY reached a runner',
    ).toEqual([]);
    expect(errors).toEqual([]);

    const claims = reports.flatMap((report) => report.claims);
    const perRun = new Map<string, number>();
    for (const claim of claims) perRun.set(claim.runId, (perRun.get(claim.runId) ?? 0) + 1);
    expect(
      [...perRun].filter(([, count]) => count > 1),
      'runs claimed more than once',
    ).toEqual([]);
    expect(claims).toHaveLength(RUNS);
    expect(perRun.size).toBe(RUNS);
    expect(claims.filter((claim) => claim.generation !== 1)).toEqual([]);
    const perRunner = reports.map((report) => report.claims.length);
    // Both processes got work: the race was real.
    for (let index = 0; index < PROCESSES; index += 1) {
      expect(reports.filter((report) => report.runnerId.startsWith(`p${index}-`)).reduce((sum, report) => sum + report.claims.length, 0)).toBeGreaterThan(0);
    }

    const db = new Database(dbPath, { readonly: true });
    try {
      const summary = db
        .prepare(
          `SELECT count(*) AS runs,
             sum(r.status = 'completed' AND q.status = 'done') AS done,
             sum(l.generation = 1 AND l.owner_id IS NULL) AS released,
             sum((SELECT count(*) FROM events e WHERE e.resource_id = r.resource_id AND e.event_type = 'lease.claimed') = 1) AS oneClaim
           FROM runs r JOIN run_queue q ON q.run_id = r.run_id JOIN leases l ON l.resource_id = r.resource_id`,
        )
        .get();
      expect(summary).toEqual({ runs: RUNS, done: RUNS, released: RUNS, oneClaim: RUNS });
      expect(checkStoreInvariants(db)).toEqual([]);
    } finally {
      db.close();
    }
    const empty = reports.reduce((sum, report) => sum + report.emptyClaims, 0);
    const retries = reports.reduce((sum, report) => sum + report.beginRetries, 0);
    console.info(
      `contention: ${claims.length} claims by ${reports.length} runners in ${PROCESSES} processes in ${seconds.toFixed(1)} s ` +
        `(per runner ${perRunner.join('/')}), ${empty} empty claims, ${retries} BEGIN rounds retried after SQLITE_BUSY, 0 errors`,
    );
  });
});

describe('a write transaction that finds the database locked', () => {
  /**
   * A worker thread takes the write lock (BEGIN IMMEDIATE) on its own connection, says so, and
   * holds it for `holdMs` (the store call under test blocks this thread meanwhile).
   */
  async function holdWriteLock(path: string, holdMs: number): Promise<Worker> {
    const worker = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       const Database = require(workerData.driver);
       const db = new Database(workerData.path);
       db.exec('BEGIN IMMEDIATE');
       parentPort.postMessage('locked');
       Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.holdMs);
       db.exec('COMMIT');
       db.close();
       parentPort.postMessage('released');`,
      { eval: true, workerData: { path, holdMs, driver: require.resolve('better-sqlite3') } },
    );
    await new Promise<void>((resolve, reject) => {
      worker.once('message', () => resolve());
      worker.once('error', reject);
    });
    return worker;
  }

  it('retries BEGIN IMMEDIATE past one busy timeout, and reports SQLITE_BUSY when the lock outlasts every round', async () => {
    const dir = memoryTempDir();
    const path = join(dir, 'state.db');
    const store = WorkflowStore.open({ path, projectPath: dir, busyTimeoutMs: 200 });
    try {
      const definition = { name: 'locked' };
      const digest = createHash('sha256').update(canonicalJson(definition)).digest('hex');
      const reserve = (runId: string) =>
        store.reserveWorkflowRun({
          runId,
          workflowName: 'locked',
          workflowSourceRef: 'w.ts',
          workflowSource: { kind: 'file', path: 'w.ts', hash: digest },
          definitionDigest: digest,
          definitionSnapshot: definition,
          originSessionId: `session-${runId}`,
        }).run;

      // Locked for longer than one busy timeout (200 ms) but less than the rounds together.
      let worker = await holdWriteLock(path, 350);
      let started = performance.now();
      expect(reserve('after-one-retry').runId).toBe('after-one-retry');
      expect(performance.now() - started).toBeGreaterThanOrEqual(200);
      expect(storeInternals(store).database.beginRetries).toBeGreaterThanOrEqual(1);
      await worker.terminate();

      // Locked for longer than all rounds: the caller gets SQLITE_BUSY, nothing is written.
      const retriesBefore = storeInternals(store).database.beginRetries;
      worker = await holdWriteLock(path, BEGIN_ATTEMPTS * 200 + 1_500);
      started = performance.now();
      let thrown: unknown;
      try {
        reserve('never');
      } catch (error) {
        thrown = error;
      }
      expect((thrown as { code?: string }).code).toBe('SQLITE_BUSY');
      expect(performance.now() - started).toBeGreaterThanOrEqual(BEGIN_ATTEMPTS * 200 - 50);
      expect(storeInternals(store).database.beginRetries - retriesBefore).toBe(BEGIN_ATTEMPTS - 1);
      await new Promise<void>((resolve) => worker.once('message', () => resolve()));
      await worker.terminate();
      expect(store.getWorkflowRun('never')).toBeUndefined();
      expect(reserve('later').runId).toBe('later');
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
