/**
 * Child process of test/live/shutdown.test.ts: the real server on 127.0.0.1:0 over the given database.
 *
 * argv: <dbPath> <projectPath>
 * stdin: `waiters` (prints the feed's waiter count), `close` (closes the server; the process
 *   must then exit by itself: nothing may keep its event loop alive or busy)
 * stdout: `{"url":…}`, `{"waiters":n}`, `{"closed":true}`
 */
import { createInterface } from 'node:readline';
import { pino } from 'pino';
import { startServer } from '../../src/server/app.js';
import { testServerConfig } from '../helpers/server-config.js';

const [dbPath, projectPath] = process.argv.slice(2);
if (dbPath === undefined || projectPath === undefined) throw new Error('usage: shutdown-server.ts <dbPath> <projectPath>');
const server = await startServer(testServerConfig(dbPath, projectPath), { logger: pino({ level: 'silent' }) });
const print = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value)}\n`);
};
const input = createInterface({ input: process.stdin });
input.on('line', (line) => {
  const command = line.trim();
  if (command === 'waiters') print({ waiters: server.feed.waiterCount });
  else if (command === 'close') {
    input.close();
    process.stdin.destroy();
    void server.close().then(() => print({ closed: true }));
  }
});
print({ url: server.url });
