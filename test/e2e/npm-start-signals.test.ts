/**
 * `npm start` under a service manager: SIGTERM or SIGINT sent to the npm
 * process alone (what systemd and container runtimes do) stops the server — the graphql-ws
 * subscriber gets a close (1001), nothing answers on the port any more, the database was
 * closed (WAL checkpointed, -wal/-shm removed) — and npm exits 0. Before the fix npm exited
 * at once and left tsx and the server running.
 *
 * Also: stdout carries only JSON log lines, the banner goes to stderr. And Ctrl-C in a terminal
 * (SIGINT to the whole process group: node gets it from the terminal and again from npm, a few
 * ms apart) is one request to stop, not "a second signal": the shutdown finishes and exits 0
 * with a subscriber connected (a new user's trial found exit 1 and the WAL left behind).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from 'graphql-ws';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/live-fixtures.js';
import { NEW_DATABASE_LOG } from '../../src/server/database/new-database.js';
import { databaseClosedCleanly, npmCommand, openSubscriber, spawnService, stillAnswering, type ServiceProcess } from '../helpers/service-process.js';

describe('npm start stops cleanly on the signal a service manager sends', () => {
  let dir: string | undefined;
  let service: ServiceProcess | undefined;
  let client: Client | undefined;
  afterEach(async () => {
    service?.kill();
    await client?.dispose();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    { name: 'SIGTERM to the npm process', signal: 'SIGTERM', group: false },
    { name: 'SIGINT to the npm process', signal: 'SIGINT', group: false },
    { name: 'Ctrl-C in a terminal: SIGINT to the whole process group', signal: 'SIGINT', group: true },
  ] as const)('$name, with a subscriber connected', async ({ signal, group }) => {
    dir = mkdtempSync(join(tmpdir(), 'pi-workflows-npm-start-'));
    const dbPath = join(dir, 'state.db');
    const npm = npmCommand();
    service = spawnService(npm.command, [...npm.prefix, 'start', '--silent', '--', '--db', dbPath, '--port', '0', '--workers', '1'], {
      cwd: REPO_ROOT,
      env: process.env,
      label: 'npm start',
    });
    const url = await service.listening();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/graphql$/);
    const subscriber = await openSubscriber(url, 'run-signal');
    client = subscriber.client;

    expect(await (group ? service.stopGroup(signal) : service.stop(signal)), service.describe()).toBe(0);
    expect(await subscriber.ended()).toMatchObject({ code: 1001 });
    expect(await stillAnswering(url.replace(/\/graphql$/, '/health'))).toBe(false);
    expect(databaseClosedCleanly(dbPath)).toBe(true);

    expect(service.lines.events.filter((line) => 'notJson' in line)).toEqual([]);
    expect(service.lines.events.map((line) => line.msg)).toEqual([
      'listening',
      NEW_DATABASE_LOG, // the database file did not exist: created, and told
      'request', // the reservation
      'shutting down: finishing in-flight requests',
      'database closed, bye',
    ]);
    expect(service.lines.events[3]).toMatchObject({ signal });
    expect(service.stderr()).toContain(`pi-workflows-graphql listening on ${url}\n`);
  });
});
