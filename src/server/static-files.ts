/**
 * Static files of the live lineage page (`src/server/public/`): `GET /` answers
 * `index.html`, `GET /app/<file>` the page's scripts and styles. Nothing else is served from
 * disk; names are checked against a strict pattern so no path can leave the directory.
 * The page itself needs no token; its GraphQL calls do when the server has one.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The directory holding the page. */
export const PUBLIC_DIR = join(dirname(fileURLToPath(import.meta.url)), 'public');

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/** Same-origin only: the page talks to this server's /graphql over fetch and WebSocket. */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function fileFor(path: string): string | undefined {
  if (path === '/' || path === '/index.html') return 'index.html';
  if (!path.startsWith('/app/')) return undefined;
  const name = path.slice('/app/'.length);
  return /^[A-Za-z0-9][A-Za-z0-9_-]*\.[a-z]{2,4}$/.test(name) ? name : '';
}

/**
 * Answers `GET`/`HEAD` of `/`, `/index.html` and `/app/*` from {@link PUBLIC_DIR}.
 *
 * @returns true when the request was answered (200 or 404), false when it is not a page path
 */
export function serveStaticFile(request: IncomingMessage, response: ServerResponse): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const path = (request.url ?? '/').split('?')[0] ?? '/';
  const name = fileFor(path);
  if (name === undefined) return false;
  const type = CONTENT_TYPES[extname(name)];
  let body: Buffer | undefined;
  if (name !== '' && type !== undefined) {
    try {
      body = readFileSync(join(PUBLIC_DIR, name));
    } catch {
      body = undefined;
    }
  }
  if (body === undefined) {
    response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    response.end('Not found\n');
    return true;
  }
  response.writeHead(200, {
    'content-type': type as string,
    'content-length': body.length,
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'content-security-policy': CONTENT_SECURITY_POLICY,
  });
  response.end(request.method === 'HEAD' ? undefined : body);
  return true;
}
