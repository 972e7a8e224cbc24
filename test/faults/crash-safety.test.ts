/**
 * Crash safety: the real server CLI in a child process serves a mutation load
 * (reserve+claim, park, claim, settle, restart+claim, settle) from six concurrent clients and
 * is killed with SIGKILL at a random moment, 20 times, restarted on the same file each time.
 *
 * After every restart:
 * - every acknowledged mutation (a `...Success` answer received) is there with its effect,
 *   and a mutation in flight at the kill either happened completely or not at all;
 * - no acknowledged viewer revision is lost;
 * - `PRAGMA integrity_check` is `ok` and every store invariant holds
 *   (fault-fixtures `checkStoreInvariants`);
 * - the restarted server serves the same runs over GraphQL.
 *
 * `FAULT_SEED=<n>` repeats a run's kill moments.
 */
import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkflowStore } from '../../src/store/index.js';
import {
  bundleServerChild,
  checkStoreInvariants,
  faultSeed,
  faultTempDir,
  postGraphQL,
  seededRandom,
  spawnWarmServer,
  startServerProcess,
  type ServerProcess,
  type WarmServer,
} from '../helpers/fault-fixtures.js';

const KILLS = 20;
const CLIENTS = 6;
const LEASE_MS = 600_000;

const RUN = 'fragment R on WorkflowRun { runId status queueStatus presentationRevision claim { leaseGeneration } }';
const RESULT = (success: string) => `{ __typename ... on ${success} { run { ...R } } ... on Error { code message } }`;
const RESERVE = `mutation Reserve($input: ReserveWorkflowRunInput!) { reserveWorkflowRun(input: $input) ${RESULT('ReserveWorkflowRunSuccess')} } ${RUN}`;
const PARK = `mutation Park($input: ParkWorkflowRunInput!) { parkWorkflowRun(input: $input) ${RESULT('ParkWorkflowRunSuccess')} } ${RUN}`;
const CLAIM = `mutation Claim($input: ClaimWorkflowRunInput!) { claimWorkflowRun(input: $input) ${RESULT('ClaimWorkflowRunSuccess')} } ${RUN}`;
const SETTLE = `mutation Settle($input: SettleWorkflowRunInput!) { settleWorkflowRun(input: $input) ${RESULT('SettleWorkflowRunSuccess')} } ${RUN}`;
const RESTART = `mutation Restart($input: RestartWorkflowRunInput!) { restartWorkflowRun(input: $input) ${RESULT('RestartWorkflowRunSuccess')} } ${RUN}`;

/** One chain of the load: a root run driven through six mutations, then its restart. */
interface Chain {
  root: string;
  session: string;
  /** Number of acknowledged steps (0 … 6). */
  acked: number;
  /** True while a step's request is out without an answer. */
  inFlight: boolean;
  /** The restart's run id, once acknowledged. */
  restartId?: string;
  /** Highest acknowledged presentation revision per run id. */
  revisions: Map<string, number>;
}

interface RunState {
  status: string;
  queue: string;
  generation: number;
  owner: string | null;
  error: string | null;
  output: string | null;
  restartNumber: number;
  presentation: number;
}

function readRun(db: Database.Database, runId: string): RunState | undefined {
  return db
    .prepare(
      `SELECT r.status, q.status AS queue, l.generation, l.owner_id AS owner, CAST(eb.content AS TEXT) AS error,
         CAST(ob.content AS TEXT) AS output, r.restart_number AS restartNumber, v.presentation_revision AS presentation
       FROM runs r JOIN run_queue q ON q.run_id = r.run_id JOIN leases l ON l.resource_id = r.resource_id
       JOIN viewer_runs v ON v.run_id = r.run_id
       LEFT JOIN blobs eb ON eb.blob_hash = q.error_hash LEFT JOIN blobs ob ON ob.blob_hash = r.final_output_hash
       WHERE r.run_id = ?`,
    )
    .get(runId) as RunState | undefined;
}

/**
 * Which step of its chain the database reflects: 0 (nothing) … 6 (restart completed), or a
 * description of a state no step sequence produces.
 */
function chainState(db: Database.Database, chain: Chain): number | string {
  const root = readRun(db, chain.root);
  if (root === undefined) return 0;
  const is = (run: RunState, status: string, queue: string, generation: number, owned: boolean) =>
    run.status === status && run.queue === queue && run.generation === generation && (run.owner !== null) === owned;
  if (is(root, 'queued', 'starting', 1, true)) return 1;
  if (is(root, 'queued', 'parked', 1, false)) return 2;
  if (is(root, 'queued', 'starting', 2, true)) return 3;
  if (!is(root, 'failed', 'failed', 2, false) || root.error !== `boom-${chain.root}`) return `root ${chain.root}: ${JSON.stringify(root)}`;
  const children = db.prepare('SELECT run_id AS runId, lineage_kind AS kind FROM runs WHERE parent_run_id = ?').all(chain.root) as Array<{
    runId: string;
    kind: string;
  }>;
  if (children.length === 0) return 4;
  const [child] = children;
  if (children.length > 1 || child?.kind !== 'restart') return `children of ${chain.root}: ${JSON.stringify(children)}`;
  if (chain.restartId !== undefined && child.runId !== chain.restartId) return `restart ${child.runId} is not the acknowledged ${chain.restartId}`;
  const restart = readRun(db, child.runId) as RunState;
  if (restart.restartNumber !== 1) return `restart ${child.runId}: restart number ${restart.restartNumber}`;
  if (is(restart, 'queued', 'starting', 1, true)) return 5;
  if (is(restart, 'completed', 'done', 1, false) && restart.output === JSON.stringify({ chain: chain.root })) return 6;
  return `restart ${child.runId}: ${JSON.stringify(restart)}`;
}

describe('crash safety: SIGKILL under mutation load', () => {
  const seed = faultSeed();
  const random = seededRandom(seed);
  let dir: string;
  let dbPath: string;
  let server: ServerProcess | undefined;
  let spare: WarmServer | undefined;
  let bundle: string | undefined;
  const chains: Chain[] = [];
  const unexpected: string[] = [];
  let totalAcked = 0;
  let inFlightAtKill = 0;
  let inFlightCommitted = 0;

  beforeAll(async () => {
    dir = faultTempDir();
    dbPath = join(dir, 'state.db');
    bundle = await bundleServerChild();
  });
  afterAll(async () => {
    for (const child of [server, spare]) {
      if (child !== undefined && child.child.exitCode === null && child.child.signalCode === null) {
        child.child.kill('SIGKILL');
        await child.exited;
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  /** Sends one step; returns the run of a success answer, or null when the connection died. */
  async function step(url: string, chain: Chain, query: string, input: Record<string, unknown>, field: string): Promise<{ runId: string } | null> {
    chain.inFlight = true;
    let response;
    try {
      response = await postGraphQL(url, { query, variables: { input } }, {}, 20_000);
    } catch {
      return null; // the server died with the request out: the step stays in flight
    }
    const result = response.body?.data?.[field] as { __typename?: string; run?: { runId: string; presentationRevision: number } | null } | undefined;
    if (response.status !== 200 || result?.__typename?.endsWith('Success') !== true || result.run == null) {
      unexpected.push(`${chain.root} ${field}: HTTP ${response.status} ${response.text.slice(0, 300)}`);
      return null;
    }
    chain.inFlight = false;
    chain.acked += 1;
    totalAcked += 1;
    const known = chain.revisions.get(result.run.runId) ?? 0;
    chain.revisions.set(result.run.runId, Math.max(known, result.run.presentationRevision));
    return result.run;
  }

  /** One client: chain after chain until a step fails (the kill). */
  async function client(url: string, cycle: number, index: number): Promise<void> {
    for (let n = 0; ; n += 1) {
      const root = `c${cycle}-l${index}-n${n}`;
      const chain: Chain = { root, session: `session-${root}`, acked: 0, inFlight: false, revisions: new Map() };
      chains.push(chain);
      const token = (k: number) => `secret-${root}-${k}`;
      const claim = (k: number) => ({ runnerId: `runner-${index}`, claimToken: token(k), leaseMs: LEASE_MS });
      if (
        (await step(
          url,
          chain,
          RESERVE,
          {
            runId: root,
            workflowName: 'crash',
            workflowRef: 'workflows/crash.ts',
            definition: { name: 'crash', steps: [{ id: 'a' }] },
            input: { root },
            originSessionId: chain.session,
            claim: claim(1),
          },
          'reserveWorkflowRun',
        )) === null
      )
        return;
      if ((await step(url, chain, PARK, { runId: root, claimToken: token(1) }, 'parkWorkflowRun')) === null) return;
      if ((await step(url, chain, CLAIM, { runId: root, ...claim(2) }, 'claimWorkflowRun')) === null) return;
      if ((await step(url, chain, SETTLE, { runId: root, claimToken: token(2), status: 'FAILED', error: `boom-${root}` }, 'settleWorkflowRun')) === null) {
        return;
      }
      const restart = await step(url, chain, RESTART, { runId: root, originSessionId: chain.session, claim: claim(3) }, 'restartWorkflowRun');
      if (restart === null) return;
      chain.restartId = restart.runId;
      if (
        (await step(url, chain, SETTLE, { runId: restart.runId, claimToken: token(3), status: 'COMPLETED', output: { chain: root } }, 'settleWorkflowRun')) ===
        null
      )
        return;
    }
  }

  /** Every acknowledged step is there; an in-flight one is all or nothing; invariants hold. */
  async function verify(url: string, cycle: number): Promise<void> {
    const db = new Database(dbPath, { fileMustExist: true });
    try {
      const problems: string[] = [];
      db.transaction(() => {
        for (const chain of chains) {
          const state = chainState(db, chain);
          if (typeof state === 'string') {
            problems.push(state);
            continue;
          }
          const allowed = chain.inFlight ? [chain.acked, chain.acked + 1] : [chain.acked];
          if (!allowed.includes(state)) problems.push(`${chain.root}: acked ${chain.acked}${chain.inFlight ? ' (+1 in flight)' : ''}, database at ${state}`);
          for (const [runId, revision] of chain.revisions) {
            const presentation = (readRun(db, runId) as RunState | undefined)?.presentation ?? 0;
            if (presentation < revision) problems.push(`${runId}: acknowledged revision ${revision}, database at ${presentation}`);
          }
          if (chain.inFlight) {
            // Settle what the in-flight step did, so the next check expects exactly that.
            inFlightAtKill += 1;
            if (state === chain.acked + 1) inFlightCommitted += 1;
            chain.acked = state;
            chain.inFlight = false;
          }
        }
      }).deferred();
      expect(problems, `cycle ${cycle}, seed ${seed}`).toEqual([]);
      expect(checkStoreInvariants(db), `cycle ${cycle}, seed ${seed}`).toEqual([]);
      const count = (db.prepare('SELECT count(*) AS n FROM runs').get() as { n: number }).n;
      const response = await postGraphQL(url, { query: '{ workflowRuns(first: 1) { totalCount } }' });
      expect(response.body?.data).toEqual({ workflowRuns: { totalCount: count } });
    } finally {
      db.close();
    }
  }

  it(`keeps every acknowledged mutation across ${KILLS} SIGKILLs`, { timeout: 170_000 }, async () => {
    // Each restart is a fresh process; a warm spare has loaded its modules while the previous
    // one served the load, and opens the database only after the kill.
    spare = spawnWarmServer({ dbPath, projectPath: dir }, bundle);
    for (let cycle = 0; cycle < KILLS; cycle += 1) {
      server = await spare.start();
      spare = spawnWarmServer({ dbPath, projectPath: dir }, bundle);
      await verify(server.url, cycle);
      const clients = Array.from({ length: CLIENTS }, (_, index) => client((server as ServerProcess).url, cycle, index));
      // Kill at a random moment of the load: mostly mid-stream, sometimes right at its start.
      const delay = random() < 0.15 ? Math.floor(random() * 40) : 200 + Math.floor(random() * 1_000);
      await new Promise((resolve) => setTimeout(resolve, delay));
      server.child.kill('SIGKILL');
      expect(await server.exited).toEqual({ code: null, signal: 'SIGKILL' });
      await Promise.all(clients);
      expect(unexpected, `seed ${seed}`).toEqual([]);
    }
    spare.child.kill('SIGKILL');
    await spare.exited;
    // The last restart is the real CLI (src/server/main.ts).
    server = await startServerProcess({ dbPath, projectPath: dir });
    await verify(server.url, KILLS);
    // The last server stops cleanly and the file opens as a store.
    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    const store = WorkflowStore.open({ path: dbPath, readOnly: true, projectPath: dir });
    expect(store.countWorkflowRuns()).toBeGreaterThan(0);
    store.close();
    const completed = chains.filter((chain) => chain.acked === 6).length;
    console.info(
      `crash safety (seed ${seed}): ${KILLS} SIGKILLs, ${chains.length} chains, ${totalAcked} acknowledged mutations, ` +
        `${completed} chains complete, ${inFlightAtKill} in flight at a kill (${inFlightCommitted} of them committed)`,
    );
    expect(totalAcked).toBeGreaterThan(KILLS * CLIENTS);
    expect(inFlightAtKill).toBeGreaterThan(0);
  });
});

describe('the invariant checker', () => {
  it('reports each kind of broken row', () => {
    const dir = faultTempDir();
    try {
      const path = join(dir, 'state.db');
      const store = WorkflowStore.open({ path, projectPath: dir });
      const definition = { name: 'x' };
      const reserve = (runId: string, session: string) =>
        store.reserveWorkflowRun(
          {
            runId,
            workflowName: 'x',
            workflowSourceRef: 'x.ts',
            workflowSource: { kind: 'file', path: 'x.ts', hash: 'a'.repeat(64) },
            definitionDigest: 'a'.repeat(64),
            definitionSnapshot: definition,
            originSessionId: session,
          },
          { runnerId: 'r', claimToken: `t-${runId}`, leaseMs: 60_000 },
        );
      reserve('one', 's1');
      reserve('two', 's2');
      store.parkWorkflowRun({ runId: 'two', claimToken: 't-two' });
      store.claimWorkflowRun({ runId: 'two', runnerId: 'r', claimToken: 't-two-b', leaseMs: 60_000 });
      store.close();
      const db = new Database(path);
      expect(checkStoreInvariants(db)).toEqual([]);
      const broken = (sql: string, rule: RegExp) => {
        db.exec('SAVEPOINT s');
        db.pragma('ignore_check_constraints = ON');
        db.exec(sql);
        db.pragma('ignore_check_constraints = OFF');
        const rules = checkStoreInvariants(db).map((violation) => violation.rule);
        db.exec('ROLLBACK TO s; RELEASE s');
        expect(
          rules.some((rule_) => rule.test(rule_)),
          `${sql} → ${rules.join('; ')}`,
        ).toBe(true);
      };
      broken("UPDATE runs SET restart_number = 1 WHERE run_id = 'one'", /a root run is its own root/);
      broken(
        "DROP INDEX run_queue_active_session_idx; UPDATE run_queue SET origin_session_id = 's1' WHERE run_id = 'two'",
        /one active queue entry per origin session/,
      );
      broken("UPDATE leases SET generation = 1 WHERE resource_id = (SELECT resource_id FROM runs WHERE run_id = 'two')", /lease generation/);
      broken(
        "UPDATE leases SET owner_id = NULL WHERE resource_id = (SELECT resource_id FROM runs WHERE run_id = 'one')",
        /owner fields are all NULL or all set/,
      );
      broken(
        "DELETE FROM events WHERE resource_revision = 2 AND resource_id = (SELECT resource_id FROM runs WHERE run_id = 'two')",
        /resource_revision is exactly/,
      );
      broken("DELETE FROM viewer_deltas WHERE run_id = 'two' AND presentation_revision = 3", /viewer revisions are contiguous/);
      broken("UPDATE run_queue SET status = 'done' WHERE run_id = 'one'", /finished queue entry holds no lease/);
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
