/**
 * Static files of the live lineage page (`src/server/public/`): `GET /` answers
 * `index.html`, `GET /app/<file>` the page's scripts and styles,
 * `GET /app/operations/<file>.graphql` the client operation documents of `schema/operations/`,
 * `GET /app/operations/<file>.json` the same split per operation, each with exactly the
 * fragments it uses (./page-operations.ts; the page loads `live-page.json`), and
 * `GET /app/vendor/graphql-ws/<file>` the browser build of the `graphql-ws` client, read from
 * its installed package (no CDN), and `GET /app/vendor/client/client.js` the typed client bundled
 * for the page (./client-bundle.ts). Nothing else is served from
 * disk; names are checked against a strict pattern so no path can leave its directory.
 * The page itself needs no token; its GraphQL calls do when the server has one.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLIENT_BUNDLE_PATH, clientBundle } from './client-bundle.js';
import { separatedOperationsJson } from './page-operations.js';

/** The directory holding the page: `public/` beside this folder (src/server/public, dist/server/public). */
export const PUBLIC_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'public');

/**
 * URL prefix of the client operation documents: `<name>.graphql` as written, `<name>.json` as
 * `{ [operationName]: text }`; the page loads `${OPERATIONS_PREFIX}live-page.json`.
 */
export const OPERATIONS_PREFIX = '/app/operations/';

/**
 * The repository's `schema/operations/`, looked for in this module's folder and the folders
 * above it (src/server/page/ → ../../../schema/operations; a bundle of the server, such as the
 * fault tests' under node_modules/.cache/, finds it too).
 */
function repositoryOperationsDir(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'schema', 'operations');
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The directory of the operation documents: `public/operations/` beside the compiled server
 * (`npm run build` copies `schema/operations/` there), else the repository's
 * `schema/operations/` ({@link repositoryOperationsDir}).
 */
export const OPERATIONS_DIR = [join(PUBLIC_DIR, 'operations')].find((dir) => existsSync(dir)) ?? repositoryOperationsDir() ?? join(PUBLIC_DIR, 'operations');

/** URL prefix of the `graphql-ws` browser client; the page imports `${GRAPHQL_WS_PREFIX}client.js`. */
export const GRAPHQL_WS_PREFIX = '/app/vendor/graphql-ws/';

/**
 * The file of a package's browser build of `subpath`, as its package.json declares it
 * (`exports[subpath].browser`), from the package this server resolves (node_modules).
 *
 * @throws Error when the package is not installed or declares no browser build
 */
function browserEntry(packageName: string, subpath: string): string {
  const manifestPath = createRequire(import.meta.url).resolve(`${packageName}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { exports?: Record<string, { browser?: unknown } | undefined> };
  const entry = manifest.exports?.[subpath]?.browser;
  if (typeof entry !== 'string') throw new Error(`${packageName} declares no browser build of ${subpath}`);
  return join(dirname(manifestPath), entry);
}

/** `dist/client.js` of graphql-ws: an ES module importing only its sibling chunks. */
const GRAPHQL_WS_CLIENT = browserEntry('graphql-ws', './client');

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.graphql': 'application/graphql; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
};

/** Same-origin only: the page talks to this server's /graphql over fetch and WebSocket. */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*\.[a-z]{2,4}$/;
const OPERATIONS_FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*\.(graphql|json)$/;

/**
 * The file answering a page path: undefined when the path is not a page path, '' for a page
 * path naming no servable file (404).
 */
function fileFor(path: string): string | undefined {
  if (path === '/' || path === '/index.html') return join(PUBLIC_DIR, 'index.html');
  if (path.startsWith(GRAPHQL_WS_PREFIX)) {
    // The client module and the chunks it imports by relative name, all beside it.
    const name = path.slice(GRAPHQL_WS_PREFIX.length);
    if (name === 'client.js') return GRAPHQL_WS_CLIENT;
    return FILE_NAME.test(name) && extname(name) === '.js' ? join(dirname(GRAPHQL_WS_CLIENT), name) : '';
  }
  if (path.startsWith(OPERATIONS_PREFIX)) {
    const name = path.slice(OPERATIONS_PREFIX.length);
    return OPERATIONS_FILE_NAME.test(name) ? join(OPERATIONS_DIR, name) : '';
  }
  if (!path.startsWith('/app/')) return undefined;
  const name = path.slice('/app/'.length);
  return FILE_NAME.test(name) ? join(PUBLIC_DIR, name) : '';
}

/**
 * The body of a servable file: for `<name>.json` in {@link OPERATIONS_DIR}, the operations of
 * `<name>.graphql` as JSON (./page-operations.ts); else the file's bytes.
 *
 * @returns undefined when the file (or its `.graphql` source) cannot be read
 * @throws GraphQLError when an operation document is not valid GraphQL
 */
function readBody(file: string): Buffer | undefined {
  if (dirname(file) === OPERATIONS_DIR && extname(file) === '.json') {
    const json = separatedOperationsJson(file.slice(0, -'.json'.length) + '.graphql');
    return json === undefined ? undefined : Buffer.from(json);
  }
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Answers `GET`/`HEAD` of `/`, `/index.html` and `/app/*` from {@link PUBLIC_DIR}, of
 * `/app/operations/*.graphql` and `*.json` from {@link OPERATIONS_DIR}, and of
 * `/app/vendor/graphql-ws/*` from the installed graphql-ws package, and of
 * `/app/vendor/client/client.js` (./client-bundle.ts).
 *
 * @returns true when the request was answered (200, 404, or 500 for an operation document
 *   that does not parse), false when it is not a page path
 */
export function serveStaticFile(request: IncomingMessage, response: ServerResponse): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const path = (request.url ?? '/').split('?')[0] ?? '/';
  if (path === CLIENT_BUNDLE_PATH) {
    clientBundle(PUBLIC_DIR).then(
      (body) => send(request, response, CONTENT_TYPES['.js'] as string, body),
      (error: unknown) => {
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        response.end(`Cannot bundle the page's client: ${(error as Error).message}\n`);
      },
    );
    return true;
  }
  const file = fileFor(path);
  if (file === undefined) return false;
  const type = CONTENT_TYPES[extname(file)];
  let body: Buffer | undefined;
  if (file !== '' && type !== undefined) {
    try {
      body = readBody(file);
    } catch (error) {
      response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      response.end(`Cannot split ${path}: ${(error as Error).message}\n`);
      return true;
    }
  }
  if (body === undefined) {
    response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    response.end('Not found\n');
    return true;
  }
  send(request, response, type as string, body);
  return true;
}

/** A 200 with the page's headers (no-cache, nosniff, no referrer, the page's CSP). */
function send(request: IncomingMessage, response: ServerResponse, type: string, body: Buffer): void {
  response.writeHead(200, {
    'content-type': type,
    'content-length': body.length,
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'content-security-policy': CONTENT_SECURITY_POLICY,
  });
  response.end(request.method === 'HEAD' ? undefined : body);
}
