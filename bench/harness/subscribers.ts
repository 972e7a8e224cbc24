/**
 * The subscriber side shared by the benchmarks whose subscribers live in client processes
 * (bench/harness/fanout-client.ts, bench/harness/live-query-client.ts): subscribing them
 * evenly, waiting until every subscription is live at the server, and counting per revision
 * the clients that received it.
 */
import { sleep } from './bench-context.js';
import { callEvenly, type Child } from './ipc.js';
import type { ServerProcess } from './server-process.js';

/** Subscriptions multiplexed over one WebSocket by a client process. */
export const PER_SOCKET = 100;

/**
 * Counts, per revision, the client processes whose every subscription received it (their
 * `got` events), so the committer can wait until a revision reached everyone.
 */
export class DeliveryTracker {
  private readonly got = new Map<number, number>();
  private wake: (() => void) | undefined;

  constructor(private readonly clients: readonly Child[]) {
    for (const client of clients) {
      client.on('got', (message) => {
        const revision = Number(message.revision);
        this.got.set(revision, (this.got.get(revision) ?? 0) + 1);
        this.wake?.();
      });
    }
  }

  /** Resolves true once every client got `revision`, false after `timeoutMs`. */
  async waitAll(revision: number, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while ((this.got.get(revision) ?? 0) < this.clients.length) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, Math.min(left, 100));
      });
      this.wake = undefined;
    }
    return true;
  }
}

/** Subscribes `count` clients over `clients`, evenly; resolves when all subscribe messages were sent. */
export async function subscribeAll(clients: readonly Child[], url: string, runId: string, count: number, currentRevision: number): Promise<void> {
  await callEvenly(clients, count, 'subscribe', (mine, index) => ({ url, runId, count: mine, perSocket: PER_SOCKET, prefix: `p${index}s`, currentRevision }));
}

/** Waits until the server's change feed holds `count` waiters (every subscription is live). */
export async function waitForWaiters(server: ServerProcess, count: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const waiters = await server.child.call<number>('waiters');
    if (waiters >= count) return;
    if (Date.now() > deadline) throw new Error(`only ${waiters} of ${count} subscriptions became live within ${timeoutMs} ms`);
    await sleep(50);
  }
}
