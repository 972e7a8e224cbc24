/**
 * The shared part of the benchmark client processes (bench/harness/fanout-client.ts,
 * bench/harness/live-query-client.ts): minimal `graphql-transport-ws` connections on `ws` (so the
 * client side costs little CPU: connection_init, subscribe, next, ping/pong), receipt times per
 * revision with the `got` event to the parent, and commit-to-receipt latency histograms.
 */
import WebSocket from 'ws';
import { emit } from './ipc.js';
import { IntHistogram } from './stats.js';

/** A `next` message's payload as the clients read it. */
export interface NextPayload {
  data?: Record<string, unknown>;
  errors?: unknown;
}

/**
 * Handles one `next` message of operation `id`, received at `at` (epoch ms). The raw message
 * is passed for error texts.
 */
export type OnNext = (id: string, payload: NextPayload, at: number, message: unknown) => void;

/** Latencies of the revisions the parent committed. */
export interface Latencies {
  /** receipt − commit, ms, compacted ({@link IntHistogram.compact}). */
  histogram: number[];
  /** Receipts of the committed revisions. */
  received: number;
  /** Expected receipts (operations × committed revisions) that never came. */
  missing: number;
}

/** Connections, receipts and errors of one client process. */
export class WsClientProcess {
  readonly sockets: WebSocket[] = [];
  /** Protocol and socket errors (error/complete messages, unexpected nexts, non-1000 closes). */
  errors: string[] = [];
  /** revision → receipt times (ms) of every operation of this process. */
  private readonly receipts = new Map<number, number[]>();

  /**
   * @param onNext handles `next` messages; ping is answered, error/complete recorded as errors.
   * @param operations how many operations of this process show every revision (the `got` count).
   */
  constructor(
    private readonly onNext: OnNext,
    private readonly operations: () => number,
  ) {}

  /**
   * Opens one `graphql-transport-ws` connection to `url` (http(s) is turned into ws(s)) and
   * resolves once it is acknowledged; rejects on a socket error before that.
   */
  connect(url: string): Promise<WebSocket> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url.replace(/^http/, 'ws'), 'graphql-transport-ws', { perMessageDeflate: false });
      socket.once('error', reject);
      socket.once('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: {} })));
      const onAck = (raw: WebSocket.RawData): void => {
        const message = JSON.parse(raw.toString()) as { type: string };
        if (message.type !== 'connection_ack') return;
        socket.off('message', onAck);
        socket.off('error', reject);
        socket.on('message', (data) => this.onMessage(socket, data));
        socket.on('error', (error) => this.errors.push(`socket error: ${error.message}`));
        socket.on('close', (code) => {
          if (code !== 1000) this.errors.push(`socket closed ${code}`);
        });
        this.sockets.push(socket);
        resolve(socket);
      };
      socket.on('message', onAck);
    });
  }

  /**
   * Opens ⌈count / perSocket⌉ connections to `url` and calls `subscribe(socket, index)` for
   * operation indexes 0…count−1, `perSocket` per connection. Resolves once all were called.
   */
  async openAll(url: string, count: number, perSocket: number, subscribe: (socket: WebSocket, index: number, first: number) => void): Promise<void> {
    for (let first = 0; first < count; first += perSocket) {
      const socket = await this.connect(url);
      for (let index = first; index < Math.min(count, first + perSocket); index += 1) subscribe(socket, index, first);
    }
  }

  /** Notes that one operation showed `revision` at `at` (ms); emits `got` once all did. */
  record(revision: number, at: number): void {
    let list = this.receipts.get(revision);
    if (list === undefined) {
      list = [];
      this.receipts.set(revision, list);
    }
    list.push(at);
    if (list.length === this.operations()) emit('got', { revision });
  }

  /** Latencies of the committed revisions. @param commits `{revision: commitTimeMs}` */
  latencies(commits: Record<string, number>): Latencies {
    const histogram = new IntHistogram();
    let received = 0;
    let missing = 0;
    for (const [key, at] of Object.entries(commits)) {
      const list = this.receipts.get(Number(key)) ?? [];
      received += list.length;
      missing += this.operations() - list.length;
      for (const time of list) histogram.add(time - at);
    }
    return { histogram: histogram.compact(), received, missing };
  }

  /** Forgets receipts and errors (between phases). */
  reset(): void {
    this.receipts.clear();
    this.errors = [];
  }

  /** Drops every connection and exits the process on the next turn. */
  stop(): void {
    for (const socket of this.sockets) socket.terminate();
    setImmediate(() => process.exit(0));
  }

  private onMessage(socket: WebSocket, raw: WebSocket.RawData): void {
    const at = Date.now();
    const message = JSON.parse(raw.toString()) as { type: string; id?: string; payload?: unknown };
    if (message.type === 'next' && message.id !== undefined) {
      this.onNext(message.id, message.payload as NextPayload, at, message);
    } else if (message.type === 'ping') {
      socket.send(JSON.stringify({ type: 'pong' }));
    } else if (message.type === 'error' || message.type === 'complete') {
      this.errors.push(`${message.type}: ${JSON.stringify(message).slice(0, 300)}`);
    }
  }
}
