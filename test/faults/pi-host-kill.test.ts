/**
 * SIGKILL of the server mid-write beside a live pi-workflows host (docs/PI-WORKFLOWS-FILES.md
 * §6): the real server CLI serves a pi-workflows 0.16 file read-write under a burst of
 * mutations from eight clients (reserve with claim, park, claim, settle) while a second process
 * writes the same file as pi-workflows' host does. Once the server's own change feed
 * (workflowRunChanges over graphql-ws) has delivered commits of the burst, with requests still
 * in flight, the server is killed.
 *
 * Afterwards the file passes pi-workflows' open check (application_id, user_version, the
 * schema_meta row and the hash of the sqlite_schema rows unchanged; integrity_check ok;
 * foreign_key_check empty) with the pi host still attached; every acknowledged mutation is
 * there; the pi host carries on writing (its own run, and the run the dead server held once
 * its lease expired); and the file passes the check again once the host closed it, and serves
 * again.
 */
import { realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Client } from 'graphql-ws';
import { afterAll, describe, expect, it } from 'vitest';
import { projectIdFor } from '../../src/store/index.js';
import { faultTempDir, postGraphQL, startServerProcess, type ServerProcess } from '../helpers/fault-fixtures.js';
import { subscribeWs, wsClient } from '../helpers/live-fixtures.js';
import { createPiWorkflowsFile, piWorkflowsIdentity, piWorkflowsOpenCheck } from '../../fixtures/pi-workflows-file.js';
import { startPiWriterProcess, type PiWriterProcess } from '../helpers/pi-writer-process.js';
import { DEFINITION } from '../helpers/server-fixture.js';

const HOUR = 3_600_000;
const LANES = 8;
/** Commits of the burst the change feed must have delivered before the kill. */
const COMMITS_BEFORE_KILL = 60;

const RESULT = (success: string) => `{ __typename ... on ${success} { run { runId } } ... on Error { message } }`;
const MUTATIONS = {
  reserve: `mutation ($input: ReserveWorkflowRunInput!) { reserveWorkflowRun(input: $input) ${RESULT('ReserveWorkflowRunSuccess')} }`,
  park: `mutation ($input: ParkWorkflowRunInput!) { parkWorkflowRun(input: $input) ${RESULT('ParkWorkflowRunSuccess')} }`,
  claim: `mutation ($input: ClaimWorkflowRunInput!) { claimWorkflowRun(input: $input) ${RESULT('ClaimWorkflowRunSuccess')} }`,
  settle: `mutation ($input: SettleWorkflowRunInput!) { settleWorkflowRun(input: $input) ${RESULT('SettleWorkflowRunSuccess')} }`,
};
const CHANGES = 'subscription ($after: String) { workflowRunChanges(after: $after) { __typename ... on WorkflowRunChange { run { runId queueStatus } } } }';

/** The four steps of a chain and what each acknowledged one leaves in the file (queue status, lease owner set). */
const STEPS = ['reserve', 'park', 'claim', 'settle'] as const;
const LEFT_BY: Record<(typeof STEPS)[number], { queue: string; owned: boolean }> = {
  reserve: { queue: 'starting', owned: true },
  park: { queue: 'parked', owned: false },
  claim: { queue: 'starting', owned: true },
  settle: { queue: 'done', owned: false },
};

function inputOf(step: (typeof STEPS)[number], runId: string): Record<string, unknown> {
  const claimToken = `${runId}-token`;
  switch (step) {
    case 'reserve':
      return {
        runId,
        workflowName: 'demo',
        workflowRef: 'workflows/demo.ts',
        definition: DEFINITION,
        input: { runId },
        originSessionId: `session-${runId}`,
        claim: { runnerId: 'host-api', claimToken, leaseMs: HOUR },
      };
    case 'park':
      return { runId, claimToken };
    case 'claim':
      return { runId, runnerId: 'host-api', claimToken, leaseMs: HOUR };
    case 'settle':
      return { runId, claimToken, status: 'COMPLETED', output: { runId } };
  }
}

describe('SIGKILL of the server mid-write beside a live pi-workflows host', () => {
  let dir: string | undefined;
  let server: ServerProcess | undefined;
  let pi: PiWriterProcess | undefined;
  let client: Client | undefined;
  afterAll(async () => {
    await client?.dispose();
    pi?.handle.kill();
    server?.child.kill('SIGKILL');
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('leaves a file pi-workflows opens, every acknowledged write in it, and the pi host writing on', async () => {
    dir = faultTempDir('pi-host-kill-');
    const writer = createPiWorkflowsFile(join(dir, 'state.sqlite'));
    writer.close();
    const facts = writer.facts;
    const before = piWorkflowsIdentity(facts.path);
    const projectId = projectIdFor(realpathSync(dir));
    server = await startServerProcess({ dbPath: facts.path, projectPath: dir });
    const url = server.url;
    pi = await startPiWriterProcess(facts.path);
    const host = pi;

    const post = async (step: (typeof STEPS)[number], runId: string): Promise<boolean> => {
      const response = await postGraphQL(url, { query: MUTATIONS[step], variables: { input: inputOf(step, runId) } });
      const result = Object.values(response.body?.data ?? {})[0] as { __typename: string; run?: { runId: string } | null } | undefined;
      return result?.__typename.endsWith('Success') === true && result.run != null;
    };

    // A run the server claims and holds (acknowledged), and one the pi host holds and writes.
    expect(await post('reserve', 'held')).toBe(true);
    await host.call('reserve', { runs: [{ runId: 'pi-own', originSessionId: 'session-pi-own', projectId }] });
    const piToken = { runnerId: 'host-pi', claimToken: 'pi-secret', leaseMs: HOUR };
    expect(await host.call('claim', { runId: 'pi-own', ...piToken })).toMatchObject({ generation: 1 });

    const page = await postGraphQL(url, { query: '{ workflowRuns(first: 1) { changeCursor } }' });
    const after = (page.body?.data as { workflowRuns: { changeCursor: string } }).workflowRuns.changeCursor;
    client = wsClient(url);
    type Change = { workflowRunChanges: { run: { runId: string; queueStatus: string } } };
    const changes = subscribeWs<Change>(client, CHANGES, { after }, 'changes').collector;

    // The burst: eight lanes, each driving chains through the four steps; the pi host writes
    // timeline revisions on its own run all along.
    const acked = new Map<string, (typeof STEPS)[number]>();
    let inFlight = 0;
    let killed = false;
    const lane = async (index: number): Promise<void> => {
      for (let chain = 0; !killed; chain += 1) {
        const runId = `burst-${index}-${chain}`;
        for (const step of STEPS) {
          inFlight += 1;
          try {
            if (!(await post(step, runId))) throw new Error(`${step} ${runId} refused`);
            if (!killed) acked.set(runId, step);
          } catch (error) {
            if (!killed) throw error;
            return; // the answer never came: the server was killed
          } finally {
            inFlight -= 1;
          }
        }
      }
    };
    let piRevisions = 0;
    let piSlowestMs = 0;
    const piLoop = async (): Promise<void> => {
      for (let k = 0; !killed; k += 1) {
        const started = performance.now();
        piRevisions = await host.call('delta', { runId: 'pi-own', k });
        piSlowestMs = Math.max(piSlowestMs, performance.now() - started);
      }
    };
    const lanes = Array.from({ length: LANES }, (_, index) => lane(index));
    const piWriting = piLoop();

    const isBurst = (event: { data?: Change | null }) => event.data?.workflowRunChanges.run.runId.startsWith('burst-') === true;
    await changes.until((events) => events.filter(isBurst).length >= COMMITS_BEFORE_KILL, `${COMMITS_BEFORE_KILL} commits of the burst`);
    const inFlightAtKill = inFlight;
    killed = true;
    server.child.kill('SIGKILL');
    expect((await server.exited).signal).toBe('SIGKILL');
    await Promise.all([...lanes, piWriting]);
    expect(inFlightAtKill).toBeGreaterThan(0);
    console.info(
      `killed with ${inFlightAtKill} requests in flight after ${changes.events.filter(isBurst).length} burst commits delivered; ${acked.size} runs acknowledged; pi host at revision ${piRevisions}, its slowest commit (round trip) ${Math.round(piSlowestMs)} ms`,
    );

    // The file as the kill left it (its -wal still there), the pi host still attached.
    expect(piWorkflowsOpenCheck(facts, before)).toEqual([]);
    const connection = new Database(facts.path, { readonly: true });
    try {
      const row = connection.prepare(
        'SELECT q.status AS queue, l.owner_id AS owner FROM run_queue q JOIN runs r ON r.run_id = q.run_id JOIN leases l ON l.resource_id = r.resource_id WHERE q.run_id = ?',
      );
      for (const [runId, step] of acked) {
        const found = row.get(runId) as { queue: string; owner: string | null } | undefined;
        // The last acknowledged step or the one in flight after it (committed, answer lost).
        const next = STEPS[STEPS.indexOf(step) + 1];
        const allowed = [LEFT_BY[step], ...(next === undefined ? [] : [LEFT_BY[next]])];
        expect(
          allowed.some((state) => found?.queue === state.queue && (found.owner !== null) === state.owned),
          `${runId} after ${step}: ${JSON.stringify(found)}`,
        ).toBe(true);
      }
    } finally {
      connection.close();
    }

    // The pi host writes on: its own run (heartbeat, a revision, completion), a new run, and
    // the run the dead server held, once that lease expired (the host's clock two hours on).
    expect(await host.call('renew', { runId: 'pi-own', ...piToken, generation: 1 })).toBe(piRevisions + 1);
    expect(await host.call('delta', { runId: 'pi-own', k: -1 })).toBe(piRevisions + 2);
    expect(await host.call('complete', { runId: 'pi-own', claimToken: 'pi-secret', output: { after: 'kill' } })).toBe(true);
    await host.call('reserve', { runs: [{ runId: 'pi-after', originSessionId: 'session-pi-after', projectId, executionMode: 'headless' }] });
    expect(await host.call('claimNext', { ...piToken, projectId, sessionId: 'session-pi-after' })).toMatchObject({ runId: 'pi-after', generation: 1 });
    expect(await host.call('fail', { runId: 'pi-after', claimToken: 'pi-secret', error: 'after the kill' })).toBe(true);
    const later = Date.now() + 2 * HOUR;
    expect(await host.call('claim', { runId: 'held', ...piToken, now: later })).toMatchObject({ generation: 2 });
    expect(await host.call('complete', { runId: 'held', claimToken: 'pi-secret', now: later })).toBe(true);
    expect(await host.exit()).toBe(0);
    pi = undefined;

    // Closed by the host as pi-workflows leaves it: the check again, and the server serves it again.
    expect(piWorkflowsOpenCheck(facts, before)).toEqual([]);
    server = await startServerProcess({ dbPath: facts.path, projectPath: dir });
    const served = await postGraphQL(server.url, {
      query: '{ workflowRuns(first: 1) { totalCount } a: workflowRun(runId: "pi-own") { status } b: workflowRun(runId: "held") { status queueStatus } }',
    });
    const inFile = new Database(facts.path, { readonly: true });
    const runCount = (inFile.prepare('SELECT count(*) AS n FROM runs').get() as { n: number }).n;
    inFile.close();
    expect(runCount).toBeGreaterThanOrEqual(acked.size + 3);
    expect(served.body).toEqual({
      data: { workflowRuns: { totalCount: runCount }, a: { status: 'COMPLETED' }, b: { status: 'COMPLETED', queueStatus: 'DONE' } },
    });
  });
});
