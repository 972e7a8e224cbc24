/**
 * The typed client in a real browser (playwright-core driving Debian's Chromium, as the live
 * page test does): `src/client/` bundled for the browser platform by esbuild (a `node:` import
 * would fail the bundle), run in a page of the server's origin with the browser's own `fetch`
 * and `WebSocket`. Its run watch follows a run while the server stops and starts again on the
 * same port and file: the browser's refused connections (a bare error `Event`, which
 * graphql-ws's default policy does not retry) are retried, the revisions committed with the
 * store while the server was down arrive once, in order, then live ones. Typed queries run too.
 *
 * Needs /usr/bin/chromium (`apt-get install -y chromium`); without it the test is skipped.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkflowStore } from '../../src/store/index.js';
import { commitMarker, range, REPO_ROOT, reserveRun } from '../helpers/live-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server-fixture.js';

const CHROMIUM = '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);

if (!HAS_CHROMIUM) console.warn(`typed client browser test skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`);

/** What the page keeps: revisions seen, status lines, the watch's end and counters. */
interface BrowserState {
  revisions: number[];
  statuses: string[];
  end: string | null;
  stats: { delivered: number; duplicates: number; subscriptions: number } | null;
}

/** The client as one browser script: `window.typedClient` is the module's namespace. */
async function browserBundle(): Promise<string> {
  const result = await build({
    stdin: {
      contents: "import * as typedClient from './src/client/index.ts'; (globalThis as any).typedClient = typedClient;",
      resolveDir: REPO_ROOT,
      loader: 'ts',
    },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
}

describe.skipIf(!HAS_CHROMIUM)('the typed client in Chromium', () => {
  let profile: string;
  let context: BrowserContext;
  let page: Page;
  const servers: TestServer[] = [];
  beforeAll(async () => {
    profile = mkdtempSync(join(tmpdir(), 'typed-client-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    page = context.pages()[0] ?? (await context.newPage());
  });
  afterAll(async () => {
    await context?.close();
    for (const server of servers.splice(0).reverse()) await server.close();
    rmSync(profile, { recursive: true, force: true });
  });

  const state = (): Promise<BrowserState> => page.evaluate(() => (window as unknown as { state: BrowserState }).state);
  const until = (condition: string, what: string): Promise<unknown> =>
    page.waitForFunction(condition, undefined, { timeout: 20_000 }).catch(async (error: Error) => {
      throw new Error(`${error.message}: waiting until ${what}; the page has ${JSON.stringify(await state())}`);
    });

  it('a run watch resumes across a server restart with refused connections; typed queries', async () => {
    const first = await startTestServer();
    servers.push(first);
    await reserveRun(first, 'run-b');
    const bundle = await browserBundle();
    expect(bundle.length).toBeGreaterThan(10_000);
    await page.goto(first.url.replace(/\/graphql$/, '/schema.graphql')); // any document of the server's origin
    await page.addScriptTag({ content: bundle });
    await page.evaluate(() => {
      const { createWorkflowClient } = (window as unknown as { typedClient: typeof import('../../src/client/index.js') }).typedClient;
      const state: BrowserState = { revisions: [], statuses: [], end: null, stats: null };
      (window as unknown as { state: BrowserState }).state = state;
      const client = createWorkflowClient({
        url: `${location.origin}/graphql`,
        retry: { initialDelayMs: 20, maxDelayMs: 100 },
        onStatus: (status) => {
          const why = status.state === 'reconnecting' ? (status.reason.opened ? String(status.reason.code) : 'unreachable') : '';
          state.statuses.push(status.state === 'reconnecting' ? `reconnecting ${status.attempt} ${why}` : status.state);
        },
      });
      (window as unknown as { client: typeof client }).client = client;
      const watch = client.watchRun('run-b', {
        afterRevision: 1,
        onEvent: (event) => {
          state.revisions.push(event.__typename === 'ViewerDeltaBatch' ? event.presentationRevision : -1);
          state.stats = { ...watch.stats };
        },
        onEnd: (end) => {
          state.end = end.reason === 'failed' ? end.error.message : end.reason;
        },
      });
    });
    await until('window.state.statuses.includes("connected")', 'connected');
    for (let k = 1; k <= 2; k += 1) commitMarker(first.store, 'run-b', k); // revisions 2, 3
    await until('window.state.revisions.length === 2', 'revisions 2 and 3');

    await first.server.close();
    // The 1001 close, then at least one attempt the browser saw refused (an error Event, code 1006).
    await until('window.state.statuses.filter((line) => line.startsWith("reconnecting")).length >= 2', 'a refused attempt retried');
    const offline = WorkflowStore.open({ path: first.dbPath, projectPath: first.dir });
    for (let k = 3; k <= 5; k += 1) commitMarker(offline, 'run-b', k); // revisions 4..6 while down
    offline.close();
    const second = await startTestServer({ dbPath: first.dbPath, port: first.port });
    servers.push(second);
    await until('window.state.revisions.length === 5', 'revisions 4..6 after the restart');
    commitMarker(second.store, 'run-b', 6); // revision 7, live
    await until('window.state.revisions.length === 6', 'revision 7');

    const seen = await state();
    expect(seen.revisions).toEqual(range(2, 7));
    expect(seen.stats).toEqual({ delivered: 6, duplicates: 0, subscriptions: 2 });
    expect(seen.end).toBeNull();
    expect(seen.statuses.slice(0, 3)).toEqual(['connecting', 'connected', 'reconnecting 1 1001']);
    // A refused attempt is a bare error Event in a browser: no code, no message, never opened.
    expect(
      seen.statuses.slice(3, -1).every((line) => /^reconnecting \d+ unreachable$/.test(line)),
      seen.statuses.join(),
    ).toBe(true);
    expect(seen.statuses.at(-1)).toBe('connected');

    const queried = await page.evaluate(async () => {
      const { WorkflowRunDocument } = (window as unknown as { typedClient: typeof import('../../src/client/index.js') }).typedClient;
      const client = (window as unknown as { client: import('../../src/client/index.js').WorkflowClient }).client;
      const { workflowRun } = await client.query(WorkflowRunDocument, { runId: 'run-b' });
      await client.close();
      return {
        runId: workflowRun?.runId,
        presentationRevision: workflowRun?.presentationRevision,
        end: (window as unknown as { state: BrowserState }).state.end,
      };
    });
    expect(queried).toEqual({ runId: 'run-b', presentationRevision: 7, end: 'closed' });
  });
});
