/**
 * The server under test in its own process (so clients never share its event loop), driven
 * over IPC by the benchmark: `start` calls `startServer` (log level silent) on a database
 * file; further commands run store calls in this process (the in-process baselines), commit
 * viewer revisions and time them, count SQL statements, and sample memory and CPU.
 *
 * Run with `--expose-gc` so `memory` can collect first; with `--cpu-prof` to profile.
 */
import { dirname, join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import type { Database as SqliteDatabase } from 'better-sqlite3';
import { startServer, type RunningServer } from '../../src/server/app.js';
import type { ServerConfig } from '../../src/server/config.js';
import { COMPILED_EXECUTION_ENV } from '../../src/server/graphql/compiled-execution.js';
import { emit, serveRequests } from './ipc.js';
import { claim, reservation } from './store-inputs.js';

let server: RunningServer | undefined;
/** The raw-commit baseline's database (beside the server's, same disk), opened on first use. */
let rawCommitDb: { insert: (value: string) => void; close: () => void } | undefined;
let rawCommitSequence = 0;

/**
 * Runs `body(index)` for index 0 … `count` − 1 in this process; returns the loop's wall time
 * (ms), `count` and the process CPU it took (µs, user + system).
 */
function timedLoop(count: number, body: (index: number) => void): { ms: number; count: number; cpuUs: number } {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  for (let index = 0; index < count; index += 1) body(index);
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  return { ms, count, cpuUs: cpu.user + cpu.system };
}

function running(): RunningServer {
  if (server === undefined) throw new Error('server not started');
  return server;
}

/** The viewer revision every `commit` records: one timeline draft appending one item. */
function timelineDraft(index: number) {
  return [
    {
      targetType: 'timeline' as const,
      targetKey: 'items',
      ops: [{ op: 'append' as const, path: '/items', value: [{ kind: 'message', index, text: `step ${index} finished` }] }],
    },
  ];
}

const gc = (globalThis as { gc?: () => void }).gc;

/** The server store's grouped-commit counters at the last `storeTime` call. */
let groupsAtLastLook = { commits: 0, writes: 0, failed: 0, ms: 0 };

serveRequests({
  async start(message) {
    if (message.jit !== undefined) process.env[COMPILED_EXECUTION_ENV] = message.jit === true ? '1' : '0';
    const config: ServerConfig = {
      dbPath: String(message.dbPath),
      port: 0,
      host: '127.0.0.1',
      readOnly: false,
      token: null,
      projectPath: String(message.projectPath),
      pollIntervalMs: Number(message.pollIntervalMs ?? 25),
      keepAliveMs: 12_000,
      maxBodyBytes: 2_097_152,
      logLevel: 'silent',
      ...(message.liveThrottleMs === undefined ? {} : { liveThrottleMs: Number(message.liveThrottleMs) }),
      ...(message.maxLiveQueries === undefined ? {} : { maxLiveQueriesPerConnection: Number(message.maxLiveQueries) }),
    };
    server = await startServer(config);
    groupsAtLastLook = { ...server.store.writeGroups };
    return { url: server.url, port: server.port, pid: process.pid };
  },

  /**
   * The store time of the server's mutations since the last call: the writes of
   * `store.writeAsync` (every mutation resolver's store call) and the wall time (ms) of their
   * grouped transactions — each write's store work, its savepoint and its share of the COMMIT
   * (fsync included), under the very conditions of the HTTP requests; and the COMMITs.
   */
  storeTime() {
    const now = running().store.writeGroups;
    const last = groupsAtLastLook;
    const result = { count: now.writes + now.failed - last.writes - last.failed, ms: now.ms - last.ms, commits: now.commits - last.commits };
    groupsAtLastLook = { ...now };
    return result;
  },

  /** `count` prepare-or-adopt reservations with a claim straight on the store; wall time (ms) and CPU (µs). */
  rawReserve(message) {
    const store = running().store;
    const count = Number(message.count);
    const prefix = String(message.prefix);
    return timedLoop(count, (index) => {
      const result = store.reserveWorkflowRun(reservation(`${prefix}-${index}`, `${prefix}-session-${index}`), claim(`${prefix}-token-${index}`));
      if (result.state !== 'claimed') throw new Error(`unexpected ${result.state}`);
    });
  },

  /** `count` renewals (heartbeats) of one live claim straight on the store; wall time (ms) and CPU (µs). */
  rawRenew(message) {
    const store = running().store;
    const input = { runId: String(message.runId), claimToken: String(message.claimToken), leaseMs: 60_000 };
    return timedLoop(Number(message.count), () => {
      if (store.renewWorkflowRunClaim(input) === undefined) throw new Error(`claim of ${input.runId} lost`);
    });
  },

  /** `count` viewer revisions (one timeline draft each, {@link timelineDraft}) on `runId`; wall time (ms) and CPU (µs). */
  rawRevisions(message) {
    const store = running().store;
    const runId = String(message.runId);
    const first = Number(message.first ?? 0);
    return timedLoop(Number(message.count), (index) => void store.recordViewerDeltas(runId, timelineDraft(first + index)));
  },

  /**
   * `count` single-row INSERT transactions into a database beside the server's (WAL,
   * synchronous=FULL: one fsync'd commit each) — the fsync-bound commit rate of this disk in
   * this run (the mutation-cost targets' baseline); wall time (ms) and CPU (µs).
   */
  rawCommit(message) {
    if (rawCommitDb === undefined) {
      const db: SqliteDatabase = new Database(join(dirname(running().store.path), 'raw-commit.db'));
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.exec('CREATE TABLE IF NOT EXISTS commits (id INTEGER PRIMARY KEY, value TEXT NOT NULL)');
      const statement = db.prepare('INSERT INTO commits (value) VALUES (?)');
      rawCommitDb = { insert: (value) => void statement.run(value), close: () => db.close() };
    }
    const insert = rawCommitDb.insert;
    return timedLoop(Number(message.count), () => {
      rawCommitSequence += 1;
      insert(`commit-${rawCommitSequence}`);
    });
  },

  /** Reserves a root run to commit revisions on; returns its current viewer revision. */
  createRun(message) {
    const runId = String(message.runId);
    const store = running().store;
    store.reserveWorkflowRun(reservation(runId, `${runId}-session`));
    return { runId, revision: store.viewerHead(runId)?.currentRevision ?? 1 };
  },

  /** Records one revision on `runId`; `at` is `Date.now()` right after the commit returned. */
  commit(message) {
    const runId = String(message.runId);
    const index = Number(message.index ?? 0);
    const revision = running().store.recordViewerDeltas(runId, timelineDraft(index));
    return { revision, at: Date.now() };
  },

  /** Pending waiters of the change feed (one per subscription waiting for a revision). */
  waiters() {
    return running().feed.waiterCount;
  },

  /** The `@live` query counters (src/server/live/live-queries.ts). */
  liveStats() {
    const { active, executions, shared, pushes, trackedIdentifiers } = running().liveQueries;
    return { active, executions, shared, pushes, trackedIdentifiers };
  },

  resetStatements() {
    running().store.resetStatementCount();
    return null;
  },

  statements() {
    return running().store.statementCount;
  },

  /** Memory after a full GC (when exposed). */
  memory() {
    gc?.();
    gc?.();
    const usage = process.memoryUsage();
    return { rss: usage.rss, heapUsed: usage.heapUsed, external: usage.external, gc: gc !== undefined };
  },

  /** CPU used by this process so far (user + system), in µs. */
  cpuNow() {
    const usage = process.cpuUsage();
    return usage.user + usage.system;
  },

  /** CPU used by this process over `ms` of wall time, in ms. */
  async cpu(message) {
    const ms = Number(message.ms);
    const before = process.cpuUsage();
    const wallStart = performance.now();
    await new Promise((resolve) => setTimeout(resolve, ms));
    const used = process.cpuUsage(before);
    return { userMs: used.user / 1000, systemMs: used.system / 1000, wallMs: performance.now() - wallStart };
  },

  /**
   * Event-loop delay of this process over `ms` of wall time (`perf_hooks.monitorEventLoopDelay`,
   * 1 ms resolution), in ms; also the store's writes waiting for the lock at the end.
   */
  async loopDelay(message) {
    const ms = Number(message.ms);
    const histogram = monitorEventLoopDelay({ resolution: 1 });
    histogram.enable();
    await new Promise((resolve) => setTimeout(resolve, ms));
    histogram.disable();
    return {
      p50: histogram.percentile(50) / 1e6,
      p99: histogram.percentile(99) / 1e6,
      max: histogram.max / 1e6,
      count: histogram.count,
    };
  },

  async stop() {
    const current = server;
    server = undefined;
    rawCommitDb?.close();
    rawCommitDb = undefined;
    if (current !== undefined) await current.close();
    setImmediate(() => process.exit(0));
    return null;
  },
});

emit('child-ready');
