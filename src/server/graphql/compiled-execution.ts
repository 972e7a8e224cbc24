import { useGraphQlJit } from '@envelop/graphql-jit';
import { getOperationAST, getVariableValues, GraphQLError, type DocumentNode, type ExecutionArgs, type ExecutionResult, type Source } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * Compiled execution (graphql-jit through `@envelop/graphql-jit`) of queries and mutations, on
 * by default; the figures and the reasons are in bench/README.md "Compiled execution".
 * Subscriptions (src/delivery/shared-event-execution.ts) and `@live` queries
 * (src/server/live/live-queries.ts) always run on graphql-js.
 */

/** The environment variable that turns compiled execution off (`0`); on otherwise (the default). */
export const COMPILED_EXECUTION_ENV = 'PI_WORKFLOWS_GRAPHQL_JIT';

/** Whether compiled execution is on: unless {@link COMPILED_EXECUTION_ENV} is `0`. */
export function compiledExecutionEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[COMPILED_EXECUTION_ENV] !== '0';
}

/** Executions so far of each parsed document (yoga's parse cache hands equal texts the same object), up to the first. */
const executions = new WeakMap<DocumentNode, number>();

/**
 * Whether `args` runs compiled: from a document's second execution on, a query or mutation
 * without `@live` whose variables graphql-js accepts (graphql-jit coerces variables with its own
 * code and its own error texts: a request graphql-js refuses runs through graphql-js, so it is
 * refused with graphql-js's texts).
 */
function compilable(args: ExecutionArgs): boolean {
  // Compiling costs ≈ 2 ms per document (bench/README.md "Compiled execution"): a document runs
  // compiled from its second execution on, so one sent once (e.g. with inline values) never pays it.
  const seen = executions.get(args.document) ?? 0;
  if (seen < 1) {
    executions.set(args.document, seen + 1);
    return false;
  }
  const operation = getOperationAST(args.document, args.operationName);
  if (operation == null || operation.operation === 'subscription') return false;
  if ((operation.directives ?? []).some((directive) => directive.name.value === 'live')) return false;
  const definitions = operation.variableDefinitions ?? [];
  if (definitions.length === 0) return true;
  return !('errors' in getVariableValues(args.schema, definitions, (args.variableValues ?? {}) as Record<string, unknown>, { maxErrors: 50 }));
}

/** The offset in `source` of a 1-based line and column (graphql-js's `getLocation` reversed). */
function positionOf(source: Source, line: number, column: number): number {
  const lineBreak = /\r\n|[\n\r]/g;
  let lineStart = 0;
  for (let current = 1; current < line; current += 1) {
    const match = lineBreak.exec(source.body);
    if (match === null) break;
    lineStart = match.index + match[0].length;
  }
  return lineStart + column - 1;
}

/**
 * graphql-jit's errors carry `locations` but no `nodes`, `source` or `positions`, from which
 * yoga rebuilds every error it answers (and masks): the same error as a graphql-js
 * `GraphQLError` at the same source positions, so answers keep their `locations`.
 */
/** A graphql-js `GraphQLError` (its constructor always sets `nodes`); graphql-jit's own have none. */
const fromGraphQLJs = (error: GraphQLError): boolean => Object.hasOwn(error, 'nodes');

function withGraphQLErrors(result: ExecutionResult, args: ExecutionArgs): ExecutionResult {
  if (result.errors === undefined || result.errors.every(fromGraphQLJs)) return result;
  const source = args.document.loc?.source;
  return {
    ...result,
    errors: result.errors.map((error) => {
      if (fromGraphQLJs(error)) return error;
      const positions = source === undefined ? undefined : (error.locations ?? []).map((location) => positionOf(source, location.line, location.column));
      return new GraphQLError(error.message, {
        ...(source === undefined || positions === undefined || positions.length === 0 ? {} : { source, positions }),
        path: error.path ?? null,
        originalError: error.originalError ?? null,
        ...(error.extensions === undefined ? {} : { extensions: error.extensions }),
      });
    }),
  };
}

type Execute = (args: ExecutionArgs) => ExecutionResult | Promise<ExecutionResult>;

/** Wraps the execute function set before it (graphql-jit's) with {@link withGraphQLErrors}. */
const graphqlErrorsPlugin: Plugin = {
  onExecute({ executeFn, setExecuteFn }) {
    const inner = executeFn as unknown as Execute;
    const wrapped: Execute = (args) => {
      const result = inner(args);
      return result instanceof Promise ? result.then((value) => withGraphQLErrors(value, args)) : withGraphQLErrors(result, args);
    };
    setExecuteFn(wrapped as unknown as typeof executeFn);
  },
};

/**
 * The envelop plugins of compiled execution when `enabled` (none otherwise): graphql-jit for
 * the requests {@link compilable} admits, its errors made graphql-js errors.
 */
export function compiledExecutionPlugins(enabled: boolean): Plugin[] {
  if (!enabled) return [];
  return [useGraphQlJit({}, { enableIf: compilable }) as Plugin, graphqlErrorsPlugin];
}
