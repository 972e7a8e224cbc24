/**
 * Modules the server loads when first needed rather than at start: the OTLP exporters and the
 * trace SDK (tracing on), the MCP SDK (the first `/mcp` request), the GraphiQL bundle (the first
 * GraphiQL page). A server that never gets such a request never parses them, and neither does a
 * test or a tool that imports the server.
 */

/**
 * Wraps a dynamic `import()` so that it runs on the first call of the returned function.
 * Concurrent first calls share one import (one promise); later calls get the loaded value. A
 * failed import rejects with an Error naming `what` (the import's error as `cause`) and is tried
 * again on the next call.
 *
 * @param what the module as an operator reads it in the error, e.g. `the MCP SDK (@modelcontextprotocol/sdk)`
 * @param load the `import()` (and whatever picks the parts used out of it)
 */
export function lazyImport<T>(what: string, load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw new Error(`${what} could not be loaded: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }));
}
