/**
 * The stdin/stdout loop shared by the store child processes of the live tests
 * (run-reserver.ts, writer.ts). No vitest import: a child process cannot load it.
 */
import { createInterface } from 'node:readline';
import type { WorkflowStore } from '../../src/store/index.js';

/**
 * Reads whitespace-split command lines from stdin and hands each to `onCommand`, except `exit`,
 * which closes stdin; when stdin closes, closes `store` and exits 0. Prints `{"ready":true}`
 * once listening.
 *
 * @param onCommand gets the command word and its arguments (strings, as typed).
 */
export function serveStoreCommands(store: WorkflowStore, onCommand: (command: string | undefined, args: string[]) => void): void {
  const input = createInterface({ input: process.stdin });
  input.on('line', (line) => {
    const [command, ...args] = line.trim().split(/\s+/);
    if (command === 'exit') input.close();
    else onCommand(command, args);
  });
  input.on('close', () => {
    store.close();
    process.exit(0);
  });
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
}
