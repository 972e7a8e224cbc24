/**
 * `/mcp`: a Model Context Protocol endpoint (Streamable HTTP, the official
 * `@modelcontextprotocol/sdk`) on the GraphQL server's own port (docs/MCP.md).
 *
 * Stateless: every `POST /mcp` gets its own SDK `Server` and transport, answered as JSON (no
 * session id, no server-held state, nothing to bound or expire); `GET` and `DELETE` (the
 * session stream and session end of stateful servers) answer 405. The request has already
 * passed the server's request gate (app.ts): host and origin policy, the body cap, and the
 * token, whose scope decides which tools are listed (./tools.ts). Every tool runs committed
 * GraphQL operations through yoga with the request's own credential (./graphql-calls.ts), so a
 * read token that calls a write tool is refused by the mutation itself, with its text.
 *
 * The SDK is imported on the first `POST /mcp` of the process (ops/lazy-import.ts), not with this
 * module: a server nobody asks over MCP never loads it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { CallToolResult, ErrorCode, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Scope } from '../http/auth.js';
import { lazyImport } from '../ops/lazy-import.js';
import { graphqlCaller, loadMcpOperations, type McpOperation, type McpOperationName, type YogaFetch } from './graphql-calls.js';
import { TOOLS, toolError, type ToolDefinition } from './tools.js';

/** The path of the endpoint. */
export const MCP_PATH = '/mcp';

/** The name and version the endpoint reports in `initialize`. */
export const MCP_SERVER_INFO = { name: 'pi-workflows-graphql', version: '0.1.0' } as const;

/** What the endpoint tells an agent at `initialize`. */
const INSTRUCTIONS =
  'Workflow runs of a pi-workflows state store. Read tools: list_runs, inspect_run, wait_for_run_change (follow a run: pass the ' +
  'presentationRevision you last saw). Write tools (listed for the full token only): restart_run, cancel_run, pause_run, resume_run. ' +
  "Errors come back as tool errors with the server's code and message; a refused call changes nothing.";

/** The parts of the MCP SDK the endpoint uses, imported on the first `POST /mcp` of the process. */
const loadSdk = lazyImport('the MCP SDK (@modelcontextprotocol/sdk)', async () => {
  const [server, transport, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return {
    Server: server.Server,
    WebStandardStreamableHTTPServerTransport: transport.WebStandardStreamableHTTPServerTransport,
    CallToolRequestSchema: types.CallToolRequestSchema,
    ListToolsRequestSchema: types.ListToolsRequestSchema,
    ErrorCode: types.ErrorCode,
  };
});

/** Settings of {@link createMcpEndpoint}. */
export interface McpEndpointOptions {
  yoga: YogaFetch;
  logger: Logger;
  /** `schema/operations/mcp.graphql` (or its copy in a build). */
  operationsFile: string;
  /** The server's `--persisted-operations` manifest, or null. */
  persistedOperations: string | null;
  /** `--max-body-bytes`: the gate's cap, applied again by the SDK's transport. */
  maxBodyBytes: number;
}

/** The endpoint of one server. */
export interface McpEndpoint {
  /**
   * Answers one `/mcp` request that passed the request gate.
   *
   * @param scope the scope the request's token granted (recorded for the request by the gate too)
   */
  handle(request: IncomingMessage, response: ServerResponse, scope: Scope): void;
  /** Stops every wait in progress (their calls answer a tool error); later calls still run. */
  close(): void;
}

/**
 * A JSON-RPC error for the SDK to answer: `{ code, message }` with the message as given. (The
 * SDK's `McpError` puts `MCP error <code>: ` in front of its message, which the SDK then sends,
 * and a client adds its own, so the caller would read the prefix twice.)
 */
function rpcError(code: ErrorCode, message: string): Error & { code: ErrorCode } {
  return Object.assign(new Error(message), { code });
}

/**
 * Builds the endpoint.
 *
 * @throws Error when the operations file cannot be read or lacks an operation (see `loadMcpOperations`)
 */
export function createMcpEndpoint(options: McpEndpointOptions): McpEndpoint {
  const operations = loadMcpOperations(options.operationsFile, options.persistedOperations);
  const closing = new AbortController();
  const listed = new Map<string, Tool>(TOOLS.map((tool) => [tool.name, listing(tool)]));

  async function serve(request: IncomingMessage, response: ServerResponse, scope: Scope): Promise<void> {
    const start = performance.now();
    const body = await bodyOf(request);
    const line: Record<string, unknown> = { method: request.method, path: MCP_PATH, ...describe(body), scope };
    const { Server, WebStandardStreamableHTTPServerTransport, CallToolRequestSchema, ListToolsRequestSchema, ErrorCode } = await loadSdk();
    const server = new Server(MCP_SERVER_INFO, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: TOOLS.filter((tool) => scope === 'write' || tool.scope === 'read').map((tool) => listed.get(tool.name) as Tool),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (call, extra): Promise<CallToolResult> => {
      const tool = TOOLS.find((candidate) => candidate.name === call.params.name);
      if (tool === undefined) throw rpcError(ErrorCode.InvalidParams, `Unknown tool "${call.params.name}": tools/list names the tools of this token`);
      const result = await callTool(tool, call.params.arguments ?? {}, operations, request, AbortSignal.any([extra.signal, closing.signal]));
      line.isError = result.isError === true;
      return result;
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: options.maxBodyBytes,
    });
    response.once('close', () => {
      void server.close().catch(() => undefined);
    });
    await server.connect(transport);
    const answer = await transport.handleRequest(webRequest(request, body));
    const headers: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const text = Buffer.from(await answer.arrayBuffer());
    if (!response.destroyed) {
      response.writeHead(answer.status, headers);
      response.end(text);
    }
    options.logger.info({ ...line, status: answer.status, durationMs: Math.round((performance.now() - start) * 1000) / 1000 }, 'mcp request');
  }

  async function callTool(
    tool: ToolDefinition,
    args: Record<string, unknown>,
    ops: ReadonlyMap<McpOperationName, McpOperation>,
    request: IncomingMessage,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    const parsed = tool.input.safeParse(args);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => `${issue.path.length === 0 ? '(arguments)' : issue.path.join('.')}: ${issue.message}`);
      return toolError(`Invalid arguments for ${tool.name}: ${issues.join('; ')}. Nothing was run.`, { error: { code: 'INVALID_INPUT', issues } });
    }
    try {
      return await tool.call(parsed.data as Record<string, unknown>, { graphql: graphqlCaller(options.yoga, ops, request), signal });
    } catch (error) {
      options.logger.error({ err: error, tool: tool.name }, 'mcp tool failed');
      return toolError('Unexpected error.');
    }
  }

  return {
    handle(request, response, scope) {
      if (request.method !== 'POST') {
        request.resume();
        const message = 'Method not allowed: this MCP endpoint is stateless (no session stream); send JSON-RPC requests with POST';
        response.writeHead(405, { 'content-type': 'application/json', allow: 'POST' });
        response.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
        options.logger.info({ method: request.method, path: MCP_PATH, scope, status: 405 }, 'mcp request');
        return;
      }
      serve(request, response, scope).catch((error: unknown) => {
        // A client that went away mid-body (or mid-answer) is not a fault of the server.
        if (request.destroyed || response.destroyed) return;
        options.logger.error({ err: error }, 'mcp request failed');
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }));
      });
    },
    close() {
      closing.abort();
    },
  };
}

/** The tools/list entry of a tool: its input as JSON Schema. */
function listing(tool: ToolDefinition): Tool {
  const { $schema: _schema, ...inputSchema } = z.toJSONSchema(tool.input, { io: 'input' }) as Record<string, unknown>;
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: inputSchema as Tool['inputSchema'],
    annotations: { title: tool.title, ...tool.annotations },
  };
}

/**
 * The body of a request within the cap: the one the gate read already (a chunked body, see
 * http/request-body.ts `setPreReadBody`), else the request stream (its declared length is within the cap).
 */
async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const source = (request as IncomingMessage & { body?: Readable }).body ?? request;
  const chunks: Buffer[] = [];
  for await (const chunk of source) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/** The JSON-RPC method (and tool) of a body, for the log line; never its arguments. */
function describe(body: Buffer): { rpcMethod: string | null; tool?: string } {
  try {
    const message = JSON.parse(body.toString('utf8')) as unknown;
    if (Array.isArray(message)) return { rpcMethod: 'batch' };
    const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
    return {
      rpcMethod: typeof method === 'string' ? method : null,
      ...(method === 'tools/call' && typeof params?.name === 'string' ? { tool: params.name.slice(0, 100) } : {}),
    };
  } catch {
    return { rpcMethod: null };
  }
}

/** The Web request the SDK's transport reads: the incoming headers (hop-by-hop ones dropped) and the body read. */
function webRequest(request: IncomingMessage, body: Buffer): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || name === 'connection' || name === 'transfer-encoding' || name === 'content-length' || name === 'keep-alive') continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(`http://${request.headers.host ?? 'localhost'}${MCP_PATH}`, { method: 'POST', headers, body: new Uint8Array(body) });
}
