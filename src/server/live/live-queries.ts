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
 *
 * This file holds the plugin (the store, the per-connection count, one live query's execution)
 * and its counters; each part it adds is in a file of its own: the connection a live query
 * counts against and the refusal past the limit (live-connection.ts), the throttle
 * (live-pacing.ts), result sharing between equal live queries (live-sharing.ts), the pushed
 * result stream (live-results.ts), the patch option (live-patch-option.ts) and format
 * (live-json-patch.ts), and what a commit invalidates (live-invalidation.ts).
 */
import { getLiveDirectiveArgumentValues, getLiveDirectiveNode, NoLiveMixedWithDeferStreamRule } from '@n1ru4l/graphql-live-query';
import { InMemoryLiveQueryStore } from '@n1ru4l/in-memory-live-query-store';
import { getOperationAST, type ExecutionArgs } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { clearAllDataLoaders } from '@pothos/plugin-dataloader';
import type { ChangeFeed } from '../../delivery/index.js';
import { schema, type GraphQLContext } from '../../schema/index.js';
import { DEFAULT_LIVE_THROTTLE_MS, DEFAULT_MAX_LIVE_QUERIES, type ServerConfig } from '../config.js';
import { LIVE_QUERY_INDEXES } from '../../schema/live-resources.js';
import { connectionOf, tooManyLiveQueries, type TransportContext } from './live-connection.js';
import { feedRunChanges, startLiveInvalidation, type RunChangeSource } from './live-invalidation.js';
import { applyLiveQueryJSONPatches } from './live-json-patch.js';
import { paced } from './live-pacing.js';
import { LIVE_PATCH_EXTENSION, LIVE_PATCH_JSON_PATCH, unknownLivePatch } from './live-patch-option.js';
import { changedOnly, counted, type LiveResult } from './live-results.js';
import { recordIdentifiers, sharingKey, type LiveIdentifiers, type SharingGroup } from './live-sharing.js';

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
