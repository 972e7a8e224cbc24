// @ts-check
/**
 * The page's GraphQL operations: the server splits `schema/operations/live-page.graphql`
 * (validated and linted with the other client operations) with graphql-js's
 * `separateOperations` and serves `/app/operations/live-page.json`, operation name → text of
 * that operation with exactly the fragments it uses (src/server/page/page-operations.ts). No GraphQL
 * parser in the browser, no build step.
 */

/**
 * Loads the page's operations as sendable text.
 *
 * @param {(url: string) => Promise<string>} fetchText reads a URL's body as text
 * @param {string} url the operations' URL (e.g. `/app/operations/live-page.json`)
 * @returns {Promise<Record<string, string>>} operation name → text with its fragments
 * @throws Error `<url>: not an object of operation texts` when the body has another shape
 */
export async function loadOperations(fetchText, url) {
  const operations = JSON.parse(await fetchText(url));
  const valid =
    typeof operations === 'object' && operations !== null && !Array.isArray(operations) && Object.values(operations).every((text) => typeof text === 'string');
  if (!valid) throw new Error(`${url}: not an object of operation texts`);
  return operations;
}
