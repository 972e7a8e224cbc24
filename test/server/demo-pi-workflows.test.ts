/**
 * `npm run demo -- --pi-workflows` (README "The demo"): the demo on a pi-workflows state file
 * it creates with pi-workflows 0.16's layout when there is none. The server serves it as a
 * pi-workflows file (its identity as a real 0.16 file carries), the demo host's runs show with
 * their titles and steps, and after Ctrl-C the file still passes pi-workflows' own open check.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { attachPiWorkflowsWriter, piWorkflowsOpenCheck } from '../../fixtures/pi-workflows-file.js';
import { REPO_ROOT, WAIT_MS } from '../helpers/live-fixtures.js';
import { TSX_IMPORT } from '../helpers/service-process.js';
import { tempDir } from '../helpers/store-fixtures.js';

const dir = tempDir('demo-pi-workflows-');
let demo: ChildProcess | undefined;
afterAll(() => {
  demo?.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** POSTs a GraphQL query to `url`. */
async function graphql<T>(url: string, query: string): Promise<T> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
  return ((await response.json()) as { data: T }).data;
}

describe('npm run demo -- --pi-workflows', () => {
  it('creates a pi-workflows 0.16 file, serves it as one with the host’s runs, and leaves it as pi-workflows accepts it', async () => {
    const dbPath = join(dir, 'state.sqlite');
    expect(existsSync(dbPath)).toBe(false);
    demo = spawn(process.execPath, ['--import', TSX_IMPORT, 'demo/run.ts', '--pi-workflows', '--db', dbPath, '--port', '0', '--interval-ms', '20'], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    demo.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => demo?.once('exit', (code) => resolve(code)));
    // Every line the demo prints (the banner, then one per host step), awaited one by one.
    const lines: string[] = [];
    let lineArrived: () => void = () => undefined;
    createInterface({ input: demo.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      lines.push(line);
      lineArrived();
    });
    const nextLine = (): Promise<void> =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no line from the demo within ${WAIT_MS} ms: ${stderr}`)), WAIT_MS);
        lineArrived = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    let url: string | undefined;
    while (url === undefined) {
      url = lines.map((line) => /^ {2}GraphiQL: {2}(\S+)$/.exec(line)?.[1]).find((found) => found !== undefined);
      if (url === undefined) await nextLine();
    }

    const health = (await (await fetch(url.replace(/\/graphql$/, '/health'))).json()) as { database: Record<string, unknown> };
    expect(health.database).toMatchObject({
      path: dbPath,
      kind: 'pi-workflows',
      piWorkflows: { schemaVersion: 1, appVersion: '0.14.0', layoutReleases: ['0.16.1', '0.16.2'], writable: true },
    });
    // The host's runs, with what its engine wrote: a title and steps (read again after each host step it prints).
    type Runs = { workflowRuns: { edges: Array<{ node: { runId: string; view: { title: string | null; steps: { totalCount: number } } } }> } };
    let seen: Runs['workflowRuns']['edges'] = [];
    for (let step = 0; step < 200; step++) {
      seen = (await graphql<Runs>(url, '{ workflowRuns(first: 20) { edges { node { runId view { title steps { totalCount } } } } } }')).workflowRuns.edges;
      if (seen.some(({ node }) => node.view.title !== null && node.view.steps.totalCount > 0)) break;
      await nextLine();
    }
    expect(seen.some(({ node }) => /^d1-c\d+-\d+$/.test(node.runId) && node.view.title !== null && node.view.steps.totalCount > 0)).toBe(true);

    demo.kill('SIGINT');
    expect(await exited).toBe(0);
    // The facts of a 0.16 file at this path (opened as pi-workflows' host opens it, then closed).
    const pi = attachPiWorkflowsWriter(dbPath);
    pi.close();
    expect(piWorkflowsOpenCheck(pi.facts)).toEqual([]);
  });
});
