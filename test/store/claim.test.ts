import { describe, expect } from 'vitest';
import {
  BUMP,
  claim,
  eventsOf,
  expectNoWrite,
  expectRejectedUnchanged,
  freeLease,
  hostSetRunStatus,
  ignoreUpdatesOf,
  lastEvent,
  LEASE_MS,
  leaseOf,
  parkedWaitingRun,
  reserve,
  resourceRevision,
  rowOf,
  sha256Hex,
  SUMMARY_REPLAY,
  targetsAfter,
  terminalRun,
  viewerHead,
  type TestStore,
} from '../helpers/store-fixtures.js';
import { storeTest as it } from '../helpers/store-test.js';
import { storeInternals } from '../helpers/store-internals.js';

const open = (t: TestStore, runId: string) =>
  storeInternals(t.store).interactions.openInteraction(
    { runId, nodeId: 'ask', attemptId: `attempt-${runId}`, requestId: `request-${runId}`, targetSessionId: `session-${runId}` },
    t.clock.t,
  );

describe('claim core (docs/STORE-RULES.md §6.3)', () => {
  it('takes the lease (generation + 1), moves the queue to starting, bumps and writes lease.claimed', ({ t }) => {
    reserve(t.store, 'run-1');
    t.clock.advance(10);
    const record = t.store.claimWorkflowRun({ runId: 'run-1', runnerId: 'runner-1', claimToken: 'tok', leaseMs: 5000 });
    expect(record).toMatchObject({
      status: 'starting',
      runnerId: 'runner-1',
      claimToken: 'tok',
      claimGeneration: 1,
      claimExpiresAt: t.clock.iso(5000),
      claim: { ownerId: 'runner-1', ownerType: 'session', leaseGeneration: 1, expiresAt: t.clock.iso(5000) },
      updatedAt: t.clock.iso(),
      revision: 2,
      presentationRevision: 2,
    });
    expect(leaseOf(t.store, 'run-1')).toEqual({
      generation: 1,
      owner_type: 'session',
      owner_id: 'runner-1',
      token_hash: Buffer.from(sha256Hex('tok'), 'hex'),
      acquired_at: t.clock.t,
      heartbeat_at: t.clock.t,
      expires_at: t.clock.t + 5000,
    });
    expect(lastEvent(t.store, 'run-1')).toMatchObject({
      type: 'lease.claimed',
      revision: 2,
      actorType: 'session',
      actorId: 'runner-1',
      leaseGeneration: 1,
      payload: { expiresAt: t.clock.t + 5000 },
    });
    expect(targetsAfter(t.store, 'run-1', 1)).toEqual([BUMP]);
    expect(t.store.getWorkflowRun('run-1')?.claimToken).toBeNull();
  });

  it('owner type host for runner ids starting with host-', ({ t }) => {
    reserve(t.store, 'run-1');
    claim(t.store, 'run-1', 'host-7');
    expect(leaseOf(t.store, 'run-1').owner_type).toBe('host');
    expect(lastEvent(t.store, 'run-1').actorType).toBe('host');
  });

  it('clears the queue error code and error on a normal claim (a direct claim ignores error_code)', ({ t }) => {
    reserve(t.store, 'run-1');
    claim(t.store, 'run-1');
    t.store.parkWorkflowRunForWorkerNoProgress({ runId: 'run-1', claimToken: 'token-run-1', detail: 'stuck' });
    expect(t.store.getWorkflowRun('run-1')).toMatchObject({ errorCode: 'workerNoProgress', errorMessage: 'stuck' });
    const record = claim(t.store, 'run-1', 'runner-2', 'again');
    expect(record).toMatchObject({ status: 'starting', errorCode: null, errorMessage: null, claimGeneration: 2 });
    expect(rowOf(t.store, 'run_queue', 'run-1').error_hash).toBeNull();
  });

  it.for(['completed', 'failed', 'cancelled'] as const)('refuses a finished queue (%s) and writes nothing', (status, { t }) => {
    terminalRun(t, 'run-1', {}, status);
    expect(expectNoWrite(t.store, () => t.store.claimWorkflowRun({ runId: 'run-1', runnerId: 'r', claimToken: 'x', leaseMs: 1000 }))).toBeUndefined();
  });

  it('refuses a missing run with Workflow run not found: <runId>', ({ t }) => {
    expectRejectedUnchanged(
      t.store,
      () => t.store.claimWorkflowRun({ runId: 'ghost', runnerId: 'r', claimToken: 'x', leaseMs: 1000 }),
      'Workflow run not found: ghost',
      'not_found',
    );
  });

  it('refuses while an interactive request is pending, unless claiming for interaction validation or control', ({ t }) => {
    reserve(t.store, 'run-1');
    open(t, 'run-1');
    expect(expectNoWrite(t.store, () => t.store.claimWorkflowRun({ runId: 'run-1', runnerId: 'r', claimToken: 'x', leaseMs: 1000 }))).toBeUndefined();
    const validation = t.store.claimWorkflowRunForInteractionValidation({ runId: 'run-1', runnerId: 'r', claimToken: 'x', leaseMs: 1000 });
    expect(validation).toMatchObject({ status: 'starting', claimGeneration: 1 });
  });

  it('a control claim keeps the queue status (parked stays parked) and still bumps', ({ t }) => {
    parkedWaitingRun(t, 'run-1');
    open(t, 'run-1');
    const revision = resourceRevision(t.store, 'run-1');
    const control = t.store.claimWorkflowRunForControl({ runId: 'run-1', runnerId: 'control-1', claimToken: 'c', leaseMs: 1000 });
    expect(control).toMatchObject({ status: 'parked', runnerId: 'control-1', claimGeneration: 2, claimToken: 'c' });
    expect(resourceRevision(t.store, 'run-1')).toBe(revision + 1);
    expect(lastEvent(t.store, 'run-1')).toMatchObject({ type: 'lease.claimed', actorId: 'control-1', leaseGeneration: 2 });
  });

  it('refuses another runner’s live lease; takes it once expired (generation + 1, the old token stops verifying)', ({ t }) => {
    reserve(t.store, 'run-1');
    claim(t.store, 'run-1', 'runner-1', 'first', 1000);
    t.clock.advance(999);
    expect(
      expectNoWrite(t.store, () => t.store.claimWorkflowRun({ runId: 'run-1', runnerId: 'runner-2', claimToken: 'second', leaseMs: 1000 })),
    ).toBeUndefined();
    t.clock.advance(1);
    const taken = claim(t.store, 'run-1', 'runner-2', 'second', 1000);
    expect(taken).toMatchObject({ runnerId: 'runner-2', claimGeneration: 2 });
    expect(t.store.verifyWorkflowRunClaim({ runId: 'run-1', claimToken: 'first' })).toBe(false);
    expect(t.store.verifyWorkflowRunClaim({ runId: 'run-1', claimToken: 'second' })).toBe(true);
  });

  it('lets the same runner re-claim its own live lease', ({ t }) => {
    reserve(t.store, 'run-1');
    claim(t.store, 'run-1', 'runner-1', 'first');
    const again = claim(t.store, 'run-1', 'runner-1', 'renewed');
    expect(again).toMatchObject({ runnerId: 'runner-1', claimGeneration: 2 });
    expect(t.store.verifyWorkflowRunClaim({ runId: 'run-1', claimToken: 'first' })).toBe(false);
  });

  it.for([
    [{ leaseMs: 0 }, 'Lease duration must be an integer from 1 to 86400000 ms'],
    [{ leaseMs: 86_400_001 }, 'Lease duration must be an integer from 1 to 86400000 ms'],
    [{ runnerId: '' }, 'runnerId must be a non-empty string'],
    [{ claimToken: '' }, 'claimToken must be a non-empty string'],
    [{ now: 'soon' }, 'Invalid timestamp'],
    [{ runId: 'bad id' }, 'Invalid workflow run id: bad id'],
  ] as const)('validates %j', ([overrides, message], { t }) => {
    reserve(t.store, 'run-1');
    expectRejectedUnchanged(
      t.store,
      () => t.store.claimWorkflowRun({ runId: 'run-1', runnerId: 'r', claimToken: 'x', leaseMs: 1000, ...overrides }),
      message,
      'validation',
    );
  });

  it('Resource revision conflict when the compare-and-set on the revision misses; nothing written', ({ t }) => {
    reserve(t.store, 'run-1');
    ignoreUpdatesOf(t.store, 'resources');
    expectRejectedUnchanged(
      t.store,
      () => t.store.claimWorkflowRun({ runId: 'run-1', runnerId: 'r', claimToken: 'x', leaseMs: 1000 }),
      'Resource revision conflict',
      'conflict',
    );
  });
});

describe('verify and renew (docs/STORE-RULES.md §5)', () => {
  it.beforeEach(({ t }) => {
    reserve(t.store, 'run-1');
    claim(t.store, 'run-1', 'runner-1', 'tok', 1000);
  });

  it('verifies the live token until expiry (expiry > now)', ({ t }) => {
    expect(t.store.verifyWorkflowRunClaim({ runId: 'run-1', claimToken: 'tok' })).toBe(true);
    expect(t.store.verifyWorkflowRunClaim({ runId: 'run-1', claimToken: 'other' })).toBe(false);
    expect(t.store.verifyWorkflowRunClaim({ runId: 'ghost', claimToken: 'tok' })).toBe(false);
    expect(t.store.verifyWorkflowRunClaim({ runId: 'run-1', claimToken: 'tok', now: t.clock.iso(999) })).toBe(true);
    t.clock.advance(1000);
    expect(t.store.verifyWorkflowRunClaim({ runId: 'run-1', claimToken: 'tok' })).toBe(false);
  });

  it('renew moves heartbeat and expiry, records summary + replay, no bump, no event', ({ t }) => {
    const revision = resourceRevision(t.store, 'run-1');
    const events = eventsOf(t.store, 'run-1').length;
    const viewer = viewerHead(t.store, 'run-1').presentation;
    t.clock.advance(500);
    const renewed = t.store.renewWorkflowRunClaim({ runId: 'run-1', claimToken: 'tok', leaseMs: 2000 });
    expect(renewed).toMatchObject({ claimExpiresAt: t.clock.iso(2000), claimGeneration: 1, revision });
    expect(leaseOf(t.store, 'run-1')).toMatchObject({ heartbeat_at: t.clock.t, expires_at: t.clock.t + 2000, acquired_at: t.clock.t - 500 });
    expect(resourceRevision(t.store, 'run-1')).toBe(revision);
    expect(eventsOf(t.store, 'run-1')).toHaveLength(events);
    expect(targetsAfter(t.store, 'run-1', viewer)).toEqual([SUMMARY_REPLAY]);
  });

  it('does not renew a wrong token, an expired lease or a missing run; nothing written', ({ t }) => {
    expect(expectNoWrite(t.store, () => t.store.renewWorkflowRunClaim({ runId: 'run-1', claimToken: 'other', leaseMs: 1000 }))).toBeUndefined();
    expect(expectNoWrite(t.store, () => t.store.renewWorkflowRunClaim({ runId: 'ghost', claimToken: 'tok', leaseMs: 1000 }))).toBeUndefined();
    t.clock.advance(1000);
    expect(expectNoWrite(t.store, () => t.store.renewWorkflowRunClaim({ runId: 'run-1', claimToken: 'tok', leaseMs: 1000 }))).toBeUndefined();
  });
});

describe('mark running (docs/STORE-RULES.md §6.5)', () => {
  it('queue running, started_at set once, bump with run.queue_running', ({ t }) => {
    reserve(t.store, 'run-1');
    claim(t.store, 'run-1', 'runner-1', 'tok');
    const viewer = viewerHead(t.store, 'run-1').presentation;
    t.clock.advance(100);
    const startedAt = t.clock.t;
    expect(t.store.markWorkflowRunRunning({ runId: 'run-1', claimToken: 'tok' })).toBe(true);
    expect(rowOf(t.store, 'run_queue', 'run-1')).toMatchObject({ status: 'running', started_at: startedAt, updated_at: startedAt });
    expect(lastEvent(t.store, 'run-1')).toMatchObject({
      type: 'run.queue_running',
      revision: 3,
      actorType: 'session',
      actorId: 'runner-1',
      leaseGeneration: 1,
      payload: { status: 'running' },
    });
    expect(targetsAfter(t.store, 'run-1', viewer)).toEqual([BUMP]);
    t.clock.advance(100);
    expect(t.store.markWorkflowRunRunning({ runId: 'run-1', claimToken: 'tok' })).toBe(true);
    expect(rowOf(t.store, 'run_queue', 'run-1')).toMatchObject({ started_at: startedAt, updated_at: t.clock.t });
    expect(t.store.getWorkflowRun('run-1')?.startedAt).toBe(new Date(startedAt).toISOString());
  });

  it('a parked run under a control claim whose session has another active entry: conflict, nothing written', ({ t }) => {
    parkedWaitingRun(t, 'run-1');
    t.store.claimWorkflowRunForControl({ runId: 'run-1', runnerId: 'control-1', claimToken: 'c', leaseMs: 1000 });
    reserve(t.store, 'run-2', { originSessionId: 'session-run-1' });
    expectRejectedUnchanged(
      t.store,
      () => t.store.markWorkflowRunRunning({ runId: 'run-1', claimToken: 'c' }),
      'Pi session already has an active workflow run: session-run-1',
      'conflict',
    );
  });

  it('returns false and writes nothing without a verified claim', ({ t }) => {
    reserve(t.store, 'run-1');
    claim(t.store, 'run-1', 'runner-1', 'tok');
    expect(expectNoWrite(t.store, () => t.store.markWorkflowRunRunning({ runId: 'run-1', claimToken: 'other' }))).toBe(false);
    expect(expectNoWrite(t.store, () => t.store.markWorkflowRunRunning({ runId: 'ghost', claimToken: 'tok' }))).toBe(false);
  });
});

describe('park and complete release (docs/STORE-RULES.md §6.6)', () => {
  it.beforeEach(({ t }) => {
    reserve(t.store, 'run-1');
    claim(t.store, 'run-1', 'runner-1', 'tok');
    hostSetRunStatus(t.store, 'run-1', 'running', t.clock.t);
    t.clock.advance(100);
  });

  it('park: queue parked (finished_at NULL), lease released at the same generation, bump then summary + replay', ({ t }) => {
    const viewer = viewerHead(t.store, 'run-1').presentation;
    const runsBefore = rowOf(t.store, 'runs', 'run-1');
    expect(t.store.parkWorkflowRun({ runId: 'run-1', claimToken: 'tok' })).toBe(true);
    expect(rowOf(t.store, 'run_queue', 'run-1')).toMatchObject({ status: 'parked', updated_at: t.clock.t, finished_at: null });
    expect(leaseOf(t.store, 'run-1')).toEqual(freeLease(1));
    expect(lastEvent(t.store, 'run-1')).toMatchObject({
      type: 'run.queue_parked',
      actorType: 'session',
      actorId: 'runner-1',
      leaseGeneration: 1,
      payload: { status: 'parked' },
    });
    expect(targetsAfter(t.store, 'run-1', viewer)).toEqual([BUMP, SUMMARY_REPLAY]);
    expect(rowOf(t.store, 'runs', 'run-1')).toEqual(runsBefore);
  });

  it('complete: queue done with finished_at now; the runs row is not touched', ({ t }) => {
    const runsBefore = rowOf(t.store, 'runs', 'run-1');
    expect(t.store.completeWorkflowRun({ runId: 'run-1', claimToken: 'tok' })).toBe(true);
    expect(rowOf(t.store, 'run_queue', 'run-1')).toMatchObject({ status: 'done', finished_at: t.clock.t });
    expect(lastEvent(t.store, 'run-1')).toMatchObject({ type: 'run.queue_done', payload: { status: 'done' } });
    expect(rowOf(t.store, 'runs', 'run-1')).toEqual(runsBefore);
    expect(leaseOf(t.store, 'run-1')).toEqual(freeLease(1));
  });

  it('returns false and writes nothing without a verified claim', ({ t }) => {
    expect(expectNoWrite(t.store, () => t.store.parkWorkflowRun({ runId: 'run-1', claimToken: 'other' }))).toBe(false);
    expect(expectNoWrite(t.store, () => t.store.completeWorkflowRun({ runId: 'run-1', claimToken: 'other' }))).toBe(false);
    t.clock.advance(LEASE_MS);
    expect(expectNoWrite(t.store, () => t.store.parkWorkflowRun({ runId: 'run-1', claimToken: 'tok' }))).toBe(false);
  });

  it('a release whose lease update misses rolls everything back (claim_lost)', ({ t }) => {
    ignoreUpdatesOf(t.store, 'leases');
    expectRejectedUnchanged(
      t.store,
      () => t.store.parkWorkflowRun({ runId: 'run-1', claimToken: 'tok' }),
      'Workflow run run-1 claim changed during release',
      'claim_lost',
    );
  });
});
