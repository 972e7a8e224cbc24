#!/usr/bin/env node
/**
 * The CLI entry: `npm start [-- options]` (through tsx), and the built `dist/server/main.js`
 * (plain node) run by `npm run start:prod` and by the npm package's bin `pi-workflows-graphql`
 * (`npx pi-workflows-graphql`; package.json "bin", hence the `#!` line, which tsc keeps). Starts
 * the server on the embedded default database (created with its migrations on first start), or
 * on the file `--db` or `--pi` names.
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
 *
 * Workers (`--workers N`, default the cores; docs/OPERATIONS.md "Workers"): this process becomes
 * the cluster's primary (src/server/cluster/primary.ts), which forks N workers running this same
 * file; each worker starts the server (they share the port through node:cluster) and tells the
 * primary it listens, or why it could not start. An in-memory database or replica mode keeps one
 * process (`singleProcessReason`).
 */
import type { RunningServer } from './app.js';
import { runPrimary, singleProcessReason } from './cluster/primary.js';
import { workerLink } from './cluster/worker-link.js';
import { DEFAULT_DB_PATH, parseServerConfig } from './config.js';
import { createLogger } from './ops/logger.js';
import { prepareDatabaseDirectory } from './database/database-directory.js';
import { describeStartError } from './start-errors.js';
import { databaseKindHealth, describeDatabase } from './database/state-file.js';
import { NEW_DATABASE_LOG, newDatabaseNotice, withNewDatabaseNotice } from './database/new-database.js';

const config = parseServerConfig(process.argv);
/** Set when this process is a worker of the cluster. */
const link = workerLink();

/** The database file this start creates, told in the banner; decided before any process opens it. */
const notice = link === undefined && !config.readOnly ? newDatabaseNotice(config.dbPath) : null;

/** How the user named the database, for the directory check's message. */
function databaseOption(): string {
  if (process.argv.includes('--pi')) return '--pi';
  const onCommandLine = process.argv.some((arg) => arg === '--db' || arg.startsWith('--db='));
  return process.env.PI_WORKFLOWS_DB !== undefined && !onCommandLine ? 'PI_WORKFLOWS_DB' : '--db';
}

// The primary checked the directory before it forked.
if (link === undefined)
  try {
    prepareDatabaseDirectory(config.dbPath, DEFAULT_DB_PATH, {
      readOnly: config.readOnly,
      option: databaseOption(),
    });
  } catch (error) {
    process.stderr.write(`pi-workflows-graphql: ${(error as Error).message}\n`);
    process.exit(1);
  }

const requestedWorkers = config.workers ?? 1;
const oneProcess = singleProcessReason(config);
if (link === undefined && requestedWorkers > 1 && oneProcess === null) {
  // The primary forks, forwards signals and exits with its workers; it never starts a server.
  await runPrimary(config, requestedWorkers, notice);
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

const logger = createLogger(config.logLevel, link === undefined ? {} : { worker: link.id, pid: link.pid });
if (link === undefined && requestedWorkers > 1 && oneProcess !== null) {
  logger.info({ workers: 1, requested: requestedWorkers, reason: oneProcess }, `one process instead of ${requestedWorkers} workers: ${oneProcess}`);
}
try {
  // Loaded here, not at the top: the primary never starts a server and stays small.
  const { startServer } = await import('./app.js');
  server = await startServer(config, { logger, ...(link === undefined ? {} : { cluster: link }) });
} catch (error) {
  const text = describeStartError(error, { host: config.host, port: config.port, portOption: '--port N' });
  // A worker's failure is printed once, by the primary, which exits with it.
  if (link === undefined) process.stderr.write(`pi-workflows-graphql: ${text}\n`);
  else await link.startFailed(text);
  process.exit(1);
}
const runs = server.store.countWorkflowRuns();
server.logger.info({ url: server.url, database: config.dbPath, runs, ...databaseKindHealth(server.store) }, 'listening');
if (notice !== null) server.logger.warn({ database: notice.path, stateFiles: notice.stateFiles }, NEW_DATABASE_LOG);
const banner = withNewDatabaseNotice(
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
  notice,
);
if (link === undefined) process.stderr.write(banner);
else link.ready(server.url, banner);
if (stopSignal !== undefined) closeAndExit(server, stopSignal);
