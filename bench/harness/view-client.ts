/**
 * A subscriber process of the `view` benchmark (bench/view.ts): graphql-ws subscriptions of
 * `workflowRunView` (docs/PROTOCOL.md "Following a run's view"), many per connection, on the
 * minimal client of {@link WsClientProcess}. Each subscription gets the whole view first
 * (`WorkflowRunViewReset`), then one `WorkflowRunViewChanged` per read of the rows; it checks
 * that each change starts where the previous one ended (`fromRevision` = the last revision), and
 * stamps every event with `performance.timeOrigin + performance.now()` (sub-millisecond, the same
 * clock as the writer's stamps).
 *
 * A change may carry more than one commit (the server reads once per wake-up): a commit at
 * revision r is delivered by the first event whose revision is ≥ r. The parent is told (`got`)
 * each time the revision every subscription of this process reached moves.
 */
import WebSocket from 'ws';
import { emit, serveRequests } from './ipc.js';
import { IntHistogram } from './stats.js';
import { WsClientProcess } from './ws-client-process.js';

/** What a subscriber of the live page reads of each event: the head, the items each list gained. */
export const VIEW_SUBSCRIPTION = `subscription Follow($runId: String!) {
  workflowRunView(runId: $runId) {
    __typename
    ... on WorkflowRunViewReset { revision cursor view { revision title status currentNode steps { totalCount } trace { totalCount } } }
    ... on WorkflowRunViewChanged {
      fromRevision
      revision
      cursor
      view { title status currentNode }
      steps { stepIndex nodeId outcome }
      traceEvents { seq type nodeId }
      sessionEntries { seq role text toolCalls { name } }
      updates { type key }
    }
  }
}`;

/** Latency histogram resolution: buckets of 0.1 ms. */
const BUCKETS_PER_MS = 10;

interface Subscription {
  runId: string;
  /** The revision of the last event (0 before the reset). */
  last: number;
  /** Revisions and receipt times (ms) of its changes, in order. */
  receipts: Array<[number, number]>;
}

const subscriptions = new Map<string, Subscription>();
let resets = 0;
let gaps = 0;
let extraResets = 0;
let traceItems = 0;
let entryItems = 0;
const errors: string[] = [];
/** The revision every subscription of a run reached, as last told to the parent. */
const told = new Map<string, number>();
let checkScheduled = false;

const now = (): number => performance.timeOrigin + performance.now();

function checkReached(): void {
  checkScheduled = false;
  const reached = new Map<string, number>();
  for (const subscription of subscriptions.values()) {
    const current = reached.get(subscription.runId);
    reached.set(subscription.runId, current === undefined ? subscription.last : Math.min(current, subscription.last));
  }
  for (const [runId, revision] of reached) {
    if (revision > (told.get(runId) ?? 0)) {
      told.set(runId, revision);
      emit('got', { runId, revision });
    }
  }
}

interface ViewEvent {
  __typename: string;
  revision: number;
  fromRevision?: number;
  traceEvents?: unknown[];
  sessionEntries?: unknown[];
}

const client: WsClientProcess = new WsClientProcess(
  (id, payload, _at, message) => {
    const at = now();
    const subscription = subscriptions.get(id);
    const event = payload.data?.workflowRunView as ViewEvent | undefined;
    if (subscription === undefined || event === undefined || payload.errors !== undefined) {
      errors.push(`unexpected next: ${JSON.stringify(message).slice(0, 300)}`);
      return;
    }
    if (event.__typename === 'WorkflowRunViewReset') {
      if (subscription.last === 0) resets += 1;
      else extraResets += 1;
    } else {
      if (event.fromRevision !== subscription.last) gaps += 1;
      traceItems += event.traceEvents?.length ?? 0;
      entryItems += event.sessionEntries?.length ?? 0;
      subscription.receipts.push([event.revision, at]);
    }
    subscription.last = event.revision;
    if (!checkScheduled) {
      checkScheduled = true;
      setImmediate(checkReached);
    }
  },
  () => subscriptions.size,
);

serveRequests({
  /** Opens ⌈count / perSocket⌉ connections and subscribes `count` times to `runId`. */
  async subscribe(message) {
    const runId = String(message.runId);
    const prefix = String(message.prefix ?? 's');
    await client.openAll(String(message.url), Number(message.count), Number(message.perSocket), (socket, index) => {
      const id = `${prefix}${index}`;
      subscriptions.set(id, { runId, last: 0, receipts: [] });
      socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query: VIEW_SUBSCRIPTION, variables: { runId } } }));
    });
    return { sockets: client.sockets.length, subscriptions: subscriptions.size };
  },

  /** Subscriptions that got their whole view (the reset) so far. */
  resets() {
    return resets;
  },

  /**
   * Commit → receipt latencies of `runId`'s subscriptions as a histogram of 0.1 ms buckets,
   * with the delivery checks.
   *
   * @param message.commits `[revision, commitTimeMs][]` of the run, ascending
   */
  report(message) {
    const runId = String(message.runId);
    const commits = message.commits as Array<[number, number]>;
    const histogram = new IntHistogram(600_001);
    let received = 0;
    let missing = 0;
    for (const subscription of subscriptions.values()) {
      if (subscription.runId !== runId) continue;
      let next = 0;
      for (const [revision, at] of commits) {
        while (next < subscription.receipts.length && (subscription.receipts[next] as [number, number])[0] < revision) next += 1;
        const receipt = subscription.receipts[next];
        if (receipt === undefined) {
          missing += 1;
          continue;
        }
        received += 1;
        histogram.add((receipt[1] - at) * BUCKETS_PER_MS);
      }
    }
    return { histogram: histogram.compact(), received, missing, gaps, extraResets, traceItems, entryItems, errors: [...errors, ...client.errors].slice(0, 5) };
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
