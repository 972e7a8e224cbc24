/**
 * A worker's share of the cluster's view reads (docs/OPERATIONS.md "Workers"): each run's view
 * is read by one worker — the listening workers' ids in ascending order, the run id's hash
 * picking one — and the others' followers of the run take that worker's events, asked for and
 * answered through the primary. A worker that cannot be asked (exited, silent for
 * {@link VIEW_READ_DEADLINE_MS}) leaves its askers to read themselves.
 */
import { createHash } from 'node:crypto';
import type { ChangeFeed } from '../../delivery/index.js';
import type { PrimaryMessage, ViewReadAnswer, WorkerMessage } from './messages.js';

/** How long a worker waits for another's view read before reading itself, in ms. */
export const VIEW_READ_DEADLINE_MS = 2_000;

/** The worker among `workers` (ascending ids) that reads `runId`'s view. */
export function viewReaderOf(runId: string, workers: readonly number[]): number | undefined {
  if (workers.length === 0) return undefined;
  return workers[createHash('sha256').update(runId).digest().readUInt32BE(0) % workers.length];
}

/**
 * Shares `feed`'s view reads with the other workers from now on: answers their requests for
 * the runs this worker reads, and asks them for the runs they read.
 *
 * @param selfId this worker's cluster id
 * @param send the worker's channel to the primary (worker-link.ts)
 * @returns the handler of the view read messages the primary sends this worker
 */
export function linkViewReads(feed: ChangeFeed, selfId: number, send: (message: WorkerMessage) => void): (message: PrimaryMessage) => void {
  let workers: readonly number[] = [];
  let nextRequest = 1;
  const pending = new Map<number, (answer: ViewReadAnswer) => void>();
  feed.shareViewReads({
    readsElsewhere(runId) {
      const reader = viewReaderOf(runId, workers);
      return reader !== undefined && reader !== selfId;
    },
    request(runId, since, atLeast) {
      const owner = viewReaderOf(runId, workers);
      if (owner === undefined || owner === selfId || !process.connected) return Promise.resolve('unanswered');
      const requestId = nextRequest++;
      return new Promise((resolve) => {
        const timer = setTimeout(() => settle('unanswered'), VIEW_READ_DEADLINE_MS);
        // A pending answer never keeps a stopping worker alive.
        timer.unref();
        const settle = (answer: ViewReadAnswer): void => {
          clearTimeout(timer);
          pending.delete(requestId);
          resolve(answer === 'unanswered' ? answer : { event: answer.event ?? undefined });
        };
        pending.set(requestId, settle);
        send({ pwg: 'view-read-request', requestId, owner, runId, since, atLeast });
      });
    },
  });
  return (message) => {
    if (message.pwg === 'view-readers') workers = message.workers;
    else if (message.pwg === 'view-read-answer') pending.get(message.requestId)?.(message.answer);
    else if (message.pwg === 'view-read-request') {
      let answer: ViewReadAnswer;
      try {
        const event = feed.readViewForPeer(message.runId, message.since, message.atLeast);
        answer = event === 'reset' ? 'unanswered' : { event: event ?? null };
      } catch {
        answer = 'unanswered';
      }
      send({ pwg: 'view-read-answer', requestId: message.requestId, answer });
    }
  };
}
