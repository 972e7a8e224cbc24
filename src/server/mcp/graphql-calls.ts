/**
 * The MCP endpoint's only way into the data (docs/MCP.md "One pipeline"): each tool runs a
 * committed operation of `schema/operations/mcp.graphql` as a `Request` to yoga's fetch handler —
 * the handler `/graphql` is served by — with the Authorization, Origin and Host of the incoming
 * `/mcp` request and that Node request as the server context. So the scope the request gate
 * granted the `/mcp` request is the scope the operation runs with (a read token's mutation is
 * answered `ForbiddenError`), and the query limits, error masking and redaction, the
 * persisted-operation rule (`--only-persisted`) and the request log line apply as on `/graphql`.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { parse, print, separateOperations, visit, type ASTNode, type DocumentNode } from 'graphql';

/** The operations of `schema/operations/mcp.graphql` the tools run. */
export type McpOperationName =
  | 'McpListRuns'
  | 'McpInspectRun'
  | 'McpViewerDeltas'
  | 'McpRunChange'
  | 'McpViewChanges'
  | 'McpRun'
  | 'McpRestartRun'
  | 'McpCancelRun'
  | 'McpPauseRun'
  | 'McpResumeRun';

/** How one operation is sent: its text, and its persisted id when the server's manifest holds it. */
export interface McpOperation {
  /** The operation and the fragments it uses, printed. */
  query: string;
  /** `sha256:<hex>` of the server's `--persisted-operations` manifest entry for this operation, if any. */
  documentId?: string;
}

/** One GraphQL result as JSON (`data` and the already masked `errors`). */
export interface GraphQLResultJson {
  data?: Record<string, unknown> | null;
  errors?: Array<{ message: string; path?: ReadonlyArray<string | number>; extensions?: Record<string, unknown> }>;
}

/**
 * A document printed with its definitions, every selection set's selections, every field's
 * arguments and every operation's variables sorted: two documents holding the same operation and
 * fragments compare equal whatever their order or formatting (codegen's manifest prints them sorted).
 */
function normalised(document: DocumentNode): string {
  const byText = <T extends ASTNode>(nodes: readonly T[] | undefined): T[] => [...(nodes ?? [])].sort((a, b) => compare(print(a), print(b)));
  const sorted = visit(document, {
    SelectionSet: { leave: (node) => ({ ...node, selections: byText(node.selections) }) },
    Field: { leave: (node) => ({ ...node, arguments: byText(node.arguments) }) },
    OperationDefinition: { leave: (node) => ({ ...node, variableDefinitions: byText(node.variableDefinitions) }) },
  });
  return sorted.definitions
    .map((definition) => print(definition))
    .sort(compare)
    .join('\n');
}

/** Code-unit order of two strings. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Reads the tools' operations: each named operation of `file` with exactly the fragments it uses
 * (graphql-js `separateOperations`). When the server serves a persisted-operations manifest, an
 * operation whose manifest entry holds the same definitions is sent by that entry's id instead,
 * so `--only-persisted` runs the tools when their operations were shipped in the manifest (the
 * one `npm run codegen` writes holds them) and refuses them otherwise, as it refuses any client.
 *
 * @param file `schema/operations/mcp.graphql` (or its copy in a build)
 * @param manifestPath the server's `--persisted-operations` file, or null
 * @returns operation name → how to send it
 * @throws Error when the file cannot be read or lacks one of {@link McpOperationName}; the
 *   manifest has been checked by the server's start before this runs
 */
export function loadMcpOperations(file: string, manifestPath: string | null): Map<McpOperationName, McpOperation> {
  const separated = separateOperations(parse(readFileSync(file, 'utf8')));
  const persisted = new Map<string, string>();
  if (manifestPath !== null) {
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, string>;
    for (const [id, text] of Object.entries(manifest)) persisted.set(normalised(parse(text)), id);
  }
  const operations = new Map<McpOperationName, McpOperation>();
  for (const [name, document] of Object.entries(separated)) {
    const documentId = persisted.get(normalised(document));
    operations.set(name as McpOperationName, { query: print(document), ...(documentId === undefined ? {} : { documentId }) });
  }
  const names: McpOperationName[] = [
    'McpListRuns',
    'McpInspectRun',
    'McpViewerDeltas',
    'McpRunChange',
    'McpViewChanges',
    'McpRun',
    'McpRestartRun',
    'McpCancelRun',
    'McpPauseRun',
    'McpResumeRun',
  ];
  const missing = names.filter((name) => !operations.has(name));
  if (missing.length > 0) throw new Error(`${file} lacks the MCP operations ${missing.join(', ')}`);
  return operations;
}

/** What the caller needs of the server's yoga instance: its fetch handler. */
export interface YogaFetch {
  fetch(request: Request, serverContext: { req: IncomingMessage }): Promise<Response> | Response;
}

/** Runs the tools' operations for one `/mcp` request. */
export interface GraphQLCaller {
  /**
   * Runs a query or mutation.
   *
   * @returns its result; a response that is not GraphQL JSON (never expected) as one error naming the HTTP status
   */
  run(name: McpOperationName, variables: Record<string, unknown>): Promise<GraphQLResultJson>;
  /**
   * Runs a subscription over yoga's Server-Sent Events and returns its first event, then stops it.
   *
   * @param signal stops the wait (timeout, client gone, server closing)
   * @returns the first result; `'aborted'` when `signal` fired first; `'ended'` when the stream
   *   completed without an event
   */
  first(name: McpOperationName, variables: Record<string, unknown>, signal: AbortSignal): Promise<GraphQLResultJson | 'aborted' | 'ended'>;
}

/** The headers of the incoming request an operation carries: the credential and what the origin policy reads. */
const FORWARDED_HEADERS = ['authorization', 'origin', 'host'] as const;

/**
 * The caller of one `/mcp` request.
 *
 * @param yoga the server's yoga instance (its `fetch` handler)
 * @param request the incoming `/mcp` request, already through the request gate (host, origin,
 *   body size, token) and holding its granted scope
 */
export function graphqlCaller(yoga: YogaFetch, operations: ReadonlyMap<McpOperationName, McpOperation>, request: IncomingMessage): GraphQLCaller {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const name of FORWARDED_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  let url: string;
  try {
    url = new URL('/graphql', `http://${headers.host ?? 'localhost'}`).href;
  } catch {
    url = 'http://localhost/graphql';
  }
  const serverContext = { req: request };

  function body(name: McpOperationName, variables: Record<string, unknown>): string {
    const operation = operations.get(name) as McpOperation;
    const document = operation.documentId === undefined ? { query: operation.query } : { documentId: operation.documentId };
    return JSON.stringify({ ...document, operationName: name, variables });
  }

  return {
    async run(name, variables) {
      const response = await yoga.fetch(
        new Request(url, { method: 'POST', headers: { ...headers, accept: 'application/graphql-response+json' }, body: body(name, variables) }),
        serverContext,
      );
      return resultOf(response.status, await response.text());
    },
    async first(name, variables, signal) {
      if (signal.aborted) return 'aborted';
      const controller = new AbortController();
      const abort = (): void => controller.abort();
      signal.addEventListener('abort', abort, { once: true });
      try {
        const response = await yoga.fetch(
          new Request(url, { method: 'POST', headers: { ...headers, accept: 'text/event-stream' }, body: body(name, variables), signal: controller.signal }),
          serverContext,
        );
        if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream') || response.body === null) {
          return resultOf(response.status, await response.text());
        }
        return await firstEvent(response.body, signal);
      } finally {
        signal.removeEventListener('abort', abort);
        controller.abort();
      }
    },
  };
}

/** A GraphQL JSON body, or one error naming the status when the body is not one. */
function resultOf(status: number, text: string): GraphQLResultJson {
  try {
    const json = JSON.parse(text) as unknown;
    if (typeof json === 'object' && json !== null && ('data' in json || 'errors' in json)) return json as GraphQLResultJson;
  } catch {
    // not JSON: answered below
  }
  return { errors: [{ message: `The GraphQL handler answered HTTP ${status} without a GraphQL result` }] };
}

/**
 * The data of the first `next` event of a Server-Sent Events stream (yoga's distinct-connection
 * SSE: `event: next` / `event: complete`, keep-alive comments between); the stream is cancelled
 * once it is read, which stops the subscription.
 */
async function firstEvent(stream: ReadableStream<Uint8Array>, signal: AbortSignal): Promise<GraphQLResultJson | 'aborted' | 'ended'> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  const aborted = new Promise<'aborted'>((resolve) => {
    if (signal.aborted) resolve('aborted');
    signal.addEventListener('abort', () => resolve('aborted'), { once: true });
  });
  let buffer = '';
  try {
    for (;;) {
      const chunk = await Promise.race([reader.read(), aborted]);
      if (chunk === 'aborted') return 'aborted';
      if (chunk.done) return 'ended';
      buffer += decoder.decode(chunk.value, { stream: true }).replaceAll('\r\n', '\n');
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let event = 'message';
        const data: string[] = [];
        for (const line of frame.split('\n')) {
          if (line.startsWith('event:')) event = line.slice('event:'.length).trim();
          else if (line.startsWith('data:')) data.push(line.slice('data:'.length).replace(/^ /, ''));
        }
        if (event === 'complete') return 'ended';
        if (data.length > 0 && (event === 'next' || event === 'message')) return resultOf(200, data.join('\n'));
      }
    }
  } finally {
    void reader.cancel().catch(() => undefined);
  }
}
