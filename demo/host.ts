/**
 * The demo workflow host, a process of its own: opens the database file through the store
 * (`WorkflowStore.open` on the same path as the server) and the engine-row writer
 * (`EngineRowWriter.open`: what pi-workflows' engine writes) and drives run lifecycles until
 * SIGINT/SIGTERM. `npm run demo` starts it; it also runs alone:
 *
 *   npx tsx demo/host.ts --db data/demo.db --chains 3 --interval-ms 500 --seed 7
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Command, Option } from 'commander';
import { EngineRowWriter } from '../src/store/engine-rows/index.js';
import { WorkflowStore } from '../src/store/index.js';
import { DEMO_DB_PATH, integer } from './options.js';
import { mulberry32 } from './prng.js';
import { DemoHost, nextDemoPrefix } from './workflow-host.js';

const program = new Command()
  .name('demo-host')
  .description('Drives demo workflow runs in a SQLite state database (a stand-in for the pi-workflows host).')
  .addOption(new Option('--db <path>', 'SQLite database file').default(DEMO_DB_PATH))
  .addOption(new Option('--chains <n>', 'chains driven side by side').default(3).argParser(integer(1, 100)))
  .addOption(new Option('--interval-ms <ms>', 'pause between two steps').default(500).argParser(integer(1, 600_000)))
  .addOption(new Option('--seed <n>', 'PRNG seed: the same seed replays the same steps').default(7).argParser(integer(0, 4_294_967_295)))
  .addOption(new Option('--prefix <prefix>', 'run id prefix (default: the next unused d<n> of the database)'))
  .addOption(new Option('--project <path>', 'project directory runs are reserved under').default(process.cwd(), 'the working directory'))
  .addOption(new Option('--max-steps <n>', 'stop after this many steps (default: run until Ctrl-C)').argParser(integer(1, Number.MAX_SAFE_INTEGER)));
program.parse(process.argv);
const options = program.opts<{ db: string; chains: number; intervalMs: number; seed: number; prefix?: string; project: string; maxSteps?: number }>();

const dbPath = resolve(options.db);
mkdirSync(dirname(dbPath), { recursive: true });
const store = WorkflowStore.open({ path: dbPath, projectPath: resolve(options.project) });
// What pi-workflows' engine writes beside the controller (steps, prompts, outputs, trace, session,
// updates): its own connection to the same file, opened once the store has migrated it.
const engine = EngineRowWriter.open({ path: dbPath });
const prefix = options.prefix ?? nextDemoPrefix(store);
let outputClosed = false;
const log = (line: string): void => {
  if (!outputClosed) process.stdout.write(`${line}\n`);
};
const host = new DemoHost(store, mulberry32(options.seed), {
  chains: options.chains,
  prefix,
  intervalMs: options.intervalMs,
  log,
  engine,
  cwd: resolve(options.project),
});
log(
  `[host] pid ${process.pid}: ${options.chains} chain(s), seed ${options.seed}, every ${options.intervalMs} ms, run ids ${prefix}-c<chain>-<n>, db ${dbPath}`,
);

let stopped = false;
let timer: NodeJS.Timeout | undefined;
let wake: (() => void) | undefined;

function stop(signal: string): void {
  if (stopped) return;
  stopped = true;
  if (timer !== undefined) clearTimeout(timer);
  wake?.();
  log(`[host] ${signal}: stopping after ${host.steps} steps`);
}
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
// Output piped into something that closed (e.g. `| head`): stop quietly like on a signal.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  outputClosed = true;
  stop('EPIPE');
});

while (!stopped) {
  await host.step();
  if (options.maxSteps !== undefined && host.steps >= options.maxSteps) break;
  if (stopped) break;
  await new Promise<void>((resolveWait) => {
    wake = resolveWait;
    timer = setTimeout(resolveWait, options.intervalMs);
  });
}
engine.close();
store.close();
log('[host] database closed');
