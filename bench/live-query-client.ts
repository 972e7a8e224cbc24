/**
 * A client process of the `@live` benchmark (bench/live-queries.ts): opens WebSocket
 * connections speaking `graphql-transport-ws` (a minimal client on `ws`, so the client side
 * costs little CPU) and holds many `@live` queries of one run per connection.
 *
 * It stamps every pushed result with `Date.now()` and the run's `presentationRevision` it shows,
 * tells the parent when all of its live queries showed a revision (`got` event), and turns
 * receipt times into commit-to-push latencies with the commit times the parent sends (`report`).
 */
import WebSocket from 'ws';
import { emit, serveRequests } from './ipc.js';
import { IntHistogram } from './stats.js';

const LIVE_QUERY = `query LiveRun($runId: String!) @live {
  workflowRun(runId: $runId) { id runId status queueStatus presentationRevision updatedAt }
}`;

/** What a live page keeps open besides the selected run: the run list. */
const LIVE_LIST = `query LiveList @live {
  workflowRuns(first: 100) { edges { node { id runId status queueStatus updatedAt } } }
}`;

const sockets: WebSocket[] = [];
/** Live query id → last revision it showed. */
const queries = new Map<string, number>();
/** revision → receipt times (ms) of every live query of this process. */
const receipts = new Map<number, number[]>();
let errors: string[] = [];
let pushes = 0;

function onMessage(socket: WebSocket, raw: WebSocket.RawData): void {
  const at = Date.now();
  const message = JSON.parse(raw.toString()) as { type: string; id?: string; payload?: unknown };
  if (message.type === 'next' && message.id !== undefined) {
    const payload = message.payload as { data?: { workflowRun?: { presentationRevision: number } | null; workflowRuns?: unknown }; errors?: unknown };
    if (payload.data?.workflowRuns !== undefined && payload.errors === undefined) {
      pushes += 1;
      return;
    }
    const revision = payload.data?.workflowRun?.presentationRevision;
    if (revision === undefined || payload.errors !== undefined) {
      errors.push(`unexpected next: ${JSON.stringify(message).slice(0, 200)}`);
      return;
    }
    pushes += 1;
    queries.set(message.id, revision);
    let list = receipts.get(revision);
    if (list === undefined) {
      list = [];
      receipts.set(revision, list);
    }
    list.push(at);
    if (list.length === queries.size) emit('got', { revision });
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
      resolve(socket);
    };
    socket.on('message', onAck);
  });
}

serveRequests({
  /**
   * Opens ⌈count / perSocket⌉ connections and starts `count` live queries of `runId`; with
   * `list`, each connection also holds a live run list (not tracked by revision). Resolves once
   * every subscribe was sent.
   */
  async subscribe(message) {
    const url = String(message.url).replace(/^http/, 'ws');
    const runId = String(message.runId);
    const count = Number(message.count);
    const perSocket = Number(message.perSocket);
    const prefix = String(message.prefix ?? 'q');
    for (let first = 0; first < count; first += perSocket) {
      const socket = await connect(url);
      sockets.push(socket);
      if (message.list === true) socket.send(JSON.stringify({ id: `list-${first}`, type: 'subscribe', payload: { query: LIVE_LIST } }));
      for (let index = first; index < Math.min(count, first + perSocket); index += 1) {
        const id = `${prefix}${index}`;
        queries.set(id, 0);
        socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query: LIVE_QUERY, variables: { runId } } }));
      }
    }
    return { sockets: sockets.length, queries: queries.size };
  },

  /** Latencies (receipt − commit, ms) of the given revisions as a histogram, and pushes received so far. */
  report(message) {
    const commits = message.commits as Record<string, number>;
    const histogram = new IntHistogram();
    let missing = 0;
    for (const [key, at] of Object.entries(commits)) {
      const list = receipts.get(Number(key)) ?? [];
      missing += queries.size - list.length;
      for (const time of list) histogram.add(time - at);
    }
    return { histogram: histogram.compact(), missing, pushes, errors: errors.slice(0, 5), errorCount: errors.length };
  },

  stop() {
    for (const socket of sockets) socket.terminate();
    errors = [];
    setImmediate(() => process.exit(0));
    return null;
  },
});

emit('child-ready');
