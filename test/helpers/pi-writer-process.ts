/**
 * A pi-workflows host in a second process beside the server (docs/PI-WORKFLOWS-FILES.md §6):
 * starts test/children/pi-writer.ts on a state file and sends it requests; each request is
 * one pi-workflows store call (its own `BEGIN IMMEDIATE` transaction), answered in order.
 */
import { spawnReadyChild, type ChildProcessHandle } from './live-fixtures.js';
import type { PiWriterOps } from '../children/pi-writer.js';

export type { PiWriterOps, RaceClaim } from '../children/pi-writer.js';

/** The running writer process. */
export interface PiWriterProcess {
  /** Sends one request; resolves with its result, rejects with the child's error text. */
  call<Op extends keyof PiWriterOps>(op: Op, args: PiWriterOps[Op]['args']): Promise<PiWriterOps[Op]['result']>;
  /** Asks it to close the file and exit; resolves with the exit code. */
  exit(): Promise<number | string>;
  /** The child process (to kill it in cleanup). */
  handle: ChildProcessHandle;
}

/**
 * Starts the writer process on `path` and waits until it opened the file.
 *
 * @throws Error when the child exits or does not get ready within the collector's timeout
 */
export async function startPiWriterProcess(path: string, label = 'pi-writer'): Promise<PiWriterProcess> {
  const handle = await spawnReadyChild('test/children/pi-writer.ts', [path], label, 'the pi-workflows writer to open the file');
  let nextId = 1;
  const call = async <Op extends keyof PiWriterOps>(op: Op, args: PiWriterOps[Op]['args']): Promise<PiWriterOps[Op]['result']> => {
    const id = nextId;
    nextId += 1;
    handle.send(JSON.stringify({ ...args, id, op }));
    await handle.lines.until((lines) => lines.some((line) => line.id === id), `the answer to ${op} #${id}`, 60_000);
    const answer = handle.lines.events.find((line) => line.id === id) as { result?: unknown; error?: string };
    if (answer.error !== undefined) throw new Error(`pi writer ${op}: ${answer.error}\n${handle.stderr()}`);
    return answer.result as PiWriterOps[Op]['result'];
  };
  return {
    call,
    handle,
    async exit() {
      await call('exit', {});
      return handle.exited;
    },
  };
}
