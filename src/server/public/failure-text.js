// @ts-check
/**
 * What a failure says on the live page, as text a person can read: the status line's words for
 * a closed connection ({@link closeText}) and the banner's for anything a request or a
 * subscription fails with ({@link failureText}). No DOM. The retry policy itself is the typed
 * client's (/app/vendor/client/client.js, docs/CLIENTS.md "The live lineage page").
 */

/** The close code of a refused token (the server's graphql-ws `onConnect`); a retry cannot heal it. */
export const FORBIDDEN_CLOSE_CODE = 4403;

/**
 * @typedef {{ code: number, reason?: string }} CloseLike a WebSocket `CloseEvent` (or its shape)
 */

/**
 * Whether `value` looks like a WebSocket close event.
 *
 * @param {unknown} value
 * @returns {value is CloseLike}
 */
export function isCloseLike(value) {
  return typeof value === 'object' && value !== null && typeof (/** @type {{ code?: unknown }} */ (value).code) === 'number' && 'reason' in value;
}

/**
 * What a closed connection says, for the status line.
 *
 * @param {CloseLike} event
 * @returns {string} e.g. `connection lost (code 1006)`, `server going away (code 1001)`,
 *   `forbidden: open the page with ?token=…`
 */
export function closeText(event) {
  if (event.code === FORBIDDEN_CLOSE_CODE) return 'forbidden: open the page with ?token=…';
  const reason = event.reason ? `: ${event.reason}` : '';
  if (event.code === 1001) return `server going away (code 1001${reason})`;
  if (event.code === 1006) return 'connection lost (code 1006)';
  return `connection closed (code ${event.code}${reason})`;
}

/**
 * What went wrong, as text a person can read, from anything a request or a subscription
 * fails with: a list of GraphQL errors (their messages), a close event (its code and reason),
 * an Error (its message; a failed `fetch` says `connection failed`), a bare `Event` (a socket
 * error: `connection failed`). Never `[object …]`.
 *
 * @param {unknown} error
 * @returns {string}
 */
export function failureText(error) {
  if (Array.isArray(error)) {
    const messages = error.map((item) => (typeof item?.message === 'string' ? item.message : failureText(item)));
    return messages.length === 0 ? 'unknown error' : messages.join('; ');
  }
  if (isCloseLike(error)) return closeText(error);
  if (error instanceof TypeError && /fetch|network|load failed/i.test(error.message)) return 'connection failed';
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'string') return error || 'unknown error';
  if (typeof error === 'object' && error !== null) {
    const { message, type } = /** @type {{ message?: unknown, type?: unknown }} */ (error);
    if (typeof message === 'string' && message !== '') return message;
    if (type === 'error') return 'connection failed';
  }
  return error === undefined || error === null ? 'unknown error' : 'connection failed';
}
