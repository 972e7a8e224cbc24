import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveGraphiQLPage } from './graphiql-page.js';
import { serveStaticFile } from './static-files.js';

/** The GraphiQL page's title. */
export const GRAPHIQL_TITLE = 'pi-workflows GraphQL';

/** A `GET` asking for HTML: the GraphiQL page, the one GraphQL-path request open without a token. */
export function isGraphiQLPage(request: IncomingMessage): boolean {
  return request.method === 'GET' && (request.headers.accept ?? '').includes('text/html');
}

/**
 * Answers the page's requests: the live lineage page (`GET /`, `/app/*`, static-files.ts) and
 * the GraphiQL page on `/graphql` (graphiql-page.ts, compressed and cacheable).
 *
 * @param path the request's path (no query string)
 * @returns true when it answered the request
 */
export function servePage(request: IncomingMessage, response: ServerResponse, path: string): boolean {
  if (serveStaticFile(request, response)) return true;
  if (isGraphiQLPage(request) && path === '/graphql') {
    void serveGraphiQLPage(request, response, GRAPHIQL_TITLE, '/graphql');
    return true;
  }
  return false;
}
