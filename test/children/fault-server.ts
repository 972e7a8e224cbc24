/**
 * The server in a child process for the fault tests, started in two steps so a test can keep
 * a warm spare: it loads every module, prints `ready`, waits for a `start` line on stdin, and
 * only then opens the database (`startServer` with the CLI's options, silent logger) and
 * prints `listening on <url>`. SIGTERM closes it cleanly (exit 0).
 *
 * Usage: `node --import tsx test/children/fault-server.ts --db <file> --project <dir> [CLI options]`
 */
import { pino } from 'pino';
import { startServer } from '../../src/server/app.js';
import { parseServerConfig } from '../../src/server/config.js';

const config = parseServerConfig([...process.argv.slice(0, 2), '--port', '0', ...process.argv.slice(2)]);
process.stdout.write('ready\n');
await new Promise<void>((resolve) => {
  let input = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    input += chunk;
    if (input.includes('start\n')) resolve();
  });
});
try {
  const server = await startServer(config, { logger: pino({ level: 'silent' }) });
  process.stdout.write(`listening on ${server.url}\n`);
  process.on('SIGTERM', () => {
    void server.close().then(() => process.exit(0));
  });
} catch (error) {
  process.stderr.write(`fault-server: ${(error as Error).message}\n`);
  process.exit(1);
}
