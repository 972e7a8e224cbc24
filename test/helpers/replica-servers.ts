/**
 * Server processes for the replica tests (docs/DEPLOYMENT.md "Read replicas"): primaries and
 * replicas started from `src/server/main.ts` in one temporary directory, a GraphQL POST that
 * expects no errors, a reservation, and `/health`. `dispose()` stops every process still running
 * and removes the directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { REPO_ROOT } from './live-fixtures.js';
import { reserveInput } from './server-fixture.js';
import { spawnService, TSX_IMPORT, type ServiceProcess } from './service-process.js';

/** A reservation answering only its result's type name (and a typed error's code and text). */
export const RESERVE = /* GraphQL */ `
  mutation Reserve($input: ReserveWorkflowRunInput!) {
    reserveWorkflowRun(input: $input) { __typename ... on Error { code message } }
  }
`;

/** Server processes in one temporary directory (see the file's doc). */
export class ReplicaServers {
  /** The temporary directory: database files, `--project`, the processes' working directory. */
  readonly dir: string;
  private readonly services: ServiceProcess[] = [];

  constructor(prefix: string) {
    this.dir = mkdtempSync(join(tmpdir(), prefix));
  }

  /** Starts `src/server/main.ts` on `dbPath` on a free port (JSON log lines on stdout, info level). */
  start(dbPath: string, label: string, args: string[] = []): ServiceProcess {
    const service = spawnService(
      process.execPath,
      ['--import', TSX_IMPORT, join(REPO_ROOT, 'src/server/main.ts'), '--db', dbPath, '--port', '0', '--project', this.dir, '--log-level', 'info', ...args],
      { cwd: this.dir, env: process.env, label },
    );
    this.services.push(service);
    return service;
  }

  /** Stops `service` with the others at {@link dispose} (a process not started by {@link start}). */
  track(service: ServiceProcess): void {
    this.services.push(service);
  }

  /** Stops (SIGTERM) every process still running, then removes the directory. */
  async dispose(): Promise<void> {
    for (const service of this.services) {
      if (service.child.exitCode === null && service.child.signalCode === null) await service.stop('SIGTERM');
    }
    this.services.length = 0;
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** POSTs `query` to `url` and returns its data; fails the test on any GraphQL error. */
export async function graphqlData<T>(url: string, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
  const body = (await response.json()) as { data?: T; errors?: unknown };
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data as T;
}

/** Reserves `runId` (in a session of its own) on the server at `url`; fails the test unless it succeeds. */
export async function reserveOn(url: string, runId: string): Promise<void> {
  expect(await graphqlData(url, RESERVE, { input: reserveInput(runId, { originSessionId: `session-${runId}` }) })).toEqual({
    reserveWorkflowRun: { __typename: 'ReserveWorkflowRunSuccess' },
  });
}

/** The `/health` answer of the server whose GraphQL endpoint is `url`. */
export async function healthOf<T>(url: string): Promise<T> {
  return (await (await fetch(url.replace(/\/graphql$/, '/health'))).json()) as T;
}
