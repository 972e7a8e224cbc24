/**
 * The parent side of bench/harness/server-child.ts: starts the server in its own process on a database
 * file and returns its URL with the IPC handle. With profiling on, the child runs under
 * `--cpu-prof` and writes its profile into the profile directory when it stops.
 */
import { join } from 'node:path';
import { Child, startChild } from './ipc.js';

/** Options of {@link startServerProcess}. */
export interface ServerProcessOptions {
  dbPath: string;
  projectPath: string;
  /** Cross-process watcher poll interval (default 25, the server's default). */
  pollIntervalMs?: number;
  /**
   * Write CPU profiles into `<profileDir>/<profileName>/` (one file per thread: with tsx the
   * module loader runs in a worker thread of its own; the main thread's file has tid 0).
   */
  profileDir?: string;
  profileName?: string;
  /** `--live-throttle-ms` (default the server's). */
  liveThrottleMs?: number;
  /** `--max-live-queries` (default the server's). */
  maxLiveQueries?: number;
  /** Compiled execution (graphql-jit) on or off (`PI_WORKFLOWS_GRAPHQL_JIT` in the child); default the server's. */
  jit?: boolean;
}

/** A server running in a child process. */
export interface ServerProcess {
  child: Child;
  /** `http://127.0.0.1:<port>/graphql` */
  url: string;
  port: number;
  pid: number;
}

/** Forks bench/harness/server-child.ts (with `--expose-gc`) and starts the server in it. */
export async function startServerProcess(options: ServerProcessOptions): Promise<ServerProcess> {
  // BENCH_SERVER_NODE_OPTIONS adds node flags to server children only (e.g. `--heap-prof`).
  const extra = (process.env.BENCH_SERVER_NODE_OPTIONS ?? '').split(' ').filter(Boolean);
  const nodeOptions = ['--expose-gc', ...extra];
  if (options.profileDir !== undefined) {
    nodeOptions.push('--cpu-prof', `--cpu-prof-dir=${join(options.profileDir, options.profileName ?? 'server')}`);
  }
  const child = await startChild('bench/harness/server-child.ts', [], nodeOptions);
  const started = await child.call<{ url: string; port: number; pid: number }>('start', {
    dbPath: options.dbPath,
    projectPath: options.projectPath,
    pollIntervalMs: options.pollIntervalMs ?? 25,
    ...(options.liveThrottleMs === undefined ? {} : { liveThrottleMs: options.liveThrottleMs }),
    ...(options.maxLiveQueries === undefined ? {} : { maxLiveQueries: options.maxLiveQueries }),
    ...(options.jit === undefined ? {} : { jit: options.jit }),
  });
  return { child, ...started };
}
