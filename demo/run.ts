/**
 * `npm run demo`: the GraphQL server (in this process) and the demo workflow host (a separate
 * child process writing the same database file through the store), so the live page at
 * http://127.0.0.1:4100/ and every subscription show changes made by another process. The demo
 * has its own default port (4100) and database, so it runs beside `npm start` (4000).
 * A port in use, or a database in a missing directory, is one line on stderr and exit 1.
 * Ctrl-C stops the host loop, closes both stores and stops the server.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import { startServer } from '../src/server/app.js';
import { prepareDatabaseDirectory } from '../src/server/database/database-directory.js';
import { createLogger } from '../src/server/ops/logger.js';
import { describeStartError } from '../src/server/start-errors.js';
import { createPiWorkflowsFile } from '../fixtures/pi-workflows-file.js';
import { DEMO_DB_PATH, DEMO_PI_WORKFLOWS_PATH, DEMO_PORT, integer } from './options.js';
import { spawnHost } from './spawn-host.js';

const program = new Command()
  .name('npm run demo --')
  .description('Starts the server and a demo workflow host driving run lifecycles in the same database.')
  .addOption(new Option('--chains <n>', 'chains driven side by side (one origin session each)').default(3).argParser(integer(1, 100)))
  .addOption(new Option('--interval-ms <ms>', 'pause between two host steps (lower = faster)').default(500).argParser(integer(1, 600_000)))
  .addOption(new Option('--seed <n>', 'PRNG seed: the same seed replays the same steps').default(7).argParser(integer(0, 4_294_967_295)))
  .addOption(
    new Option('--db <path>', 'SQLite database file shared by server and host (default data/demo.db; with --pi-workflows data/demo-pi-workflows.sqlite)'),
  )
  .addOption(
    new Option(
      '--pi-workflows',
      "a pi-workflows state file instead of the server's own database: created with pi-workflows 0.16's layout when there is none, so the server serves it as it serves a Pi user's file",
    ),
  )
  .addOption(new Option('--port <port>', 'server port (0 = any free port)').default(DEMO_PORT).argParser(integer(0, 65_535)))
  .addOption(new Option('--host <address>', 'server bind address').default('127.0.0.1'))
  .addOption(new Option('--log-level <level>', 'server log level').default('warn').choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']))
  .addHelpText('after', '\nExamples:\n  npm run demo\n  npm run demo -- --pi-workflows\n  npm run demo -- --chains 6 --interval-ms 150 --seed 42 --port 4101');
program.parse(process.argv);
const options = program.opts<{
  chains: number;
  intervalMs: number;
  seed: number;
  db?: string;
  piWorkflows?: boolean;
  port: number;
  host: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}>();

const dbPath = resolve(options.db ?? (options.piWorkflows === true ? DEMO_PI_WORKFLOWS_PATH : DEMO_DB_PATH));
/** Ends the demo before anything started: one line on stderr, exit 1 (no stack trace). */
function fail(message: string): never {
  process.stderr.write(`demo: ${message}\n`);
  process.exit(1);
}
try {
  prepareDatabaseDirectory(dbPath, DEMO_DB_PATH);
  // pi-workflows' own layout (the tests' builder of it), as pi-workflows creates the file on its first run.
  if (options.piWorkflows === true && !existsSync(dbPath)) createPiWorkflowsFile(dbPath).close();
} catch (error) {
  fail((error as Error).message);
}
const logger = createLogger(options.logLevel);
const server = await startServer(
  {
    dbPath,
    port: options.port,
    host: options.host,
    readOnly: false,
    token: null,
    projectPath: process.cwd(),
    pollIntervalMs: 25,
    keepAliveMs: 12_000,
    maxBodyBytes: 2_097_152,
    logLevel: options.logLevel,
  },
  { logger },
).catch((error: unknown) => fail(describeStartError(error, { host: options.host, port: options.port, portOption: '--port N' })));
const base = server.url.replace(/\/graphql$/, '');
process.stdout.write(
  `\npi-workflows-graphql demo\n` +
    `  Live page: ${base}/\n` +
    `  GraphiQL:  ${server.url}\n` +
    `  Database:  ${dbPath}\n` +
    `  Host:      ${options.chains} chain(s), a step every ${options.intervalMs} ms, seed ${options.seed} — Ctrl-C stops\n\n`,
);

const host = spawnHost({ dbPath, chains: options.chains, intervalMs: options.intervalMs, seed: options.seed, stdio: ['ignore', 'inherit', 'inherit'] });
const hostExited = new Promise<number | null>((resolveExit) => host.once('exit', (code) => resolveExit(code)));

let stopping = false;
async function stop(signal: NodeJS.Signals | 'host-exit'): Promise<void> {
  if (stopping) return;
  stopping = true;
  if (signal !== 'host-exit' && host.exitCode === null && host.signalCode === null) host.kill(signal);
  const code = await hostExited;
  await server.close();
  process.stdout.write(`[demo] host exited (${code ?? 'signal'}), server stopped, database closed\n`);
  process.exit(signal === 'host-exit' && code !== 0 ? 1 : 0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
void hostExited.then(() => stop('host-exit'));
