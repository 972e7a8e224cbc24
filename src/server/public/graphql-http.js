// @ts-check
/**
 * GraphQL over HTTP for the live page: the queries of schema/operations/live-page.graphql through
 * the page's typed client (/app/connection.js), with the token when there is one. A read that
 * fails for want of a server (no answer, 502, 503, 504) is tried again with the client's
 * backoff, or as soon as the WebSocket is back, so the page's reads survive a server restart.
 */
import { client, noteHttpRetry } from '/app/connection.js';
import { OPS } from '/app/session.js';

/**
 * Runs the page operation `operationName`, trying again while the server is unreachable.
 *
 * @template [T=any]
 * @param {string} operationName a query of live-page.graphql
 * @param {Record<string, unknown>} [variables]
 * @param {{ isCurrent?: () => boolean }} [options] `isCurrent`: false once the answer is no
 *   longer wanted (another list generation, another selected run): the retries stop
 * @returns {Promise<T>} the result's `data`
 * @throws WorkflowClientError with the GraphQL errors' messages (joined by `; `) or the HTTP
 *   failure; one of kind `aborted` ({@link isSuperseded}) once `isCurrent()` is false
 */
export function gql(operationName, variables = {}, { isCurrent } = {}) {
  return client.request(/** @type {string} */ (OPS[operationName]), variables, {
    retry: { ...(isCurrent === undefined ? {} : { isCurrent }), onRetry: noteHttpRetry },
  });
}

/**
 * Whether a read failed because its answer is no longer wanted (the page moved on while it
 * waited for the server): nothing to show.
 *
 * @param {unknown} error
 * @returns {boolean}
 */
export function isSuperseded(error) {
  return typeof error === 'object' && error !== null && /** @type {{ kind?: unknown }} */ (error).kind === 'aborted';
}
