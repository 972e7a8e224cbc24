import type { Context, Span, Tracer } from '@opentelemetry/api';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';

/**
 * The store-write spans of the opt-in OpenTelemetry tracing (docs/TRACING.md). The server's
 * tracing plugin records, per GraphQL context object, the tracer and the context of the
 * operation's `graphql.execute` span; {@link runMutation} (errors.ts) opens a
 * `pi_workflows.store.write` span under it. With tracing off nothing is recorded here and a
 * mutation costs one WeakMap look-up more.
 */
const traced = new WeakMap<object, { tracer: Tracer; parent: Context }>();

/** The span attribute holding the id of the run a write touched. */
export const RUN_ID_ATTRIBUTE = 'pi_workflows.run_id';

/**
 * Makes the store writes of the GraphQL context `contextValue` traced: their spans are children
 * of `parent` (the execute span's context), made by `tracer`.
 */
export function traceStoreWrites(contextValue: object, tracer: Tracer, parent: Context): void {
  traced.set(contextValue, { tracer, parent });
}

/** A started store-write span: end it with the run id of the result, or with the failure. */
export interface StoreWriteSpan {
  /** Ends the span; `result.run.runId` (when there is one) becomes {@link RUN_ID_ATTRIBUTE}. */
  done(result: unknown): void;
  /** Ends the span with status error and the error's `code` (typed API error) or name; never its message. */
  failed(error: unknown): void;
}

/**
 * Starts the `pi_workflows.store.write` span of a mutation's write transaction, or returns
 * undefined when `contextValue` is not traced (tracing off, or a context the plugin never saw).
 */
export function startStoreWriteSpan(contextValue: object): StoreWriteSpan | undefined {
  const found = traced.get(contextValue);
  if (found === undefined) return undefined;
  const span: Span = found.tracer.startSpan('pi_workflows.store.write', { kind: SpanKind.INTERNAL }, found.parent);
  return {
    done(result) {
      const runId = (result as { run?: { runId?: unknown } | null } | null | undefined)?.run?.runId;
      if (typeof runId === 'string') span.setAttribute(RUN_ID_ATTRIBUTE, runId);
      span.end();
    },
    failed(error) {
      const code = (error as { code?: unknown } | null)?.code;
      span.setAttribute('error.type', typeof code === 'string' ? code : error instanceof Error ? error.name : 'unknown');
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
}
