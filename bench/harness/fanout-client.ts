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
import { WsClientProcess } from './ws-client-process.js';

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

const subscriptions = new Map<string, Subscription>();
let outOfOrder = 0;
let duplicates = 0;
let snapshots = 0;

const client: WsClientProcess = new WsClientProcess(
  (id, payload, at, message) => {
    const subscription = subscriptions.get(id);
    const event = payload.data?.workflowRunDeltas as { __typename: string; presentationRevision?: number } | undefined;
    if (subscription === undefined || event === undefined) {
      client.errors.push(`unexpected next: ${JSON.stringify(message).slice(0, 200)}`);
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
    client.record(revision, at);
  },
  () => subscriptions.size,
);

serveRequests({
  /**
   * Opens ⌈count / perSocket⌉ connections and subscribes `count` times to `runId` (live
   * only: the first revision expected is `currentRevision + 1`). Resolves once every
   * subscribe message was sent.
   */
  async subscribe(message) {
    const runId = String(message.runId);
    const prefix = String(message.prefix ?? 's');
    const currentRevision = Number(message.currentRevision ?? 1);
    await client.openAll(String(message.url), Number(message.count), Number(message.perSocket), (socket, index) => {
      const id = `${prefix}${index}`;
      subscriptions.set(id, { last: currentRevision });
      socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query: SUBSCRIPTION, variables: { runId } } }));
    });
    return { sockets: client.sockets.length, subscriptions: subscriptions.size };
  },

  /**
   * Latencies (receipt − commit, ms) of every received revision as a histogram, plus the
   * delivery checks.
   *
   * @param message.commits `{revision: commitTimeMs}`
   */
  report(message) {
    return {
      ...client.latencies(message.commits as Record<string, number>),
      outOfOrder,
      duplicates,
      snapshots,
      errors: client.errors.slice(0, 5),
      errorCount: client.errors.length,
    };
  },

  /** Forgets receipts and checks (between phases). */
  reset() {
    client.reset();
    outOfOrder = 0;
    duplicates = 0;
    snapshots = 0;
    return null;
  },

  /** Completes every subscription and closes the connections. */
  async close() {
    for (const socket of client.sockets) {
      if (socket.readyState === WebSocket.OPEN) socket.close(1000);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    return null;
  },

  stop() {
    client.stop();
    return null;
  },
});

emit('child-ready');
