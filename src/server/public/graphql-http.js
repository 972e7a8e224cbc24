// @ts-check
/**
 * GraphQL over HTTP for the live page: one POST per query of schema/operations/live-page.graphql,
 * with the token when there is one.
 */
import { HTTP_URL, OPS, TOKEN } from '/app/session.js';

/**
 * Runs the page operation `operationName`.
 *
 * @template [T=any]
 * @param {string} operationName a query of live-page.graphql
 * @param {Record<string, unknown>} [variables]
 * @returns {Promise<T>} the result's `data`
 * @throws Error with the GraphQL errors' messages (joined by `; `), or `HTTP <status>`
 */
export async function gql(operationName, variables = {}) {
  /** @type {Record<string, string>} */
  const headers = { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' };
  if (TOKEN) headers.authorization = `Bearer ${TOKEN}`;
  const response = await fetch(HTTP_URL, { method: 'POST', headers, body: JSON.stringify({ query: OPS[operationName], operationName, variables }) });
  /** @type {{ data?: T, errors?: Array<{ message: string }> }} */
  const body = await response.json().catch(() => ({}));
  if (!response.ok || body.errors) {
    const message = body.errors?.map((error) => error.message).join('; ') || `HTTP ${response.status}`;
    throw new Error(message);
  }
  return /** @type {T} */ (body.data);
}
