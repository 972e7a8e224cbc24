/**
 * examples/watch-run.ts as a user runs it: it says clearly when the server
 * is down (at start: exit 1 with what to do; while following: why the connection dropped, and
 * it reconnects when the server is back), and when the watched run fails it says why and
 * offers the restart — the command to follow it, or with --follow-restarts it switches itself.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawnTsChild, type ChildProcessHandle } from '../helpers/live-fixtures.js';
import { feedWaiters } from '../helpers/server-signals.js';
import { claim, failedRoot, reserve, reserveInput, restart, settle, startTestServer, type TestServer } from '../helpers/server-fixture.js';
import { freePort } from '../helpers/service-process.js';

const SCRIPT = 'examples/watch-run.ts';

/** The printed lines so far (watch-run prints text, one entry per line). */
function texts(watcher: ChildProcessHandle): string[] {
  return watcher.lines.events.map((line) => String(line.text ?? JSON.stringify(line)));
}

/** Resolves once a printed line satisfies `match`; returns that line. */
async function line(watcher: ChildProcessHandle, match: RegExp | string, what = String(match)): Promise<string> {
  const test = (text: string) => (typeof match === 'string' ? text === match : match.test(text));
  try {
    await watcher.lines.until((events) => events.some((event) => test(String(event.text ?? ''))), what);
  } catch (error) {
    throw new Error(`${(error as Error).message}\nstdout:\n${texts(watcher).join('\n')}\nstderr:\n${watcher.stderr()}`);
  }
  return texts(watcher).find(test) as string;
}

describe('examples/watch-run.ts', () => {
  const servers: TestServer[] = [];
  let watcher: ChildProcessHandle | undefined;
  afterEach(async () => {
    watcher?.kill();
    for (const server of servers.splice(0).reverse()) await server.close();
  });

  it('the server is down at start: one clear line and exit 1', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/graphql`;
    watcher = spawnTsChild(SCRIPT, ['run-1', '--url', url], 'watch-run');
    expect(await watcher.exited).toBe(1);
    expect(watcher.stderr()).toBe(
      `watch-run: cannot reach the server at ${url} (connection refused): is it running? ` +
        'Start it with "npm start" (port 4000) or "npm run demo" (port 4100), or pass --url\n',
    );
    expect(texts(watcher)).toEqual([]);
  });

  it('the server stops and comes back while following: says so, retries, resumes after its cursor', async () => {
    const first = await startTestServer();
    servers.push(first);
    await reserve(first, reserveInput('run-1'));
    const wsUrl = first.url.replace(/^http/, 'ws');
    watcher = spawnTsChild(SCRIPT, ['run-1', '--url', first.url], 'watch-run');
    await line(watcher, `following run-1 after revision 1 via ${wsUrl}`);
    // Both its streams (deltas, lineage) wait in the server's feed: the socket is up.
    await feedWaiters(first.server, 2, 'the watcher subscribed');

    await first.server.close();
    await line(watcher, 'disconnected: the server is shutting down (1001 Going away); reconnecting in 250 ms, then resuming after revision 1');
    await line(watcher, `disconnected: the server is down (connection refused at ${wsUrl}); reconnecting in 500 ms, then resuming after revision 1`);

    servers.push(await startTestServer({ dbPath: first.dbPath, port: first.port }));
    await line(watcher, `reconnected to ${wsUrl}; resuming after revision 1`);
    expect(texts(watcher).filter((text) => /stream completed|watch-run:/.test(text))).toEqual([]);
  });

  it('the watched run fails: says why, waits for its restart, then offers the command that follows it', async () => {
    const fx = await startTestServer();
    servers.push(fx);
    await reserve(fx, reserveInput('run-1'));
    await claim(fx, 'run-1', 'token-1');
    watcher = spawnTsChild(SCRIPT, ['run-1', '--url', fx.url], 'watch-run');
    await line(watcher, /^following run-1 after revision \d+ via /);

    await settle(fx, 'run-1', 'token-1', 'FAILED', { error: 'step test failed: exit code 31' });
    await line(watcher, 'run run-1 failed: step test failed: exit code 31');
    await line(watcher, '  no restart of run-1 yet; watching its chain for one (Ctrl-C stops)');
    await feedWaiters(fx.server, 2, 'both streams of the watcher waiting');

    const { run } = await restart(fx, { runId: 'run-1', originSessionId: 'session-1' });
    await line(watcher, `run run-1 was restarted as ${run.runId} (restart #1). Follow it with:`);
    await line(watcher, `  npx tsx examples/watch-run.ts ${run.runId} --after 0 --url ${fx.url}`);
    await line(watcher, '  (or start with --follow-restarts to switch to restarts by itself)');
    expect(texts(watcher).filter((text) => text.startsWith('run run-1 '))).toHaveLength(2); // each told once
  });

  it('--follow-restarts: a run that already failed and was restarted is followed into its restart', async () => {
    const fx = await startTestServer();
    servers.push(fx);
    await failedRoot(fx, 'run-1', 'boom');
    const { run } = await restart(fx, { runId: 'run-1', originSessionId: 'session-1' });
    watcher = spawnTsChild(SCRIPT, ['run-1', '--follow-restarts', '--url', fx.url], 'watch-run');
    await line(watcher, 'run run-1 failed: boom');
    await line(watcher, `run run-1 was restarted as ${run.runId} (restart #1): following it`);
    await line(watcher, `following ${run.runId} after revision 0 via ${fx.url.replace(/^http/, 'ws')}`);
  });
});
