import { useGraphQlJit } from '@envelop/graphql-jit';
import { getOperationAST, type ExecutionArgs } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/** The environment variable that turns compiled execution on (`1`) or off (`0`). */
export const COMPILED_EXECUTION_ENV = 'PI_WORKFLOWS_GRAPHQL_JIT';

/** Whether compiled execution is on: read from {@link COMPILED_EXECUTION_ENV} (default off). */
export function compiledExecutionEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[COMPILED_EXECUTION_ENV] === '1';
}

function compilable(args: ExecutionArgs): boolean {
  const operation = getOperationAST(args.document, args.operationName);
  if (operation == null || operation.operation === 'subscription') return false;
  return !(operation.directives ?? []).some((directive) => directive.name.value === 'live');
}

/** graphql-jit for queries and mutations (not subscriptions, not `@live`), when on. */
export function compiledExecutionPlugins(enabled: boolean): Plugin[] {
  if (!enabled) return [];
  return [useGraphQlJit({}, { enableIf: compilable }) as Plugin];
}
