/**
 * The CLI entry: `npm start [-- options]`. Starts the server on the embedded default database
 * (created with its migrations on first start) and stops cleanly on SIGINT/SIGTERM.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { startServer } from './app.js';
import { parseServerConfig } from './config.js';

const config = parseServerConfig(process.argv);
if (config.dbPath !== ':memory:' && !config.readOnly) mkdirSync(dirname(config.dbPath), { recursive: true });

try {
  const server = await startServer(config);
  const runs = server.store.countWorkflowRuns();
  server.logger.info({ url: server.url, database: config.dbPath, runs, readOnly: config.readOnly }, 'listening');
  process.stdout.write(
    `\npi-workflows-graphql listening on ${server.url}\n` +
      `  GraphiQL:  open ${server.url} in a browser\n` +
      `  Live page: ${server.url.replace(/\/graphql$/, '/')}\n` +
      `  WebSocket: ${server.url.replace(/^http/, 'ws')} (graphql-transport-ws)\n` +
      `  Database:  ${config.dbPath} (${runs} runs${config.readOnly ? ', read-only' : ''})\n` +
      `  Health:    ${server.url.replace(/\/graphql$/, '/health')}\n\n`,
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    server.logger.info({ signal }, 'shutting down: finishing in-flight requests');
    server.close().then(
      () => {
        server.logger.info('database closed, bye');
        process.exit(0);
      },
      (error: unknown) => {
        server.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
} catch (error) {
  process.stderr.write(`pi-workflows-graphql: ${(error as Error).message}\n`);
  process.exit(1);
}
