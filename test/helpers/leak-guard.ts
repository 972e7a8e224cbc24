/**
 * Setup file of the projects whose test files share a worker process (`isolate: false` in
 * vitest.config.ts): a file that leaves process-wide state changed fails, so that the next file
 * in the same process never runs against it. After a file's last test (and its own `afterAll`
 * hooks), the state must be as it was before its first: the environment variables, the working
 * directory, the exit code, the process's event listeners, the OpenTelemetry globals (a tracer provider set
 * with `trace.setGlobalTracerProvider` and not taken back with `trace.disable()`), timers (no
 * fake timers left installed) and the process methods tests stub (`process.exit`, the stdout and
 * stderr writers: no `vi.spyOn` left unrestored).
 *
 * The server's own module-level state (caches keyed by document, schema or database, the lazy
 * imports) holds values that depend on their key alone, so a file cannot change what another
 * reads; docs/TESTING.md "Shared workers" lists it.
 */
import { afterAll, beforeAll, expect, vi } from 'vitest';

/**
 * The process events whose listener counts are compared (those a server, a test or a library
 * may add). Not `exit` and `beforeExit`: their listeners run only when the worker process ends,
 * after its last test, so they cannot change what a later file sees; and pino adds one for each
 * logger writing to stdout (it flushes the stream at exit) that stays until the logger is
 * garbage-collected, which may be a file or two later.
 */
const PROCESS_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'message', 'disconnect', 'uncaughtException', 'unhandledRejection', 'warning'];

/** Where @opentelemetry/api keeps its registered globals (trace, context, propagation, diag). */
const OTEL_GLOBALS = Symbol.for('opentelemetry.js.api.1');

/** What a test file could leave changed for the next file of its worker process. */
function processState(): Record<string, unknown> {
  const otel = (globalThis as Record<symbol, Record<string, unknown> | undefined>)[OTEL_GLOBALS];
  return {
    env: Object.fromEntries(Object.entries(process.env).sort(([a], [b]) => a.localeCompare(b))),
    cwd: process.cwd(),
    exitCode: process.exitCode,
    listeners: Object.fromEntries(PROCESS_EVENTS.map((event) => [event, process.listenerCount(event)])),
    otelGlobals: Object.keys(otel ?? {})
      .filter((key) => key !== 'version')
      .sort(),
    fakeTimers: vi.isFakeTimers(),
    stubbed: {
      'process.exit': vi.isMockFunction(process.exit),
      'process.stdout.write': vi.isMockFunction(process.stdout.write),
      'process.stderr.write': vi.isMockFunction(process.stderr.write),
    },
  };
}

let before: Record<string, unknown>;

beforeAll(() => {
  before = processState();
});

afterAll(() => {
  expect(processState(), 'process-wide state a test file left changed (test/helpers/leak-guard.ts)').toEqual(before);
});
