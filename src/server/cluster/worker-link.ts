/**
 * A worker's side of the cluster (docs/OPERATIONS.md "Workers"): what it tells the primary
 * (ready, a failed start) and what it asks it (every worker's health, the aggregated metrics),
 * over the cluster's IPC channel.
 */
import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { ChangeFeed } from '../../delivery/index.js';
import { isClusterMessage, type PrimaryMessage, type WorkerHealth, type WorkerMessage } from './messages.js';
import { linkViewReads } from './view-read-link.js';

/**
 * How long a worker waits for the primary's answer before it answers a request alone, in ms:
 * the primary's own collection deadline ({@link HEALTH_DEADLINE_MS}) plus a margin.
 */
const ANSWER_DEADLINE_MS = 7_000;

/** How long the primary waits for each worker's health report, in ms; a worker silent that long is `no answer`. */
export const HEALTH_DEADLINE_MS = 1_000;

/** The worker's side of the cluster, given to `startServer` (StartOptions.cluster). */
export interface WorkerLink {
  /** This worker's cluster id (1, 2, …). */
  readonly id: number;
  readonly pid: number;
  /**
   * Serves the primary's collections from now on: `health()` is this worker's own `/health`
   * status, `registry` its metrics (prom-client's cluster aggregation reads it); `feed`'s view
   * reads are shared with the other workers (`view-read-link.ts`).
   */
  attach(parts: { health: () => string; registry: Registry; feed?: ChangeFeed }): void;
  /**
   * Every worker's standing, collected by the primary (within {@link HEALTH_DEADLINE_MS}).
   *
   * @returns the workers in id order, or null when the primary did not answer in time
   */
  workers(): Promise<WorkerHealth[] | null>;
  /**
   * The whole server's metrics: prom-client's `AggregatorRegistry` in the primary sums every
   * worker's registry.
   *
   * @throws Error when the primary did not answer in time or a worker's metrics failed
   */
  metrics(): Promise<{ body: string; contentType: string }>;
  /** Tells the primary the worker listens at `url`; `banner` is printed once, by the primary. */
  ready(url: string, banner: string): void;
  /**
   * Tells the primary why the start failed (the primary prints it once and exits 1).
   *
   * @returns once the message is handed to the channel (exit after it, not before)
   */
  startFailed(message: string): Promise<void>;
}

/** The link of this process, when it is a cluster worker; undefined in a single process or the primary. */
export function workerLink(): WorkerLink | undefined {
  const worker = cluster.worker;
  if (!cluster.isWorker || worker === undefined) return undefined;
  const send = (message: WorkerMessage): void => {
    if (process.connected) process.send?.(message);
  };
  let nextRequest = 1;
  const pending = new Map<number, (message: PrimaryMessage) => void>();
  let health: (() => string) | undefined;
  /** The view reads' share of the channel, once attached (view-read-link.ts). */
  let viewReads: ((message: PrimaryMessage) => void) | undefined;
  process.on('message', (message: unknown) => {
    if (!isClusterMessage<PrimaryMessage>(message)) return;
    if (message.pwg === 'view-readers' || message.pwg === 'view-read-request' || message.pwg === 'view-read-answer') {
      viewReads?.(message);
      return;
    }
    if (message.pwg === 'health-collect') {
      let status: string;
      try {
        status = health?.() ?? 'starting';
      } catch {
        status = 'unavailable';
      }
      send({ pwg: 'health-report', requestId: message.requestId, status });
      return;
    }
    if (message.pwg === 'health-answer' || message.pwg === 'metrics-answer') pending.get(message.requestId)?.(message);
  });
  const ask = <T extends PrimaryMessage>(request: WorkerMessage & { requestId: number }): Promise<T | null> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        pending.delete(request.requestId);
        resolve(null);
      }, ANSWER_DEADLINE_MS);
      pending.set(request.requestId, (answer) => {
        clearTimeout(timer);
        pending.delete(request.requestId);
        resolve(answer as T);
      });
      send(request);
    });
  return {
    id: worker.id,
    pid: process.pid,
    attach(parts) {
      health = parts.health;
      if (parts.feed !== undefined) viewReads = linkViewReads(parts.feed, worker.id, send);
      AggregatorRegistry.setRegistries([parts.registry]);
      // Constructing one installs prom-client's worker-side listener for the primary's requests.
      new AggregatorRegistry();
    },
    async workers() {
      const answer = await ask<Extract<PrimaryMessage, { pwg: 'health-answer' }>>({ pwg: 'health-request', requestId: nextRequest++ });
      return answer?.workers ?? null;
    },
    async metrics() {
      const answer = await ask<Extract<PrimaryMessage, { pwg: 'metrics-answer' }>>({ pwg: 'metrics-request', requestId: nextRequest++ });
      if (answer === null) throw new Error('the primary did not answer in time');
      if (answer.error !== undefined) throw new Error(answer.error);
      return { body: answer.body, contentType: answer.contentType };
    },
    ready(url, banner) {
      send({ pwg: 'ready', url, banner });
    },
    startFailed(message) {
      return new Promise((resolve) => {
        if (!process.connected || process.send === undefined) resolve();
        else process.send({ pwg: 'start-failed', message } satisfies WorkerMessage, undefined, {}, () => resolve());
      });
    },
  };
}
