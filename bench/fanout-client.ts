/**
 * A subscriber process of the fan-out and cross-process benchmarks: opens WebSocket
 * connections speaking `graphql-transport-ws` (a minimal client on `ws`, so the client side
 * costs little CPU: connection_init, subscribe, next, ping/pong) and multiplexes many
 * `workflowRunDeltas` subscriptions per connection.
 *
 * It stamps every received revision with `Date.now()`, checks that each subscription gets
 * every revision once, in order, with no gap, tells the parent when all of its subscriptions
 * got a revision (`got` event), and at the end turns receipt times into commit-to-receipt
 * latencies with the commit times the parent sends (`report`).
 */
import WebSocket from 'ws';
import { emit, serveRequests } from './ipc.js';
import { IntHistogram } from './stats.js';

const SUBSCRIPTION = `subscription Follow($runId: String!) {
  workflowRunDeltas(runId: $runId) {
    __typename
    ... on ViewerDeltaBatch { presentationRevision deltas { deltaIndex targetType targetKey recordedAt patch { op path value } } }
    ... on ViewerSnapshotRequired { currentRevision }
  }
}`;

interface Subscription {
  /** Last revision received; at first the run's revision at subscribe time (live only). */
  last: number;
}

const sockets: WebSocket[] = [];
const subscriptions = new Map<string, Subscription>();
/** revision → receipt times (ms) of every subscription of this process. */
const receipts = new Map<number, number[]>();
let errors: string[] = [];
let outOfOrder = 0;
let duplicates = 0;
let snapshots = 0;

function record(revision: number, at: number): void {
  let list = receipts.get(revision);
  if (list === undefined) {
    list = [];
    receipts.set(revision, list);
  }
  list.push(at);
  if (list.length === subscriptions.size) emit('got', { revision });
}

function onMessage(socket: WebSocket, raw: WebSocket.RawData): void {
  const at = Date.now();
  const message = JSON.parse(raw.toString()) as { type: string; id?: string; payload?: unknown };
  if (message.type === 'next' && message.id !== undefined) {
    const subscription = subscriptions.get(message.id);
    const payload = message.payload as { data?: { workflowRunDeltas?: { __typename: string; presentationRevision?: number } }; errors?: unknown };
    const event = payload.data?.workflowRunDeltas;
    if (subscription === undefined || event === undefined) {
      errors.push(`unexpected next: ${JSON.stringify(message).slice(0, 200)}`);
      return;
    }
    if (event.__typename !== 'ViewerDeltaBatch' || event.presentationRevision === undefined) {
      snapshots += 1;
      return;
    }
    const revision = event.presentationRevision;
    if (revision <= subscription.last) duplicates += 1;
    else if (revision !== subscription.last + 1) outOfOrder += 1;
    subscription.last = revision;
    record(revision, at);
  } else if (message.type === 'ping') {
    socket.send(JSON.stringify({ type: 'pong' }));
  } else if (message.type === 'error' || message.type === 'complete') {
    errors.push(`${message.type}: ${JSON.stringify(message).slice(0, 300)}`);
  }
}

function connect(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, 'graphql-transport-ws', { perMessageDeflate: false });
    socket.once('error', reject);
    socket.once('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: {} })));
    const onAck = (raw: WebSocket.RawData): void => {
      const message = JSON.parse(raw.toString()) as { type: string };
      if (message.type !== 'connection_ack') return;
      socket.off('message', onAck);
      socket.off('error', reject);
      socket.on('message', (data) => onMessage(socket, data));
      socket.on('error', (error) => errors.push(`socket error: ${error.message}`));
      socket.on('close', (code) => {
        if (code !== 1000) errors.push(`socket closed ${code}`);
      });
      resolve(socket);
    };
    socket.on('message', onAck);
  });
}

serveRequests({
  /**
   * Opens ⌈count / perSocket⌉ connections and subscribes `count` times to `runId` (live
   * only: the first revision expected is `currentRevision + 1`). Resolves once every
   * subscribe message was sent.
   */
  async subscribe(message) {
    const url = String(message.url).replace(/^http/, 'ws');
    const runId = String(message.runId);
    const count = Number(message.count);
    const perSocket = Number(message.perSocket);
    const prefix = String(message.prefix ?? 's');
    const currentRevision = Number(message.currentRevision ?? 1);
    for (let first = 0; first < count; first += perSocket) {
      const socket = await connect(url);
      sockets.push(socket);
      for (let index = first; index < Math.min(count, first + perSocket); index += 1) {
        const id = `${prefix}${index}`;
        subscriptions.set(id, { last: currentRevision });
        socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query: SUBSCRIPTION, variables: { runId } } }));
      }
    }
    return { sockets: sockets.length, subscriptions: subscriptions.size };
  },

  /**
   * Latencies (receipt − commit, ms) of every received revision as a histogram, plus the
   * delivery checks.
   *
   * @param message.commits `{revision: commitTimeMs}`
   */
  report(message) {
    const commits = message.commits as Record<string, number>;
    const histogram = new IntHistogram();
    let received = 0;
    let missing = 0;
    for (const [key, at] of Object.entries(commits)) {
      const list = receipts.get(Number(key)) ?? [];
      received += list.length;
      missing += subscriptions.size - list.length;
      for (const time of list) histogram.add(time - at);
    }
    return {
      histogram: histogram.compact(),
      received,
      missing,
      outOfOrder,
      duplicates,
      snapshots,
      errors: errors.slice(0, 5),
      errorCount: errors.length,
    };
  },

  /** Forgets receipts and checks (between phases). */
  reset() {
    receipts.clear();
    errors = [];
    outOfOrder = 0;
    duplicates = 0;
    snapshots = 0;
    return null;
  },

  /** Completes every subscription and closes the connections. */
  async close() {
    for (const socket of sockets) {
      if (socket.readyState === WebSocket.OPEN) socket.close(1000);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    return null;
  },

  stop() {
    for (const socket of sockets) socket.terminate();
    setImmediate(() => process.exit(0));
    return null;
  },
});

emit('child-ready');
