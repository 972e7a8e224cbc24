/**
 * The GraphiQL page (`GET /graphql` asking for HTML), served compressed and cacheable.
 * yoga's page (`@graphql-yoga/render-graphiql`) inlines GraphiQL and its editor: about
 * 9 MB of HTML, which yoga sends uncompressed and without cache headers on every visit. Here
 * the same page is rendered once, compressed once (brotli and gzip, off the event loop, on the
 * first visit) and answered with `ETag` and `Cache-Control`, so a revisit costs a 304.
 *
 * The page opens with {@link GRAPHIQL_DEFAULT_QUERY}, which runs on any database (the demo's
 * included) and shows what the API is about.
 *
 * The renderer (its 9 MB bundle) is imported on the first page render of the process
 * (ops/lazy-import.ts), not with this module: a server whose GraphiQL nobody opens never parses it.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { GraphiQLOptions } from 'graphql-yoga';
import { lazyImport } from '../ops/lazy-import.js';

/** The query GraphiQL opens with: the newest runs with their chain, and how to go on. */
export const GRAPHIQL_DEFAULT_QUERY = `# pi-workflows GraphQL: durable workflow runs, their lineage and live views.
# Press the run button (Ctrl-Enter). The Docs tab lists every type and field.
#
# Next: workflowRun(runId: "…") for one run and its lineage(first: 20), node(id: "…")
# for a global id, and the subscriptions workflowRunUpdated / workflowRunDeltas (live).
query RecentRuns {
  workflowRuns(first: 10) {
    totalCount
    edges {
      node {
        id
        runId
        workflowName
        status
        queueStatus
        lineageKind
        restartNumber
        createdAt
        rootRun {
          id
          runId
        }
        latestRun {
          id
          runId
          status
        }
      }
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
`;

/**
 * How GraphiQL sends subscriptions: Server-Sent Events on `/graphql`, so the Headers tab (a
 * `--token` or `--read-token` as `Authorization`) goes with them as with queries. Over graphql-ws
 * GraphiQL sends an empty `connection_init` payload whatever the Headers tab says, and a server
 * with a token closes that socket with 4403 (docs/OPERATIONS.md "Options", `--token`).
 */
export const GRAPHIQL_SUBSCRIPTIONS_PROTOCOL = 'SSE';

/** How long browsers may reuse the page without asking again, in seconds. */
export const GRAPHIQL_MAX_AGE_S = 3600;

/** `@graphql-yoga/render-graphiql`, imported on the first render of the process. */
const loadRenderer = lazyImport('the GraphiQL page (@graphql-yoga/render-graphiql)', () => import('@graphql-yoga/render-graphiql'));

/**
 * yoga's `renderGraphiQL` option: the inlined GraphiQL of `@graphql-yoga/render-graphiql`,
 * imported on first use (yoga awaits the promise).
 *
 * @throws Error naming the package when it cannot be imported
 */
export async function renderGraphiQL(options: GraphiQLOptions): Promise<string> {
  return (await loadRenderer()).renderGraphiQL(options);
}

interface RenderedPage {
  etag: string;
  identity: Buffer;
  /** Compressed bodies, made on the first visit. */
  encoded: Promise<{ br: Buffer; gzip: Buffer }>;
}

/**
 * The page per title/endpoint, shared by every server of the process (tests start many); a
 * promise, so that concurrent first visits share one render.
 */
const pages = new Map<string, Promise<RenderedPage>>();

function pageFor(title: string, endpoint: string): Promise<RenderedPage> {
  const key = `${title}\u0000${endpoint}`;
  let page = pages.get(key);
  if (page === undefined) {
    page = renderGraphiQL({ title, endpoint, subscriptionsProtocol: GRAPHIQL_SUBSCRIPTIONS_PROTOCOL, defaultQuery: GRAPHIQL_DEFAULT_QUERY }).then((html) => {
      const identity = Buffer.from(html, 'utf8');
      const encoded = Promise.all([
        promisify(brotliCompress)(identity, {
          params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: identity.length },
        }),
        promisify(gzip)(identity),
      ]).then(([br, gzipped]) => ({ br, gzip: gzipped }));
      encoded.catch(() => pages.delete(key)); // tried again on the next visit
      return { etag: `"${createHash('sha256').update(identity).digest('base64url').slice(0, 27)}"`, identity, encoded };
    });
    page.catch(() => pages.delete(key)); // the renderer did not load: tried again on the next visit
    pages.set(key, page);
  }
  return page;
}

/** The encoding to answer with: brotli, else gzip, else none (q=0 refuses an encoding). */
export function pickEncoding(acceptEncoding: string | undefined): 'br' | 'gzip' | 'identity' {
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (name === undefined || name === '') continue;
    const q = params.map((param) => /^\s*q=([0-9.]+)\s*$/.exec(param)?.[1]).find((value) => value !== undefined);
    accepted.set(name, q === undefined ? 1 : Number(q));
  }
  const allowed = (name: string): boolean => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0;
  if (allowed('br')) return 'br';
  if (allowed('gzip')) return 'gzip';
  return 'identity';
}

/**
 * Answers a GraphiQL page request: 304 when `If-None-Match` names the current page, else 200
 * with the page in the best encoding the client accepts. Headers: `ETag`, `Cache-Control:
 * public, max-age=3600`, `Vary: Accept-Encoding`.
 *
 * @param title the page title
 * @param endpoint the GraphQL path the page talks to (HTTP and graphql-ws)
 */
export async function serveGraphiQLPage(request: IncomingMessage, response: ServerResponse, title: string, endpoint: string): Promise<void> {
  let page: RenderedPage;
  try {
    page = await pageFor(title, endpoint);
  } catch (error) {
    // Only when the renderer's package is missing or broken: the operator reads why on stderr,
    // the browser a 500 naming the package (no paths of the install).
    process.emitWarning(error instanceof Error ? error : String(error), 'GraphiQLPageWarning');
    if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
    response.end("The GraphiQL page could not be rendered: @graphql-yoga/render-graphiql did not load (see the server's stderr).\n");
    return;
  }
  const headers = {
    etag: page.etag,
    'cache-control': `public, max-age=${GRAPHIQL_MAX_AGE_S}`,
    vary: 'Accept-Encoding',
  };
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined && ifNoneMatch.split(',').some((tag) => tag.trim() === page.etag || tag.trim() === '*')) {
    response.writeHead(304, headers);
    response.end();
    return;
  }
  const encoding = pickEncoding(request.headers['accept-encoding']);
  let body = page.identity;
  if (encoding !== 'identity') {
    try {
      body = (await page.encoded)[encoding];
    } catch {
      body = page.identity;
    }
  }
  response.writeHead(200, {
    ...headers,
    'content-type': 'text/html; charset=utf-8',
    'content-length': String(body.length),
    ...(body === page.identity ? {} : { 'content-encoding': encoding }),
  });
  response.end(body);
}
