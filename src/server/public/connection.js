// @ts-check
/**
 * The live page's connection: the typed client `pi-workflows-graphql/client`
 * (/app/vendor/client/client.js, the server's browser bundle of src/client/), one instance for
 * the page's subscriptions and HTTP reads, with its retry policy (docs/CLIENTS.md "The live
 * lineage page"): every lost or refused connection is retried without end after 0.5 s, 1 s,
 * 2 s … at most 8 s, plus up to 250 ms of jitter (pages reconnecting to a restarted server
 * spread out); a server that does not answer a ping within 15 s counts as gone; only a refused
 * token (4403) or a close graphql-ws treats as fatal ends the retries.
 *
 * The client sends every active subscription again after a reconnect with its variables as they
 * are then: the page's variables carry the current cursors, so the streams resume after the
 * last event applied (docs/PROTOCOL.md "Reconnect recipe").
 *
 * `#conn` says `connecting…` (first connect), `● connected` (with `(reconnected ×N)` after a
 * loss), `◌ reconnecting… — <why>; next try in <s> s` while retrying, `○ disconnected — <why>;
 * reload the page` when retrying cannot help. Its data attributes: `state` (connecting,
 * connected, reconnecting, disconnected), `reconnects` (successful reconnects), `failures`
 * (connection failures since the last connect: the loss, then each refused attempt),
 * `http-retries` (HTTP reads tried again).
 */
import { createWorkflowClient } from '/app/vendor/client/client.js';
import { $ } from '/app/dom.js';
import { closeText } from '/app/failure-text.js';
import { HTTP_URL, OPS, TOKEN } from '/app/session.js';

/** The page pings after this long and gives the server as long again to answer. */
const KEEP_ALIVE_MS = 15_000;

/** @type {{ reconnects: number, failures: number, httpRetries: number }} */
const counts = { reconnects: 0, failures: 0, httpRetries: 0 };

/** @type {Array<() => void>} */
const reconnectListeners = [];

/**
 * Calls `listener` after every reconnect (not on the first connect).
 *
 * @param {() => void} listener
 */
export function onReconnected(listener) {
  reconnectListeners.push(listener);
}

/** Counts an HTTP read that is tried again (`#conn[data-http-retries]`). */
export function noteHttpRetry() {
  counts.httpRetries += 1;
  $('conn').dataset.httpRetries = String(counts.httpRetries);
}

/**
 * Shows the connection's state in the status line.
 *
 * @param {'connecting' | 'connected' | 'reconnecting' | 'disconnected'} name
 * @param {string} [detail]
 */
function showConnection(name, detail = '') {
  const conn = $('conn');
  conn.dataset.state = name;
  conn.dataset.reconnects = String(counts.reconnects);
  conn.dataset.failures = String(counts.failures);
  const reconnected = counts.reconnects > 0 ? ` (reconnected ×${counts.reconnects})` : '';
  const texts = {
    connecting: 'connecting…',
    connected: `● connected${reconnected}`,
    reconnecting: `◌ reconnecting…${detail ? ` — ${detail}` : ''}`,
    disconnected: `○ disconnected — ${detail}; reload the page`,
  };
  conn.textContent = texts[name];
  conn.title = name === 'connected' ? '' : detail;
}

/**
 * Why the socket dropped, for the status line: `server unreachable` for a socket that never
 * opened (the server refused it or is not there: a restart), else the close's words.
 *
 * @param {import('/app/vendor/client/client.js').DisconnectReason | undefined} reason
 * @returns {string}
 */
function reasonText(reason) {
  if (reason === undefined) return 'connection closed';
  if (!reason.opened) return 'server unreachable';
  if (reason.code === undefined) return reason.message ?? 'connection lost';
  return closeText({ code: reason.code, reason: reason.reason ?? '' });
}

/**
 * Shows a status event of the client.
 *
 * @param {import('/app/vendor/client/client.js').ConnectionStatus} status
 */
function onStatus(status) {
  switch (status.state) {
    case 'connecting':
      showConnection('connecting');
      return;
    case 'connected':
      counts.reconnects = status.reconnects;
      counts.failures = 0;
      showConnection('connected');
      if (status.reconnected) for (const listener of reconnectListeners) listener();
      return;
    case 'reconnecting': {
      counts.failures = status.failures;
      const next = status.delayMs > 0 ? `next try in ${(status.delayMs / 1000).toFixed(1)} s` : 'trying again';
      showConnection('reconnecting', `${reasonText(status.reason)}; ${next}`);
      return;
    }
    case 'closed':
      showConnection('disconnected', reasonText(status.reason));
  }
}

/** The page's one client: connected from the start (the status line shows the server's state). */
export const client = createWorkflowClient({
  url: HTTP_URL,
  ...(TOKEN ? { token: TOKEN } : {}),
  lazy: false,
  retry: { initialDelayMs: 500, maxDelayMs: 8000, jitterMs: 250 },
  keepAliveMs: KEEP_ALIVE_MS,
  pongTimeoutMs: KEEP_ALIVE_MS,
  onStatus,
});

/**
 * @template [T=any]
 * @typedef {{ data: T }} SubscriptionResult
 */

/**
 * Subscribes to the page operation `operationName` with `variables`; the client sends them
 * again as they are then after every reconnect, so keep `variables` (the same object) current.
 *
 * @template [T=any]
 * @param {string} operationName a subscription of live-page.graphql
 * @param {Record<string, unknown>} variables
 * @param {{ next: (result: SubscriptionResult<T>) => void, error: (error: Error) => void }} sink
 *   `error`: the subscription ended for good (GraphQL errors, or a connection that cannot be
 *   retried), with readable text
 * @returns {() => void} the unsubscribe function
 */
export function subscribe(operationName, variables, { next, error }) {
  return client.subscribe(/** @type {string} */ (OPS[operationName]), () => variables, {
    next: (data) => next({ data: /** @type {T} */ (data) }),
    error,
  });
}
