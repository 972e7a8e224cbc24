/**
 * The IPC messages between the primary and its workers (docs/OPERATIONS.md "Workers"). Every
 * message carries `pwg` (its kind), so prom-client's own cluster messages (`type`) pass beside
 * them untouched.
 */
import type { RunViewEvent } from '../../delivery/index.js';
import type { ViewPositions } from '../../store/index.js';

/** A view read's answer as it travels (JSON: no undefined), see `ViewReadPeers.request`. */
export type ViewReadAnswer = { event: RunViewEvent | null } | 'unanswered';

/** One worker's `/health` standing, as the primary collects it. */
export interface WorkerHealth {
  /** The cluster's worker id (1, 2, …; a replacement gets the next one). */
  id: number;
  pid: number;
  /** The worker's own `/health` status (`ok`, `degraded`, `unavailable`), or `no answer` when it did not report in time, `starting` before it listens. */
  status: string;
}

/** What a worker tells the primary. */
export type WorkerMessage =
  /** Listening: the URL, and the start banner (printed once, by the primary). */
  | { pwg: 'ready'; url: string; banner: string }
  /** The start failed with this one-line text; the worker exits 1 next. */
  | { pwg: 'start-failed'; message: string }
  /** A `/health` request arrived: collect every worker's standing. */
  | { pwg: 'health-request'; requestId: number }
  /** The answer to {@link PrimaryMessage} `health-collect`. */
  | { pwg: 'health-report'; requestId: number; status: string }
  /** A `/metrics` request arrived: aggregate every worker's registry. */
  | { pwg: 'metrics-request'; requestId: number }
  /** Ask worker `owner` (the one that reads `runId`'s view) for a view follower's next event. */
  | { pwg: 'view-read-request'; requestId: number; owner: number; runId: string; since: ViewPositions; atLeast: number }
  /** The answer to the primary's forwarded `view-read-request` `requestId`. */
  | { pwg: 'view-read-answer'; requestId: number; answer: ViewReadAnswer };

/** What the primary tells a worker. */
export type PrimaryMessage =
  /** Report your own `/health` status. */
  | { pwg: 'health-collect'; requestId: number }
  /** Every worker's standing, for the `/health` request `requestId`. */
  | { pwg: 'health-answer'; requestId: number; workers: WorkerHealth[] }
  /** The aggregated `/metrics` text (or why there is none), for `requestId`. */
  | { pwg: 'metrics-answer'; requestId: number; body: string; contentType: string; error?: string }
  /** The ids of the workers that listen, ascending: a run's view is read by one of them (`view-read-link.ts`). */
  | { pwg: 'view-readers'; workers: number[] }
  /** Another worker's view read request, for this worker to answer (`requestId` is the primary's). */
  | { pwg: 'view-read-request'; requestId: number; runId: string; since: ViewPositions; atLeast: number }
  /** The answer to this worker's `view-read-request` `requestId`. */
  | { pwg: 'view-read-answer'; requestId: number; answer: ViewReadAnswer };

/** Whether `message` is one of ours (not prom-client's, not another library's). */
export function isClusterMessage<T extends { pwg: string }>(message: unknown): message is T {
  return typeof message === 'object' && message !== null && typeof (message as { pwg?: unknown }).pwg === 'string';
}
