/** The command-line parser run in-process, with `process.exit` and its output caught. */
import { vi } from 'vitest';
import { parseServerConfig } from '../../src/server/config.js';

/** What one parse printed and how it exited. */
export interface CliRun {
  /** The exit code, or undefined when the parse returned (no exit). */
  code: number | undefined;
  stdout: string;
  stderr: string;
}

/** Parses `pi-workflows-graphql <args>` as `main.ts` would, without exiting the test process. */
export function runCli(args: string[]): CliRun {
  let stdout = '';
  let stderr = '';
  const exit = vi.spyOn(process, 'exit').mockImplementation((code) => {
    throw Object.assign(new Error('exit'), { exitCode: Number(code ?? 0) });
  });
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  try {
    parseServerConfig(['node', 'main', ...args]);
    return { code: undefined, stdout, stderr };
  } catch (error) {
    return { code: (error as { exitCode?: number }).exitCode, stdout, stderr };
  } finally {
    exit.mockRestore();
    out.mockRestore();
    err.mockRestore();
  }
}
