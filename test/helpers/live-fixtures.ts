/**
 * Fixtures of the live (subscription) tests, over real sockets:
 *
 * - {@link EventCollector}: collects the events of one stream; tests await "N events" or a
 *   condition on them (never a sleep), with a guard timeout that fails with what arrived.
 * - {@link wsClient} / {@link subscribeWs}: graphql-ws clients (`createClient` + `ws`).
 * - {@link openRawWs}: a raw `ws` socket speaking graphql-transport-ws by hand (close codes,
 *   protocol pings, a socket the test pauses).
 * - {@link subscribeSse}: a Server-Sent Events subscription over `fetch`, parsing
 *   `event: next` / `data:` frames from the body stream.
 * - {@link startLiveServer}: like `startTestServer` but with the keep-alive and poll
 *   intervals under the test's control.
 * - documents and helpers to commit revisions and to build the expected deltas.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { GraphQLFormattedError } from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import { pino } from 'pino';
import WebSocket from 'ws';
import { startServer, type RunningServer } from '../../src/server/app.js';
import type { ServerConfig } from '../../src/server/config.js';
import type { WorkflowStore } from '../../src/store/index.js';
import type { DeltaEvent } from './live-markers.js';
import type { RunFieldsFragment } from '../../schema/generated/graphql.js';
import { ManualClock, reserve, reserveInput, type TestServer } from './server-fixture.js';

/** Default guard of every await in the live tests: fails with what arrived instead of hanging. */
export const WAIT_MS = 20_000;

/** `http://…/graphql` → `ws://…/graphql`. */
export function wsUrlOf(httpUrl: string): string {
  return httpUrl.replace(/^http/, 'ws');
}

interface Waiter {
  check: () => boolean;
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * The events of one stream, in arrival order. `take(n)` / `until(predicate)` resolve as soon as
 * the condition holds; they reject when the stream ends (error or complete) without it, or when
 * the guard timeout passes.
 */
export class EventCollector<T> {
  readonly events: T[] = [];
  /** `Date.now()` at the arrival of each event (same index as {@link events}). */
  readonly receivedAt: number[] = [];
  /** The stream's error (a GraphQL error list, a close event, an Error), once it failed. */
  error: unknown = undefined;
  completed = false;
  private waiters: Waiter[] = [];

  constructor(readonly label = 'stream') {}

  push(event: T): void {
    this.events.push(event);
    this.receivedAt.push(Date.now());
    this.flush();
  }

  fail(error: unknown): void {
    this.error = error;
    this.flush();
  }

  complete(): void {
    this.completed = true;
    this.flush();
  }

  /** Resolves with the first `n` events once that many arrived. */
  async take(n: number, timeoutMs = WAIT_MS): Promise<T[]> {
    await this.until(() => this.events.length >= n, `${n} events`, timeoutMs);
    return this.events.slice(0, n);
  }

  /** Resolves once the stream ended (completed or failed). */
  async ended(timeoutMs = WAIT_MS): Promise<void> {
    await this.until(() => this.completed || this.error !== undefined, 'the end of the stream', timeoutMs, true);
  }

  /** Resolves once `predicate(events)` holds. */
  until(predicate: (events: T[]) => boolean, what = 'a condition', timeoutMs = WAIT_MS, endIsOk = false): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((waiter) => waiter !== entry);
        reject(new Error(`${this.label}: timed out after ${timeoutMs} ms waiting for ${what}; ${this.describe()}`));
      }, timeoutMs);
      const entry: Waiter = {
        check: () => {
          if (predicate(this.events)) return true;
          if (!endIsOk && (this.completed || this.error !== undefined)) {
            throw new Error(`${this.label}: ended while waiting for ${what}; ${this.describe()}`);
          }
          return false;
        },
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.waiters.push(entry);
      this.flush();
    });
  }

  describe(): string {
    const tail = this.events.slice(-3).map((event) => JSON.stringify(event).slice(0, 300));
    const error = this.error === undefined ? '' : ` error=${describeError(this.error)}`;
    return `${this.events.length} events (last: ${tail.join(' | ')}), completed=${this.completed}${error}`;
  }

  private flush(): void {
    const pending: Waiter[] = [];
    for (const waiter of this.waiters) {
      try {
        if (waiter.check()) waiter.resolve();
        else pending.push(waiter);
      } catch (error) {
        waiter.reject(error as Error);
      }
    }
    this.waiters = pending;
  }
}

function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null && 'code' in error) {
    return `close ${String((error as { code: unknown }).code)} ${String((error as { reason?: unknown }).reason ?? '')}`;
  }
  return JSON.stringify(error);
}

/** One GraphQL result of a stream. */
export interface StreamResult<TData> {
  data?: TData | null;
  errors?: GraphQLFormattedError[];
}

/** Yields to the event loop once (lets sockets and timers run between commit batches). */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

// ---------------------------------------------------------------------------------------------
// graphql-ws

/** Options of {@link wsClient}. */
export interface WsClientOptions {
  /** Sent as `{authorization: 'Bearer <token>'}` in connection_init. */
  token?: string;
  /** Raw connection_init payload (wins over `token`). */
  connectionParams?: Record<string, unknown>;
}

/** A graphql-ws client over `ws` that never retries (a failure surfaces in the sink). */
export function wsClient(httpUrl: string, options: WsClientOptions = {}): Client {
  const connectionParams = options.connectionParams ?? (options.token === undefined ? undefined : { authorization: `Bearer ${options.token}` });
  return createClient({
    url: wsUrlOf(httpUrl),
    webSocketImpl: WebSocket,
    ...(connectionParams === undefined ? {} : { connectionParams }),
    retryAttempts: 0,
    shouldRetry: () => false,
    lazyCloseTimeout: 0,
  });
}

/** A running subscription: its events and how to end it. */
export interface LiveSubscription<TData> {
  collector: EventCollector<StreamResult<TData>>;
  /** Stops the subscription (client `complete`). */
  unsubscribe(): void;
}

/** Subscribes through a graphql-ws client; every `next` payload is collected. */
export function subscribeWs<TData>(client: Client, query: string, variables: Record<string, unknown> = {}, label = 'ws'): LiveSubscription<TData> {
  const collector = new EventCollector<StreamResult<TData>>(label);
  const unsubscribe = client.subscribe<TData>(
    { query, variables },
    {
      next: (value) => collector.push(value as StreamResult<TData>),
      error: (error) => collector.fail(error),
      complete: () => collector.complete(),
    },
  );
  return { collector, unsubscribe };
}

// ---------------------------------------------------------------------------------------------
// raw graphql-transport-ws

/** A graphql-transport-ws message. */
export interface ProtocolMessage {
  type: string;
  id?: string;
  payload?: unknown;
}

/** A raw `ws` socket speaking graphql-transport-ws by hand. */
export interface RawWs {
  ws: WebSocket;
  /** Every protocol message received, parsed. */
  messages: EventCollector<ProtocolMessage>;
  /** WebSocket-level ping frames received (graphql-ws server keep-alive). */
  pings: EventCollector<Buffer>;
  /** Resolves with the close code and reason once the socket closed. */
  closed: Promise<{ code: number; reason: string }>;
  send(message: ProtocolMessage): void;
  /** Sends connection_init with `payload` (omitted when undefined). */
  init(payload?: Record<string, unknown>): void;
  /** Sends connection_init and awaits connection_ack. */
  initAndAck(payload?: Record<string, unknown>): Promise<void>;
  /** Sends a subscribe message; returns a collector of the `next` payloads of that id. */
  subscribe<TData>(id: string, query: string, variables?: Record<string, unknown>): EventCollector<StreamResult<TData>>;
}

/** Opens a raw graphql-transport-ws socket; resolves once it is open. */
export async function openRawWs(httpUrl: string, label = 'raw-ws'): Promise<RawWs> {
  const ws = new WebSocket(wsUrlOf(httpUrl), 'graphql-transport-ws');
  const messages = new EventCollector<ProtocolMessage>(label);
  const pings = new EventCollector<Buffer>(`${label} pings`);
  const streams = new Map<string, EventCollector<StreamResult<unknown>>>();
  ws.on('message', (data) => {
    const message = JSON.parse(String(data)) as ProtocolMessage;
    messages.push(message);
    const stream = message.id === undefined ? undefined : streams.get(message.id);
    if (stream === undefined) return;
    if (message.type === 'next') stream.push(message.payload as StreamResult<unknown>);
    else if (message.type === 'error') stream.fail(message.payload);
    else if (message.type === 'complete') stream.complete();
  });
  ws.on('ping', (data) => pings.push(data));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.on('close', (code, reason) => {
      messages.complete();
      for (const stream of streams.values()) if (!stream.completed) stream.fail({ code, reason: String(reason) });
      resolve({ code, reason: String(reason) });
    });
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const send = (message: ProtocolMessage): void => ws.send(JSON.stringify(message));
  const init = (payload?: Record<string, unknown>): void => send(payload === undefined ? { type: 'connection_init' } : { type: 'connection_init', payload });
  return {
    ws,
    messages,
    pings,
    closed,
    send,
    init,
    async initAndAck(payload) {
      init(payload);
      await messages.until((all) => all.some((message) => message.type === 'connection_ack'), 'connection_ack');
    },
    subscribe<TData>(id: string, query: string, variables: Record<string, unknown> = {}) {
      const stream = new EventCollector<StreamResult<TData>>(`${label}#${id}`);
      streams.set(id, stream as EventCollector<StreamResult<unknown>>);
      send({ type: 'subscribe', id, payload: { query, variables } });
      return stream;
    },
  };
}

/**
 * A masked client-to-server text frame (RFC 6455 §5.2), for {@link sendInOneWrite}.
 */
function clientTextFrame(text: string): Buffer {
  const payload = Buffer.from(text, 'utf8');
  const length = payload.length;
  const header = length < 126 ? Buffer.alloc(2) : length < 65_536 ? Buffer.alloc(4) : Buffer.alloc(10);
  header[0] = 0x81; // FIN + text
  if (length < 126) header[1] = 0x80 | length;
  else if (length < 65_536) {
    header[1] = 0x80 | 126;
    header.writeUInt16BE(length, 2);
  } else {
    header[1] = 0x80 | 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  const mask = randomBytes(4);
  const masked = Buffer.alloc(length);
  for (let index = 0; index < length; index += 1) masked[index] = (payload[index] as number) ^ (mask[index % 4] as number);
  return Buffer.concat([header, mask, masked]);
}

/**
 * Sends protocol messages as WebSocket frames in ONE write on the TCP socket, so the server
 * reads them in one chunk and handles them back to back (races between messages of one socket).
 */
export function sendInOneWrite(raw: RawWs, messages: readonly ProtocolMessage[]): void {
  tcpSocketOf(raw.ws).write(Buffer.concat(messages.map((message) => clientTextFrame(JSON.stringify(message)))));
}

/**
 * Sends a protocol `ping` and resolves at its `pong`: every message the server wrote before it
 * handled the ping has arrived by then.
 */
export async function pingPong(raw: RawWs): Promise<void> {
  const pongs = raw.messages.events.filter((message) => message.type === 'pong').length;
  raw.send({ type: 'ping' });
  await raw.messages.until((all) => all.filter((message) => message.type === 'pong').length > pongs, 'pong');
}

/** The underlying TCP socket of a `ws` client (to pause reading: a consumer that does not read). */
export function tcpSocketOf(ws: WebSocket): import('node:net').Socket {
  return (ws as unknown as { _socket: import('node:net').Socket })._socket;
}

// ---------------------------------------------------------------------------------------------
// Server-Sent Events

/** A running SSE subscription. */
export interface SseSubscription<TData> {
  collector: EventCollector<StreamResult<TData>>;
  /** Resolves with the HTTP status and headers once the response started. */
  response: Promise<{ status: number; headers: Headers; text?: string }>;
  /** Aborts the request. */
  close(): void;
}

/**
 * POSTs a subscription with `accept: text/event-stream` and parses the body stream: each
 * `event: next` frame's `data:` is one collected result; `event: complete` completes.
 * A non-2xx answer fails the collector with `{status, text}`.
 */
export function subscribeSse<TData>(
  httpUrl: string,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
  label = 'sse',
): SseSubscription<TData> {
  const collector = new EventCollector<StreamResult<TData>>(label);
  const abort = new AbortController();
  const response = (async () => {
    const answer = await fetch(httpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
      body: JSON.stringify({ query, variables }),
      signal: abort.signal,
    });
    if (!answer.ok || answer.body === null) {
      const text = await answer.text();
      collector.fail({ status: answer.status, text });
      return { status: answer.status, headers: answer.headers, text };
    }
    void readFrames(answer.body, collector).catch((error: unknown) => {
      if (!abort.signal.aborted) collector.fail(error);
    });
    return { status: answer.status, headers: answer.headers };
  })();
  response.catch((error: unknown) => {
    if (!abort.signal.aborted) collector.fail(error);
  });
  return { collector, response, close: () => abort.abort() };
}

async function readFrames<TData>(body: ReadableStream<Uint8Array>, collector: EventCollector<StreamResult<TData>>): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
      let event = 'message';
      const data: string[] = [];
      for (const line of frame.split('\n')) {
        if (line.startsWith(':')) continue; // keep-alive comment
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (event === 'next') collector.push(JSON.parse(data.join('\n')) as StreamResult<TData>);
      else if (event === 'complete') collector.complete();
    }
  }
  if (!collector.completed) collector.complete();
}

// ---------------------------------------------------------------------------------------------
// child processes

/** A Node child process running a TypeScript script (through tsx) that speaks JSON lines. */
export interface ChildProcessHandle {
  child: import('node:child_process').ChildProcess;
  /** Every stdout line, parsed as JSON (non-JSON lines as `{text}`). */
  lines: EventCollector<Record<string, unknown>>;
  /** Everything the child wrote to stderr. */
  stderr(): string;
  /** Writes one command line to its stdin. */
  send(line: string): void;
  /** Resolves with the exit code (or the signal name) once it exited. */
  exited: Promise<number | string>;
  /** Kills it unless it already exited (cleanup). */
  kill(): void;
}

/**
 * Starts `node [...nodeArgs] --import tsx <script> ...args` with cwd at the repository root.
 *
 * @param nodeArgs flags for node itself (e.g. `--expose-gc`)
 */
export function spawnTsChild(script: string, args: string[], label = 'child', nodeArgs: readonly string[] = []): ChildProcessHandle {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', script, ...args], {
    cwd: REPO_ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines = new EventCollector<Record<string, unknown>>(label);
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    try {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      lines.push({ text: line });
    }
  });
  const exited = new Promise<number | string>((resolve) => {
    child.on('exit', (code, signal) => {
      lines.complete();
      resolve(code ?? signal ?? 'unknown');
    });
  });
  return {
    child,
    lines,
    stderr: () => stderr,
    send: (line) => {
      child.stdin?.write(`${line}\n`);
    },
    exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/**
 * {@link spawnTsChild}, then waits for the child's `{"ready":true}` line (the children of
 * test/children/ print it once their store or file is open). A child that exits first or
 * never says so fails the wait (the collector's timeout) and is killed.
 *
 * @param what what the wait is for, in the timeout message (e.g. 'the writer to open the store')
 * @returns the handle, ready for commands
 */
export async function spawnReadyChild(script: string, args: string[], label: string, what: string): Promise<ChildProcessHandle> {
  const handle = spawnTsChild(script, args, label);
  try {
    await handle.lines.until((lines) => lines.some((line) => line.ready === true), what);
  } catch (error) {
    handle.kill();
    throw error;
  }
  return handle;
}

/** The repository root (cwd of child processes). */
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

// ---------------------------------------------------------------------------------------------
// server

/** A server started by {@link startLiveServer}. */
export interface LiveServer {
  url: string;
  server: RunningServer;
  store: WorkflowStore;
  dir: string;
  dbPath: string;
  clock: ManualClock;
  close(): Promise<void>;
}

/**
 * The real server on 127.0.0.1:0 over a fresh database, with config overrides the shared
 * fixture does not expose (keepAliveMs, pollIntervalMs).
 */
export async function startLiveServer(overrides: Partial<ServerConfig> = {}): Promise<LiveServer> {
  const dir = mkdtempSync(join(tmpdir(), 'pi-workflows-live-'));
  const dbPath = join(dir, 'state.db');
  const clock = new ManualClock();
  const config: ServerConfig = testServerConfig(dbPath, dir, overrides);
  const server = await startServer(config, { logger: pino({ level: 'silent' }), clock: clock.now });
  return {
    url: server.url,
    server,
    store: server.store,
    dir,
    dbPath,
    clock,
    close: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Closes a server that served SSE. Node 20's fetch (undici) opens a fresh, request-less
 * connection after an SSE request is aborted; Node's `closeIdleConnections` does not count a
 * connection still waiting for its first request as idle, so `close()` would sit out its 2 s
 * grace timer. Teardown only: drops every HTTP connection, including ones accepted while the
 * server winds down (WebSocket sockets are no longer HTTP connections and close normally).
 */
export async function closeAfterSse(fx: { server: RunningServer; close(): Promise<void> }): Promise<void> {
  const { httpServer } = fx.server;
  const drop = (socket: import('node:net').Socket): void => {
    socket.destroy();
  };
  httpServer.on('connection', drop);
  httpServer.closeAllConnections();
  try {
    await fx.close();
  } finally {
    httpServer.off('connection', drop);
  }
}

/** Reserves a root run over GraphQL in its own Pi session (one active run per session). */
export function reserveRun(fx: TestServer, runId: string): Promise<RunFieldsFragment> {
  return reserve(fx, reserveInput(runId, { originSessionId: `session-${runId}` }));
}

// ---------------------------------------------------------------------------------------------
// documents and expected values

export {
  commitMarker,
  expectedMarkerBatch,
  expectedMarkerDeltas,
  markerOps,
  withoutRecordedAt,
  type ApiDelta,
  type ApiPatchOperation,
  type DeltaEvent,
} from './live-markers.js';
import { testServerConfig } from './server-config.js';

/** `workflowRunDeltas` with every field of both event types. */
export const DELTAS_SUBSCRIPTION = /* GraphQL */ `
  subscription Deltas($runId: String!, $afterRevision: Int) {
    workflowRunDeltas(runId: $runId, afterRevision: $afterRevision) {
      __typename
      ... on ViewerDeltaBatch {
        runId
        presentationRevision
        deltas { deltaIndex targetType targetKey recordedAt patch { op path value } }
      }
      ... on ViewerSnapshotRequired {
        runId
        currentRevision
        retainedFromRevision
        run { runId presentationRevision }
      }
    }
  }
`;

/** Data of one `workflowRunDeltas` result. */
export interface DeltasData {
  workflowRunDeltas: DeltaEvent;
}

/** The events of a deltas stream (throws on a result carrying errors). */
export function deltaEvents(results: ReadonlyArray<StreamResult<DeltasData>>): DeltaEvent[] {
  return results.map((result) => {
    if (result.errors !== undefined || result.data == null) throw new Error(`unexpected result ${JSON.stringify(result)}`);
    return result.data.workflowRunDeltas;
  });
}

/** The presentation revision of a batch, or `snapshot@<current>` for a snapshot event. */
export function revisionOf(event: DeltaEvent): number | string {
  return event.__typename === 'ViewerDeltaBatch' ? event.presentationRevision : `snapshot@${event.currentRevision}`;
}

/** Revisions (and snapshot markers) of the results of a deltas stream. */
export function revisionsOf(results: ReadonlyArray<StreamResult<DeltasData>>): Array<number | string> {
  return deltaEvents(results).map(revisionOf);
}

/** `[from, from+1, …, to]`. */
export function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, index) => from + index);
}

/** Resolves once a deltas stream has seen the batch of `revision` (or a snapshot at or after it). */
export function untilRevision(collector: EventCollector<StreamResult<DeltasData>>, revision: number, timeoutMs = WAIT_MS): Promise<void> {
  return collector.until(
    (results) => {
      const last = results.at(-1)?.data?.workflowRunDeltas;
      if (last === undefined) return false;
      return last.__typename === 'ViewerDeltaBatch' ? last.presentationRevision >= revision : last.currentRevision >= revision;
    },
    `revision ${revision}`,
    timeoutMs,
  );
}

/** Percentile (nearest rank) of `values`. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] ?? Number.NaN;
}
