/**
 * The primary of `--workers N` (docs/OPERATIONS.md "Workers"): it only forks, forwards signals
 * and aggregates. Each worker runs `startServer` on the same port (node:cluster hands the
 * primary's listening socket to every worker; connections are dealt round-robin) and the same
 * database file; what holds across processes holds between workers (docs/ARCHITECTURE.md "The
 * change feed": subscribers see every worker's commits; claims are fenced in the file; cursors are
 * positions in the file).
 *
 * - Start: the first worker starts alone (it applies the migrations of a new file), then the
 *   others together. A worker that exits before it listens stops the start: the primary stops
 *   the others, prints that worker's one-line error on stderr and exits 1.
 * - Running: a worker that exits unexpectedly is logged and replaced, at most
 *   {@link MAX_RESTARTS} times per {@link RESTART_WINDOW_MS}; past that the primary stops every
 *   worker and exits 1.
 * - Stopping: SIGTERM/SIGINT is forwarded to every worker, which drains as the single process
 *   does; the primary exits 0 once all exited (1 when one failed its shutdown). The same signal
 *   again within {@link REPEATED_SIGNAL_MS} is the same request (Ctrl-C reaches every process of
 *   the group, and npm forwards its copy); another signal is forwarded and the primary exits 1 at once.
 * - `/health` and `/metrics`: the worker that got the request asks the primary, which collects
 *   every worker's standing (deadline {@link HEALTH_DEADLINE_MS}) or aggregates every worker's
 *   registry with prom-client's `AggregatorRegistry`.
 * - View reads: it tells the workers which of them listen (`view-readers`) and relays a
 *   worker's request for a run view read to the worker that reads that run, and its answer
 *   back (`view-read-link.ts`); requests to a worker that exits are answered `unanswered`.
 */
import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import type { ServerConfig } from '../config.js';
import { NEW_DATABASE_LOG, withNewDatabaseNotice, type NewDatabaseNotice } from '../database/new-database.js';
import { closeWriteAheadLog } from '../../store/index.js';
import { createLogger } from '../ops/logger.js';
import { isClusterMessage, type PrimaryMessage, type ViewReadAnswer, type WorkerHealth, type WorkerMessage } from './messages.js';
import { HEALTH_DEADLINE_MS } from './worker-link.js';

/** The window of {@link MAX_RESTARTS}, in ms. */
export const RESTART_WINDOW_MS = 60_000;
/** Most replacements of unexpectedly exited workers within {@link RESTART_WINDOW_MS}; one more stops the server. */
export const MAX_RESTARTS = 5;
/** The same signal again within this many ms of the first is the same request (as in main.ts). */
const REPEATED_SIGNAL_MS = 500;

/**
 * Why the server runs one process whatever `--workers` says, or null when workers can share its
 * database: an in-memory database exists in one process only; a replica's file is replaced by
 * rename and each process would reopen it at its own moment, so two workers could serve two
 * different copies (a position one has, the other not yet).
 */
export function singleProcessReason(config: Pick<ServerConfig, 'dbPath' | 'replica'>): string | null {
  if (config.dbPath === ':memory:') return 'an in-memory database (--db :memory:) exists in one process only';
  if (config.replica != null) return 'replica mode (--replica) reopens its copy when it is replaced, and workers would each serve the copy they opened';
  return null;
}

/** One forked worker. */
interface WorkerState {
  worker: Worker;
  pid: number;
  /** It sent `ready` (it listens). */
  ready: boolean;
  /** Its `start-failed` text, if it sent one. */
  failure?: string;
}

/** A `/health` collection in progress. */
interface HealthCollection {
  waiting: Set<number>;
  results: Map<number, WorkerHealth>;
  finish(): void;
}

/**
 * Runs the primary: forks `count` workers of this same entry file (`process.argv`, with the
 * same Node options) and supervises them until the server stops.
 *
 * @param notice the database file this start creates (checked before forking), told in the banner
 * @returns never: the process exits (0 after a signal and a clean drain, 1 after a failed start,
 *   a failed drain or too many restarts)
 */
export async function runPrimary(config: Pick<ServerConfig, 'logLevel' | 'dbPath'>, count: number, notice: NewDatabaseNotice | null = null): Promise<never> {
  const logger = createLogger(config.logLevel, { role: 'primary', pid: process.pid });
  const aggregator = new AggregatorRegistry();
  const states = new Map<number, WorkerState>();
  const collections = new Map<number, HealthCollection>();
  let nextCollection = 1;
  let started = false;
  /** The first worker's start banner, printed when it arrived. */
  let banner: string | undefined;
  let stopSignal: NodeJS.Signals | undefined;
  let stopSignalAt = 0;
  /** A fatal failure: the text printed before exiting 1. */
  let fatal: { text: string; logged: boolean } | undefined;
  let failedDrain = false;
  const restarts: number[] = [];

  const send = (worker: Worker, message: PrimaryMessage): void => {
    if (worker.isConnected()) worker.send(message);
  };

  /** View read requests forwarded to the worker that reads the run (view-read-link.ts), by the primary's request id. */
  const viewReads = new Map<number, { from: number; requestId: number; owner: number }>();
  let nextViewRead = 1;
  /** Tells every listening worker which workers listen (each run's view is read by one of them). */
  const announceViewReaders = (): void => {
    const ready = [...states.values()].filter((each) => each.ready && each.worker.isConnected());
    const workers = ready.map((each) => each.worker.id).sort((a, b) => a - b);
    for (const each of ready) send(each.worker, { pwg: 'view-readers', workers });
  };
  const answerViewRead = (to: number, requestId: number, answer: ViewReadAnswer): void => {
    const asker = states.get(to);
    if (asker !== undefined) send(asker.worker, { pwg: 'view-read-answer', requestId, answer });
  };

  const fork = (): void => {
    const worker = cluster.fork();
    const state: WorkerState = { worker, pid: worker.process.pid ?? 0, ready: false };
    states.set(worker.id, state);
    worker.on('message', (message: unknown) => onMessage(state, message));
    worker.on('exit', (code, signal) => onExit(state, code, signal));
  };

  const stopAll = (signal: NodeJS.Signals): void => {
    for (const { pid } of states.values()) {
      try {
        process.kill(pid, signal);
      } catch {
        // exited meanwhile
      }
    }
  };

  const finishIfDone = (): void => {
    if ((stopSignal === undefined && fatal === undefined) || states.size > 0) return;
    if (fatal !== undefined) {
      if (!fatal.logged) process.stderr.write(`pi-workflows-graphql: ${fatal.text}\n`);
      process.exit(1);
    }
    // Workers that closed the file at the same moment may each have left the write-ahead log
    // to the other: the primary, last out, lets SQLite end it (nothing when it is gone already).
    const walRemoved = closeWriteAheadLog(config.dbPath);
    logger.info({ signal: stopSignal, ...(walRemoved ? {} : { walLeft: `${config.dbPath}-wal` }) }, 'every worker stopped, bye');
    process.exit(failedDrain ? 1 : 0);
  };

  const fail = (text: string, log: boolean): void => {
    if (fatal !== undefined || stopSignal !== undefined) return;
    fatal = { text, logged: log };
    if (log) logger.error({ reason: text }, 'stopping every worker');
    stopAll('SIGTERM');
  };

  function onMessage(state: WorkerState, message: unknown): void {
    if (!isClusterMessage<WorkerMessage>(message)) return;
    switch (message.pwg) {
      case 'ready': {
        state.ready = true;
        announceViewReaders();
        if (started) {
          logger.info({ worker: state.worker.id, workerPid: state.pid }, 'worker replaced');
          return;
        }
        if (banner === undefined) {
          // The server serves from the first worker on: the banner goes out now, once.
          banner = withNewDatabaseNotice(message.banner, notice);
          if (notice !== null) logger.warn({ database: notice.path, stateFiles: notice.stateFiles }, NEW_DATABASE_LOG);
          process.stderr.write(`${banner.replace(/\n\n$/, '\n')}  Workers:   ${count} processes (docs/OPERATIONS.md "Workers")\n\n`);
        }
        if (stopSignal !== undefined || fatal !== undefined) return;
        // The first worker applied the migrations; the others open a migrated file together.
        if (states.size === 1) for (let i = 1; i < count; i++) fork();
        if ([...states.values()].every((each) => each.ready) && states.size === count) {
          started = true;
          const pids = [...states.values()].map((each) => each.pid);
          logger.info({ url: message.url, workers: count, pids }, 'workers started');
        }
        return;
      }
      case 'start-failed':
        state.failure = message.message;
        return;
      case 'view-read-request': {
        const owner = states.get(message.owner);
        if (owner === undefined || !owner.ready || !owner.worker.isConnected()) {
          answerViewRead(state.worker.id, message.requestId, 'unanswered');
          return;
        }
        const id = nextViewRead++;
        viewReads.set(id, { from: state.worker.id, requestId: message.requestId, owner: message.owner });
        send(owner.worker, { pwg: 'view-read-request', requestId: id, runId: message.runId, since: message.since, atLeast: message.atLeast });
        return;
      }
      case 'view-read-answer': {
        const forwarded = viewReads.get(message.requestId);
        if (forwarded === undefined) return;
        viewReads.delete(message.requestId);
        answerViewRead(forwarded.from, forwarded.requestId, message.answer);
        return;
      }
      case 'health-request':
        collectHealth(state.worker, message.requestId);
        return;
      case 'health-report': {
        const collection = collections.get(message.requestId);
        if (collection === undefined) return;
        collection.results.set(state.worker.id, { id: state.worker.id, pid: state.pid, status: message.status });
        collection.waiting.delete(state.worker.id);
        if (collection.waiting.size === 0) collection.finish();
        return;
      }
      case 'metrics-request':
        aggregator.clusterMetrics().then(
          (body) => send(state.worker, { pwg: 'metrics-answer', requestId: message.requestId, body, contentType: aggregator.contentType }),
          (error: unknown) =>
            send(state.worker, { pwg: 'metrics-answer', requestId: message.requestId, body: '', contentType: '', error: (error as Error).message }),
        );
        return;
    }
  }

  function collectHealth(asker: Worker, requestId: number): void {
    const id = nextCollection++;
    const collection: HealthCollection = {
      waiting: new Set(),
      results: new Map(),
      finish() {
        clearTimeout(timer);
        collections.delete(id);
        for (const waiting of collection.waiting) {
          const state = states.get(waiting);
          if (state !== undefined) collection.results.set(waiting, { id: waiting, pid: state.pid, status: 'no answer' });
        }
        const workers = [...collection.results.values()].sort((a, b) => a.id - b.id);
        send(asker, { pwg: 'health-answer', requestId, workers });
      },
    };
    const timer = setTimeout(() => collection.finish(), HEALTH_DEADLINE_MS);
    collections.set(id, collection);
    for (const [workerId, state] of states) {
      if (!state.ready || !state.worker.isConnected()) collection.results.set(workerId, { id: workerId, pid: state.pid, status: 'starting' });
      else {
        collection.waiting.add(workerId);
        send(state.worker, { pwg: 'health-collect', requestId: id });
      }
    }
    if (collection.waiting.size === 0) collection.finish();
  }

  function onExit(state: WorkerState, code: number | null, signal: string | null): void {
    states.delete(state.worker.id);
    // The view reads it was asked for will not come: their askers read themselves.
    for (const [id, forwarded] of viewReads) {
      if (forwarded.owner !== state.worker.id) continue;
      viewReads.delete(id);
      answerViewRead(forwarded.from, forwarded.requestId, 'unanswered');
    }
    announceViewReaders();
    for (const collection of collections.values()) {
      collection.waiting.delete(state.worker.id);
      if (collection.waiting.size === 0) collection.finish();
    }
    const how = code ?? signal ?? 'unknown';
    if (stopSignal !== undefined || fatal !== undefined) {
      if (state.ready && code !== 0 && stopSignal !== undefined) failedDrain = true;
      finishIfDone();
      return;
    }
    if (!state.ready) {
      fail(state.failure ?? `worker ${state.worker.id} exited (${how}) before it listened`, started);
      finishIfDone();
      return;
    }
    const now = performance.now();
    while (restarts.length > 0 && (restarts[0] ?? 0) <= now - RESTART_WINDOW_MS) restarts.shift();
    if (restarts.length >= MAX_RESTARTS) {
      logger.error({ worker: state.worker.id, workerPid: state.pid, exit: how }, 'worker exited unexpectedly');
      fail(`workers exited ${MAX_RESTARTS + 1} times within ${RESTART_WINDOW_MS / 1000} s: not restarting`, true);
      finishIfDone();
      return;
    }
    restarts.push(now);
    logger.warn({ worker: state.worker.id, workerPid: state.pid, exit: how }, 'worker exited unexpectedly: starting another');
    fork();
  }

  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopSignal !== undefined) {
      if (signal === stopSignal && performance.now() - stopSignalAt < REPEATED_SIGNAL_MS) return;
      logger.warn({ signal }, 'second signal: exiting without waiting');
      stopAll(signal);
      process.exit(1);
    }
    stopSignal = signal;
    stopSignalAt = performance.now();
    logger.info({ signal, workers: states.size }, 'shutting down: stopping every worker');
    stopAll(signal);
    finishIfDone();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  fork();
  // Everything from here on happens in the handlers; the process exits from finishIfDone.
  return new Promise<never>(() => undefined);
}
