import { GraphQLError, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * graphql-js reports a variable that fails coercion as
 * `Variable "$input" got invalid value <the whole value> at "input.field"; <reason>`, echoing
 * the caller's input — claim tokens included — into the response. This rewrites such errors to
 * `Variable "$input" got invalid value at "input.field"; <reason>`: same path, same reason,
 * no value.
 */
export function redactVariableValue(error: GraphQLError): GraphQLError {
  const original = error.originalError;
  if (!error.message.startsWith('Variable "$') || original === undefined || original === null) return error;
  const reason = original.message;
  if (!error.message.endsWith(`; ${reason}`)) return error;
  const head = error.message.slice(0, error.message.length - reason.length - 2);
  const variable = /^Variable "\$[^"]+"/.exec(head)?.[0];
  if (variable === undefined || !head.startsWith(`${variable} got invalid value `)) return error;
  const at = / at "[^"]*"$/.exec(head)?.[0] ?? '';
  return new GraphQLError(`${variable} got invalid value${at}; ${reason}`, {
    nodes: error.nodes ?? null,
    extensions: error.extensions,
  });
}

function redactResult(result: ExecutionResult): ExecutionResult | undefined {
  if (result.errors === undefined || !result.errors.some((error) => error.message.startsWith('Variable "$'))) return undefined;
  return { ...result, errors: result.errors.map(redactVariableValue) };
}

/** A yoga plugin applying {@link redactVariableValue} to query, mutation and subscription results. */
export function redactVariableValuesPlugin(): Plugin {
  return {
    onExecute: () => ({
      onExecuteDone: ({ result, setResult }) => {
        if (Symbol.asyncIterator in result) return;
        const redacted = redactResult(result);
        if (redacted !== undefined) setResult(redacted);
      },
    }),
    onSubscribe: () => ({
      onSubscribeResult: ({ result, setResult }) => {
        if (Symbol.asyncIterator in result) return;
        const redacted = redactResult(result);
        if (redacted !== undefined) setResult(redacted);
      },
    }),
  };
}
