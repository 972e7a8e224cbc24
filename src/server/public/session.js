// @ts-check
/**
 * What every request of the live page carries: the server's endpoints (same origin), the
 * token and the page's GraphQL operations.
 *
 * Token: when the server runs with --token, open the page as /?token=<token>; the token is
 * kept in sessionStorage and removed from the address bar.
 */
import { showError } from '/app/dom.js';
import { loadOperations } from '/app/operations.js';
import { failureText } from '/app/failure-text.js';

const params = new URLSearchParams(location.search);
if (params.has('token')) {
  sessionStorage.setItem('pi-workflows-token', params.get('token') ?? '');
  params.delete('token');
  history.replaceState(null, '', `${location.pathname}${params.size > 0 ? `?${params}` : ''}${location.hash}`);
}

/** The bearer token, or null when the page was opened without one. */
export const TOKEN = sessionStorage.getItem('pi-workflows-token') || null;
/** GraphQL over HTTP. */
export const HTTP_URL = `${location.origin}/graphql`;
/** The page's operations, split per operation by the server (/app/operations.js). */
export const OPERATIONS_URL = '/app/operations/live-page.json';

/** Operation name → its text with the fragments it uses; empty when they could not be loaded (the banner says so). */
export const OPS = await loadOperations(async (url) => {
  const response = await fetch(url, { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.text();
}, OPERATIONS_URL).catch((error) => {
  showError(`Could not load the page's operations: ${failureText(error)}`);
  return /** @type {Record<string, string>} */ ({});
});
