/**
 * A client process of the `@live` benchmark (bench/live-queries.ts): opens WebSocket
 * connections speaking `graphql-transport-ws` (a minimal client on `ws`, so the client side
 * costs little CPU) and holds many `@live` queries of one run per connection.
 *
 * It stamps every pushed result with `Date.now()` and the run's `presentationRevision` it shows,
 * tells the parent when all of its live queries showed a revision (`got` event), and turns
 * receipt times into commit-to-push latencies with the commit times the parent sends (`report`).
 */
import { emit, serveRequests } from './ipc.js';
import { WsClientProcess } from './ws-client-process.js';

const LIVE_QUERY = `query LiveRun($runId: String!) @live {
  workflowRun(runId: $runId) { id runId status queueStatus presentationRevision updatedAt }
}`;

/** What a live page keeps open besides the selected run: the run list. */
const LIVE_LIST = `query LiveList @live {
  workflowRuns(first: 100) { edges { node { id runId status queueStatus updatedAt } } }
}`;

/** Live query id → last revision it showed. */
const queries = new Map<string, number>();
let pushes = 0;

const client: WsClientProcess = new WsClientProcess(
  (id, payload, at, message) => {
    if (payload.data?.workflowRuns !== undefined && payload.errors === undefined) {
      pushes += 1;
      return;
    }
    const revision = (payload.data?.workflowRun as { presentationRevision: number } | null | undefined)?.presentationRevision;
    if (revision === undefined || payload.errors !== undefined) {
      client.errors.push(`unexpected next: ${JSON.stringify(message).slice(0, 200)}`);
      return;
    }
    pushes += 1;
    queries.set(id, revision);
    client.record(revision, at);
  },
  () => queries.size,
);

serveRequests({
  /**
   * Opens ⌈count / perSocket⌉ connections and starts `count` live queries of `runId`; with
   * `list`, each connection also holds a live run list (not tracked by revision). Resolves once
   * every subscribe was sent.
   */
  async subscribe(message) {
    const runId = String(message.runId);
    const prefix = String(message.prefix ?? 'q');
    await client.openAll(String(message.url), Number(message.count), Number(message.perSocket), (socket, index, first) => {
      if (message.list === true && index === first) socket.send(JSON.stringify({ id: `list-${first}`, type: 'subscribe', payload: { query: LIVE_LIST } }));
      const id = `${prefix}${index}`;
      queries.set(id, 0);
      socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query: LIVE_QUERY, variables: { runId } } }));
    });
    return { sockets: client.sockets.length, queries: queries.size };
  },

  /** Latencies (receipt − commit, ms) of the given revisions as a histogram, and pushes received so far. */
  report(message) {
    const { histogram, missing } = client.latencies(message.commits as Record<string, number>);
    return { histogram, missing, pushes, errors: client.errors.slice(0, 5), errorCount: client.errors.length };
  },

  stop() {
    client.errors = [];
    client.stop();
    return null;
  },
});

emit('child-ready');
