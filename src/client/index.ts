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
 * - `onStatus`: connecting / connected / reconnecting (attempt, wait, why) / closed.
 *
 * No Node module is imported: in Node 20 pass `webSocketImpl` (`import WebSocket from 'ws'`).
 */
import type { TypedDocumentString } from '../../schema/generated/graphql.js';
import { Connection, type ConnectionStatus, type RetryOptions } from './connection.js';
import { postOperation, type HttpTarget } from './http.js';
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

export * from '../../schema/generated/graphql.js';
export { describeDisconnect, type ConnectionStatus, type DisconnectReason, type RetryOptions } from './connection.js';
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

/** Options of {@link createWorkflowClient}. */
export interface WorkflowClientOptions {
  /** The GraphQL endpoint, `http(s)://host:port/graphql` (a `ws(s)://` URL works too). */
  url: string;
  /** The WebSocket URL; default {@link url} with `http` → `ws`. */
  wsUrl?: string;
  /** The server's `--token` (or a `--read-token`): `Authorization: Bearer <token>` and `connection_init {authorization}`. */
  token?: string;
  /** Default `globalThis.fetch`. */
  fetch?: typeof fetch;
  /** A WebSocket class; default `globalThis.WebSocket` (browsers, Node 22+). Node 20: `import WebSocket from 'ws'`. */
  webSocketImpl?: unknown;
  /** Reconnect policy (default: unlimited attempts, 250 ms doubling to 8 s). */
  retry?: RetryOptions;
  /** graphql-ws ping interval in ms (default 10000; 0 = none). */
  keepAliveMs?: number;
  /** Status listener, also addable later with {@link WorkflowClient.onStatus}. */
  onStatus?: (status: ConnectionStatus) => void;
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
  query<TResult, TVariables>(document: TypedDocumentString<TResult, TVariables>, variables: TVariables, options?: { signal?: AbortSignal }): Promise<TResult>;
  /** Sends a typed mutation over HTTP (as {@link query}); a typed error is a `__typename` of the result, not a throw. */
  mutate<TResult, TVariables>(document: TypedDocumentString<TResult, TVariables>, variables: TVariables, options?: { signal?: AbortSignal }): Promise<TResult>;
  /** A run's viewer deltas, each revision once, in order, resumed across drops ({@link RunWatch}). */
  watchRun(runId: string, options?: RunWatchOptions): RunWatch;
  /** A run's record after each change, re-read after reconnects ({@link RunUpdatesWatch}). */
  watchRunUpdates(runId: string, options?: RunUpdatesWatchOptions): RunUpdatesWatch;
  /** The run list's changes for a filter, resumed from the last cursor ({@link RunListWatch}). */
  watchRunList(options?: RunListWatchOptions): RunListWatch;
  /** A chain's current latest run and its deltas ({@link ChainWatch}). */
  watchChain(runId: string, options?: ChainWatchOptions): ChainWatch;
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
 * Creates a client. Nothing connects until a watch starts; HTTP calls need no socket.
 *
 * @throws WorkflowClientError `closed` when no WebSocket implementation is available (Node 20
 *   without `webSocketImpl`)
 */
export function createWorkflowClient(options: WorkflowClientOptions): WorkflowClient {
  const url = options.url.replace(/^ws/, 'http');
  const wsUrl = options.wsUrl ?? wsUrlOf(options.url);
  const authorization = options.token === undefined ? undefined : `Bearer ${options.token}`;
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  const target: HttpTarget = { url, authorization, fetch: fetchImpl };
  const connection = new Connection({
    url: wsUrl,
    authorization,
    ...(options.webSocketImpl === undefined ? {} : { webSocketImpl: options.webSocketImpl }),
    ...(options.retry === undefined ? {} : { retry: options.retry }),
    ...(options.keepAliveMs === undefined ? {} : { keepAliveMs: options.keepAliveMs }),
  });
  if (options.onStatus !== undefined) connection.onStatus(options.onStatus);
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
    query: (document, variables, requestOptions) => postOperation(target, document, variables, requestOptions?.signal),
    mutate: (document, variables, requestOptions) => postOperation(target, document, variables, requestOptions?.signal),
    watchRun: (runId, watchOptions) => track(new RunWatch(context, runId, watchOptions)),
    watchRunUpdates: (runId, watchOptions) => track(new RunUpdatesWatch(context, runId, watchOptions)),
    watchRunList: (watchOptions) => track(new RunListWatch(context, watchOptions)),
    watchChain: (runId, watchOptions) => track(new ChainWatch(context, runId, watchOptions)),
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
