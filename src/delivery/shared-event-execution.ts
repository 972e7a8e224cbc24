import { createSourceEventStream, execute, type ExecutionArgs, type ExecutionResult, type subscribe } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { attachReceiver } from './pull-stream.js';
import { eventResultKey } from './event-result-key.js';

/**
 * One execution per subscription event, shared by every subscriber that gets the same result
 * (bench/README.md "Where the time goes"), as an envelop plugin: every transport's
 * subscriptions (graphql-ws and SSE) run through it, inside yoga's pipeline, so masking,
 * redaction and logging see each event's result like any other.
 *
 * The plugin replaces the engine's `subscribe` with graphql-js's own algorithm
 * (`createSourceEventStream`, then `execute` per event with the event as root value), except
 * that the result of an event is looked up before executing: the change feed hands every
 * subscriber the same (immutable) event object for a revision, so subscribers whose
 * {@link eventResultKey} is equal (document, operation, the variables the selection reads, the
 * caller's scope — not the cursor, not the run) share one execution.
 *
 * Memory: subscribers with equal keys form a group; a group keeps a result until every member
 * has received it, or until it holds more than `maxResultsPerGroup` (the oldest goes first: a
 * member that will never receive a result, e.g. one that started after that revision, cannot hold
 * it forever), and disappears with its last member. Nothing outlives the subscriptions.
 *
 * Results depend on the event, the store's committed state and the key only, never on one
 * subscriber's context: the execution runs with the context of the subscriber that asked first.
 *
 * The direct route (src/delivery/index.ts): a subscriber whose context carries a
 * {@link DirectNext} (graphql-ws, src/server/graphql/graphql-ws.ts) and whose source is a feed
 * stream gets each event's result inside the feed's wake-up, synchronously (the stream's
 * `handOver` to this plugin's receiver, pull-stream.ts): the shared result is
 * executed once (synchronously) and written to the socket at once, with no async-iterator
 * step, promise or envelop wrapper per subscriber and event. Only when that subscriber's
 * consumer (graphql-ws) waits for its next result and its previous frame was flushed (the
 * bound graphql-ws keeps by awaiting each send), and only for results without `errors`: the
 * only per-result envelop hook of a subscription is error masking (`useMaskedErrors`), which
 * leaves such a result as it is; a result with errors, an execution that is not synchronous, a
 * consumer that is busy or a socket that has not flushed go the pulled route (next() through
 * envelop and graphql-ws), which then carries on from the same cursor, in order.
 */

/**
 * A subscriber's direct `next` writer (the direct route's last hand-over, see the module
 * comment), on its context under {@link DIRECT_NEXT_KEY}.
 */
export interface DirectNext {
  /** True when a frame may be written now: socket open, operation active, previous frame flushed. */
  ready(): boolean;
  /** Frames the `next` message of `result` (no `errors`) for the socket; only after {@link ready}, in the same turn. */
  handOver(result: ExecutionResult): void;
}

/** The context property that carries a subscriber's {@link DirectNext}. */
export const DIRECT_NEXT_KEY = 'directNext';

/** Options of {@link createSharedEventExecution}. */
export interface SharedEventExecutionOptions<TContext> {
  /**
   * The caller's authorisation scope (`read`, `write`): results are shared only between
   * subscribers with the same scope.
   */
  scopeOf: (context: TContext) => string;
  /**
   * Most results one group keeps at once; default {@link DEFAULT_MAX_RESULTS_PER_GROUP}.
   */
  maxResultsPerGroup?: number;
}

/**
 * Default of {@link SharedEventExecutionOptions.maxResultsPerGroup}: the retained delta window
 * (VIEWER_RETENTION, docs/STORE-RULES.md §8), so subscribers replaying the whole window at different
 * cursors still execute each revision once.
 */
export const DEFAULT_MAX_RESULTS_PER_GROUP = 256;

/** Counters of a {@link SharedEventExecution} (tests, benchmarks). */
export interface SharedEventExecutionStats {
  /** Events executed since start. */
  readonly executed: number;
  /** Events answered with a result another subscriber's execution produced. */
  readonly shared: number;
  /** Results handed straight to a subscriber's socket by the direct route (see the module comment). */
  readonly direct: number;
  /** Subscriptions currently registered (streams not yet ended). */
  readonly subscribers: number;
  /** Groups (distinct keys) with at least one subscriber. */
  readonly groups: number;
  /** Results currently held for members that have not received them yet. */
  readonly heldResults: number;
  /**
   * Calls `listener` with {@link subscribers} each time a subscription joins or leaves. A test
   * hook: tests await "every stream left" on it instead of polling.
   *
   * @returns a function that removes the listener
   */
  onSubscribers(listener: (subscribers: number) => void): () => void;
}

/** The plugin and its counters. */
export interface SharedEventExecution {
  /** Add to yoga's `plugins`. */
  plugin: Plugin;
  stats: SharedEventExecutionStats;
}

interface SharedResult {
  result: Promise<ExecutionResult>;
  /** The result, when the execution returned it synchronously. */
  value: ExecutionResult | undefined;
  /** Members that received it. */
  receivers: Set<number>;
  /** The member whose execution produced it (it does not count as sharing it). */
  executor: number;
}

interface Group {
  members: Set<number>;
  /** Per event object, in creation order (the first is the oldest). */
  results: Map<object, SharedResult>;
}

/** What a subscription uses from its group. */
interface Membership {
  /** The result of `event`, shared when the group has it, else `run()` (then kept for the others). */
  resultOf(event: unknown, run: () => ExecutionResult | Promise<ExecutionResult>): Promise<ExecutionResult>;
  /**
   * The result of `event` when it is at hand synchronously: shared, or `run()` returned it
   * without a promise (then kept for the others). Undefined otherwise (an asynchronous
   * execution is kept for {@link resultOf}). The member does not count as having received it
   * until {@link received}.
   */
  syncResultOf(event: object, run: () => ExecutionResult | Promise<ExecutionResult>): ExecutionResult | undefined;
  /** The member received the result of `event` through {@link syncResultOf}. */
  received(event: object): void;
  /** Leaves the group. Idempotent. */
  leave(): void;
}

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

function isPromiseLike(value: unknown): value is PromiseLike<ExecutionResult> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** Per result stream of {@link eventResults}: adds a listener called once when it ends. */
const endHooks = new WeakMap<object, (listener: () => void) => void>();

/**
 * Calls `listener` once when `results` ends (source done, `return`, `throw`, an error), if
 * `results` is a subscription's result stream made by this plugin — so the live-subscription
 * gauge (metrics.ts) counts it without a wrapper around every stream. An
 * already ended stream calls it at once.
 *
 * @returns false when `results` is not such a stream (the caller wraps it instead)
 */
export function onResultsEnd(results: unknown, listener: () => void): boolean {
  const hook = typeof results === 'object' && results !== null ? endHooks.get(results) : undefined;
  if (hook === undefined) return false;
  hook(listener);
  return true;
}

/**
 * Creates the plugin (see the module comment) and its counters.
 *
 * @returns the plugin for yoga's `plugins` and live counters
 */
export function createSharedEventExecution<TContext>(options: SharedEventExecutionOptions<TContext>): SharedEventExecution {
  const maxResults = options.maxResultsPerGroup ?? DEFAULT_MAX_RESULTS_PER_GROUP;
  const groups = new Map<string, Group>();
  let nextMember = 1;
  const counters = { executed: 0, shared: 0, direct: 0 };
  const subscriberListeners = new Set<(subscribers: number) => void>();
  const subscribersChanged = (): void => {
    if (subscriberListeners.size === 0) return;
    const count = stats.subscribers;
    for (const listener of subscriberListeners) listener(count);
  };

  function join(key: string): Membership {
    let group = groups.get(key);
    if (group === undefined) {
      group = { members: new Set(), results: new Map() };
      groups.set(key, group);
    }
    const joined = group;
    const member = nextMember;
    nextMember += 1;
    joined.members.add(member);
    subscribersChanged();
    let left = false;
    const keep = (event: object, shared: SharedResult): void => {
      joined.results.set(event, shared);
      if (joined.results.size > maxResults) joined.results.delete(joined.results.keys().next().value as object);
    };
    /** A result still being executed by this member; once resolved, members still to receive it get it synchronously (syncResultOf). */
    const pending = (result: Promise<ExecutionResult>): SharedResult => {
      const created: SharedResult = { result, value: undefined, receivers: new Set(), executor: member };
      result.then(
        (value) => {
          created.value = value;
        },
        () => undefined,
      );
      return created;
    };
    const receive = (event: object, shared: SharedResult): void => {
      shared.receivers.add(member);
      if (shared.receivers.size >= joined.members.size) joined.results.delete(event);
    };
    return {
      resultOf(event, run) {
        if (left || typeof event !== 'object' || event === null) {
          counters.executed += 1;
          return new Promise((resolve) => resolve(run()));
        }
        let shared = joined.results.get(event);
        if (shared === undefined) {
          counters.executed += 1;
          shared = pending(new Promise((resolve) => resolve(run())));
          keep(event, shared);
        } else if (shared.executor !== member) {
          counters.shared += 1;
        }
        receive(event, shared);
        return shared.result;
      },
      syncResultOf(event, run) {
        if (left) return undefined;
        const shared = joined.results.get(event);
        if (shared !== undefined) return shared.value;
        counters.executed += 1;
        let value: ExecutionResult | Promise<ExecutionResult>;
        try {
          value = run();
        } catch (error) {
          value = Promise.reject(error);
        }
        if (isPromiseLike(value)) {
          // Left for resultOf() (a member may leave before it awaits it).
          keep(event, pending(Promise.resolve(value)));
          return undefined;
        }
        keep(event, { result: Promise.resolve(value), value, receivers: new Set(), executor: member });
        return value;
      },
      received(event) {
        const shared = joined.results.get(event);
        if (shared === undefined) return;
        if (shared.executor !== member) counters.shared += 1;
        receive(event, shared);
      },
      leave() {
        if (left) return;
        left = true;
        joined.members.delete(member);
        if (joined.members.size === 0) {
          groups.delete(key);
        } else {
          for (const [event, shared] of joined.results) {
            shared.receivers.delete(member);
            if (shared.receivers.size >= joined.members.size) joined.results.delete(event);
          }
        }
        subscribersChanged();
      },
    };
  }

  async function sharedSubscribe(args: ExecutionArgs): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
    const source = await createSourceEventStream(args);
    if (!(Symbol.asyncIterator in source)) return source;
    const scope = options.scopeOf(args.contextValue as TContext);
    const membership = join(eventResultKey(args.document, args.operationName, args.variableValues, scope));
    const direct = (args.contextValue as Record<string, unknown> | null | undefined)?.[DIRECT_NEXT_KEY] as DirectNext | undefined;
    return eventResults(source, args, membership, direct, counters);
  }

  const plugin: Plugin = {
    onSubscribe({ setSubscribeFn }) {
      setSubscribeFn(sharedSubscribe as typeof subscribe);
    },
  };

  const stats: SharedEventExecutionStats = {
    get executed() {
      return counters.executed;
    },
    get shared() {
      return counters.shared;
    },
    get direct() {
      return counters.direct;
    },
    get subscribers() {
      let count = 0;
      for (const group of groups.values()) count += group.members.size;
      return count;
    },
    get groups() {
      return groups.size;
    },
    get heldResults() {
      let count = 0;
      for (const group of groups.values()) count += group.results.size;
      return count;
    },
    onSubscribers(listener) {
      subscriberListeners.add(listener);
      return () => subscriberListeners.delete(listener);
    },
  };
  return { plugin, stats };
}

/**
 * Maps a source event stream to its results (graphql-js's MapSourceToResponseEvent), through the
 * group's shared results. Once ended (source done, `return`, `throw`, an error) it leaves the
 * group and yields nothing more: an event that arrives while `return` is under way is dropped,
 * so nothing is sent for an operation after the client completed it.
 */
function eventResults(
  source: AsyncIterable<unknown>,
  args: ExecutionArgs,
  membership: Membership,
  direct: DirectNext | undefined,
  counters: { direct: number },
): AsyncIterableIterator<ExecutionResult> {
  const events = source[Symbol.asyncIterator]();
  let ended = false;
  /** The consumer waits in next() for the source's next event: a direct hand-over may stand in for it. */
  let consumerWaiting = false;
  const run = (event: unknown) => (): ExecutionResult | Promise<ExecutionResult> =>
    execute({ ...args, rootValue: event }) as ExecutionResult | Promise<ExecutionResult>;
  if (direct !== undefined) {
    // The direct route (see the module comment): true = delivered, in order, as the next result.
    attachReceiver(events, (event: unknown): boolean => {
      if (ended || !consumerWaiting || typeof event !== 'object' || event === null || !direct.ready()) return false;
      const value = membership.syncResultOf(event, run(event));
      if (value === undefined || value.errors !== undefined) return false;
      membership.received(event);
      direct.handOver(value);
      counters.direct += 1;
      return true;
    });
  }
  let endListeners: Array<() => void> | undefined;
  const end = (): void => {
    if (ended) return;
    ended = true;
    membership.leave();
    const listeners = endListeners;
    endListeners = undefined;
    if (listeners !== undefined) for (const listener of listeners) listener();
  };
  const results: AsyncIterableIterator<ExecutionResult> = {
    [Symbol.asyncIterator]() {
      return results;
    },
    async next() {
      if (ended) return DONE;
      let item: IteratorResult<unknown>;
      consumerWaiting = true;
      try {
        item = await events.next();
      } catch (error) {
        end();
        throw error;
      } finally {
        consumerWaiting = false;
      }
      if (item.done === true) {
        end();
        return DONE;
      }
      if (ended) return DONE;
      const event = item.value;
      let value: ExecutionResult;
      try {
        value = await membership.resultOf(event, run(event));
      } catch (error) {
        end();
        throw error;
      }
      if (ended) return DONE;
      return { done: false, value };
    },
    async return() {
      end();
      await events.return?.();
      return DONE;
    },
    async throw(error?: unknown) {
      end();
      if (events.throw !== undefined) await events.throw(error);
      return DONE;
    },
  };
  endHooks.set(results, (listener) => {
    if (ended) listener();
    else (endListeners ??= []).push(listener);
  });
  return results;
}
