/**
 * The server started the way a service manager starts it: `npm start`,
 * `npm run start:prod`, or the container's command, as one child process whose stdout is
 * read as JSON log lines. Signals go to that process only (never its group), as systemd's
 * `KillMode=mixed`, `docker stop` and `kill <pid>` do, so a process that does not pass them on
 * leaves the server running and the test sees it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import type { Client } from 'graphql-ws';
import { expect } from 'vitest';
import { EventCollector, subscribeWs, WAIT_MS, wsClient } from './live-fixtures.js';
import { reserveInput } from './server-fixture.js';

/**
 * `--import` value that loads tsx from this checkout whatever the child's working directory
 * (a bare `tsx` resolves from the working directory).
 */
export const TSX_IMPORT = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** How long a stopped server may take to exit before the test fails (a guard, not a measurement). */
export const STOP_GUARD_MS = 15_000;

/** The `npm` command line of this test run (`npm test` sets `npm_execpath`), else `npm` on PATH. */
export function npmCommand(): { command: string; prefix: string[] } {
  const execPath = process.env.npm_execpath;
  if (execPath !== undefined && execPath.endsWith('.js')) return { command: process.execPath, prefix: [execPath] };
  return { command: 'npm', prefix: [] };
}

/** One started service process. */
export interface ServiceProcess {
  child: ChildProcess;
  /** stdout, one entry per line: the parsed JSON object, or `{ notJson: line }`. */
  lines: EventCollector<Record<string, unknown>>;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Resolves with the exit code, or the signal name, once the process exited. */
  exited: Promise<number | string>;
  /** Resolves with the `url` of the `listening` log line. */
  listening(): Promise<string>;
  /**
   * Sends `signal` to the process (not its group) and resolves with its exit code once it
   * exited; rejects when it is still running after {@link STOP_GUARD_MS}.
   */
  stop(signal: NodeJS.Signals): Promise<number | string>;
  /**
   * {@link stop}, but the signal goes to the whole process group (npm and everything under it),
   * as a terminal's Ctrl-C does.
   */
  stopGroup(signal: NodeJS.Signals): Promise<number | string>;
  /** SIGKILLs the process group if anything is left (cleanup only). */
  kill(): void;
  /** stdout and stderr so far, for assertion messages. */
  describe(): string;
}

/**
 * Spawns `command args` in `cwd` with `env` (merged over nothing: pass what it needs), in its
 * own process group so cleanup can reach every descendant.
 *
 * @param options.uid/gid run as this user (the test must run as root to use them)
 */
export function spawnService(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; uid?: number; gid?: number; label?: string },
): ServiceProcess {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    ...(options.uid === undefined ? {} : { uid: options.uid }),
    ...(options.gid === undefined ? {} : { gid: options.gid }),
  });
  const lines = new EventCollector<Record<string, unknown>>(options.label ?? command);
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    try {
      const parsed: unknown = JSON.parse(line);
      lines.push(typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : { notJson: line });
    } catch {
      lines.push({ notJson: line });
    }
  });
  const exited = new Promise<number | string>((resolve) => {
    child.on('exit', (code, signal) => {
      lines.complete();
      resolve(code ?? signal ?? 'unknown');
    });
  });
  const describe = () => `stdout: ${JSON.stringify(lines.events)}\nstderr: ${stderr}`;
  /** Resolves with the exit code once the process exited; rejects after {@link STOP_GUARD_MS}. */
  const exitedWithin = async (signal: NodeJS.Signals): Promise<number | string> => {
    let timer: NodeJS.Timeout | undefined;
    const guard = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`still running ${STOP_GUARD_MS} ms after ${signal}\n${describe()}`)), STOP_GUARD_MS);
    });
    try {
      return await Promise.race([exited, guard]);
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    child,
    lines,
    stderr: () => stderr,
    exited,
    async listening() {
      try {
        await lines.until((events) => events.some((event) => event.msg === 'listening'), 'the listening log line', WAIT_MS);
      } catch (error) {
        throw new Error(`${(error as Error).message}\n${describe()}`);
      }
      return String(lines.events.find((event) => event.msg === 'listening')?.url);
    },
    stop(signal) {
      child.kill(signal);
      return exitedWithin(signal);
    },
    stopGroup(signal) {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
      return exitedWithin(signal);
    },
    describe,
    kill() {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is gone already
      }
    },
  };
}

/**
 * Whether anything still answers on `url` (the server left running by a lost signal would).
 *
 * @returns true when an HTTP answer arrived, false when the connection was refused
 */
export async function stillAnswering(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(5_000) });
    return true;
  } catch {
    return false;
  }
}

/**
 * The database was closed by its last connection: SQLite checkpoints the WAL and deletes the
 * `-wal` and `-shm` files then. A killed server leaves them behind.
 */
export function databaseClosedCleanly(dbPath: string): boolean {
  return existsSync(dbPath) && !existsSync(`${dbPath}-wal`) && !existsSync(`${dbPath}-shm`);
}

/** A TCP port that was free a moment ago on 127.0.0.1 (for commands that cannot take port 0). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

const RESERVE = 'mutation R($input: ReserveWorkflowRunInput!) { reserveWorkflowRun(input: $input) { __typename } }';

/**
 * Reserves `runId` over HTTP and opens a graphql-ws `workflowRunUpdated` subscription to it;
 * resolves once the server acknowledged the socket, so a close afterwards must reach the
 * subscriber.
 *
 * @returns the client (dispose it), and `ended()`: resolves with the stream's error (the
 *   close event, e.g. `{ code: 1001 }`) once it ended, asserting no event arrived before
 */
export async function openSubscriber(url: string, runId: string): Promise<{ client: Client; ended: () => Promise<unknown> }> {
  const reserve = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: RESERVE, variables: { input: reserveInput(runId) } }),
  });
  expect(await reserve.json()).toEqual({ data: { reserveWorkflowRun: { __typename: 'ReserveWorkflowRunSuccess' } } });
  const client = wsClient(url);
  const connected = new Promise<void>((resolve) => client.on('connected', () => resolve()));
  const { collector } = subscribeWs(client, `subscription { workflowRunUpdated(runId: "${runId}") { runId status } }`, {}, 'subscriber');
  await connected;
  return {
    client,
    ended: async () => {
      await collector.ended();
      expect(collector.events).toEqual([]);
      return collector.error;
    },
  };
}
