/**
 * The CLI entry: `npm start [-- options]` (through tsx) and `npm run start:prod` (the built
 * `dist/server/main.js`, plain node). Starts the server on the embedded default database
 * (created with its migrations on first start).
 *
 * Output: stdout carries only the JSON log lines (pino), so `| jq` works; the human banner
 * and start errors go to stderr.
 *
 * Signals: SIGTERM and SIGINT (what systemd, container runtimes and Ctrl-C send) close the
 * server — graphql-ws subscribers get a close, in-flight requests finish (at most 2 s), the
 * database is closed — and the process exits 0. A second signal exits 1 at once, unless it
 * is the same signal within {@link REPEATED_SIGNAL_MS} of the first: Ctrl-C in a terminal
 * signals the whole foreground process group, so under `npm start` it reaches this process
 * twice (once from the terminal, once forwarded by npm) a few ms apart — that is one Ctrl-C,
 * and the shutdown goes on. The npm scripts `exec` node, so a signal sent to the process npm
 * started reaches this one.
 */
import { startServer, type RunningServer } from './app.js';
import { DEFAULT_DB_PATH, parseServerConfig } from './config.js';
import { prepareDatabaseDirectory } from './database/database-directory.js';
import { describeStartError } from './start-errors.js';
import { databaseKindHealth, describeDatabase } from './database/state-file.js';

const config = parseServerConfig(process.argv);

try {
  prepareDatabaseDirectory(config.dbPath, DEFAULT_DB_PATH, {
    readOnly: config.readOnly,
    option: process.env.PI_WORKFLOWS_DB !== undefined && !process.argv.some((arg) => arg === '--db' || arg.startsWith('--db=')) ? 'PI_WORKFLOWS_DB' : '--db',
  });
} catch (error) {
  process.stderr.write(`pi-workflows-graphql: ${(error as Error).message}\n`);
  process.exit(1);
}

/**
 * The same signal again within this many ms of the first is the same request (a terminal's
 * Ctrl-C reaching both npm and node, npm forwarding its copy), not a second one.
 */
const REPEATED_SIGNAL_MS = 500;

/** The running server, once started. */
let server: RunningServer | undefined;
/** The first SIGTERM/SIGINT, once one arrived (the handlers are in place before the server starts). */
let stopSignal: NodeJS.Signals | undefined;
/** `performance.now()` when {@link stopSignal} arrived. */
let stopSignalAt = 0;

function stop(signal: NodeJS.Signals): void {
  if (stopSignal !== undefined) {
    if (signal === stopSignal && performance.now() - stopSignalAt < REPEATED_SIGNAL_MS) return;
    if (server === undefined) process.stderr.write(`pi-workflows-graphql: second signal (${signal}): exiting without waiting\n`);
    else server.logger.warn({ signal }, 'second signal: exiting without waiting');
    process.exit(1);
  }
  stopSignal = signal;
  stopSignalAt = performance.now();
  if (server !== undefined) closeAndExit(server, signal);
  // else: still starting; closed as soon as it is up
}

function closeAndExit(running: RunningServer, signal: NodeJS.Signals): void {
  running.logger.info({ signal }, 'shutting down: finishing in-flight requests');
  running.close().then(
    () => {
      running.logger.info('database closed, bye');
      process.exit(0);
    },
    (error: unknown) => {
      running.logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    },
  );
}

process.on('SIGINT', stop);
process.on('SIGTERM', stop);

try {
  server = await startServer(config);
} catch (error) {
  process.stderr.write(`pi-workflows-graphql: ${describeStartError(error, { host: config.host, port: config.port, portOption: '--port N' })}\n`);
  process.exit(1);
}
const runs = server.store.countWorkflowRuns();
server.logger.info({ url: server.url, database: config.dbPath, runs, ...databaseKindHealth(server.store) }, 'listening');
process.stderr.write(
  `\npi-workflows-graphql listening on ${server.url}\n` +
    `  GraphiQL:  open ${server.url} in a browser\n` +
    `  Live page: ${server.url.replace(/\/graphql$/, '/')}\n` +
    `  WebSocket: ${server.url.replace(/^http/, 'ws')} (graphql-transport-ws)\n` +
    `  Database:  ${config.dbPath} (${describeDatabase(server.store, runs)})\n` +
    (config.replica == null ? '' : `  Replica of: ${config.replica} (mutations go there; docs/DEPLOYMENT.md)\n`) +
    (config.tracing == null
      ? ''
      : `  Tracing:   OTLP ${config.tracing.protocol} to ${process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? process.env.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'the SDK default endpoint'} (docs/TRACING.md)\n`) +
    `  Health:    ${server.url.replace(/\/graphql$/, '/health')}\n\n`,
);
if (stopSignal !== undefined) closeAndExit(server, stopSignal);
