import { describe, expect } from 'vitest';
import type { ReserveWorkflowRunInput } from '../../src/store/index.js';
import {
  BUMP,
  claim,
  digestHex,
  eventsOf,
  expectNoWrite,
  expectRejectedUnchanged,
  ignoreUpdatesOf,
  leaseOf,
  reserve,
  reserveInput,
  rowOf,
  sha256Hex,
  terminalRun,
  viewerRevisions,
  WORKFLOW_REF,
  reserveSkippingRestartPolicy,
} from '../helpers/store-fixtures.js';
import { storeTest as it } from '../helpers/store-test.js';

const CLAIM = { runnerId: 'runner-1', claimToken: 'tok-1', leaseMs: 30_000 };

describe('reserveWorkflowRun with a claim (prepare-or-adopt): a new run is reserved and claimed in one transaction (docs/STORE-RULES.md §6.2)', () => {
  it('returns claimed with the token; the lease, queue, events and viewer show the claim', ({ t }) => {
    const prepared = t.store.reserveWorkflowRun(reserveInput('run-1', { runnerId: 'runner-1' }), CLAIM);
    expect(prepared.state).toBe('claimed');
    expect(prepared.run).toMatchObject({
      runId: 'run-1',
      status: 'starting',
      claimToken: 'tok-1',
      runnerId: 'runner-1',
      claimGeneration: 1,
      claimExpiresAt: t.clock.iso(30_000),
      affinityRunnerId: 'runner-1',
      revision: 2,
    });
    expect(leaseOf(t.store, 'run-1')).toEqual({
      generation: 1,
      owner_type: 'session',
      owner_id: 'runner-1',
      token_hash: Buffer.from(sha256Hex('tok-1'), 'hex'),
      acquired_at: t.clock.t,
      heartbeat_at: t.clock.t,
      expires_at: t.clock.t + 30_000,
    });
    expect(
      eventsOf(t.store, 'run-1').map((event) => [event.type, event.revision, event.actorType, event.actorId, event.leaseGeneration, event.payload]),
    ).toEqual([
      ['run.queued', 1, 'session', 'session-run-1', null, {}],
      ['lease.claimed', 2, 'session', 'runner-1', 1, { expiresAt: t.clock.t + 30_000 }],
    ]);
    expect(viewerRevisions(t.store, 'run-1').map((row) => [row.revision, row.targets])).toEqual([[2, BUMP]]);
    expect(t.store.getWorkflowRun('run-1')?.claimToken).toBeNull();
  });

  it('inserts the queue row already starting with affinity = the claiming runner, whatever runnerId was given', ({ t }) => {
    // Every UPDATE of run_queue is skipped: the row's status and affinity come from its INSERT.
    ignoreUpdatesOf(t.store, 'run_queue');
    t.store.reserveWorkflowRun(reserveInput('run-1', { runnerId: 'runner-other' }), CLAIM);
    t.store.reserveWorkflowRun(reserveInput('run-2'), { ...CLAIM, runnerId: 'runner-2' });
    expect(['run-1', 'run-2'].map((runId) => rowOf(t.store, 'run_queue', runId))).toEqual(
      ['run-1', 'run-2'].map((runId) => ({
        run_id: runId,
        status: 'starting',
        available_at: t.clock.t,
        affinity_runner_id: runId === 'run-1' ? 'runner-1' : 'runner-2',
        origin_session_id: `session-${runId}`,
        consecutive_errors: 0,
        error_code: null,
        error_hash: null,
        started_at: null,
        finished_at: null,
        created_at: t.clock.t,
        updated_at: t.clock.t,
      })),
    );
  });

  it('Lease duration must be an integer from 1 to 86400000 ms', ({ t }) => {
    for (const leaseMs of [0, 86_400_001, 1.5]) {
      expectRejectedUnchanged(
        t.store,
        () => t.store.reserveWorkflowRun(reserveInput('run-1'), { ...CLAIM, leaseMs }),
        'Lease duration must be an integer from 1 to 86400000 ms',
        'validation',
      );
    }
  });

  it('reports every reservation error of §6.1 for a new run', ({ t }) => {
    expectRejectedUnchanged(
      t.store,
      () => t.store.reserveWorkflowRun(reserveInput('run-1', { parentRunId: 'ghost' }), CLAIM),
      'Workflow run not found: ghost',
      'not_found',
    );
    expectRejectedUnchanged(t.store, () => t.store.reserveWorkflowRun(reserveInput('bad id'), CLAIM), 'Invalid workflow run id: bad id', 'validation');
  });

  it('Workflow run could not be claimed: <runId> rolls the reservation back', ({ t }) => {
    ignoreUpdatesOf(t.store, 'leases');
    expectRejectedUnchanged(t.store, () => t.store.reserveWorkflowRun(reserveInput('run-1'), CLAIM), 'Workflow run could not be claimed: run-1', 'conflict');
    expect(t.store.getWorkflowRun('run-1')).toBeUndefined();
  });
});

describe('reserveWorkflowRun with a claim (prepare-or-adopt): an existing run is adopted only when compatible', () => {
  it('adopts with identical parameters, writes nothing and takes no claim', ({ t }) => {
    const first = t.store.reserveWorkflowRun(reserveInput('run-1'), CLAIM);
    t.clock.advance(1000);
    const adopted = expectNoWrite(t.store, () =>
      t.store.reserveWorkflowRun(reserveInput('run-1'), { runnerId: 'runner-2', claimToken: 'tok-2', leaseMs: 5000 }),
    );
    expect(adopted.state).toBe('adopted');
    expect(adopted.run).toEqual({ ...first.run, claimToken: null });
    expect(adopted.run.runnerId).toBe('runner-1');
  });

  it('treats defaults and equivalent spellings as identical', ({ t }) => {
    const explicit = reserveInput('run-1', { input: null, launchOptions: {}, executionMode: 'interactive' });
    t.store.reserveWorkflowRun(explicit);
    const implicit = reserveInput('run-1', { definitionDigest: digestHex().toUpperCase() });
    delete implicit.input;
    delete implicit.launchOptions;
    delete implicit.executionMode;
    implicit.workflowSource = { hash: digestHex(), path: WORKFLOW_REF, kind: 'file' };
    expect(expectNoWrite(t.store, () => t.store.reserveWorkflowRun(implicit, CLAIM)).state).toBe('adopted');
    expect(
      expectNoWrite(t.store, () => t.store.reserveWorkflowRun({ ...explicit, workflowSource: { root: explicit.workflowSource, mounted: [] } }, CLAIM)).state,
    ).toBe('adopted');
  });

  it.for<[string, Partial<ReserveWorkflowRunInput>]>([
    ['workflow name', { workflowName: 'other' }],
    ['workflow ref', { workflowSourceRef: 'workflows/other.json' }],
    ['workflow source', { workflowSource: { kind: 'file', path: WORKFLOW_REF, hash: 'other' } }],
    ['invalid workflow source', { workflowSource: { kind: 'nope' } }],
    ['definition digest', { definitionDigest: 'cd'.repeat(32) }],
    ['input', { input: { topic: 'other' } }],
    ['input left to its default', { input: undefined }],
    ['launch options', { launchOptions: { model: 'y' } }],
    ['origin session', { originSessionId: 'session-other' }],
    ['execution mode', { executionMode: 'headless' }],
  ])('Workflow run preparation conflicts: <runId> for a different %s', ([_field, overrides], { t }) => {
    reserve(t.store, 'run-1');
    expectRejectedUnchanged(
      t.store,
      () => t.store.reserveWorkflowRun({ ...reserveInput('run-1'), ...overrides }, CLAIM),
      'Workflow run preparation conflicts: run-1',
      'conflict',
    );
  });

  it('compares the computed restart number: a root is 0 whatever restart number is given (as in pi-workflows)', ({ t }) => {
    reserve(t.store, 'run-1');
    expect(expectNoWrite(t.store, () => t.store.reserveWorkflowRun(reserveInput('run-1', { restartNumber: 1 }), CLAIM)).state).toBe('adopted');
  });

  it('does not compare the snapshot, the title or the affinity (not part of compatibility)', ({ t }) => {
    reserve(t.store, 'run-1', { runnerId: 'runner-a', title: 'A' });
    const adopted = expectNoWrite(t.store, () =>
      t.store.reserveWorkflowRun(reserveInput('run-1', { runnerId: 'runner-b', title: 'B', definitionSnapshot: { x: 1 } }), CLAIM),
    );
    expect(adopted.state).toBe('adopted');
  });

  describe('lineage fields', () => {
    const FP = 'ab'.repeat(32);
    const restartOf = (parent: string): Partial<ReserveWorkflowRunInput> => ({
      parentRunId: parent,
      originSessionId: `session-${parent}`,
      lineageKind: 'restart',
      parentTerminalFingerprint: FP,
    });

    it.beforeEach(({ t }) => {
      terminalRun(t, 'parent');
      terminalRun(t, 'other-parent', { originSessionId: 'session-parent' });
      reserveSkippingRestartPolicy(t.store, 'child', restartOf('parent'));
    });

    it('adopts an identical restart (restart number computed or given)', ({ t }) => {
      expect(expectNoWrite(t.store, () => t.store.reserveWorkflowRun(reserveInput('child', restartOf('parent')), CLAIM)).state).toBe('adopted');
      expect(
        expectNoWrite(t.store, () =>
          t.store.reserveWorkflowRun(
            reserveInput('child', { ...restartOf('parent'), restartNumber: 1, parentTerminalFingerprint: `sha256:${FP.toUpperCase()}` }),
            CLAIM,
          ),
        ).state,
      ).toBe('adopted');
    });

    it.for<[string, Partial<ReserveWorkflowRunInput>]>([
      ['no parent (a root)', { parentRunId: undefined, lineageKind: undefined, parentTerminalFingerprint: undefined }],
      ['another parent', { parentRunId: 'other-parent' }],
      ['lineage kind continuation', { lineageKind: 'continuation', parentTerminalFingerprint: undefined }],
      ['default lineage kind (continuation)', { lineageKind: undefined, parentTerminalFingerprint: undefined }],
      ['restart number', { restartNumber: 2 }],
      ['fingerprint', { parentTerminalFingerprint: 'cd'.repeat(32) }],
      ['missing fingerprint', { parentTerminalFingerprint: undefined }],
    ])('Workflow run preparation conflicts: <runId> for a different %s', ([_field, overrides], { t }) => {
      expectRejectedUnchanged(
        t.store,
        () => t.store.reserveWorkflowRun(reserveInput('child', { ...restartOf('parent'), ...overrides }), CLAIM),
        'Workflow run preparation conflicts: child',
        'conflict',
      );
    });

    it('Workflow run not found: <parentRunId> for a missing named parent', ({ t }) => {
      expectRejectedUnchanged(
        t.store,
        () => t.store.reserveWorkflowRun(reserveInput('child', { ...restartOf('parent'), parentRunId: 'ghost' }), CLAIM),
        'Workflow run not found: ghost',
        'not_found',
      );
    });

    it('Expected a terminal fingerprint for a malformed fingerprint', ({ t }) => {
      expectRejectedUnchanged(
        t.store,
        () => t.store.reserveWorkflowRun(reserveInput('child', { ...restartOf('parent'), parentTerminalFingerprint: 'xyz' }), CLAIM),
        'Expected a terminal fingerprint',
        'validation',
      );
    });
  });

  it('does not re-check reservation rules on adoption (a continuation whose parent is now done)', ({ t }) => {
    reserve(t.store, 'parent');
    claim(t.store, 'parent');
    t.store.parkWorkflowRun({ runId: 'parent', claimToken: 'token-parent' });
    const input = reserveInput('child', { parentRunId: 'parent', originSessionId: 'session-parent' });
    expect(t.store.reserveWorkflowRun(input, CLAIM).state).toBe('claimed');
    expect(t.store.getWorkflowRun('parent')?.status).toBe('done');
    expect(expectNoWrite(t.store, () => t.store.reserveWorkflowRun(input, CLAIM)).state).toBe('adopted');
  });
});
