import { createSourceEventStream, execute, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';

/**
 * Results already computed for an event, per document and variables. Keyed weakly by the event
 * object: the change feed hands every subscriber at the same cursor the same (immutable) batch
 * object, so a revision fanned out to N subscribers running the same operation executes once.
 */
const shared = new WeakMap<object, Map<DocumentNode, Map<string, Promise<ExecutionResult>>>>();

/** Counts of event executions since start: `executed` ran the selection, `shared` reused a result. */
export const sharedExecutionStats = { executed: 0, shared: 0 };

function sharedExecution(event: object, args: ExecutionArgs): Promise<ExecutionResult> {
  let byDocument = shared.get(event);
  if (byDocument === undefined) {
    byDocument = new Map();
    shared.set(event, byDocument);
  }
  let byVariables = byDocument.get(args.document);
  if (byVariables === undefined) {
    byVariables = new Map();
    byDocument.set(args.document, byVariables);
  }
  const key = `${args.operationName ?? ''}\u0000${JSON.stringify(args.variableValues ?? null)}`;
  let result = byVariables.get(key);
  if (result !== undefined) {
    sharedExecutionStats.shared += 1;
  } else {
    sharedExecutionStats.executed += 1;
    result = Promise.resolve(execute({ ...args, rootValue: event }) as ExecutionResult | Promise<ExecutionResult>);
    byVariables.set(key, result);
  }
  return result;
}

/**
 * `subscribe` for graphql-ws: creates the source event stream and maps each event through
 * graphql-js `execute` as `subscribe` does, but shares the result of one event between every
 * subscription running the same document (the server parses equal query texts into one
 * DocumentNode) with the same variables. Results depend on the event and the store only, never
 * on the subscriber.
 *
 * @param finish applied to an ExecutionResult returned instead of a stream (errors)
 * @returns the mapped event stream, or the ExecutionResult with the errors
 */
export async function sharedSubscribe(
  args: ExecutionArgs,
  finish: (result: ExecutionResult) => ExecutionResult = (result) => result,
): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const source = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in source)) return finish(source as ExecutionResult);
  const events = (source as AsyncIterable<unknown>)[Symbol.asyncIterator]();
  const mapped: AsyncIterableIterator<ExecutionResult> = {
    [Symbol.asyncIterator]() {
      return mapped;
    },
    async next() {
      const item = await events.next();
      if (item.done === true) return { done: true, value: undefined };
      const event = item.value;
      const value =
        typeof event === 'object' && event !== null
          ? await sharedExecution(event, args)
          : await execute({ ...args, rootValue: event });
      return { done: false, value };
    },
    async return() {
      await events.return?.();
      return { done: true, value: undefined };
    },
    async throw(error?: unknown) {
      if (events.throw !== undefined) await events.throw(error);
      return { done: true, value: undefined };
    },
  };
  return mapped;
}
