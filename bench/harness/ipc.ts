/**
 * Child processes of the benchmark: forks a TypeScript file under tsx with an IPC channel,
 * then talks to it with numbered requests (`call`) and unnumbered events (`on`). The child
 * side answers with {@link serveRequests}.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';

/** The repository root (cwd of every child, so `--import tsx` resolves). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/** A forked child that answers requests. */
export class Child {
  private readonly process: ChildProcess;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Map<string, Set<(message: Record<string, unknown>) => void>>();
  private exited = false;
  /** Resolves when the child exits. */
  readonly exit: Promise<number | null>;

  /**
   * @param file path of the child's .ts file, relative to the repository root
   * @param args argv of the child
   * @param nodeOptions extra node flags (`--expose-gc`, `--cpu-prof`, …)
   */
  constructor(file: string, args: string[] = [], nodeOptions: string[] = []) {
    this.process = fork(resolve(REPO_ROOT, file), args, {
      cwd: REPO_ROOT,
      execArgv: ['--import', 'tsx', ...nodeOptions],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, NODE_ENV: 'production' },
    });
    this.exit = new Promise((resolveExit) => {
      this.process.on('exit', (code) => {
        this.exited = true;
        for (const pending of this.pending.values()) pending.reject(new Error(`${file} exited (${String(code)})`));
        this.pending.clear();
        resolveExit(code);
      });
    });
    this.process.on('message', (raw) => {
      const message = raw as Record<string, unknown>;
      if (typeof message.replyTo === 'number') {
        const pending = this.pending.get(message.replyTo);
        this.pending.delete(message.replyTo);
        if (pending === undefined) return;
        if (typeof message.error === 'string') pending.reject(new Error(message.error));
        else pending.resolve(message.result);
        return;
      }
      const type = String(message.type);
      for (const listener of this.listeners.get(type) ?? []) listener(message);
    });
  }

  /** The child's pid. */
  get pid(): number | undefined {
    return this.process.pid;
  }

  /** Sends a request and resolves with the child's result. */
  call<T>(command: string, payload: Record<string, unknown> = {}): Promise<T> {
    if (this.exited) return Promise.reject(new Error('child has exited'));
    const id = this.nextId;
    this.nextId += 1;
    return new Promise<T>((resolveCall, reject) => {
      this.pending.set(id, { resolve: resolveCall as (value: unknown) => void, reject });
      this.process.send({ id, command, ...payload });
    });
  }

  /** Listens to unsolicited messages `{type, …}` from the child. */
  on(type: string, listener: (message: Record<string, unknown>) => void): () => void {
    let set = this.listeners.get(type);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(type, set);
    }
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Waits for one message of `type`. */
  once(type: string, timeoutMs = 120_000): Promise<Record<string, unknown>> {
    return new Promise((resolveOnce, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`timed out waiting for ${type}`));
      }, timeoutMs);
      const off = this.on(type, (message) => {
        clearTimeout(timer);
        off();
        resolveOnce(message);
      });
    });
  }

  /** Asks the child to stop (`stop` request), then waits for exit; kills it after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.exited) return;
    const timer = setTimeout(() => this.process.kill('SIGKILL'), graceMs);
    try {
      await this.call('stop');
    } catch {
      // exited while answering
    }
    await this.exit;
    clearTimeout(timer);
  }
}

/** A request handler of a child: returns (or resolves with) the result. */
export type Handler = (message: Record<string, unknown>) => unknown;

/**
 * The child side: answers `{id, command, …}` requests from the parent with the handler of
 * that command. A `stop` handler should exit the process after answering.
 */
export function serveRequests(handlers: Record<string, Handler>): void {
  process.on('message', (raw) => {
    const message = raw as Record<string, unknown> & { id: number; command: string };
    const handler = handlers[message.command];
    const reply = (body: Record<string, unknown>): void => {
      process.send?.({ replyTo: message.id, ...body });
    };
    if (handler === undefined) {
      reply({ error: `unknown command ${message.command}` });
      return;
    }
    Promise.resolve()
      .then(() => handler(message))
      .then(
        (result) => reply({ result: result ?? null }),
        (error: unknown) => reply({ error: error instanceof Error ? `${error.message}\n${error.stack ?? ''}` : String(error) }),
      );
  });
  // The parent going away ends the child.
  process.on('disconnect', () => process.exit(0));
}

/** Sends an event `{type, …}` to the parent. */
export function emit(type: string, body: Record<string, unknown> = {}): void {
  process.send?.({ type, ...body });
}

/** Forks `file` and waits for its `child-ready` event. */
export async function startChild(file: string, args: string[] = [], nodeOptions: string[] = []): Promise<Child> {
  const child = new Child(file, args, nodeOptions);
  const ready = child.once('child-ready', 60_000);
  await Promise.race([ready, child.exit.then((code) => Promise.reject(new Error(`${file} exited early (${String(code)})`)))]);
  return child;
}

/**
 * Shares `count` items out over `clients` evenly (⌈count / clients⌉ each, the last ones fewer,
 * none skipped) and calls `command` on every client that got some, with `body(mine, index)`;
 * resolves with all the calls.
 */
export async function callEvenly(
  clients: readonly Child[],
  count: number,
  command: string,
  body: (mine: number, index: number) => Record<string, unknown>,
): Promise<void> {
  const share = Math.ceil(count / clients.length);
  await Promise.all(
    clients.map((client, index) => {
      const mine = Math.max(0, Math.min(share, count - index * share));
      return mine === 0 ? Promise.resolve() : client.call(command, body(mine, index));
    }),
  );
}
