// @ts-check
/**
 * How the live page keeps its place across a lost connection or a server restart: the retry
 * policy of its graphql-ws client, the same backoff for its HTTP reads, and what a failure
 * says. No DOM and no graphql-ws import: plain functions over what the caller passes in
 * (docs/PROTOCOL.md "Reconnect recipe"; docs/CLIENTS.md "The live lineage page").
 *
 * - Every lost or refused connection is retried, without end, after 0.5 s, 1 s, 2 s … at most
 *   8 s (plus up to 250 ms of jitter, so pages reconnecting to a restarted server spread out);
 *   back to 0.5 s once connected. A refused connection reaches graphql-ws as an error `Event`,
 *   which its default `shouldRetry` (close events only) gives up on: {@link shouldRetry}
 *   retries it. Only a close that cannot heal without a reload ends the retries: 4403 (the
 *   token was refused) — besides the close codes graphql-ws itself treats as fatal.
 * - Subscriptions resume by themselves: graphql-ws sends every active subscription again with
 *   its payload as it is then, and the page keeps the cursors in those payloads.
 * - An HTTP read that fails for want of a server (no answer, 502, 503, 504) is tried again with
 *   the same backoff, or at once when the WebSocket reconnects ({@link retrying}).
 */

/** The first retry's delay, ms. */
export const RETRY_BASE_MS = 500;
/** The longest delay between two retries, ms. */
export const RETRY_MAX_MS = 8000;
/** Random delay added to each retry, at most this many ms. */
export const RETRY_JITTER_MS = 250;

/** The close code of a refused token (the server's graphql-ws `onConnect`); a retry cannot heal it. */
export const FORBIDDEN_CLOSE_CODE = 4403;

/**
 * The delay before retry number `retries` (0 for the first after a loss).
 *
 * @param {number} retries retries since the last successful connect
 * @param {() => number} [random] in [0, 1) (default Math.random)
 * @returns {number} ms: min(500 · 2^retries, 8000) + up to 250 of jitter
 */
export function retryDelayMs(retries, random = Math.random) {
  return Math.min(RETRY_BASE_MS * 2 ** retries, RETRY_MAX_MS) + Math.floor(random() * RETRY_JITTER_MS);
}

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
 * graphql-ws's `shouldRetry`: whether a lost or refused connection is tried again. Everything
 * is, but a close with {@link FORBIDDEN_CLOSE_CODE}. (graphql-ws asks only after its own
 * fatal close codes — bad request, unauthorized, subprotocol … — have ended the retries.)
 *
 * @param {unknown} errorOrClose a close event, or the socket's error `Event`, or an Error
 * @returns {boolean}
 */
export function shouldRetry(errorOrClose) {
  return !(isCloseLike(errorOrClose) && errorOrClose.code === FORBIDDEN_CLOSE_CODE);
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

/** An HTTP answer that is not a GraphQL result; `status` 0 when no answer came. */
export class HttpFailure extends Error {
  /**
   * @param {string} message
   * @param {number} status the HTTP status, 0 for no answer
   */
  constructor(message, status) {
    super(message);
    this.name = 'HttpFailure';
    this.status = status;
  }
}

/**
 * Whether an HTTP read failed for want of a server, so trying again later may succeed: an
 * {@link HttpFailure} with status 0 (no answer), 502, 503 or 504.
 *
 * @param {unknown} error
 * @returns {boolean}
 */
export function isTransient(error) {
  return error instanceof HttpFailure && [0, 502, 503, 504].includes(error.status);
}

/** Thrown by {@link retrying} when the read is no longer wanted (the page moved on while it waited). */
export class Superseded extends Error {
  constructor() {
    super('superseded');
    this.name = 'Superseded';
  }
}

/**
 * Runs `attempt` until it succeeds or fails for good: a transient failure ({@link isTransient})
 * waits {@link retryDelayMs} — or until `wake` resolves (the WebSocket connected again),
 * whichever comes first — and tries again.
 *
 * @template T
 * @param {() => Promise<T>} attempt
 * @param {{ isCurrent?: () => boolean, wake?: () => Promise<unknown>, onRetry?: (error: unknown, delayMs: number) => void,
 *   delayMs?: (retries: number) => number, setTimer?: (callback: () => void, ms: number) => unknown }} [options]
 *   `isCurrent`: false once the result is no longer wanted; `onRetry`: told before each wait
 * @returns {Promise<T>} what `attempt` resolved with
 * @throws the first failure that is not transient; {@link Superseded} when `isCurrent()` turned false
 */
export async function retrying(attempt, { isCurrent = () => true, wake, onRetry, delayMs = retryDelayMs, setTimer = setTimeout } = {}) {
  for (let retries = 0; ; retries += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (!isTransient(error)) throw error;
      if (!isCurrent()) throw new Superseded();
      const delay = delayMs(retries);
      onRetry?.(error, delay);
      await new Promise((resolve) => {
        setTimer(() => resolve(undefined), delay);
        void wake?.().then(resolve);
      });
      if (!isCurrent()) throw new Superseded();
    }
  }
}
