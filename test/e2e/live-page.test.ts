/**
 * The live lineage page in a real browser (playwright-core driving Debian's Chromium, never a
 * downloaded one): the server runs in-process on port 0 over a temporary database, and the
 * demo workflow host runs as a separate child process writing that database, so every change
 * the page shows crossed a process boundary (the server's data_version watcher).
 *
 * Checks: chains listed; follow mode reaches a run and receives live delta batches; after the
 * server drops every WebSocket the page shows "reconnecting…", reconnects by itself and resumes
 * from its cursor (no gap, no duplicate); a chain with a restart is drawn as a tree with the
 * restart number. Then: a run reserved over GraphQL appears in the list and its
 * settlement shows, without a reload; a run whose claim expires gets its stale mark; the run's
 * GRAPH view is drawn; bookkeeping revisions are hidden until asked; the selected run is in
 * the URL (`#run=<id>`, back and forward work) and an unknown id says so. The first page is
 * read while the WebSocket is still held back, and a run reserved before the list's feed
 * reached the server appears once it does (the feed starts from the page's `changeCursor`).
 * Across a server restart (its own server, no host): the server stops under the open page and
 * starts again on the same port and database file; the page says "reconnecting…" while its
 * attempts are refused, then resumes every feed from its cursors (a change written meanwhile
 * comes once, the record is read again, a list read made meanwhile goes through), shows a change
 * made after, and leaves no banner; an unknown `#run=` id clears the chain pane.
 * On a file pi-workflows' own code wrote (fixtures/pi-workflows-reference-file.ts, served
 * read-only): the header names the file and says read-only; a run's view shows its title,
 * status, steps with prompt and output (opened), final output; a captured conversation as a
 * chat with its roles, the assistant's text and its tool call; what a waiting run waits for and
 * the question it asks; the page is never wider than the window (1,500 and 1,024 px) and shows
 * no raw JSON outside collapsed details.
 * On a pi-workflows file whose engine rows another connection writes (EngineRowWriter): the view
 * is followed by its subscription — a new step with its output and a session entry with a tool
 * call appear without a reload and without another view query (LivePageRunView POSTs counted),
 * also across a dropped connection (resumed from the last cursor, nothing twice); a failed run's
 * progress says failed, not running.
 * Writes test-artifacts/live-page.png.
 *
 * Needs /usr/bin/chromium (`apt-get install -y chromium`); without it the test is skipped.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { spawnHost } from '../../demo/spawn-host.js';
import { createPiWorkflowsFile } from '../../fixtures/pi-workflows-file.js';
import { buildReferenceFile } from '../../fixtures/pi-workflows-reference-file.js';
import { startServer, type RunningServer } from '../../src/server/app.js';
import { EngineRowWriter } from '../../src/store/engine-rows/index.js';
import { testServerConfig } from '../helpers/server-config.js';

const CHROMIUM = '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SCREENSHOT = join(ROOT, 'test-artifacts', 'live-page.png');

if (!HAS_CHROMIUM) {
  console.warn(`live page e2e skipped: ${CHROMIUM} is missing (install it with: apt-get update && apt-get install -y chromium)`);
}

async function gql<T>(server: RunningServer, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const response = await fetch(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: T; errors?: unknown[] };
  if (body.errors !== undefined) throw new Error(JSON.stringify(body.errors));
  return body.data as T;
}

/** Reserves a root run of its own session; with `leaseMs`, claimed (queue STARTING) with token `token-<runId>`. */
async function reserveRun(server: RunningServer, runId: string, workflowName: string, leaseMs?: number): Promise<void> {
  const data = await gql<{ reserveWorkflowRun: { __typename: string } }>(
    server,
    `mutation ($input: ReserveWorkflowRunInput!) { reserveWorkflowRun(input: $input) { __typename ... on Error { message } } }`,
    {
      input: {
        runId,
        workflowName,
        workflowRef: `workflows/${workflowName}.ts`,
        definition: { name: workflowName, steps: [{ id: 'plan', type: 'agent' }] },
        originSessionId: `session-${runId}`,
        ...(leaseMs === undefined ? {} : { claim: { runnerId: 'runner-e2e', claimToken: `token-${runId}`, leaseMs } }),
      },
    },
  );
  expect(data.reserveWorkflowRun.__typename, JSON.stringify(data)).toBe('ReserveWorkflowRunSuccess');
}

/** Waits for `selector`; on a timeout the error tells what the page shows (error box, run panel). */
async function waitShowing(page: Page, selector: string): Promise<void> {
  try {
    await page.waitForSelector(selector);
  } catch (error) {
    const shown = await page.evaluate(() => ({
      error: document.querySelector('#error')?.textContent ?? '',
      runId: document.querySelector('#run-id')?.textContent ?? '',
      summary: (document.querySelector('#run-summary') as HTMLElement | null)?.innerText ?? '',
      missing: document.querySelector('#run-missing')?.textContent ?? '',
      now: new Date().toISOString(),
    }));
    throw new Error(`${(error as Error).message}\npage shows: ${JSON.stringify(shown)}`);
  }
}

/** Debian's Chromium, headless, with a fresh profile in `profileDir`. */
/** Chromium with a profile in `dir` and its first page: 30 s waits, page errors collected in `pageErrors`. */
async function openChromiumPage(dir: string, pageErrors: string[]): Promise<{ context: BrowserContext; page: Page }> {
  const context = await launchChromium(join(dir, 'chromium-profile'));
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(30_000);
  page.on('pageerror', (error) => pageErrors.push(error.message));
  return { context, page };
}

function launchChromium(profileDir: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1500, height: 950 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

const dataset = (page: Page, selector: string) => page.locator(selector).evaluate((node) => ({ ...(node as HTMLElement).dataset }) as Record<string, string>);

describe('live lineage page (browser)', () => {
  let dir: string;
  let server: RunningServer;
  let host: ChildProcess;
  let hostExit: Promise<unknown>;
  let context: BrowserContext;
  let page: Page;
  const upgraded = new Set<Socket>();
  const pageErrors: string[] = [];
  /** Every script the page loaded: path → HTTP status. */
  const scripts = new Map<string, number>();

  beforeAll(async () => {
    if (!HAS_CHROMIUM) return;
    dir = mkdtempSync(join(tmpdir(), 'live-page-'));
    const dbPath = join(dir, 'state.db');
    server = await startServer(testServerConfig(dbPath, dir), { logger: pino({ level: 'silent' }) });
    server.httpServer.on('upgrade', (_request, socket: Socket) => {
      upgraded.add(socket);
      socket.once('close', () => upgraded.delete(socket));
    });
    // The store creates the schema on open; the host opens the same file once the server has.
    host = spawnHost({ dbPath, chains: 2, intervalMs: 40, seed: 11, projectPath: dir, stdio: ['ignore', 'ignore', 'inherit'] });
    hostExit = new Promise((resolve) => host.once('exit', resolve));
    ({ context, page } = await openChromiumPage(dir, pageErrors));
    page.on('response', (response) => {
      if (response.request().resourceType() === 'script') scripts.set(new URL(response.url()).pathname, response.status());
    });
  }, 60_000);

  afterAll(async () => {
    if (!HAS_CHROMIUM) return;
    await context?.close();
    if (host !== undefined && host.exitCode === null && host.signalCode === null) host.kill('SIGINT');
    await hostExit;
    await server?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it.skipIf(!HAS_CHROMIUM)(
    'shows chains, follows a run live, reconnects with its cursor, draws a restart chain',
    async () => {
      const base = server.url.replace(/\/graphql$/, '');
      await page.goto(`${base}/`);
      await page.waitForSelector('#conn[data-state="connected"]');
      // The WebSocket client is the graphql-ws package's own, served from node_modules.
      expect(scripts.get('/app/app.js')).toBe(200);
      expect(scripts.get('/app/vendor/graphql-ws/client.js')).toBe(200);
      expect([...scripts].filter(([path]) => path.startsWith('/app/vendor/graphql-ws/')).every(([, status]) => status === 200)).toBe(true);

      // Chains appear (polled) and follow mode picks a run whose live deltas arrive.
      await page.waitForSelector('#chains .chain');
      await page.waitForSelector('#tree .run-node');
      // One check of both, in the page: follow mode may switch runs (and clear the feed) between two separate reads,
      // and bookkeeping revisions count as live without being drawn.
      await page.waitForFunction(
        () => Number((document.querySelector('#feed-stats') as HTMLElement).dataset.live) >= 3 && document.querySelectorAll('#feed li.live').length >= 3,
      );

      // Stay on this run, drop every WebSocket from the server side, and watch the page resume.
      await page.locator('#follow').uncheck();
      const runId = (await page.locator('#run-id').textContent()) ?? '';
      expect(runId).not.toBe('');
      expect(upgraded.size).toBeGreaterThan(0);
      for (const socket of upgraded) socket.destroy();
      await page.waitForFunction(() => {
        const conn = document.querySelector('#conn') as HTMLElement;
        return conn.dataset.state === 'reconnecting' && /reconnecting…/.test(conn.textContent ?? '');
      });
      await page.waitForSelector('#conn[data-state="connected"][data-reconnects="1"]');
      const { workflowRun } = await gql<{ workflowRun: { presentationRevision: number } }>(
        server,
        'query ($runId: String!) { workflowRun(runId: $runId) { presentationRevision } }',
        { runId },
      );
      await page.waitForFunction(
        (revision) => Number((document.querySelector('#feed-stats') as HTMLElement).dataset.cursor) >= revision,
        workflowRun.presentationRevision,
      );
      expect(await page.locator('#run-id').textContent()).toBe(runId);
      const stats = await dataset(page, '#feed-stats');
      expect(stats.gaps).toBe('0');
      expect(stats.duplicates).toBe('0');
      const revisions = await page
        .locator('#feed li[data-revision]')
        .evaluateAll((nodes) => nodes.map((node) => Number((node as HTMLElement).dataset.revision)));
      expect(revisions.length).toBeGreaterThan(3);
      revisions.forEach((revision, index) => {
        if (index > 0) expect(revision).toBe((revisions[index - 1] as number) - 1);
      });

      // A chain with a restart: pick it in the list, see the tree with its restart number.
      const restart = await vi.waitFor(
        async () => {
          const data = await gql<{
            workflowRuns: { edges: Array<{ node: { runId: string; rootRunId: string; restartNumber: number; parentRunId: string } }> };
          }>(server, 'query { workflowRuns(first: 1, filter: { lineageKind: RESTART }) { edges { node { runId rootRunId restartNumber parentRunId } } } }');
          const node = data.workflowRuns.edges[0]?.node;
          if (node === undefined) throw new Error('no restart yet');
          return node;
        },
        { timeout: 30_000, interval: 100 },
      );
      await page.locator(`#chains .chain[data-root="${restart.rootRunId}"] button`).click();
      const restartNode = page.locator(`#tree .run-node[data-run-id="${restart.runId}"]`);
      await restartNode.waitFor();
      expect(await restartNode.getAttribute('data-kind')).toBe('restart');
      expect(await restartNode.getAttribute('data-restart-number')).toBe(String(restart.restartNumber));
      expect(await restartNode.locator('.badge.kind').textContent()).toBe(`restart #${restart.restartNumber}`);
      // The restart sits under its failed parent in the tree.
      const parentOfRestart = await restartNode.evaluate(
        (node) => (node.closest('ul')?.parentElement?.querySelector(':scope > .run-node') as HTMLElement | null)?.dataset.runId,
      );
      expect(parentOfRestart).toBe(restart.parentRunId);
      await restartNode.click();
      await page.waitForFunction((id) => document.querySelector('#run-id')?.textContent === id, restart.runId);
      await page.waitForSelector('#feed li[data-revision][data-bookkeeping="false"]', { state: 'attached' });
      await page.waitForSelector('#run-summary dd');

      // Back to following whatever is active, then keep a picture of the page.
      await page.locator('#follow').check();
      await page.waitForFunction(() => Number((document.querySelector('#feed-stats') as HTMLElement).dataset.live) >= 2);
      mkdirSync(dirname(SCREENSHOT), { recursive: true });
      await page.screenshot({ path: SCREENSHOT });
      expect(existsSync(SCREENSHOT)).toBe(true);
      expect(pageErrors).toEqual([]);
    },
    120_000,
  );

  it.skipIf(!HAS_CHROMIUM)(
    'a run appears and changes without a reload; stale marks; graph view; bookkeeping toggle; the URL names the run',
    async () => {
      const base = server.url.replace(/\/graphql$/, '');
      await page.goto(`${base}/`);
      await page.waitForSelector('#conn[data-state="connected"]');
      await page.waitForSelector('#chains .chain');
      const navigations: string[] = [];
      page.on('framenavigated', (frame) => {
        if (frame === page.mainFrame()) navigations.push(frame.url());
      });
      // A mark on this document: a reload would lose it.
      await page.evaluate(() => Object.assign(window, { liveTestDocument: 'first' }));

      // A run reserved (and claimed) by another client appears; its settlement shows.
      await reserveRun(server, 'e2e-appear', 'e2e-appearing', 60_000);
      const appeared = page.locator('#chains .chain[data-root="e2e-appear"]');
      await appeared.waitFor();
      expect(await appeared.getAttribute('data-status')).not.toBe('COMPLETED');
      expect(await appeared.locator('.name').textContent()).toBe('e2e-appearing');
      const settled = await gql<{ settleWorkflowRun: { __typename: string } }>(
        server,
        'mutation { settleWorkflowRun(input: { runId: "e2e-appear", claimToken: "token-e2e-appear", status: COMPLETED }) { __typename } }',
      );
      expect(settled.settleWorkflowRun.__typename).toBe('SettleWorkflowRunSuccess');
      await page.waitForSelector('#chains .chain[data-root="e2e-appear"][data-status="COMPLETED"]');

      // Filters: the workflow narrows the list; with a status it no longer matches, the list is
      // empty; clearing brings the demo chains back.
      await page.locator('#filter-workflow').fill('e2e-appearing');
      await page.waitForFunction(() => [...document.querySelectorAll<HTMLElement>('#chains .chain')].map((node) => node.dataset.root).join() === 'e2e-appear');
      await page.locator('#filter-status').selectOption('RUNNING');
      await page.waitForSelector('#chains-empty:not([hidden])');
      expect(await page.locator('#chains-empty').textContent()).toBe('No run matches the filter.');
      await page.locator('#filters button[type="reset"]').click();
      await page.waitForSelector('#chains .chain:not([data-root="e2e-appear"])');

      // A listed run that leaves the status filter leaves the list (the feed reports it once more).
      await reserveRun(server, 'e2e-leave', 'e2e-leaving', 60_000);
      const leaving = await gql<{ workflowRun: { status: string } }>(server, 'query { workflowRun(runId: "e2e-leave") { status } }');
      await page.locator('#filter-workflow').fill('e2e-leaving');
      await page.locator('#filter-status').selectOption(leaving.workflowRun.status);
      await page.waitForSelector('#chains .chain[data-root="e2e-leave"]');
      const cancelled = await gql<{ settleWorkflowRun: { __typename: string } }>(
        server,
        'mutation { settleWorkflowRun(input: { runId: "e2e-leave", claimToken: "token-e2e-leave", status: CANCELLED }) { __typename } }',
      );
      expect(cancelled.settleWorkflowRun.__typename).toBe('SettleWorkflowRunSuccess');
      await page.waitForSelector('#chains-empty:not([hidden])');
      expect(await page.locator('#chains .chain').count()).toBe(0);
      await page.locator('#filters button[type="reset"]').click();
      await page.waitForSelector('#chains .chain[data-root="e2e-leave"]');

      // Search (ASCII case ignored) and the creation time range; the orders.
      await page.locator('#filter-search').fill('E2E-APP');
      await page.waitForFunction(() => [...document.querySelectorAll<HTMLElement>('#chains .chain')].map((node) => node.dataset.root).join() === 'e2e-appear');
      await page.locator('#filters button[type="reset"]').click();
      await page.waitForSelector('#chains .chain:not([data-root="e2e-appear"])');
      await page.locator('#filter-from').fill(new Date(Date.now() + 3_600_000).toISOString().slice(0, 19));
      await page.waitForSelector('#chains-empty:not([hidden])');
      await page.locator('#filters button[type="reset"]').click();
      await page.waitForSelector('#chains .chain');
      // Recently changed first: a run that changes moves to the top, without a reload.
      await reserveRun(server, 'e2e-order-a', 'e2e-order', 60_000);
      await reserveRun(server, 'e2e-order-b', 'e2e-order', 60_000);
      const roots = () => page.evaluate(() => [...document.querySelectorAll<HTMLElement>('#chains .chain')].map((node) => node.dataset.root).join());
      await page.locator('#filter-search').fill('e2e-order');
      await page.waitForFunction(
        () => [...document.querySelectorAll<HTMLElement>('#chains .chain')].map((node) => node.dataset.root).join() === 'e2e-order-b,e2e-order-a',
      );
      await page.locator('#order').selectOption('UPDATED_AT DESC');
      await page.waitForFunction(() => (document.querySelector('#chains-count')?.textContent ?? '').startsWith('2 chains'));
      expect(await roots()).toBe('e2e-order-b,e2e-order-a');
      const orderSettled = await gql<{ settleWorkflowRun: { __typename: string } }>(
        server,
        'mutation { settleWorkflowRun(input: { runId: "e2e-order-a", claimToken: "token-e2e-order-a", status: COMPLETED }) { __typename } }',
      );
      expect(orderSettled.settleWorkflowRun.__typename).toBe('SettleWorkflowRunSuccess');
      await page.waitForFunction(
        () => [...document.querySelectorAll<HTMLElement>('#chains .chain')].map((node) => node.dataset.root).join() === 'e2e-order-a,e2e-order-b',
      );
      await page.locator('#filters button[type="reset"]').click();
      await page.locator('#order').selectOption('CREATED_AT ASC');
      const oldestFirst = await gql<{ workflowRuns: { edges: Array<{ node: { rootRunId: string } }> } }>(
        server,
        'query { workflowRuns(first: 1, orderBy: { field: CREATED_AT, direction: ASC }) { edges { node { rootRunId } } } }',
      );
      await page.waitForFunction(
        (root) => (document.querySelector('#chains .chain') as HTMLElement | null)?.dataset.root === root,
        oldestFirst.workflowRuns.edges[0]?.node.rootRunId,
      );
      await page.locator('#order').selectOption('CREATED_AT DESC');

      // A claimed run whose lease runs out gets its stale mark (the page's own clock; no event).
      await reserveRun(server, 'e2e-stale', 'e2e-stale', 1_500);
      const staleChain = page.locator('#chains .chain[data-root="e2e-stale"]');
      await staleChain.waitFor();
      await page.waitForSelector('#chains .chain[data-root="e2e-stale"][data-stale="true"] .badge.stale');

      // Select it: the URL names it; the tree and the summary mark it stale.
      await staleChain.locator('button').click();
      await page.waitForFunction(() => document.querySelector('#run-id')?.textContent === 'e2e-stale');
      expect(new URL(page.url()).hash).toBe('#run=e2e-stale');
      await page.waitForSelector('#tree .run-node[data-run-id="e2e-stale"][data-stale="true"]');
      await waitShowing(page, '#run-summary[data-stale="true"] .stale-reason');

      // Back to a demo run by its URL: its GRAPH view and the feed without bookkeeping revisions.
      const demoRun = await vi.waitFor(
        async () => {
          const data = await gql<{ workflowRuns: { edges: Array<{ node: { runId: string } }> } }>(
            server,
            'query { workflowRuns(first: 10, filter: { status: [COMPLETED, FAILED] }) { edges { node { runId } } } }',
          );
          const node = data.workflowRuns.edges.find((edge) => !edge.node.runId.startsWith('e2e-'))?.node;
          if (node === undefined) throw new Error('no finished demo run yet');
          return node.runId;
        },
        { timeout: 30_000, interval: 100 },
      );
      await page.evaluate((runId) => {
        location.hash = `run=${runId}`;
      }, demoRun);
      await page.waitForFunction((id) => document.querySelector('#run-id')?.textContent === id, demoRun);
      // The graph: the definition's nodes (a node the view knows nothing of takes its GRAPH deltas' state).
      await page.waitForSelector('#graph .g-node[data-state]');
      await page.waitForFunction(() =>
        [...document.querySelectorAll<HTMLElement>('#graph .g-node')].some((node) => ['running', 'completed', 'failed'].includes(node.dataset.state ?? '')),
      );
      const nodeStates = await page.locator('#graph .g-node').evaluateAll((nodes) => nodes.map((node) => (node as HTMLElement).dataset.state));
      expect(
        nodeStates.every((nodeState) => ['pending', 'running', 'waiting', 'completed', 'failed', 'cancelled', 'timed-out'].includes(nodeState ?? '')),
      ).toBe(true);
      // The raw deltas are collapsed, for debugging; opened, bookkeeping revisions stay hidden until asked.
      expect(await page.locator('#feed li[data-bookkeeping="false"]').first().isVisible()).toBe(false);
      await page.locator('#raw-deltas > summary').click();
      await page.waitForFunction(() => Number((document.querySelector('#feed-stats') as HTMLElement).dataset.bookkeeping) > 0);
      const bookkeeping = page.locator('#feed li[data-bookkeeping="true"]');
      expect(await bookkeeping.count()).toBeGreaterThan(0);
      expect(await bookkeeping.first().isVisible()).toBe(false);
      expect(await page.locator('#feed li[data-bookkeeping="false"]').first().isVisible()).toBe(true);
      await page.locator('#show-bookkeeping').check();
      expect(await bookkeeping.first().isVisible()).toBe(true);
      await page.locator('#show-bookkeeping').uncheck();
      expect(await bookkeeping.first().isVisible()).toBe(false);
      await page.locator('#raw-deltas > summary').click();

      // Back and forward move between the selected runs.
      await page.goBack();
      await page.waitForFunction(() => document.querySelector('#run-id')?.textContent === 'e2e-stale');
      expect(new URL(page.url()).hash).toBe('#run=e2e-stale');
      await page.goForward();
      await page.waitForFunction((id) => document.querySelector('#run-id')?.textContent === id, demoRun);

      // An unknown id says so.
      await page.evaluate(() => {
        location.hash = 'run=no-such-run';
      });
      await page.waitForSelector('#run-missing:not([hidden])');
      expect(await page.locator('#run-missing').textContent()).toBe('Workflow run not found: no-such-run');

      // All of it without a reload: one document load, only same-document navigations.
      expect(await page.evaluate(() => (window as unknown as { liveTestDocument?: string }).liveTestDocument)).toBe('first');
      expect(navigations.every((url) => new URL(url).pathname === '/')).toBe(true);
      expect(pageErrors).toEqual([]);
    },
    120_000,
  );

  it.skipIf(!HAS_CHROMIUM)(
    'every chain is reachable: "load more" pages past the newest runs',
    async () => {
      // More new runs than one page (50) of the list, so older chains are on later pages.
      for (let index = 0; index < 55; index += 1) await reserveRun(server, `e2e-bulk-${String(index).padStart(2, '0')}`, 'e2e-bulk');
      const base = server.url.replace(/\/graphql$/, '');
      await page.goto('about:blank'); // a new document: the list starts over from its first page
      await page.goto(`${base}/#run=e2e-bulk-54`);
      await page.waitForFunction(() => document.querySelector('#run-id')?.textContent === 'e2e-bulk-54');
      await page.waitForSelector('#chains .chain[data-root="e2e-bulk-54"]');
      const more = page.locator('#chains-more');
      // The first page: 50 runs (a few more may have come from the change feed since).
      const [, loaded, total] = /· (\d+) of (\d+) runs loaded$/.exec((await page.locator('#chains-count').textContent()) ?? '') ?? [];
      expect(Number(loaded)).toBeGreaterThanOrEqual(50);
      expect(Number(loaded)).toBeLessThan(Number(total));
      expect(await more.isVisible()).toBe(true);
      expect(await page.locator('#chains .chain[data-root="e2e-bulk-00"]').count()).toBe(0);
      while (await more.isVisible()) {
        const before = await page.locator('#chains-count').textContent();
        await more.click();
        await page.waitForFunction((text) => document.querySelector('#chains-count')?.textContent !== text, before);
      }
      // Every page loaded: every chain of the database is listed (the feed adds new ones).
      await page.waitForFunction(() => /· (\d+) of \1 runs loaded$/.test(document.querySelector('#chains-count')?.textContent ?? ''));
      const roots = new Set<string>();
      let after: string | null = null;
      for (;;) {
        const data: { workflowRuns: { edges: Array<{ node: { rootRunId: string } }>; pageInfo: { hasNextPage: boolean; endCursor: string | null } } } =
          await gql(
            server,
            'query ($after: String) { workflowRuns(first: 100, after: $after) { edges { node { rootRunId } } pageInfo { hasNextPage endCursor } } }',
            { after },
          );
        for (const edge of data.workflowRuns.edges) roots.add(edge.node.rootRunId);
        if (!data.workflowRuns.pageInfo.hasNextPage) break;
        after = data.workflowRuns.pageInfo.endCursor;
      }
      expect(roots.has('e2e-bulk-00')).toBe(true);
      for (const root of roots) await page.locator(`#chains .chain[data-root="${root}"]`).waitFor({ state: 'attached' });
      expect(pageErrors).toEqual([]);
    },
    120_000,
  );

  it.skipIf(!HAS_CHROMIUM)(
    'reads the first page without waiting for the socket; a run reserved before the feed reached the server is replayed from the page’s changeCursor',
    async () => {
      const base = server.url.replace(/\/graphql$/, '');
      const fresh = await context.newPage();
      fresh.on('pageerror', (error) => pageErrors.push(error.message));
      // The page's first WebSocket waits (still CONNECTING) until the test lets it through.
      let release: () => void = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      await fresh.routeWebSocket(/\/graphql$/, async (ws) => {
        await gate;
        ws.connectToServer();
      });
      try {
        await fresh.goto(`${base}/`);
        await fresh.waitForFunction(() => (document.querySelector('#chains-count')?.textContent ?? '') !== '');
        expect(await fresh.locator('#conn').getAttribute('data-state')).toBe('connecting');
        // Committed after the page was read and before its feed subscription exists.
        await reserveRun(server, 'e2e-gap-run', 'gap-check');
        expect(await fresh.locator('#chains .chain[data-root="e2e-gap-run"]').count()).toBe(0);
        release();
        await fresh.waitForSelector('#conn[data-state="connected"]');
        await fresh.locator('#chains .chain[data-root="e2e-gap-run"]').waitFor();
        expect(pageErrors).toEqual([]);
      } finally {
        release();
        await fresh.close();
      }
    },
    60_000,
  );
});

describe('live lineage page across a server restart (browser)', () => {
  let dir: string;
  let dbPath: string;
  let port: number;
  let server: RunningServer;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  /** The server on the database file; on `port` once the first one has chosen it. */
  const start = (onPort: number): Promise<RunningServer> => startServer(testServerConfig(dbPath, dir, { port: onPort }), { logger: pino({ level: 'silent' }) });
  const revisionOf = async (on: RunningServer, runId: string): Promise<number> =>
    (
      await gql<{ workflowRun: { presentationRevision: number } }>(on, 'query ($runId: String!) { workflowRun(runId: $runId) { presentationRevision } }', {
        runId,
      })
    ).workflowRun.presentationRevision;
  const cursor = async (): Promise<number> => Number((await dataset(page, '#feed-stats')).cursor);

  beforeAll(async () => {
    if (!HAS_CHROMIUM) return;
    dir = mkdtempSync(join(tmpdir(), 'live-page-restart-'));
    dbPath = join(dir, 'state.db');
    server = await start(0);
    port = Number(new URL(server.url).port);
    ({ context, page } = await openChromiumPage(dir, pageErrors));
  }, 60_000);

  afterAll(async () => {
    if (!HAS_CHROMIUM) return;
    await context?.close();
    await server?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it.skipIf(!HAS_CHROMIUM)(
    'the server stops and starts again on the same port and file: the page retries, resumes every feed from its cursor, shows what changed meanwhile and after, without an error banner',
    async () => {
      await reserveRun(server, 'e2e-restart', 'e2e-restarting', 120_000);
      await reserveRun(server, 'e2e-restart-other', 'e2e-other');
      await page.goto(`${server.url.replace(/\/graphql$/, '')}/#run=e2e-restart`);
      await page.waitForSelector('#conn[data-state="connected"][data-reconnects="0"]');
      await page.waitForFunction(() => document.querySelector('#run-id')?.textContent === 'e2e-restart');
      const opened = await revisionOf(server, 'e2e-restart');
      await page.waitForFunction((revision) => Number((document.querySelector('#feed-stats') as HTMLElement).dataset.cursor) === revision, opened);
      await page.waitForSelector('#chains .chain[data-root="e2e-restart"]');

      // The server stops: the page says it is reconnecting, and keeps trying while nothing
      // listens on the port (each refused attempt counts a failure).
      const stopped = server.close();
      await page.waitForSelector('#conn[data-state="reconnecting"]');
      await stopped;
      await page.waitForFunction(() => Number((document.querySelector('#conn') as HTMLElement).dataset.failures) >= 2);
      await page.waitForFunction(() => /^◌ reconnecting… — server unreachable(;|$)/.test(document.querySelector('#conn')?.textContent ?? ''));

      // Meanwhile: the run changes (another server on the same file writes it), and the list is
      // asked for a filter (its read finds no server and waits).
      const writer = await start(0);
      const running = await gql<{ markWorkflowRunRunning: { __typename: string } }>(
        writer,
        'mutation { markWorkflowRunRunning(input: { runId: "e2e-restart", claimToken: "token-e2e-restart" }) { __typename } }',
      );
      expect(running.markWorkflowRunRunning.__typename).toBe('MarkWorkflowRunRunningSuccess');
      const reported = await gql<{ reportWorkflowRunState: { __typename: string } }>(
        writer,
        'mutation { reportWorkflowRunState(input: { runId: "e2e-restart", claimToken: "token-e2e-restart", state: RUNNING, detail: "written while the page was away" }) { __typename } }',
      );
      expect(reported.reportWorkflowRunState.__typename).toBe('ReportWorkflowRunStateSuccess');
      const missed = await revisionOf(writer, 'e2e-restart');
      expect(missed).toBeGreaterThan(opened);
      await writer.close();
      await page.locator('#filter-search').fill('e2e-restart-oth');
      await page.waitForFunction(() => Number((document.querySelector('#conn') as HTMLElement).dataset.httpRetries) >= 1);

      // The server starts again where the page expects it.
      server = await start(port);
      await page.waitForSelector('#conn[data-state="connected"][data-reconnects="1"]');
      expect(await page.locator('#conn').textContent()).toBe('● connected (reconnected ×1)');
      // The delta feed resumed after its cursor: the missed revision came, the record was read again.
      await page.waitForFunction((revision) => Number((document.querySelector('#feed-stats') as HTMLElement).dataset.cursor) >= revision, missed);
      await page.waitForFunction(() => (document.querySelector('#run-summary') as HTMLElement).innerText.includes('written while the page was away'));
      expect(await page.locator('#run-summary dd .badge').allTextContents()).toEqual(['RUNNING', 'queue RUNNING']);
      // The list's read went through once the server was back.
      await page.waitForFunction(
        () => [...document.querySelectorAll<HTMLElement>('#chains .chain')].map((node) => node.dataset.root).join() === 'e2e-restart-other',
      );
      await page.locator('#filters button[type="reset"]').click();
      await page.waitForSelector('#chains .chain[data-root="e2e-restart"][data-status="RUNNING"]');

      // A change on the restarted server shows live: in the list, the summary and the feed.
      const settled = await gql<{ settleWorkflowRun: { __typename: string } }>(
        server,
        'mutation { settleWorkflowRun(input: { runId: "e2e-restart", claimToken: "token-e2e-restart", status: COMPLETED }) { __typename } }',
      );
      expect(settled.settleWorkflowRun.__typename).toBe('SettleWorkflowRunSuccess');
      const final = await revisionOf(server, 'e2e-restart');
      await page.waitForSelector('#chains .chain[data-root="e2e-restart"][data-status="COMPLETED"]');
      await page.waitForFunction(() => document.querySelector('#run-summary dd .badge')?.textContent === 'COMPLETED');
      expect(await page.locator('#run-summary dd .badge').allTextContents()).toEqual(['COMPLETED', 'queue DONE']);
      // The run's view follows the run (its subscription).
      await page.waitForSelector('#view-head[data-status="COMPLETED"]');
      await page.waitForFunction((revision) => Number((document.querySelector('#feed-stats') as HTMLElement).dataset.cursor) === revision, final);
      expect(await cursor()).toBe(final);

      // Every revision once, in order: nothing missed, nothing applied twice.
      const stats = await dataset(page, '#feed-stats');
      expect(stats.gaps).toBe('0');
      expect(stats.duplicates).toBe('0');
      const revisions = await page
        .locator('#feed li[data-revision]')
        .evaluateAll((nodes) => nodes.map((node) => Number((node as HTMLElement).dataset.revision)));
      // (The page opened the run at revision `opened` and replayed the revisions after the first.)
      expect(revisions).toEqual(Array.from({ length: final - 1 }, (_, index) => final - index));
      // No banner left, and nothing says "[object …]".
      expect(await page.locator('#error').isHidden()).toBe(true);
      expect(await page.evaluate(() => document.body.innerText)).not.toContain('[object');
      expect(pageErrors).toEqual([]);
    },
    120_000,
  );

  it.skipIf(!HAS_CHROMIUM)('an unknown #run= id clears the chain pane and says the run was not found', async () => {
    await page.waitForSelector('#conn[data-state="connected"]');
    await page.evaluate(() => {
      location.hash = 'run=e2e-restart';
    });
    await page.waitForSelector('#tree .run-node[data-run-id="e2e-restart"]');
    expect(await page.locator('#tree-root').textContent()).toBe('e2e-restart');
    await page.evaluate(() => {
      location.hash = 'run=no-such-run';
    });
    await page.waitForSelector('#run-missing:not([hidden])');
    expect(await page.locator('#run-missing').textContent()).toBe('Workflow run not found: no-such-run');
    expect(await page.locator('#tree').textContent()).toBe('Workflow run not found: no-such-run');
    expect(await page.locator('#tree .run-node').count()).toBe(0);
    expect(await page.locator('#tree-root').textContent()).toBe('');
    expect(await page.locator('#chains .chain[aria-current="true"]').count()).toBe(0);
    expect(await page.locator('#run-summary dd').count()).toBe(0);
    expect(await page.locator('#error').isHidden()).toBe(true);
    expect(pageErrors).toEqual([]);
  });
});

describe('the run view on a pi-workflows file (browser)', () => {
  let dir: string;
  let dbPath: string;
  let server: RunningServer;
  let context: BrowserContext;
  let page: Page;
  let base: string;
  const pageErrors: string[] = [];

  /** Opens a run by its URL and waits for its view. */
  const openRun = async (runId: string): Promise<void> => {
    await page.goto('about:blank');
    await page.goto(`${base}/#run=${runId}`);
    await page.waitForFunction((id) => document.querySelector('#run-id')?.textContent === id, runId);
    await waitShowing(page, '#view-head .view-title');
  };
  /** The text a reader sees in the run panel (collapsed details and hidden parts excluded). */
  const visibleText = (): Promise<string> => page.evaluate(() => (document.querySelector('#run-panel') as HTMLElement).innerText);
  /** Whether the page fits the window's width. */
  const fits = (): Promise<{ scrollWidth: number; innerWidth: number }> =>
    page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));

  beforeAll(async () => {
    if (!HAS_CHROMIUM) return;
    dir = mkdtempSync(join(tmpdir(), 'live-page-view-'));
    dbPath = join(dir, 'pi-state.sqlite');
    buildReferenceFile(dbPath);
    server = await startServer(testServerConfig(dbPath, dir, { readOnly: true }), { logger: pino({ level: 'silent' }) });
    base = server.url.replace(/\/graphql$/, '');
    ({ context, page } = await openChromiumPage(dir, pageErrors));
  }, 60_000);

  afterAll(async () => {
    if (!HAS_CHROMIUM) return;
    await context?.close();
    await server?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it.skipIf(!HAS_CHROMIUM)(
    'ref-translate-31: title, status, the header’s database, three steps with prompt and output, the final output; never wider than the window',
    async () => {
      await openRun('ref-translate-31');
      await page.waitForSelector('#steps li.step');
      expect(await page.locator('#run-title').textContent()).toBe('Translate handbook chapter 3');
      expect(await page.locator('#view-head').getAttribute('data-status')).toBe('COMPLETED');
      expect(await page.locator('#view-head .view-title .badge').first().textContent()).toBe('COMPLETED');
      // The header: the file served and read-only.
      await page.waitForSelector('#db[data-mode="read-only"]');
      expect(await page.locator('#db .db-path').textContent()).toBe(dbPath);
      expect(await page.locator('#db .db-mode').textContent()).toBe('read-only');

      // The graph: the definition's nodes in order, each completed.
      const graph = await page
        .locator('#graph .g-node')
        .evaluateAll((nodes) => nodes.map((node) => `${(node as HTMLElement).dataset.node}:${(node as HTMLElement).dataset.state}`));
      expect(graph).toEqual(['outline:completed', 'glossary:completed', 'render:completed']);

      // Three steps, collapsed; opened, each shows its prompt and output.
      const steps = page.locator('#steps li.step');
      expect(await steps.count()).toBe(3);
      expect(await steps.evaluateAll((nodes) => nodes.map((node) => (node as HTMLElement).dataset.node))).toEqual(['outline', 'glossary', 'render']);
      expect(await steps.nth(0).locator('[data-field="prompt"]').isVisible()).toBe(false);
      for (let index = 0; index < 3; index += 1) await steps.nth(index).locator('summary').first().click();
      const fieldText = (index: number, name: string) => steps.nth(index).locator(`[data-field="${name}"]`).innerText();
      expect(await fieldText(0, 'prompt')).toContain('Outline chapter 3 of the handbook for a German translation.');
      expect(await fieldText(0, 'output')).toMatch(/sections\s+Setup, Daily use, Troubleshooting/);
      expect(await steps.nth(1).locator('[data-field="prompt"]').count()).toBe(0); // a compute node sends no prompt
      expect(await fieldText(1, 'output')).toMatch(/terms\s+18/);
      expect(await fieldText(2, 'prompt')).toContain('Render chapter 3 in German with the 18-term glossary.');
      expect(await fieldText(2, 'output')).toContain('Kapitel 3 fertig: 3 Abschnitte, 18 Fachbegriffe.');

      // The final output, as fields.
      const final = await page.locator('#result [data-field="final-output"]').innerText();
      expect(final).toMatch(/language\s+de/);
      expect(final).toMatch(/words\s+2140/);
      // The trace as a timeline, oldest first.
      const types = await page.locator('#timeline li.t-event').evaluateAll((nodes) => nodes.map((node) => (node as HTMLElement).dataset.type));
      expect(types[0]).toBe('run.queued');
      expect(types).toContain('run_completed');

      // No raw JSON outside collapsed details; the raw deltas are collapsed.
      expect(await visibleText()).not.toContain('{"');
      expect(await page.locator('#feed').isVisible()).toBe(false);
      for (const width of [1500, 1024]) {
        await page.setViewportSize({ width, height: 950 });
        const { scrollWidth, innerWidth } = await fits();
        expect(scrollWidth, `at ${width} px`).toBeLessThanOrEqual(innerWidth);
      }
      await page.setViewportSize({ width: 1500, height: 950 });
      expect(pageErrors).toEqual([]);
    },
    60_000,
  );

  it.skipIf(!HAS_CHROMIUM)(
    "ref-explain-14: the conversation as a chat — roles, the assistant's text, the read tool call",
    async () => {
      await openRun('ref-explain-14');
      await page.waitForSelector('#conversation li.chat');
      const roles = await page.locator('#conversation li.chat').evaluateAll((nodes) => nodes.map((node) => (node as HTMLElement).dataset.role));
      expect(roles).toEqual(['workflow', 'assistant', 'toolResult', 'assistant']);
      const assistant = page.locator('#conversation li.chat-assistant');
      expect(await assistant.nth(0).innerText()).toContain("I'll read the scheduler first.");
      expect(await assistant.nth(1).innerText()).toContain('lib/scheduler.rs keeps a priority heap of jobs');
      const call = assistant.nth(0).locator('.tool-call[data-tool="read"]');
      expect(await call.locator('.tool-name').textContent()).toBe('read');
      expect(await call.locator('.tool-args').textContent()).toBe('path: lib/scheduler.rs');
      expect(await page.locator('#conversation li.chat-toolResult').innerText()).toMatch(/read result[\s\S]*pub struct Scheduler/);
      expect(await page.locator('#conversation .chat-role').allTextContents()).toEqual([
        'workflow · pi-workflows-step',
        'assistant',
        'read result',
        'assistant',
      ]);
      expect(await visibleText()).not.toContain('{"');
      for (const width of [1500, 1024]) {
        await page.setViewportSize({ width, height: 950 });
        const { scrollWidth, innerWidth } = await fits();
        expect(scrollWidth, `at ${width} px`).toBeLessThanOrEqual(innerWidth);
      }
      await page.setViewportSize({ width: 1500, height: 950 });
      expect(pageErrors).toEqual([]);
    },
    60_000,
  );

  it.skipIf(!HAS_CHROMIUM)(
    'ref-triage-77: what it waits for and the question it asks; ref-import-52: its error',
    async () => {
      await openRun('ref-triage-77');
      await page.waitForSelector('#waiting-box:not([hidden]) .question');
      expect(await page.locator('#view-head').getAttribute('data-status')).toBe('WAITING');
      const waiting = await page.locator('#waiting').innerText();
      expect(waiting).toContain('Waits on node classify');
      expect(waiting).toContain('The workflow is waiting for origin-session input.');
      expect(await page.locator('#waiting .question[data-status="pending"] .q-prompt').textContent()).toBe(
        'Classify support ticket SUP-3318 (checkout page times out) by severity.',
      );
      expect(waiting).toContain('expects: a severity label');
      expect(await page.locator('#graph .g-node[data-node="classify"]').getAttribute('data-state')).toBe('waiting');
      expect(await page.locator('#run-controls .control').evaluateAll((nodes) => nodes.map((node) => (node as HTMLElement).dataset.control))).toEqual([
        'PAUSE',
        'CANCEL',
        'ANSWER',
      ]);
      expect(await visibleText()).not.toContain('{"');

      await openRun('ref-import-52');
      await page.waitForSelector('#result [data-field="error"]');
      expect(await page.locator('#result [data-field="error"]').innerText()).toContain("Node validate failed: Row 217: column 'sku' is empty");
      expect(await page.locator('#graph .g-node[data-node="validate"]').getAttribute('data-state')).toBe('failed');
      expect(await visibleText()).not.toContain('{"');
      expect(pageErrors).toEqual([]);
    },
    60_000,
  );
});

describe('the run view followed live (browser)', () => {
  /** A definition snapshot in pi-workflows' form (values invented for this test). */
  const DEFINITION = {
    schema: 'pi-workflows.definition-snapshot.v1',
    name: 'follow-page',
    startAt: 'plan',
    nodes: { plan: { nodeType: 'agent' }, build: { nodeType: 'agent' } },
    edges: [{ from: 'plan', to: 'build' }],
  };
  const RUN = 'follow-page-1';
  let dir: string;
  let server: RunningServer;
  let engine: EngineRowWriter;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];
  /** The page's POSTs of the view query (`LivePageRunView`). */
  let viewQueries = 0;
  const upgraded = new Set<Socket>();

  beforeAll(async () => {
    if (!HAS_CHROMIUM) return;
    dir = mkdtempSync(join(tmpdir(), 'live-page-follow-'));
    const path = join(dir, 'state.sqlite');
    createPiWorkflowsFile(path).close();
    server = await startServer(testServerConfig(path, dir), { logger: pino({ level: 'silent' }) });
    server.httpServer.on('upgrade', (_request, socket: Socket) => {
      upgraded.add(socket);
      socket.once('close', () => upgraded.delete(socket));
    });
    // Reserved and claimed (a live claim: shown as running), then the engine's rows on its own connection.
    const data = await gql<{ reserveWorkflowRun: { __typename: string } }>(
      server,
      `mutation ($input: ReserveWorkflowRunInput!) { reserveWorkflowRun(input: $input) { __typename ... on Error { message } } }`,
      {
        input: {
          runId: RUN,
          workflowName: 'follow-page',
          workflowRef: 'workflows/follow-page.ts',
          definition: DEFINITION,
          originSessionId: 'session-follow-page',
          claim: { runnerId: 'runner-e2e', claimToken: 'token-follow-page', leaseMs: 600_000 },
        },
      },
    );
    expect(data.reserveWorkflowRun.__typename, JSON.stringify(data)).toBe('ReserveWorkflowRunSuccess');
    engine = EngineRowWriter.open({ path });
    engine.startRun({ runId: RUN, title: 'Follow the page' });
    engine.bindSession({ runId: RUN, piSessionId: 'pi-follow-page', cwd: dir });
    ({ context, page } = await openChromiumPage(dir, pageErrors));
    page.on('request', (request) => {
      if (request.method() === 'POST' && /query LivePageRunView\b/.test(request.postData() ?? '')) viewQueries += 1;
    });
  }, 60_000);

  afterAll(async () => {
    if (!HAS_CHROMIUM) return;
    await context?.close();
    engine?.close();
    await server?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const nodeState = (node: string): Promise<string | null> => page.locator(`#graph .g-node[data-node="${node}"]`).getAttribute('data-state');

  it.skipIf(!HAS_CHROMIUM)(
    'a step with its output and a session entry with a tool call that the engine writes appear without a reload and without a view query; a failed run’s progress no longer says running',
    async () => {
      const { attemptId } = engine.startStep({ runId: RUN, nodeId: 'plan', nodeType: 'agent' });
      engine.sendPrompt({ runId: RUN, attemptId, prompt: 'Plan the change.' });
      engine.publishUpdate({ runId: RUN, attemptId, type: 'progress', key: 'plan', data: { label: 'Planning', completed: 1, total: 2, status: 'running' } });

      await page.goto(`${server.url.replace(/\/graphql$/, '')}/#run=${RUN}`);
      await waitShowing(page, '#view-head[data-status="RUNNING"]');
      expect(await page.locator('#run-title').textContent()).toBe('Follow the page');
      await page.waitForSelector('#graph .g-node[data-node="plan"][data-state="running"]');
      expect(await page.locator('#progress .update.progress').innerText()).toContain('1 of 2 · running');
      expect(await page.locator('#steps li.step').count()).toBe(0);
      const queriesShown = viewQueries;
      expect(queriesShown).toBe(1);

      // The engine (another connection to the file) adds a session entry with a tool call and finishes the step with an output.
      engine.appendSessionEntry({
        runId: RUN,
        entry: {
          type: 'message',
          id: 'plan-a',
          parentId: null,
          message: {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Reading the scheduler first.' },
              { type: 'toolCall', id: 'call-plan', name: 'read', arguments: { path: 'lib/scheduler.rs' } },
            ],
          },
        },
      });
      engine.finishStep({ runId: RUN, attemptId, outcome: 'ok', output: { plan: 'two steps' } });
      const build = engine.startStep({ runId: RUN, nodeId: 'build', nodeType: 'agent' });

      await page.waitForSelector('#steps li.step[data-node="plan"][data-outcome="OK"]');
      expect(await page.locator('#steps li.step[data-node="plan"] [data-field="output"]').textContent()).toMatch(/plan\s*two steps/);
      expect(await page.locator('#steps li.step[data-node="plan"] [data-field="prompt"]').textContent()).toContain('Plan the change.');
      await page.waitForSelector('#conversation li.chat-assistant .tool-call[data-tool="read"]');
      const assistant = page.locator('#conversation li.chat-assistant');
      expect(await assistant.innerText()).toContain('Reading the scheduler first.');
      expect(await assistant.locator('.tool-args').textContent()).toBe('path: lib/scheduler.rs');
      await page.waitForSelector('#graph .g-node[data-node="build"][data-state="running"]');
      expect(await nodeState('plan')).toBe('completed');
      const types = await page.locator('#timeline li.t-event').evaluateAll((nodes) => nodes.map((node) => (node as HTMLElement).dataset.type));
      expect(types).toEqual(expect.arrayContaining(['node_started', 'node_finished']));
      // Followed, not read again: no view query since the first.
      expect(viewQueries).toBe(queriesShown);

      // The connection drops; the build step finishes meanwhile: after the reconnect the view resumes from its
      // last cursor — the step once, still no view query.
      await page.waitForSelector('#conn[data-state="connected"][data-reconnects="0"]');
      for (const socket of upgraded) socket.destroy();
      await page.waitForSelector('#conn[data-state="reconnecting"]');
      engine.finishStep({ runId: RUN, attemptId: build.attemptId, outcome: 'ok', output: 'built' });
      await page.waitForSelector('#conn[data-state="connected"][data-reconnects="1"]');
      await page.waitForSelector('#steps li.step[data-node="build"][data-outcome="OK"]');
      expect(await page.locator('#steps li.step').evaluateAll((nodes) => nodes.map((node) => (node as HTMLElement).dataset.node))).toEqual(['plan', 'build']);
      expect(await page.locator('#conversation li.chat').count()).toBe(1);
      expect(await nodeState('build')).toBe('completed');
      expect(viewQueries).toBe(queriesShown);

      // The run fails: its progress says what the run is shown as now, not the update's "running".
      engine.finishRun({ runId: RUN, status: 'failed', error: 'build broke' });
      await page.waitForSelector('#view-head[data-status="FAILED"]');
      await page.waitForSelector('#result [data-field="error"]');
      expect(await page.locator('#result [data-field="error"]').innerText()).toContain('build broke');
      const progress = await page.locator('#progress .update.progress').innerText();
      expect(progress).toContain('1 of 2 · failed');
      expect(progress).not.toContain('running');
      expect(await nodeState('build')).toBe('completed');
      expect(await nodeState('plan')).toBe('completed');
      expect(viewQueries).toBe(queriesShown);
      expect(await page.locator('#error').isHidden()).toBe(true);
      expect(pageErrors).toEqual([]);
    },
    60_000,
  );
});
