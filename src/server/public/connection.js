// @ts-check
/**
 * The live page's WebSocket: the `graphql-ws` package's own browser client, which the server
 * serves from its node_modules at /app/vendor/graphql-ws/, and the connection badge (`#conn`).
 *
 * The client sends every active subscription again after a reconnect, with its payload as it
 * is then: the subscriptions' variables carry the current cursors, so the streams resume after
 * the last event applied (docs/PROTOCOL.md "Reconnect recipe").
 */
import { createClient } from '/app/vendor/graphql-ws/client.js';
import { $ } from '/app/dom.js';
import { OPS, TOKEN, WS_URL } from '/app/session.js';

/** The page pings after this long and gives the server as long again to answer. */
const KEEP_ALIVE_MS = 15_000;

/**
 * What went wrong, from an Error, a list of GraphQL errors or a close event.
 *
 * @param {unknown} error
 * @returns {string}
 */
export function errorText(error) {
  if (Array.isArray(error)) return error.map((item) => item.message).join('; ');
  const value = /** @type {{ code?: unknown, reason?: string, message?: string } | null | undefined} */ (error);
  if (typeof value?.code === 'number' && 'reason' in value) return `connection closed (code ${value.code}${value.reason ? `: ${value.reason}` : ''})`;
  return value?.message ?? String(error);
}

/**
 * @type {{ reconnects: number, everConnected: boolean, socket: WebSocket | null,
 *   pongTimer: ReturnType<typeof setTimeout> | undefined, lastClose: string }}
 */
const connection = { reconnects: 0, everConnected: false, socket: null, pongTimer: undefined, lastClose: '' };

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

/**
 * Shows the connection's state in the badge.
 *
 * @param {'connecting' | 'live' | 'disconnected'} name
 * @param {string} [detail]
 */
function showConnection(name, detail = '') {
  const conn = $('conn');
  conn.dataset.state = name;
  conn.dataset.reconnects = String(connection.reconnects);
  const reconnected = connection.reconnects > 0 ? ` (reconnected ×${connection.reconnects})` : '';
  conn.textContent = name === 'live' ? `● live${reconnected}` : name === 'disconnected' ? `○ disconnected — ${detail}` : 'connecting…';
}

const client = createClient({
  url: WS_URL,
  connectionParams: TOKEN ? { authorization: `Bearer ${TOKEN}` } : {},
  // Connected from the start (the badge shows the server's state), and never giving up:
  // 0.5 s, 1 s, 2 s … at most 8 s between attempts, from 0.5 s again once connected.
  lazy: false,
  retryAttempts: Infinity,
  retryWait: async (retries) => {
    const delayMs = Math.min(500 * 2 ** retries, 8000);
    showConnection('disconnected', `${connection.lastClose}; retrying in ${(delayMs / 1000).toFixed(1)} s`);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
  },
  // A server that stops answering pings is treated as gone (graphql-ws's pong-timeout recipe).
  keepAlive: KEEP_ALIVE_MS,
  onNonLazyError: (error) => showConnection('disconnected', `${errorText(error)}; reload the page`),
  on: {
    connecting: () => showConnection('connecting'),
    connected: (socket) => {
      connection.socket = /** @type {WebSocket} */ (socket);
      const reconnected = connection.everConnected;
      if (reconnected) connection.reconnects += 1;
      connection.everConnected = true;
      showConnection('live');
      if (reconnected) for (const listener of reconnectListeners) listener();
    },
    closed: (event) => {
      connection.socket = null;
      clearTimeout(connection.pongTimer);
      const code = /** @type {{ code?: number } | undefined} */ (event)?.code;
      connection.lastClose = code === 4403 ? 'forbidden: open the page with ?token=…' : `code ${code}`;
      showConnection('disconnected', connection.lastClose);
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
 * @returns {() => void} the unsubscribe function
 */
export function subscribe(operationName, variables, { next, error }) {
  return client.subscribe(
    { query: /** @type {string} */ (OPS[operationName]), operationName, variables },
    {
      next: (result) => next(/** @type {SubscriptionResult<T>} */ (result)),
      error: (reason) => error(new Error(errorText(reason))),
      complete: () => {},
    },
  );
}
