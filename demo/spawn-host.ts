/** Starts demo/host.ts as a child process (Node with the tsx loader), for the demo and tests. */
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

/** Options of {@link spawnHost}. */
export interface SpawnHostOptions {
  dbPath: string;
  chains: number;
  intervalMs: number;
  seed: number;
  /** Project directory runs are reserved under (default: the working directory). */
  projectPath?: string;
  maxSteps?: number;
  /** Default: stdout piped, stderr inherited. */
  stdio?: StdioOptions;
}

/** Spawns the host; the caller stops it with SIGINT (or SIGTERM) and waits for `exit`. */
export function spawnHost(options: SpawnHostOptions): ChildProcess {
  const loader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const args = [
    '--import',
    loader,
    join(HERE, 'host.ts'),
    '--db',
    options.dbPath,
    '--chains',
    String(options.chains),
    '--interval-ms',
    String(options.intervalMs),
    '--seed',
    String(options.seed),
    ...(options.projectPath === undefined ? [] : ['--project', options.projectPath]),
    ...(options.maxSteps === undefined ? [] : ['--max-steps', String(options.maxSteps)]),
  ];
  return spawn(process.execPath, args, { stdio: options.stdio ?? ['ignore', 'pipe', 'inherit'] });
}
