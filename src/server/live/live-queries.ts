/**
 * `@live` queries (docs/GRAPHQL-CONTRACT.md "Queries may carry `@live`", docs/PROTOCOL.md "Live
 * queries"): a query whose operation carries `@live` is executed, pushed, and executed and pushed
 * again whenever something it read changes, over graphql-ws and Server-Sent Events. It follows
 * the GraphQL ecosystem's convention: `@n1ru4l/in-memory-live-query-store` records what each
 * execution read and re-executes on invalidation (src/server/live/live-invalidation.ts names what a
 * commit invalidates), as `@envelop/live-query`'s `useLiveQuery` wires it; this plugin does that
 * wiring itself because it adds, per operation:
 *
 * - bounded work: at most one re-execution per live query per throttle window (`@live(throttle:)`
 *   may ask for a longer window, never a shorter one), at most `maxPerConnection` live queries
 *   per connection, and a push only when the result differs from the previous one;
 * - JSON-patch results as an opt-in of the request (`extensions.livePatch: "json-patch"`,
 *   `@n1ru4l/graphql-live-query-patch-json-patch`'s format, live-json-patch.ts); full results by default;
 * - cleared DataLoaders for every execution, so each push shows committed state;
 * - a plain HTTP request (no `text/event-stream` in `Accept`) is answered once, like the same
 *   query without `@live`.
 *
 * It runs inside yoga's envelop (every transport), after parsing and validation: a live query's
 * depth, cost and tokens are checked by the query-limits plugins like any query's, and the
 * caller's scope (auth.ts) is that of its request or connection.
 */
import { getLiveDirectiveArgumentValues, getLiveDirectiveNode, NoLiveMixedWithDeferStreamRule } from '@n1ru4l/graphql-live-query';
import { InMemoryLiveQueryStore } from '@n1ru4l/in-memory-live-query-store';
import { getOperationAST, GraphQLError, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { clearAllDataLoaders } from '@pothos/plugin-dataloader';
import type { ChangeFeed } from '../../delivery/index.js';
import { schema, type GraphQLContext } from '../../schema/index.js';
import { DEFAULT_LIVE_THROTTLE_MS, DEFAULT_MAX_LIVE_QUERIES, type ServerConfig } from '../config.js';
import { LIVE_QUERY_INDEXES } from '../../schema/live-resources.js';
import { isSingleConnectionRequest, SSE_TOKEN_HEADER } from '../graphql/graphql-sse.js';
import { feedRunChanges, startLiveInvalidation, type RunChangeSource } from './live-invalidation.js';
import { applyLiveQueryJSONPatches } from './live-json-patch.js';

/** The request extension that asks for JSON-patch results, and its one accepted value. */
export const LIVE_PATCH_EXTENSION = 'livePatch';
export const LIVE_PATCH_JSON_PATCH = 'json-patch';

/** Options of {@link createLiveQueries}. */
export interface LiveQueriesOptions {
  /** At most one re-execution per live query per this many ms (config `liveThrottleMs`). */
  throttleMs: number;
  /** Most live queries one connection holds at once (config `maxLiveQueriesPerConnection`). */
  maxPerConnection: number;
  /** Where committed run changes come from (live-invalidation.ts). */
  changes: RunChangeSource;
  /** Every root field of `Query`: what a change the source cannot name invalidates. */
  queryFields: readonly string[];
  logger: Logger;
}

/** Counters of the live queries (tests, benchmarks, metrics). */
export interface LiveQueryStats {
  /** Live queries currently running (started, not yet stopped). */
  readonly active: number;
  /** Resource identifiers the store currently tracks for them (0 once every live query stopped). */
  readonly trackedIdentifiers: number;
  /** Executions of live queries since start (initial ones included). */
  readonly executions: number;
  /** Results pushed since start (initial ones included; unchanged results are not pushed). */
  readonly pushes: number;
  /**
   * Re-executions answered with the result of an equal live query's re-execution after the same
   * invalidation (same document, operation, variables and scope), instead of executing again.
   */
  readonly shared: number;
  /**
   * Calls `listener` with {@link active} after every start and stop of a live query (a stopped
   * one has released its identifiers by then): tests await "every live query stopped" on it.
   *
   * @returns a function that removes the listener
   */
  onActive(listener: (active: number) => void): () => void;
}

/** The plugin, its counters, and the invalidation's shutdown. */
export interface LiveQueries {
  /** Add to yoga's `plugins`. */
  plugin: Plugin;
  stats: LiveQueryStats;
  /** Stops the invalidation (server shutdown); running live queries end with their connections. */
  close(): void;
}

/** What the plugin reads of yoga's context besides {@link GraphQLContext}. */
interface TransportContext {
  /** yoga: the fetch Request of an HTTP request (SSE included). */
  request?: Request;
  /** graphql-ws (graphql-ws.ts): the socket of the connection. */
  socket?: object;
  /** graphql-ws: its context's `extra`. */
  extra?: unknown;
  /** The GraphQL request's parameters, extensions included. */
  params?: { extensions?: Record<string, unknown> };
}

/** A result as this plugin pushes it (the store marks its results `isLive`; that is not sent). */
type LiveResult = ExecutionResult & { isLive?: boolean };

/**
 * The connection a live query counts against: the graphql-ws socket; the graphql-sse
 * single-connection stream (its token); else the request itself (an SSE stream of its own).
 * Null for a plain HTTP request, which cannot stream (answered once).
 */
function connectionOf(context: TransportContext): object | string | null {
  if (context.extra !== undefined && context.socket !== undefined) return context.socket;
  const request = context.request;
  if (request === undefined) return null;
  if (isSingleConnectionRequest(request)) {
    return `sse:${request.headers.get(SSE_TOKEN_HEADER) ?? new URL(request.url).searchParams.get('token') ?? ''}`;
  }
  const accept = request.headers.get('accept') ?? '';
  return accept.includes('text/event-stream') || accept.includes('multipart/mixed') ? request : null;
}

/** The refusal of a live query past the per-connection limit. */
export function tooManyLiveQueries(maximum: number): GraphQLError {
  return new GraphQLError(`Too many live queries on this connection: at most ${maximum} at once. Stop one before starting another.`, {
    extensions: { code: 'LIVE_QUERY_LIMIT', limit: { name: 'maxLiveQueries', maximum } },
  });
}

/** The refusal of an unknown `extensions.livePatch` value. */
export function unknownLivePatch(value: unknown): GraphQLError {
  return new GraphQLError(
    `Unknown extensions.${LIVE_PATCH_EXTENSION} ${JSON.stringify(value)}: use "${LIVE_PATCH_JSON_PATCH}" for JSON-patch results, or leave it out for full results.`,
    { extensions: { code: 'BAD_USER_INPUT' } },
  );
}

/**
 * Creates the plugin (see the module comment). The invalidation runs only while at least one
 * live query does.
 *
 * @returns the plugin for yoga's `plugins`, its counters, and `close()`
 */
export function createLiveQueries(options: LiveQueriesOptions): LiveQueries {
  const store = new InMemoryLiveQueryStore({
    indexBy: LIVE_QUERY_INDEXES,
    includeIdentifierExtension: false,
    // The store's own throttle is off: it compares Date.now() in a timer that may fire a
    // millisecond early and then drops the re-execution. `paced` throttles instead.
    validateThrottleValue: () => undefined,
  });
  const perConnection = new Map<object | string, number>();
  const counters = { active: 0, executions: 0, pushes: 0, shared: 0 };
  // +1 at every invalidation: equal live queries re-executed for the same one share a result.
  let invalidations = 0;
  const invalidatable = {
    invalidate(identifiers: string[]) {
      invalidations += 1;
      return store.invalidate(identifiers);
    },
  };
  const groups = new Map<string, SharingGroup>();
  const activeListeners = new Set<(active: number) => void>();
  const activeChanged = (): void => {
    for (const listener of activeListeners) listener(counters.active);
  };
  let stopInvalidation: (() => void) | undefined;
  let closed = false;

  function acquire(connection: object | string): boolean {
    const held = perConnection.get(connection) ?? 0;
    if (held >= options.maxPerConnection) return false;
    perConnection.set(connection, held + 1);
    counters.active += 1;
    if (stopInvalidation === undefined && !closed) {
      stopInvalidation = startLiveInvalidation(options.changes, invalidatable, options.queryFields, options.logger);
    }
    activeChanged();
    return true;
  }

  function release(connection: object | string): void {
    const held = (perConnection.get(connection) ?? 1) - 1;
    if (held <= 0) perConnection.delete(connection);
    else perConnection.set(connection, held);
    counters.active -= 1;
    if (counters.active === 0) {
      stopInvalidation?.();
      stopInvalidation = undefined;
    }
    activeChanged();
  }

  type Execute = (args: ExecutionArgs) => unknown;

  function executeLive(execute: Execute, args: ExecutionArgs): unknown {
    const operation = getOperationAST(args.document, args.operationName);
    const live = operation == null ? undefined : getLiveDirectiveNode(operation);
    const liveArguments = live == null ? undefined : getLiveDirectiveArgumentValues(live, args.variableValues);
    if (liveArguments === undefined || !liveArguments.isLive) return execute(args);
    const context = args.contextValue as GraphQLContext & TransportContext;
    const connection = connectionOf(context);
    if (connection === null) return execute(args); // plain HTTP: answered once
    const patchFormat = context.params?.extensions?.[LIVE_PATCH_EXTENSION];
    if (patchFormat != null && patchFormat !== LIVE_PATCH_JSON_PATCH) return { errors: [unknownLivePatch(patchFormat)] };
    if (!acquire(connection)) return { errors: [tooManyLiveQueries(options.maxPerConnection)] };
    const key = sharingKey(args, context.scope);
    const group = groups.get(key) ?? { members: 0, latest: undefined };
    groups.set(key, group);
    group.members += 1;
    let initial = true;
    // The configured window is the floor: a client may ask only for fewer pushes.
    const pace = paced(Math.max(liveArguments.throttleValue ?? 0, options.throttleMs), (inner) => {
      const identifiers = inner.contextValue as LiveIdentifiers;
      const latest = group.latest;
      // A re-execution after the invalidation an equal live query already re-executed for
      // takes its result and the identifiers it read. The initial execution never shares.
      if (!initial && latest !== undefined && latest.invalidation === invalidations) {
        counters.shared += 1;
        return Promise.resolve(latest.result).then((result) => {
          identifiers.addResourceIdentifier(latest.identifiers);
          return result;
        });
      }
      initial = false;
      // Every execution reads committed state: the store re-executes with the same context
      // object, whose DataLoaders (the dataloader plugin's, per context) are cleared first.
      clearAllDataLoaders(context);
      counters.executions += 1;
      const read: string[] = [];
      recordIdentifiers(identifiers, read);
      const result = execute(inner);
      group.latest = { invalidation: invalidations, result, identifiers: read };
      return result;
    });
    const liveExecute = store.makeExecute(pace.execute as Parameters<InMemoryLiveQueryStore['makeExecute']>[0]);
    const leaveGroup = (): void => {
      group.members -= 1;
      if (group.members === 0) groups.delete(key);
    };
    let results: AsyncIterableIterator<LiveResult>;
    try {
      const started = liveExecute(args) as unknown as LiveResult | AsyncIterable<LiveResult>;
      if (!(Symbol.asyncIterator in started)) {
        leaveGroup();
        release(connection);
        return started;
      }
      results = changedOnly(started);
    } catch (error) {
      leaveGroup();
      release(connection);
      throw error;
    }
    if (patchFormat === LIVE_PATCH_JSON_PATCH) results = applyLiveQueryJSONPatches(results) as AsyncIterableIterator<LiveResult>;
    return counted(
      results,
      () => {
        pace.stop();
        leaveGroup();
        release(connection);
      },
      () => (counters.pushes += 1),
    );
  }

  const plugin: Plugin = {
    onValidate({ addValidationRule }) {
      addValidationRule(NoLiveMixedWithDeferStreamRule);
    },
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn(((args: ExecutionArgs) => executeLive(executeFn as Execute, args)) as typeof executeFn);
    },
  };

  const stats: LiveQueryStats = {
    get active() {
      return counters.active;
    },
    get trackedIdentifiers() {
      // The store keeps its tracker private; its map of identifier → live queries is what a
      // stopped live query must leave empty.
      const tracker = (store as unknown as { _resourceTracker?: { _trackedResources?: Map<string, unknown> } })._resourceTracker;
      return tracker?._trackedResources?.size ?? 0;
    },
    get executions() {
      return counters.executions;
    },
    get pushes() {
      return counters.pushes;
    },
    get shared() {
      return counters.shared;
    },
    onActive(listener) {
      activeListeners.add(listener);
      return () => activeListeners.delete(listener);
    },
  };

  return {
    plugin,
    stats,
    close() {
      closed = true;
      stopInvalidation?.();
      stopInvalidation = undefined;
    },
  };
}

/**
 * Live queries whose results are equal (same document, operation, variables, scope): after one
 * invalidation, the first of them to re-execute executes; the others take its result.
 */
interface SharingGroup {
  members: number;
  /** The latest execution: after which invalidation, its result, the identifiers it read. */
  latest: { invalidation: number; result: unknown; identifiers: string[] } | undefined;
}

/**
 * What the live-query store puts on the context of each execution to collect the resource
 * identifiers the execution reads (resolvers call these properties).
 */
interface LiveIdentifiers {
  collectResourceIdentifier(parameter: { typename: string; id: unknown }): void;
  addResourceIdentifier(values: string | readonly string[] | null | undefined): void;
}

/** Ids of documents (yoga's parser cache hands equal query texts the same DocumentNode). */
const documentIds = new WeakMap<DocumentNode, number>();
let nextDocumentId = 1;

/** The {@link SharingGroup} key of a live query: document, operation, variables, scope. */
function sharingKey(args: ExecutionArgs, scope: string): string {
  let id = documentIds.get(args.document);
  if (id === undefined) {
    id = nextDocumentId;
    nextDocumentId += 1;
    documentIds.set(args.document, id);
  }
  return JSON.stringify([id, args.operationName ?? null, scope, args.variableValues ?? null]);
}

/**
 * Makes `identifiers` also write every identifier it collects into `read` (as the store builds
 * them, `<typename>:<id>`), so an equal live query that shares the result can track them too.
 */
function recordIdentifiers(identifiers: LiveIdentifiers, read: string[]): void {
  const collect = identifiers.collectResourceIdentifier;
  const add = identifiers.addResourceIdentifier;
  identifiers.collectResourceIdentifier = (parameter) => {
    read.push(`${parameter.typename}:${String(parameter.id)}`);
    collect(parameter);
  };
  identifiers.addResourceIdentifier = (values) => {
    if (typeof values === 'string') read.push(values);
    else if (values != null) read.push(...values);
    add(values);
  };
}

/** What the store's re-execution of a live query calls: {@link paced}. */
interface Paced {
  execute(args: ExecutionArgs): unknown;
  /** Drops a re-execution still waiting for its window (the live query stopped). */
  stop(): void;
}

/** What a superseded or stopped re-execution answers; the store discards it (a newer one runs). */
const SUPERSEDED: ExecutionResult = {};

/**
 * At most one execution per `windowMs` for one live query: an invalidation inside the window
 * waits for its end, and of the invalidations that waited, only the last one executes (it reads
 * the state after all of them). The store pushes only the result of its latest invalidation,
 * so the waiting ones it superseded answer {@link SUPERSEDED} without executing.
 *
 * @param windowMs ms between the starts of two executions
 */
function paced(windowMs: number, execute: (args: ExecutionArgs) => unknown): Paced {
  let lastStart: number | undefined;
  let generation = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let waiters: Array<() => void> = [];
  const wakeAll = (): void => {
    timer = undefined;
    const waiting = waiters;
    waiters = [];
    for (const wake of waiting) wake();
  };
  return {
    execute(args) {
      generation += 1;
      const mine = generation;
      const wait = lastStart === undefined ? 0 : lastStart + windowMs - performance.now();
      if (wait <= 0 && timer === undefined) {
        lastStart = performance.now();
        return execute(args);
      }
      timer ??= setTimeout(wakeAll, Math.max(0, wait));
      return new Promise<void>((resolve) => waiters.push(resolve)).then(() => {
        if (stopped || mine !== generation) return SUPERSEDED;
        lastStart = performance.now();
        return execute(args);
      });
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      wakeAll();
    },
  };
}

/** The JSON text a result is compared by (data, errors, extensions; not `isLive`). */
function comparable(result: LiveResult): string {
  return JSON.stringify([result.data, result.errors, result.extensions]);
}

/**
 * The store's results, minus those equal to the one before (a change that did not touch what
 * the query shows pushes nothing). A result without `data` (the operation could not run, e.g.
 * bad variables) is the last one: the stream ends after it. `return()` reaches the store at
 * once, also while waiting.
 */
function changedOnly(source: AsyncIterable<LiveResult>): AsyncIterableIterator<LiveResult> {
  const iterator = source[Symbol.asyncIterator]();
  let previous: string | undefined;
  let failed = false;
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      if (failed) {
        await iterator.return?.();
        return { done: true, value: undefined };
      }
      for (;;) {
        const step = await iterator.next();
        if (step.done === true) return step;
        failed = step.value.data === undefined;
        const text = comparable(step.value);
        if (text === previous) continue;
        previous = text;
        return step;
      }
    },
    async return() {
      return (await iterator.return?.()) ?? { done: true, value: undefined };
    },
  };
}

/**
 * The results as pushed (without the store's `isLive` marker), calling `onPush` for each and
 * `release` once, when the stream ends or its consumer stops it.
 */
function counted(source: AsyncIterable<LiveResult>, release: () => void, onPush: () => void): AsyncIterableIterator<ExecutionResult> {
  const iterator = source[Symbol.asyncIterator]();
  let released = false;
  const done = (): void => {
    if (released) return;
    released = true;
    release();
  };
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      try {
        const step = await iterator.next();
        if (step.done === true) {
          done();
          return step;
        }
        onPush();
        const { isLive: _isLive, ...result } = step.value;
        return { done: false, value: result };
      } catch (error) {
        done();
        throw error;
      }
    },
    async return() {
      try {
        await iterator.return?.();
      } finally {
        done();
      }
      return { done: true, value: undefined };
    },
  };
}

/**
 * The server's `@live` queries: throttle and per-connection limit from the config (defaults
 * {@link DEFAULT_LIVE_THROTTLE_MS}, {@link DEFAULT_MAX_LIVE_QUERIES}), invalidated by the change
 * feed's run changes (live-invalidation.ts); a change the feed cannot name invalidates every
 * root field of `Query`.
 */
export function liveQueriesFor(config: Pick<ServerConfig, 'liveThrottleMs' | 'maxLiveQueriesPerConnection'>, feed: ChangeFeed, logger: Logger): LiveQueries {
  return createLiveQueries({
    throttleMs: config.liveThrottleMs ?? DEFAULT_LIVE_THROTTLE_MS,
    maxPerConnection: config.maxLiveQueriesPerConnection ?? DEFAULT_MAX_LIVE_QUERIES,
    changes: feedRunChanges(feed),
    queryFields: Object.keys(schema.getQueryType()?.getFields() ?? {}),
    logger,
  });
}
