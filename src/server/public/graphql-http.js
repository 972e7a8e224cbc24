// @ts-check
/**
 * GraphQL over HTTP for the live page: one POST per query of schema/operations/live-page.graphql,
 * with the token when there is one. A read that fails for want of a server (no answer, 502,
 * 503, 504) is tried again with the page's backoff, or as soon as the WebSocket is back
 * (/app/reconnect.js), so the page's reads survive a server restart.
 */
import { nextConnected, noteHttpRetry } from '/app/connection.js';
import { HttpFailure, retrying } from '/app/reconnect.js';
import { HTTP_URL, OPS, TOKEN } from '/app/session.js';

/**
 * Runs the page operation `operationName` once.
 *
 * @template [T=any]
 * @param {string} operationName a query of live-page.graphql
 * @param {Record<string, unknown>} variables
 * @returns {Promise<T>} the result's `data`
 * @throws HttpFailure `connection failed` (status 0) when no answer came; HttpFailure with the
 *   GraphQL errors' messages or `HTTP <status>` for another status than 200; Error with the
 *   GraphQL errors' messages (joined by `; `) for a 200 with errors
 */
async function request(operationName, variables) {
  /** @type {Record<string, string>} */
  const headers = { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' };
  if (TOKEN) headers.authorization = `Bearer ${TOKEN}`;
  const body = JSON.stringify({ query: OPS[operationName], operationName, variables });
  const response = await fetch(HTTP_URL, { method: 'POST', headers, body }).catch(() => {
    throw new HttpFailure('connection failed', 0);
  });
  /** @type {{ data?: T, errors?: Array<{ message: string }> }} */
  const result = await response.json().catch(() => ({}));
  const messages = result.errors?.map((error) => error.message).join('; ');
  if (!response.ok) throw new HttpFailure(messages || `HTTP ${response.status}`, response.status);
  if (result.errors) throw new Error(messages || 'unknown error');
  return /** @type {T} */ (result.data);
}

/**
 * Runs the page operation `operationName`, trying again while the server is unreachable.
 *
 * @template [T=any]
 * @param {string} operationName a query of live-page.graphql
 * @param {Record<string, unknown>} [variables]
 * @param {{ isCurrent?: () => boolean }} [options] `isCurrent`: false once the answer is no
 *   longer wanted (another list generation, another selected run): the retries stop
 * @returns {Promise<T>} the result's `data`
 * @throws Error with the GraphQL errors' messages (see {@link request}); Superseded
 *   (/app/reconnect.js) once `isCurrent()` is false
 */
export function gql(operationName, variables = {}, { isCurrent } = {}) {
  return retrying(() => request(operationName, variables), {
    ...(isCurrent === undefined ? {} : { isCurrent }),
    wake: nextConnected,
    onRetry: noteHttpRetry,
  });
}
