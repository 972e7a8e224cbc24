/**
 * Child process of the pi-workflows file tests: stands in for pi-workflows' own host, which
 * keeps its state file open read-write and commits with plain SQL (no code of this server).
 * Every command is one transaction, as the host makes them.
 *
 * argv: <path> (a file made by `createPiWorkflowsFile` with default options)
 * stdin: `delta <runId> <k>` (a timeline revision appending {k}), `wait <runId>` (the run waits
 *   for input: runs `waiting`, queue `parked`, lease released), `continue <parentRunId> <runId>`
 *   (the parked parent's queue becomes `done` and the continuation is reserved), `settle <runId>`
 *   (runs `completed`, queue `done`, lease released), `exit`
 * stdout: `{"ready":true}`, then one JSON line per command: `{"command":…,"revision":R}` or `{"command":…,"runId":…}`
 */
import { createInterface } from 'node:readline';
import { attachPiWorkflowsWriter, BUMP } from '../../fixtures/pi-workflows-file.js';

const [path] = process.argv.slice(2);
if (path === undefined) throw new Error('usage: pi-host.ts <path>');
const writer = attachPiWorkflowsWriter(path);

function handle(command: string, a: string, b: string | undefined): Record<string, unknown> {
  const now = Date.now();
  return writer.transaction(() => {
    switch (command) {
      case 'delta':
        return {
          revision: writer.recordViewerRevision(
            a,
            [{ targetType: 'timeline', targetKey: 'items', ops: [{ op: 'append', path: '/items', value: [{ k: Number(b) }] }] }],
            now,
          ),
        };
      case 'wait':
        writer.setState(a, { status: 'waiting', queueStatus: 'parked' }, now);
        writer.release(a);
        return { runId: a };
      case 'continue':
        writer.update('run_queue', { status: 'done', finished_at: now, updated_at: now }, 'run_id = ?', a);
        writer.bump(a, 'run.queue_done_for_continuation', { continuationRunId: b ?? '' }, now);
        writer.recordViewerRevision(a, BUMP, now);
        writer.reserveRun({ runId: b as string, originSessionId: 'session-1', at: now, parentRunId: a, input: { topic: 'alpha', step: 4 } });
        return { runId: b };
      case 'settle':
        writer.setState(a, { status: 'completed', queueStatus: 'done', finalOutput: { done: a } }, now);
        writer.release(a);
        return { runId: a };
      default:
        throw new Error(`unknown command ${command}`);
    }
  });
}

const input = createInterface({ input: process.stdin });
input.on('line', (line) => {
  const [command, a, b] = line.trim().split(/\s+/);
  if (command === 'exit') {
    input.close();
    return;
  }
  process.stdout.write(`${JSON.stringify({ command, ...handle(command as string, a as string, b) })}\n`);
});
input.on('close', () => {
  writer.close();
  process.exit(0);
});
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
