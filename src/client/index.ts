/**
 * `pi-workflows-graphql/client`: the typed client of this server, for Node (20+) and browsers
 * (docs/IDE.md "The typed client").
 *
 * - `query()` / `mutate()`: the committed operations of `schema/operations/` (typed by
 *   `npm run codegen`, re-exported here) over HTTP with the token, typed results;
 * - watches over one shared WebSocket: a run's viewer deltas ({@link WorkflowClient.watchRun}),
 *   a run's record ({@link WorkflowClient.watchRunUpdates}), the run list
 *   ({@link WorkflowClient.watchRunList}) and a chain's latest run
 *   ({@link WorkflowClient.watchChain}); each reconnects (also across a server restart and a
 *   refused connection) and resumes from its last revision or cursor, nothing lost or doubled;
 * - `request()` / `subscribe()`: any operation text (the live page's own documents) over the
 *   same HTTP and the same socket, with the same retry policy;
 * - `onStatus`: connecting / connected / reconnecting (attempt, wait, why, failures) / closed.
 *
 * No Node module is imported: in Node 20 pass `webSocketImpl` (`import WebSocket from 'ws'`).
 */
import type { TypedDocumentString } from '../../schema/generated/graphql.js';
import { Connection, retryDelayMs, retryPolicy, type ConnectionOptions, type ConnectionStatus } from './connection.js';
import type { WorkflowClientError } from './errors.js';
import { postOperation, retrying, type HttpTarget, type RequestRetry } from './http.js';
import {
  ChainWatch,
  RunListWatch,
  RunUpdatesWatch,
  RunWatch,
  type ChainWatchOptions,
  type RunListWatchOptions,
  type RunUpdatesWatchOptions,
  type RunWatchOptions,
  type WatchContext,
} from './watches.js';
import { RunViewWatch, type RunViewWatchOptions } from './run-view-watch.js';

export * from '../../schema/generated/graphql.js';
export {
  describeDisconnect,
  retryDelayMs,
  retryPolicy,
  type ConnectionOptions,
  type ConnectionStatus,
  type DisconnectReason,
  type RetryOptions,
} from './connection.js';
export { isTransient, type RequestRetry } from './http.js';
export { WorkflowClientError, type GraphQLErrorLike, type WorkflowClientErrorKind } from './errors.js';
export type { Watch, WatchCallbacks, WatchEnd, WatchStats } from './watch.js';
export {
  ChainWatch,
  RunListWatch,
  RunUpdatesWatch,
  RunWatch,
  type ChainEvent,
  type ChainWatchOptions,
  type Run,
  type RunDeltaEvent,
  type RunListEvent,
  type RunListWatchOptions,
  type RunUpdatesWatchOptions,
  type RunWatchOptions,
} from './watches.js';
export { isContentHidden } from './http.js';
export { RunViewWatch, type RunViewEvent, type RunViewWatchOptions } from './run-view-watch.js';

/**
 * Options of {@link createWorkflowClient}: the endpoint and token, plus the socket's options
 * ({@link ConnectionOptions}: `webSocketImpl`, `retry`, `keepAliveMs`, `pongTimeoutMs`, `lazy`,
 * `onStatus`, a listener also addable later with {@link WorkflowClient.onStatus}).
 */
export interface WorkflowClientOptions extends Omit<ConnectionOptions, 'url' | 'authorization'> {
  /** The GraphQL endpoint, `http(s)://host:port/graphql` (a `ws(s)://` URL works too). */
  url: string;
  /** The WebSocket URL; default {@link url} with `http` → `ws`. */
  wsUrl?: string;
  /** The server's `--token` (or a `--read-token`): `Authorization: Bearer <token>` and `connection_init {authorization}`. */
  token?: string;
  /** Default `globalThis.fetch`. */
  fetch?: typeof fetch;
}

/** Options of one HTTP request. */
export interface RequestOptions {
  signal?: AbortSignal;
  /**
   * Try a request that found no server (a `network` error, 502, 503, 504) again, with the
   * connection's backoff or at once when the WebSocket connects again, until it succeeds, fails
   * otherwise, or `isCurrent()` says the answer is no longer wanted (`aborted`). Default: no retry.
   */
  retry?: RequestRetry | boolean;
}

/** Callbacks of {@link WorkflowClient.subscribe}. */
export interface SubscribeSink<TData> {
  /** Each result's `data`. */
  next(data: TData): void;
  /** The subscription ended for good: `graphql` (the server refused it or an event carried errors), `unauthorized`, `closed`. */
  error(error: WorkflowClientError): void;
  /** The server ended the stream. */
  complete?(): void;
}

/** The typed client. */
export interface WorkflowClient {
  /** The HTTP endpoint. */
  readonly url: string;
  /** The WebSocket endpoint. */
  readonly wsUrl: string;
  /**
   * Sends a typed query over HTTP and returns its `data`.
   *
   * @throws WorkflowClientError `network`, `unauthorized` (401), `http`, `graphql`
   */
  query<TResult, TVariables>(document: TypedDocumentString<TResult, TVariables>, variables: TVariables, options?: RequestOptions): Promise<TResult>;
  /** Sends a typed mutation over HTTP (as {@link query}); a typed error is a `__typename` of the result, not a throw. */
  mutate<TResult, TVariables>(document: TypedDocumentString<TResult, TVariables>, variables: TVariables, options?: RequestOptions): Promise<TResult>;
  /**
   * Sends an operation given as text (its first operation's name is the `operationName`) over
   * HTTP, as {@link query}; for documents outside the typed set.
   *
   * @throws WorkflowClientError as {@link query}; `aborted` (see {@link RequestOptions.retry})
   */
  request<TResult = unknown>(query: string, variables?: Record<string, unknown>, options?: RequestOptions): Promise<TResult>;
  /**
   * Subscribes an operation given as text over the client's WebSocket; resubscribed after every
   * reconnect with `variables()` as it is then (keep cursors there to resume).
   *
   * @returns the unsubscribe function (idempotent)
   * @throws WorkflowClientError `closed` once the client is closed
   */
  subscribe<TData = unknown>(query: string, variables: () => Record<string, unknown>, sink: SubscribeSink<TData>): () => void;
  /** A run's viewer deltas, each revision once, in order, resumed across drops ({@link RunWatch}). */
  watchRun(runId: string, options?: RunWatchOptions): RunWatch;
  /** A run's record after each change, re-read after reconnects ({@link RunUpdatesWatch}). */
  watchRunUpdates(runId: string, options?: RunUpdatesWatchOptions): RunUpdatesWatch;
  /** The run list's changes for a filter, resumed from the last cursor ({@link RunListWatch}). */
  watchRunList(options?: RunListWatchOptions): RunListWatch;
  /** A chain's current latest run and its deltas ({@link ChainWatch}). */
  watchChain(runId: string, options?: ChainWatchOptions): ChainWatch;
  /** A run's view: the whole view, then what changed at each revision, resumed by cursor ({@link RunViewWatch}). */
  watchRunView(runId: string, options?: RunViewWatchOptions): RunViewWatch;
  /** The connection's last status. */
  readonly status: ConnectionStatus;
  /** Adds a status listener; returns its remover. */
  onStatus(listener: (status: ConnectionStatus) => void): () => void;
  /** Closes every watch (they end `closed`) and the WebSocket. */
  close(): Promise<void>;
}

/** `http://…/graphql` → `ws://…/graphql` (and https → wss); a ws URL is returned as is. */
function wsUrlOf(url: string): string {
  return url.replace(/^http/, 'ws');
}

/**
 * Creates a client. Nothing connects until a watch starts (unless `lazy: false`); HTTP calls need no socket.
 *
 * @throws WorkflowClientError `closed` when no WebSocket implementation is available (Node 20
 *   without `webSocketImpl`) and `lazy` is false; with the default lazy client, a watch ends `failed`
 *   with it instead (queries and mutations over HTTP work without one)
 */
export function createWorkflowClient(options: WorkflowClientOptions): WorkflowClient {
  const url = options.url.replace(/^ws/, 'http');
  const wsUrl = options.wsUrl ?? wsUrlOf(options.url);
  const authorization = options.token === undefined ? undefined : `Bearer ${options.token}`;
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  const target: HttpTarget = { url, authorization, fetch: fetchImpl };
  const { url: _url, wsUrl: _wsUrl, token: _token, fetch: _fetch, ...socketOptions } = options;
  const connection = new Connection({ ...socketOptions, url: wsUrl, authorization });
  const policy = retryPolicy(options.retry);
  const send = <TResult, TVariables>(
    document: TypedDocumentString<TResult, TVariables> | string,
    variables: TVariables,
    requestOptions?: RequestOptions,
  ): Promise<TResult> => {
    const attempt = (): Promise<TResult> => postOperation(target, document as TypedDocumentString<TResult, TVariables>, variables, requestOptions?.signal);
    const retry = requestOptions?.retry;
    if (retry === undefined || retry === false) return attempt();
    return retrying(
      attempt,
      retry === true ? {} : retry,
      (retries) => retryDelayMs(retries, policy),
      () => connection.nextConnected(),
    );
  };
  const context: WatchContext = {
    connection,
    request: (document, variables) => postOperation(target, document, variables),
  };
  const watches = new Set<{ close(): void; finished: Promise<unknown> }>();
  const track = <T extends { close(): void; finished: Promise<unknown> }>(watch: T): T => {
    watches.add(watch);
    void watch.finished.then(() => watches.delete(watch));
    return watch;
  };
  return {
    url,
    wsUrl,
    query: send,
    mutate: send,
    request: <TResult>(query: string, variables: Record<string, unknown> = {}, requestOptions?: RequestOptions) =>
      send<TResult, Record<string, unknown>>(query, variables, requestOptions),
    subscribe: <TData>(query: string, variables: () => Record<string, unknown>, sink: SubscribeSink<TData>) =>
      connection.subscribe<TData>(query, variables, {
        next: (data) => sink.next(data),
        error: (error) => sink.error(error),
        complete: () => sink.complete?.(),
      }),
    watchRun: (runId, watchOptions) => track(new RunWatch(context, runId, watchOptions)),
    watchRunUpdates: (runId, watchOptions) => track(new RunUpdatesWatch(context, runId, watchOptions)),
    watchRunList: (watchOptions) => track(new RunListWatch(context, watchOptions)),
    watchChain: (runId, watchOptions) => track(new ChainWatch(context, runId, watchOptions)),
    watchRunView: (runId, watchOptions) => track(new RunViewWatch(context, runId, watchOptions)),
    get status() {
      return connection.status;
    },
    onStatus: (listener) => connection.onStatus(listener),
    close: async () => {
      for (const watch of [...watches]) watch.close();
      await connection.dispose();
    },
  };
}
