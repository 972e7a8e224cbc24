/**
 * claimNextWorkflowRun over many candidates of every kind (docs/STORE-RULES.md §6.4,
 * migration 0006): the order stays available_at, then queue created_at (then run id), whichever
 * index a candidate is found through; another runner's live lease is never taken; the statement
 * starts from the indexes (no scan of leases or run_queue); the set of active runs without a lease
 * owner that the triggers keep is exact, also after writes that are not this server's.
 */
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { describe, expect, vi } from 'vitest';
import { WorkflowStore } from '../../src/store/index.js';
import { claim, hostSetRunStatus, leaseOf, reserve, sql, tempDir, TestClock, type TestStore } from '../helpers/store-fixtures.js';
import { storeTest as it } from '../helpers/store-test.js';
import { connectionOf, storeInternals } from '../helpers/store-internals.js';
import { UNDO_MIGRATION_0009 } from '../helpers/undo-migration-0009.js';

const SHORT_LEASE_MS = 1_000;
const LONG_LEASE_MS = 3_600_000;

const headless = (t: TestStore, runId: string) => reserve(t.store, runId, { executionMode: 'headless' });

/** Releases a run's lease behind the store's back (another writer), leaving its queue row as is. */
function releaseRaw(t: TestStore, runId: string): void {
  sql(
    t.store,
    `UPDATE leases SET owner_type = NULL, owner_id = NULL, token_hash = NULL, acquired_at = NULL, heartbeat_at = NULL, expires_at = NULL
     WHERE resource_id = (SELECT resource_id FROM runs WHERE run_id = ?)`,
    runId,
  );
}

/** A headless run claimed by `runner-setup`, run status running, released to parked. */
function parked(t: TestStore, runId: string): void {
  headless(t, runId);
  claim(t.store, runId, 'runner-setup');
  hostSetRunStatus(t.store, runId, 'running', t.clock.t);
  expect(t.store.parkWorkflowRun({ runId, claimToken: `token-${runId}` })).toBe(true);
}

/**
 * A headless run claimed by `owner` with token `token-<runId>` and a lease of `leaseMs`; with
 * `markRunning`, then marked running with that token.
 */
function claimedBy(t: TestStore, runId: string, owner: string, leaseMs: number, markRunning = false): void {
  headless(t, runId);
  claim(t.store, runId, owner, `token-${runId}`, leaseMs);
  if (markRunning) expect(t.store.markWorkflowRunRunning({ runId, claimToken: `token-${runId}` })).toBe(true);
}

/** Every kind of queue row claimNext meets, built at the current clock. */
const KINDS: Record<string, (t: TestStore, runId: string) => void> = {
  queued: (t, runId) => headless(t, runId),
  parked,
  // Claimed with a short lease that has expired by the time the claims start.
  'starting-expired': (t, runId) => claimedBy(t, runId, 'host-gone', SHORT_LEASE_MS),
  'running-expired': (t, runId) => claimedBy(t, runId, 'host-gone', SHORT_LEASE_MS, true),
  // Lease released by another writer, queue row left `starting`.
  'starting-unowned': (t, runId) => {
    headless(t, runId);
    claim(t.store, runId, 'runner-setup');
    releaseRaw(t, runId);
  },
  // Parked (lease released), then moved back to `starting` (as an interaction deadline does).
  'starting-reactivated': (t, runId) => {
    parked(t, runId);
    sql(t.store, "UPDATE run_queue SET status = 'starting' WHERE run_id = ?", runId);
  },
  // Never eligible for the sequence's runners.
  'starting-live': (t, runId) => claimedBy(t, runId, 'runner-busy', LONG_LEASE_MS),
  'running-live': (t, runId) => claimedBy(t, runId, 'runner-busy', LONG_LEASE_MS, true),
  'own-live': (t, runId) => claimedBy(t, runId, 'runner-me', LONG_LEASE_MS),
  'parked-waiting': (t, runId) => {
    parked(t, runId);
    hostSetRunStatus(t.store, runId, 'waiting', t.clock.t);
  },
  'queued-later': (t, runId) => headless(t, runId),
};
const NEVER = new Set(['starting-live', 'running-live', 'own-live', 'parked-waiting', 'queued-later']);
const PER_KIND = 12;

interface Candidate {
  runId: string;
  kind: string;
  availableAt: number;
  createdAt: number;
}

/**
 * Builds PER_KIND runs of every kind, interleaved, with few distinct available_at and created_at
 * values (ties at both levels, so the run id decides too), then moves the clock past the short
 * leases. Returns the runs with their keys.
 */
function buildCandidates(t: TestStore): Candidate[] {
  const candidates: Candidate[] = [];
  let seed = 7;
  const random = (n: number): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed % n;
  };
  const base = t.clock.t;
  for (let index = 0; index < PER_KIND; index += 1) {
    for (const kind of Object.keys(KINDS)) {
      // Run ids whose order differs from the creation order.
      const runId = `${String.fromCharCode(97 + random(26))}-${kind}-${index}`;
      KINDS[kind]!(t, runId);
      t.clock.advance(1);
      const availableAt = kind === 'queued-later' ? base + 10 * LONG_LEASE_MS : base + random(4) * 100;
      const createdAt = base + random(3);
      sql(t.store, 'UPDATE run_queue SET available_at = ?, created_at = ? WHERE run_id = ?', availableAt, createdAt, runId);
      candidates.push({ runId, kind, availableAt, createdAt });
    }
  }
  t.clock.advance(SHORT_LEASE_MS + 10_000);
  return candidates;
}

const byKey = (a: Candidate, b: Candidate): number =>
  a.availableAt - b.availableAt || a.createdAt - b.createdAt || (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0);

function unownedStarted(t: TestStore): string[] {
  return (connectionOf(t.store).prepare('SELECT run_id FROM unowned_started_runs ORDER BY run_id').all() as Array<{ run_id: string }>).map((row) => row.run_id);
}

describe('claimNextWorkflowRun over many candidates (docs/STORE-RULES.md §6.4, migration 0006)', () => {
  it('claims every eligible run exactly in (available_at, created_at, run id) order and never another runner’s live lease', ({ t }) => {
    const candidates = buildCandidates(t);
    const live = candidates.filter((candidate) => candidate.kind.endsWith('-live'));
    const liveLeases = live.map((candidate) => leaseOf(t.store, candidate.runId));
    const expected = candidates.filter((candidate) => !NEVER.has(candidate.kind)).sort(byKey);
    expect(expected).toHaveLength(6 * PER_KIND);

    const claimed: string[] = [];
    for (let index = 0; ; index += 1) {
      // One runner per claim: a runner would otherwise get back the run it just claimed.
      const record = t.store.claimNextWorkflowRun({ runnerId: `runner-${index}`, claimToken: `next-${index}`, leaseMs: LONG_LEASE_MS });
      if (record === undefined) break;
      claimed.push(record.runId);
    }
    expect(claimed).toEqual(expected.map((candidate) => candidate.runId));
    expect(live.map((candidate) => leaseOf(t.store, candidate.runId))).toEqual(liveLeases);
    expect(unownedStarted(t)).toEqual([]);

    // The runner's own live leases, earliest first, are its alone.
    const own = candidates.filter((candidate) => candidate.kind === 'own-live').sort(byKey);
    expect(t.store.claimNextWorkflowRun({ runnerId: 'runner-me', claimToken: 'again', leaseMs: 1_000 })?.runId).toBe(own[0]!.runId);
  });

  it('a runner’s own live lease competes in the same order as every other candidate', ({ t }) => {
    headless(t, 'b-queued');
    headless(t, 'a-own');
    claim(t.store, 'a-own', 'runner-me', 'mine', LONG_LEASE_MS);
    sql(t.store, 'UPDATE run_queue SET available_at = ?, created_at = ?', t.clock.t, t.clock.t);
    expect(t.store.claimNextWorkflowRun({ runnerId: 'runner-other', claimToken: 'x', leaseMs: 1_000 })?.runId).toBe('b-queued');
    headless(t, 'c-queued');
    sql(t.store, "UPDATE run_queue SET available_at = ?, created_at = ? WHERE run_id = 'c-queued'", t.clock.t, t.clock.t);
    expect(t.store.claimNextWorkflowRun({ runnerId: 'runner-me', claimToken: 'y', leaseMs: 1_000 })?.runId).toBe('a-own');
  });

  it('the statement starts from the indexes: no scan of leases, run_queue, runs or run_bindings', ({ t }) => {
    buildCandidates(t);
    const get = vi.spyOn(storeInternals(t.store).database, 'get');
    t.store.claimNextWorkflowRun({ runnerId: 'runner-x', claimToken: 'plan', leaseMs: 1_000 });
    const call = get.mock.calls.find(([text]) => text.includes('unowned_started_runs'));
    get.mockRestore();
    expect(call).toBeDefined();
    const [text, ...params] = call!;
    const plan = (
      connectionOf(t.store)
        .prepare(`EXPLAIN QUERY PLAN ${text}`)
        .all(...params) as Array<{ detail: string }>
    ).map((row) => row.detail);
    expect(plan.filter((detail) => /^SCAN (l|q|r|b)\b/.test(detail))).toEqual([]);
    expect(plan.filter((detail) => /^SCAN [a-z]\b/.test(detail))).toEqual(['SCAN u']);
    expect(plan).toContain('SEARCH q USING INDEX run_queue_status_available_idx (status=? AND available_at<?)');
    expect(plan).toContain('SEARCH l USING INDEX leases_owned_expiry_idx (expires_at<?)');
    expect(plan).toContain('SEARCH l USING INDEX leases_owner_idx (owner_id=?)');
  });

  it('keeps unowned_started_runs exact through claims, releases, parking, settling and other writers', ({ t }) => {
    headless(t, 'run-1');
    claim(t.store, 'run-1', 'runner-1');
    expect(unownedStarted(t)).toEqual([]);
    releaseRaw(t, 'run-1');
    expect(unownedStarted(t)).toEqual(['run-1']);
    // A claim takes it out; marking running keeps it out; parking releases and leaves `running`.
    claim(t.store, 'run-1', 'runner-2', 'second');
    expect(unownedStarted(t)).toEqual([]);
    expect(t.store.markWorkflowRunRunning({ runId: 'run-1', claimToken: 'second' })).toBe(true);
    hostSetRunStatus(t.store, 'run-1', 'running', t.clock.t);
    expect(t.store.parkWorkflowRun({ runId: 'run-1', claimToken: 'second' })).toBe(true);
    expect(unownedStarted(t)).toEqual([]);
    // Parked → starting with no owner (an interaction deadline), then completed after a claim.
    sql(t.store, "UPDATE run_queue SET status = 'starting' WHERE run_id = 'run-1'");
    expect(unownedStarted(t)).toEqual(['run-1']);
    sql(t.store, "UPDATE run_queue SET status = 'running' WHERE run_id = 'run-1'");
    expect(unownedStarted(t)).toEqual(['run-1']);
    claim(t.store, 'run-1', 'runner-3', 'third');
    expect(unownedStarted(t)).toEqual([]);
    expect(t.store.completeWorkflowRun({ runId: 'run-1', claimToken: 'third' })).toBe(true);
    expect(unownedStarted(t)).toEqual([]);
    // Left active by another writer, then finished by it.
    headless(t, 'run-2');
    claim(t.store, 'run-2', 'runner-1');
    releaseRaw(t, 'run-2');
    expect(unownedStarted(t)).toEqual(['run-2']);
    sql(t.store, "UPDATE run_queue SET status = 'failed' WHERE run_id = 'run-2'");
    expect(unownedStarted(t)).toEqual([]);
    // A queue row removed with its run.
    headless(t, 'run-3');
    claim(t.store, 'run-3', 'runner-1');
    releaseRaw(t, 'run-3');
    expect(unownedStarted(t)).toEqual(['run-3']);
    sql(t.store, "DELETE FROM run_queue WHERE run_id = 'run-3'");
    expect(unownedStarted(t)).toEqual([]);
  });

  it('migration 0006 fills the set from the rows already there', () => {
    const dir = tempDir();
    const path = join(dir, 'state.db');
    const clock = new TestClock();
    try {
      const t: TestStore = { store: WorkflowStore.open({ path, projectPath: dir, clock: clock.now }), clock, path, dir, close: () => undefined };
      for (const runId of ['run-1', 'run-2', 'run-3']) {
        headless(t, runId);
        claim(t.store, runId);
      }
      releaseRaw(t, 'run-1');
      releaseRaw(t, 'run-3');
      // Undo 0006 as if the file came from before it, with the same rows (later migrations re-run unchanged; the column 0008 dropped comes back).
      const connection = connectionOf(t.store);
      connection.exec(UNDO_MIGRATION_0009);
      const triggers = connection.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'unowned_started_%'").all() as Array<{
        name: string;
      }>;
      expect(triggers).toHaveLength(7);
      for (const { name } of triggers) connection.exec(`DROP TRIGGER ${name}`);
      connection.exec(`DROP TABLE unowned_started_runs;
        DROP INDEX leases_owned_expiry_idx; DROP INDEX leases_owner_idx;
        ALTER TABLE workflow_messages ADD COLUMN trigger_turn INTEGER NOT NULL DEFAULT 0 CHECK (trigger_turn IN (0, 1));
        DELETE FROM schema_migrations WHERE version >= 6;`);
      t.store.close();
      t.store = WorkflowStore.open({ path, projectPath: dir, clock: clock.now });
      expect(unownedStarted(t)).toEqual(['run-1', 'run-3']);
      expect(t.store.claimNextWorkflowRun({ runnerId: 'runner-9', claimToken: 'x', leaseMs: 1_000 })?.runId).toBe('run-1');
      t.store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
