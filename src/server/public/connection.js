// @ts-check
/**
 * The live page's WebSocket: the `graphql-ws` package's own browser client, which the server
 * serves from its node_modules at /app/vendor/graphql-ws/, with the page's retry policy
 * (/app/reconnect.js: every lost or refused connection is retried with backoff), and the
 * status line (`#conn`).
 *
 * The client sends every active subscription again after a reconnect, with its payload as it
 * is then: the subscriptions' variables carry the current cursors, so the streams resume after
 * the last event applied (docs/PROTOCOL.md "Reconnect recipe").
 *
 * `#conn` says `connecting…` (first connect), `● connected` (with `(reconnected ×N)` after a
 * loss), `◌ reconnecting… — <why>` while retrying, `○ disconnected — <why>; reload the page`
 * when retrying cannot help. Its data attributes: `state` (connecting, connected,
 * reconnecting, disconnected), `reconnects` (successful reconnects), `failures` (connection
 * failures since the last connect: the loss, then each refused attempt), `http-retries` (HTTP
 * reads tried again).
 */
import { createClient } from '/app/vendor/graphql-ws/client.js';
import { $ } from '/app/dom.js';
import { closeText, failureText, isCloseLike, retryDelayMs, shouldRetry } from '/app/reconnect.js';
import { OPS, TOKEN, WS_URL } from '/app/session.js';

/** The page pings after this long and gives the server as long again to answer. */
const KEEP_ALIVE_MS = 15_000;

/**
 * @type {{ reconnects: number, everConnected: boolean, opened: boolean, retryPending: boolean, failures: number, httpRetries: number, socket: WebSocket | null,
 *   pongTimer: ReturnType<typeof setTimeout> | undefined, lastFailure: string }}
 */
const connection = {
  reconnects: 0,
  everConnected: false,
  opened: false,
  retryPending: false,
  failures: 0,
  httpRetries: 0,
  socket: null,
  pongTimer: undefined,
  lastFailure: '',
};

/** @type {Array<() => void>} */
const reconnectListeners = [];
/** @type {Array<() => void>} */
const connectWaiters = [];

/**
 * Calls `listener` after every reconnect (not on the first connect).
 *
 * @param {() => void} listener
 */
export function onReconnected(listener) {
  reconnectListeners.push(listener);
}

/**
 * Resolves when the WebSocket connects next (an HTTP read waiting to be retried goes then).
 *
 * @returns {Promise<void>}
 */
export function nextConnected() {
  return new Promise((resolve) => connectWaiters.push(resolve));
}

/** Counts an HTTP read that is tried again (`#conn[data-http-retries]`). */
export function noteHttpRetry() {
  connection.httpRetries += 1;
  $('conn').dataset.httpRetries = String(connection.httpRetries);
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
  conn.dataset.reconnects = String(connection.reconnects);
  conn.dataset.failures = String(connection.failures);
  const reconnected = connection.reconnects > 0 ? ` (reconnected ×${connection.reconnects})` : '';
  const texts = {
    connecting: 'connecting…',
    connected: `● connected${reconnected}`,
    reconnecting: `◌ reconnecting…${detail ? ` — ${detail}` : ''}`,
    disconnected: `○ disconnected — ${detail}; reload the page`,
  };
  conn.textContent = texts[name];
  conn.title = name === 'connected' ? '' : detail;
}

const client = createClient({
  url: WS_URL,
  connectionParams: TOKEN ? { authorization: `Bearer ${TOKEN}` } : {},
  // Connected from the start (the status line shows the server's state), and never giving up
  // on a lost or refused connection (/app/reconnect.js).
  lazy: false,
  retryAttempts: Infinity,
  shouldRetry,
  retryWait: async (retries) => {
    const delayMs = retryDelayMs(retries);
    showConnection('reconnecting', `${connection.lastFailure}; next try in ${(delayMs / 1000).toFixed(1)} s`);
    connection.retryPending = true;
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    connection.retryPending = false;
  },
  // A server that stops answering pings is treated as gone (graphql-ws's pong-timeout recipe).
  keepAlive: KEEP_ALIVE_MS,
  onNonLazyError: (error) => showConnection('disconnected', failureText(error)),
  on: {
    connecting: (isRetry) => {
      connection.opened = false;
      if (isRetry) showConnection('reconnecting', `${connection.lastFailure}; trying again`);
      else if (!connection.everConnected) showConnection('connecting');
    },
    opened: () => {
      connection.opened = true;
    },
    // A refused socket reports its error before its close, and graphql-ws schedules the next
    // try on the error: say why now, so the status line's "next try in …" says it too.
    error: () => {
      if (!connection.opened) connection.lastFailure = 'server unreachable';
    },
    connected: (socket) => {
      connection.socket = /** @type {WebSocket} */ (socket);
      const reconnected = connection.everConnected;
      if (reconnected) connection.reconnects += 1;
      connection.everConnected = true;
      connection.failures = 0;
      showConnection('connected');
      for (const resolve of connectWaiters.splice(0)) resolve();
      if (reconnected) for (const listener of reconnectListeners) listener();
    },
    closed: (event) => {
      connection.socket = null;
      clearTimeout(connection.pongTimer);
      connection.failures += 1;
      // A socket that never opened: the server refused it or is not there (a restart).
      connection.lastFailure = !connection.opened ? 'server unreachable' : isCloseLike(event) ? closeText(event) : failureText(event);
      // A refused attempt: graphql-ws has already scheduled the next one (the status line says
      // when); only the failure count changes.
      if (!connection.opened && connection.retryPending && shouldRetry(event)) $('conn').dataset.failures = String(connection.failures);
      else showConnection(shouldRetry(event) ? 'reconnecting' : 'disconnected', connection.lastFailure);
    },
    ping: (received) => {
      if (received) return;
      clearTimeout(connection.pongTimer);
      connection.pongTimer = setTimeout(() => {
        if (connection.socket?.readyState === WebSocket.OPEN) connection.socket.close(4408, 'Keep-alive timeout');
      }, KEEP_ALIVE_MS);
    },
    pong: (received) => {
      if (received) clearTimeout(connection.pongTimer);
    },
  },
});

/**
 * @template [T=any]
 * @typedef {{ data?: T | null, errors?: ReadonlyArray<{ message: string }> }} SubscriptionResult
 */

/**
 * Subscribes to the page operation `operationName` with `variables`; the client sends the
 * payload again as it is then after every reconnect, so keep `variables` (the same object)
 * current.
 *
 * @template [T=any]
 * @param {string} operationName a subscription of live-page.graphql
 * @param {Record<string, unknown>} variables
 * @param {{ next: (result: SubscriptionResult<T>) => void, error: (error: Error) => void }} sink
 *   `error`: the subscription ended for good (GraphQL errors, or a connection that cannot be
 *   retried), with readable text (/app/reconnect.js failureText)
 * @returns {() => void} the unsubscribe function
 */
export function subscribe(operationName, variables, { next, error }) {
  return client.subscribe(
    { query: /** @type {string} */ (OPS[operationName]), operationName, variables },
    {
      next: (result) => next(/** @type {SubscriptionResult<T>} */ (result)),
      error: (reason) => error(new Error(failureText(reason))),
      complete: () => {},
    },
  );
}
