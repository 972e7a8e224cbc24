import { pino, type Logger } from 'pino';
import type { Plugin } from 'graphql-yoga';

/** Creates the server's structured (JSON lines) logger on stdout. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'pi-workflows-graphql' } });
}

/**
 * A yoga plugin that logs one line per HTTP request: method, path, operation name, status and
 * duration in ms. Variables, headers and bodies are never logged (they may hold claim tokens).
 */
export function requestLogPlugin(logger: Logger): Plugin {
  const started = new WeakMap<Request, number>();
  const operations = new WeakMap<Request, string | null>();
  return {
    onRequest({ request }) {
      started.set(request, performance.now());
    },
    onParams({ params, request }) {
      operations.set(request, params.operationName ?? null);
    },
    onResponse({ request, response }) {
      const start = started.get(request);
      const url = new URL(request.url);
      logger.info(
        {
          method: request.method,
          path: url.pathname,
          operationName: operations.get(request) ?? null,
          status: response.status,
          durationMs: start === undefined ? null : Math.round((performance.now() - start) * 1000) / 1000,
        },
        'request',
      );
    },
  };
}
