/**
 * A port already in use: `npm run demo` and `npm start` print one clear line
 * instead of a stack trace and exit 1; `startServer` rejects with EADDRINUSE and leaves nothing
 * open. The port is bound before the database is opened, so a start that cannot bind never
 * touches the file: not created when missing, byte for byte unchanged when it exists (no
 * migration, no blob prune, no WAL). The demo has its own default port (4100), so it runs
 * beside `npm start` (4000).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PORT } from '../../demo/options.js';
import { startServer } from '../../src/server/app.js';
import { WorkflowStore } from '../../src/store/index.js';
import { REPO_ROOT } from '../helpers/live-fixtures.js';
import { npmCommand, spawnService } from '../helpers/service-process.js';

describe('a port already in use', () => {
  let dir: string;
  let blocker: Server;
  let port: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pi-workflows-busy-'));
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    port = (blocker.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  const busy = () => `port ${port} is already in use on 127.0.0.1 (another server or demo running?): stop it, or pass --port N (0 = any free port)`;

  /** Runs `npm run <script> -- …args` to its end. */
  async function npmRun(script: string, args: string[]): Promise<{ code: number | string; stdout: string; stderr: string }> {
    const npm = npmCommand();
    const child = spawnService(npm.command, [...npm.prefix, 'run', '--silent', script, '--', ...args], { cwd: REPO_ROOT, env: process.env, label: script });
    const code = await child.exited;
    return { code, stdout: child.lines.events.map((line) => JSON.stringify(line)).join('\n'), stderr: child.stderr() };
  }

  /** A database of ours, closed, holding one blob nothing refers to (a read-write open would prune it). */
  function existingDatabase(name: string): string {
    const dbPath = join(dir, name);
    WorkflowStore.open({ path: dbPath, projectPath: dir }).close();
    const connection = new Database(dbPath);
    const bytes = Buffer.from('unreferenced', 'utf8');
    connection
      .prepare("INSERT INTO blobs(blob_hash, media_type, byte_length, content, created_at) VALUES (?, 'text/plain', ?, ?, 0)")
      .run(Buffer.alloc(32, 7), bytes.length, bytes);
    connection.close();
    return dbPath;
  }

  /** The files of a database: main file bytes, and whether a WAL or shared-memory file exists. */
  const filesOf = (dbPath: string) => ({ bytes: readFileSync(dbPath), wal: existsSync(`${dbPath}-wal`), shm: existsSync(`${dbPath}-shm`) });

  it('npm run demo: one line on stderr, exit 1, no stack trace, no database created', async () => {
    const dbPath = join(dir, 'demo.db');
    const result = await npmRun('demo', ['--port', String(port), '--db', dbPath]);
    expect(result).toEqual({ code: 1, stdout: '', stderr: `demo: ${busy()}\n` });
    expect(existsSync(dbPath)).toBe(false);
  });

  it('npm start: one line on stderr, exit 1, the existing database file unchanged byte for byte', async () => {
    const dbPath = existingDatabase('start.db');
    const before = filesOf(dbPath);
    expect(before).toMatchObject({ wal: false, shm: false });
    const result = await npmRun('start', ['--port', String(port), '--db', dbPath]);
    expect(result).toEqual({ code: 1, stdout: '', stderr: `pi-workflows-graphql: ${busy()}\n` });
    expect(filesOf(dbPath)).toEqual(before);
  });

  it('startServer rejects with EADDRINUSE before opening the database (missing: not created; existing: unchanged)', async () => {
    const dbPath = join(dir, 'direct.db');
    const existingPath = existingDatabase('direct-existing.db');
    const before = filesOf(existingPath);
    const config = {
      dbPath,
      port,
      host: '127.0.0.1',
      readOnly: false,
      token: null,
      corsOrigins: [],
      allowedHosts: [],
      projectPath: dir,
      pollIntervalMs: 25,
      keepAliveMs: 12_000,
      maxBodyBytes: 2_097_152,
      logLevel: 'silent' as const,
    };
    await expect(startServer(config, { logger: pino({ level: 'silent' }) })).rejects.toMatchObject({ code: 'EADDRINUSE' });
    expect(existsSync(dbPath)).toBe(false);
    await expect(startServer({ ...config, dbPath: existingPath }, { logger: pino({ level: 'silent' }) })).rejects.toMatchObject({ code: 'EADDRINUSE' });
    expect(filesOf(existingPath)).toEqual(before);
  });

  it("the demo defaults to its own port, 4100, not npm start's 4000", async () => {
    expect(DEMO_PORT).toBe(4100);
    const help = await npmRun('demo', ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--port <port>');
    expect(help.stdout).toMatch(/server port \(0 = any free port\) \(default: 4100\)/);
  });
});
