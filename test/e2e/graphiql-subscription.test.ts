/**
 * GraphiQL on a server with a token, in a real browser (playwright-core driving Debian's
 * Chromium, as the live page test does): the token typed into the Headers tab, as
 * docs/OPERATIONS.md says, reaches subscriptions too. GraphiQL sends subscriptions as
 * Server-Sent Events on /graphql with the tab's headers; over graphql-ws it would send an empty
 * `connection_init` payload and the server would close the socket with 4403, leaving the
 * result pane empty.
 *
 * Needs /usr/bin/chromium (`apt-get install -y chromium`); without it the test is skipped.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MarkWorkflowRunRunningDocument } from '../../schema/generated/graphql.js';
import { claim, reserve, reserveInput, startTestServer, type TestServer } from '../helpers/server-fixture.js';

const CHROMIUM = '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);
const READ_TOKEN = 'graphiql-read-token';

if (!HAS_CHROMIUM) console.warn(`GraphiQL browser test skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`);

/** The text of GraphiQL's result pane. */
async function resultText(page: Page): Promise<string> {
  return page.evaluate(() => document.querySelector('.result-window')?.textContent ?? '');
}

describe.skipIf(!HAS_CHROMIUM)('GraphiQL on a server with a token', () => {
  let profile: string;
  let context: BrowserContext;
  let page: Page;
  let fx: TestServer;
  beforeAll(async () => {
    fx = await startTestServer({ token: 'graphiql-full-token', readTokens: [READ_TOKEN] });
    profile = mkdtempSync(join(tmpdir(), 'graphiql-chromium-'));
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
    await fx?.close();
    rmSync(profile, { recursive: true, force: true });
  });

  it('runs a subscription with the read token of the Headers tab and shows the change', async () => {
    await reserve(fx, reserveInput('gi-1', { originSessionId: 'session-gi-1' }));
    await claim(fx, 'gi-1', 'claim-gi-1');
    const subscription = 'subscription Follow { workflowRunUpdated(runId: "gi-1") { runId queueStatus } }';
    await page.goto(`${fx.url}?query=${encodeURIComponent(subscription)}`);
    await page.waitForSelector('.graphiql-execute-button');
    await page.getByText('Headers', { exact: true }).click();
    await page.locator('.graphiql-editor-tool .view-lines').last().click({ force: true });
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    // The editor closes the brace itself.
    await page.keyboard.type(`{"Authorization": "Bearer ${READ_TOKEN}"`);
    const stream = page.waitForResponse(
      (response) => response.url().startsWith(fx.url) && (response.headers()['content-type'] ?? '').startsWith('text/event-stream'),
    );
    await page.click('.graphiql-execute-button');
    expect((await stream).status()).toBe(200);
    await fx.data(MarkWorkflowRunRunningDocument, { input: { runId: 'gi-1', claimToken: 'claim-gi-1' } });
    await expect.poll(() => resultText(page), { timeout: 10_000 }).toMatch(/"runId":\s*"gi-1",\s*"queueStatus":\s*"RUNNING"/);
  });
});
