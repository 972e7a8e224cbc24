import { describe, expect } from 'vitest';
import { StoreError } from '../../src/store/index.js';
import {
  BUMP,
  claim,
  digestHex,
  eventsOf,
  expectRejectedUnchanged,
  expectStoreError,
  freeLease,
  leaseOf,
  openTestStore,
  reserve,
  reserveInput,
  resourceRevision,
  rowOf,
  sha256Hex,
  snapshotTables,
  sql,
  terminalRun,
  viewerHead,
  viewerRevisions,
  WORKFLOW_REF,
  type TestStore,
  reserveSkippingRestartPolicy,
} from '../helpers/store-fixtures.js';
import { storeTest as it } from '../helpers/store-test.js';

const FINGERPRINT = 'ab'.repeat(32);

/** A parked root run (claimed, released to parked), ready to be continued. */
function parkedRun(t: TestStore, runId: string, session = `session-${runId}`): void {
  reserve(t.store, runId, { originSessionId: session });
  claim(t.store, runId);
  expect(t.store.parkWorkflowRun({ runId, claimToken: `token-${runId}` })).toBe(true);
}

describe('reserveWorkflowRun: a root run (docs/STORE-RULES.md §6.1)', () => {
  it('returns the run record with every field of §10', ({ t }) => {
    const run = reserve(t.store, 'run-1', { runnerId: 'runner-a', launchOptions: { model: 'x' }, title: 'Demo' });
    const at = t.clock.iso();
    expect(run).toMatchObject({
      runId: 'run-1',
      workflowName: 'demo',
      workflowSourceRef: WORKFLOW_REF,
      workflowSource: { root: { kind: 'file', path: WORKFLOW_REF, hash: digestHex() }, mounted: [] },
      initialized: false,
      definitionDigest: `sha256:${digestHex()}`,
      input: { topic: 'tests' },
      launchOptions: { model: 'x' },
      status: 'queued',
      runStateStatus: 'queued',
      paused: false,
      title: 'Demo',
      runnerId: null,
      claimToken: null,
      claimGeneration: null,
      claimExpiresAt: null,
      claim: null,
      affinityRunnerId: 'runner-a',
      originSessionId: 'session-run-1',
      executionMode: 'interactive',
      parentRunId: null,
      rootRunId: 'run-1',
      lineageKind: null,
      restartNumber: 0,
      parentTerminalFingerprint: null,
      terminalFingerprint: null,
      errorCode: null,
      errorMessage: null,
      createdAt: at,
      updatedAt: at,
      startedAt: null,
      finishedAt: null,
      presentationRevision: 1,
      retainedFromRevision: 1,
      revision: 1,
    });
    expect(t.store.getWorkflowRun('run-1')).toEqual(run);
  });

  it('writes resource revision 1, a free lease at generation 0, run.queued, a viewer row without deltas', ({ t }) => {
    reserve(t.store, 'run-1');
    expect(resourceRevision(t.store, 'run-1')).toBe(1);
    expect(leaseOf(t.store, 'run-1')).toEqual(freeLease(0));
    expect(eventsOf(t.store, 'run-1')).toEqual([
      {
        seq: expect.any(Number),
        type: 'run.queued',
        revision: 1,
        actorType: 'session',
        actorId: 'session-run-1',
        leaseGeneration: null,
        payload: {},
        recordedAt: t.clock.t,
      },
    ]);
    expect(viewerHead(t.store, 'run-1')).toEqual({ presentation: 1, retainedFrom: 1 });
    expect(viewerRevisions(t.store, 'run-1')).toEqual([]);
    expect(rowOf(t.store, 'runs', 'run-1')).toMatchObject({
      status: 'queued',
      paused: 0,
      root_run_id: 'run-1',
      lineage_kind: null,
      restart_number: 0,
      parent_terminal_fingerprint: null,
      project_id: t.store.projectId,
      finished_at: null,
      created_at: t.clock.t,
    });
    expect(rowOf(t.store, 'run_queue', 'run-1')).toMatchObject({
      status: 'queued',
      available_at: t.clock.t,
      affinity_runner_id: null,
      origin_session_id: 'session-run-1',
      consecutive_errors: 0,
      error_code: null,
      started_at: null,
      finished_at: null,
    });
    expect(rowOf(t.store, 'run_bindings', 'run-1')).toMatchObject({
      origin_session_id: 'session-run-1',
      execution_mode: 'interactive',
    });
    expect(rowOf(t.store, 'run_sources', 'run-1')).toEqual({
      run_id: 'run-1',
      mount_path: '',
      source_type: 'file',
      source_ref: WORKFLOW_REF,
      source_revision: digestHex(),
    });
  });

  it('stores runnerId as run_queue.affinity_runner_id (NULL when absent or null); an empty one is refused, nothing written', ({ t }) => {
    reserve(t.store, 'run-1', { runnerId: 'runner-a' });
    reserve(t.store, 'run-2', { runnerId: null });
    reserve(t.store, 'run-3');
    expect(['run-1', 'run-2', 'run-3'].map((runId) => rowOf(t.store, 'run_queue', runId).affinity_runner_id)).toEqual(['runner-a', null, null]);
    expectRejectedUnchanged(t.store, () => reserve(t.store, 'run-4', { runnerId: '' }), 'runnerId must be a non-empty string', 'validation');
  });

  it('stores the digest as 32 bytes and reads it back as sha256: + lowercase hex, whatever case was given', ({ t }) => {
    const run = reserve(t.store, 'run-1', { definitionDigest: digestHex().toUpperCase() });
    expect(run.definitionDigest).toBe(`sha256:${digestHex()}`);
    const row = rowOf(t.store, 'runs', 'run-1');
    expect(Buffer.from(row.definition_digest as Buffer).toString('hex')).toBe(digestHex());
  });

  it('defaults input to null and launch options to {}', ({ t }) => {
    const input = reserveInput('run-1');
    delete input.input;
    const { run } = t.store.reserveWorkflowRun(input);
    expect(run.input).toBeNull();
    expect(run.launchOptions).toEqual({});
  });

  it('uses the given ISO now for every timestamp', ({ t }) => {
    const run = reserve(t.store, 'run-1', { now: '2026-02-03T04:05:06.789Z' });
    expect(run.createdAt).toBe('2026-02-03T04:05:06.789Z');
    expect(rowOf(t.store, 'run_queue', 'run-1').available_at).toBe(Date.parse('2026-02-03T04:05:06.789Z'));
  });

  it('reports a headless run without origin session, but binds the raw session', ({ t }) => {
    const run = reserve(t.store, 'run-1', { executionMode: 'headless' });
    expect(run.originSessionId).toBeNull();
    expect(run.executionMode).toBe('headless');
    expect(rowOf(t.store, 'run_bindings', 'run-1').origin_session_id).toBe('session-run-1');
  });

  it('keeps the first name and snapshot stored for a definition digest', ({ t }) => {
    reserve(t.store, 'run-1');
    const second = reserve(t.store, 'run-2', { workflowName: 'renamed', definitionSnapshot: { other: true } });
    expect(second.workflowName).toBe('demo');
    const definitions = snapshotTables(t.store).workflow_definitions as Array<{ workflow_name: string }>;
    expect(definitions.map((row) => row.workflow_name)).toEqual(['demo']);
  });

  it('stores mounted sources and rebuilds {root, mounted}', ({ t }) => {
    const source = {
      root: { kind: 'builtin', id: 'demo', revision: 'r1' },
      mounted: [{ mountPath: ['tools', 'search'], workflowName: 'search', source: { kind: 'file', path: 'search.json', hash: 'h1' } }],
    };
    const run = reserve(t.store, 'run-1', { workflowSource: source });
    expect(run.workflowSource.root).toEqual({ kind: 'builtin', id: 'demo', revision: 'r1' });
    expect(run.workflowSource.mounted.map((mount) => [mount.mountPath, mount.source])).toEqual([
      [['tools', 'search'], { kind: 'file', path: 'search.json', hash: 'h1' }],
    ]);
  });

  it('accepts a run id of 200 characters', ({ t }) => {
    const runId = `a${'b'.repeat(199)}`;
    expect(reserve(t.store, runId).runId).toBe(runId);
  });
});

describe('reserveWorkflowRun: checks in order, first failure wins, nothing written', () => {
  it.for([
    ['', 'Invalid workflow run id: '],
    ['-leading-dash', 'Invalid workflow run id: -leading-dash'],
    ['has space', 'Invalid workflow run id: has space'],
    ['slash/id', 'Invalid workflow run id: slash/id'],
    [`a${'b'.repeat(200)}`, `Invalid workflow run id: a${'b'.repeat(200)}`],
  ] as const)('run id %j → %s', ([runId, message], { t }) => {
    expectRejectedUnchanged(t.store, () => reserve(t.store, runId), message, 'validation');
  });

  it('Invalid timestamp', ({ t }) => {
    expectRejectedUnchanged(t.store, () => reserve(t.store, 'run-1', { now: 'yesterday' }), 'Invalid timestamp', 'validation');
  });

  it.for([
    ['63 hex', 'a'.repeat(63)],
    ['65 hex', 'a'.repeat(65)],
    ['other prefix', `sha1:${'a'.repeat(64)}`],
    ['not hex', 'g'.repeat(64)],
  ])('Expected a SHA-256 digest (%s)', ([_name, digest], { t }) => {
    expectRejectedUnchanged(t.store, () => reserve(t.store, 'run-1', { definitionDigest: digest }), 'Expected a SHA-256 digest', 'validation');
  });

  it('checks the run id before the timestamp, and the timestamp before the digest', ({ t }) => {
    expectStoreError(() => reserve(t.store, 'bad id', { now: 'never', definitionDigest: 'x' }), 'Invalid workflow run id: bad id');
    expectStoreError(() => reserve(t.store, 'run-1', { now: 'never', definitionDigest: 'x' }), 'Invalid timestamp');
  });

  it('Workflow run already reserved: <runId>, even when the call also declares bad lineage', ({ t }) => {
    reserve(t.store, 'run-1');
    expectRejectedUnchanged(t.store, () => reserve(t.store, 'run-1'), 'Workflow run already reserved: run-1', 'conflict');
    expectRejectedUnchanged(
      t.store,
      () => reserve(t.store, 'run-1', { lineageKind: 'restart', restartNumber: 4 }),
      'Workflow run already reserved: run-1',
      'conflict',
    );
  });

  it('A root workflow run cannot declare lineage (before the restart-metadata check)', ({ t }) => {
    expectRejectedUnchanged(t.store, () => reserve(t.store, 'run-1', { lineageKind: 'continuation' }), 'A root workflow run cannot declare lineage', 'lineage');
    expectRejectedUnchanged(
      t.store,
      () => reserve(t.store, 'run-1', { lineageKind: 'restart', restartNumber: 1, parentTerminalFingerprint: FINGERPRINT }),
      'A root workflow run cannot declare lineage',
      'lineage',
    );
  });

  it.for([
    ['restart number', { restartNumber: 0 }],
    ['fingerprint', { parentTerminalFingerprint: FINGERPRINT }],
  ] as const)('A root workflow run cannot declare restart metadata (%s)', ([_name, overrides], { t }) => {
    expectRejectedUnchanged(t.store, () => reserve(t.store, 'run-1', overrides), 'A root workflow run cannot declare restart metadata', 'lineage');
  });

  it('Workflow run not found: <parentRunId>', ({ t }) => {
    expectRejectedUnchanged(t.store, () => reserve(t.store, 'child', { parentRunId: 'ghost' }), 'Workflow run not found: ghost', 'not_found');
  });

  it('Workflow parent belongs to another Pi session (restart and continuation)', ({ t }) => {
    parkedRun(t, 'parent');
    expectRejectedUnchanged(
      t.store,
      () => reserve(t.store, 'child', { parentRunId: 'parent', originSessionId: 'intruder' }),
      'Workflow parent belongs to another Pi session',
      'lineage',
    );
    expectRejectedUnchanged(
      t.store,
      () => reserve(t.store, 'child', { parentRunId: 'parent', originSessionId: 'intruder', lineageKind: 'restart' }),
      'Workflow parent belongs to another Pi session',
      'lineage',
    );
  });

  it('compares the raw bound session of a headless parent', ({ t }) => {
    reserve(t.store, 'parent', { executionMode: 'headless', originSessionId: 'S' });
    claim(t.store, 'parent');
    t.store.parkWorkflowRun({ runId: 'parent', claimToken: 'token-parent' });
    const child = reserve(t.store, 'child', { parentRunId: 'parent', originSessionId: 'S', executionMode: 'headless' });
    expect(child.parentRunId).toBe('parent');
  });

  it('checks the session before the parent queue state', ({ t }) => {
    reserve(t.store, 'parent');
    expectRejectedUnchanged(
      t.store,
      () => reserve(t.store, 'child', { parentRunId: 'parent', originSessionId: 'intruder' }),
      'Workflow parent belongs to another Pi session',
    );
  });
});

describe('reserveWorkflowRun: restarts', () => {
  it('Restart parent is not terminal: queued parent', ({ t }) => {
    reserve(t.store, 'parent');
    expectRejectedUnchanged(
      t.store,
      () =>
        reserve(t.store, 'child', {
          parentRunId: 'parent',
          originSessionId: 'session-parent',
          lineageKind: 'restart',
          parentTerminalFingerprint: FINGERPRINT,
        }),
      'Restart parent is not terminal',
      'lineage',
    );
  });

  it('Restart parent is not terminal: queue done but run status not terminal', ({ t }) => {
    reserve(t.store, 'parent');
    claim(t.store, 'parent');
    expect(t.store.completeWorkflowRun({ runId: 'parent', claimToken: 'token-parent' })).toBe(true);
    expect(t.store.getWorkflowRun('parent')).toMatchObject({ status: 'done', runStateStatus: 'queued' });
    expectRejectedUnchanged(
      t.store,
      () =>
        reserve(t.store, 'child', {
          parentRunId: 'parent',
          originSessionId: 'session-parent',
          lineageKind: 'restart',
          parentTerminalFingerprint: FINGERPRINT,
        }),
      'Restart parent is not terminal',
      'lineage',
    );
  });

  it('Restart requires the parent terminal fingerprint', ({ t }) => {
    terminalRun(t, 'parent');
    expectRejectedUnchanged(
      t.store,
      () => reserve(t.store, 'child', { parentRunId: 'parent', originSessionId: 'session-parent', lineageKind: 'restart' }),
      'Restart requires the parent terminal fingerprint',
      'lineage',
    );
  });

  it.for(['abc', `sha256:${'z'.repeat(64)}`, `sha256:sha256:${FINGERPRINT}`, `${FINGERPRINT}0`])(
    'Expected a terminal fingerprint (%s)',
    (fingerprint, { t }) => {
      terminalRun(t, 'parent');
      expectRejectedUnchanged(
        t.store,
        () =>
          reserve(t.store, 'child', {
            parentRunId: 'parent',
            originSessionId: 'session-parent',
            lineageKind: 'restart',
            parentTerminalFingerprint: fingerprint,
          }),
        'Expected a terminal fingerprint',
        'validation',
      );
    },
  );

  it.for([0, 2])('Restart number does not follow its parent (%i for a parent at 0)', (restartNumber, { t }) => {
    terminalRun(t, 'parent');
    expectRejectedUnchanged(
      t.store,
      () =>
        reserve(t.store, 'child', {
          parentRunId: 'parent',
          originSessionId: 'session-parent',
          lineageKind: 'restart',
          restartNumber,
          parentTerminalFingerprint: FINGERPRINT,
        }),
      'Restart number does not follow its parent',
      'lineage',
    );
  });

  it('reserves a restart: parent + 1, the parent root, the fingerprint in lowercase; the parent is not modified', ({ t }) => {
    terminalRun(t, 'parent');
    const parentBefore = snapshotTables(t.store);
    const parentRevision = resourceRevision(t.store, 'parent');
    const child = reserveSkippingRestartPolicy(t.store, 'child', {
      parentRunId: 'parent',
      originSessionId: 'session-parent',
      lineageKind: 'restart',
      parentTerminalFingerprint: `sha256:${FINGERPRINT.toUpperCase()}`,
    });
    expect(child).toMatchObject({
      parentRunId: 'parent',
      rootRunId: 'parent',
      lineageKind: 'restart',
      restartNumber: 1,
      parentTerminalFingerprint: FINGERPRINT,
      status: 'queued',
    });
    expect(resourceRevision(t.store, 'parent')).toBe(parentRevision);
    const after = snapshotTables(t.store);
    for (const table of ['run_queue', 'runs', 'viewer_runs', 'leases', 'resources']) {
      const parentRows = (rows: unknown[]) =>
        rows.filter((row) => (row as { run_id?: string }).run_id === 'parent' || (row as { aggregate_key?: string }).aggregate_key === 'parent');
      expect(parentRows(after[table] as unknown[])).toEqual(parentRows(parentBefore[table] as unknown[]));
    }
  });

  it('accepts a cancelled parent (refusing it is the restart command’s job)', ({ t }) => {
    terminalRun(t, 'parent', {}, 'cancelled');
    const child = reserveSkippingRestartPolicy(t.store, 'child', {
      parentRunId: 'parent',
      originSessionId: 'session-parent',
      lineageKind: 'restart',
      parentTerminalFingerprint: FINGERPRINT,
    });
    expect(child.lineageKind).toBe('restart');
  });

  it('refuses a second restart child of the same parent on the unique index, writing nothing', ({ t }) => {
    terminalRun(t, 'parent');
    const restart = {
      parentRunId: 'parent',
      originSessionId: 'session-parent',
      lineageKind: 'restart' as const,
      parentTerminalFingerprint: FINGERPRINT,
    };
    reserveSkippingRestartPolicy(t.store, 'child-1', restart);
    claim(t.store, 'child-1');
    t.store.settleWorkflowRun({ runId: 'child-1', claimToken: 'token-child-1', status: 'failed', error: 'again' });
    expectRejectedUnchanged(
      t.store,
      () => reserveSkippingRestartPolicy(t.store, 'child-2', { ...restart, parentTerminalFingerprint: 'cd'.repeat(32) }),
      'Workflow run already has a restart: parent',
      'conflict',
    );
  });
});

describe('reserveWorkflowRun: continuations', () => {
  it.for([
    ['a fingerprint', { parentTerminalFingerprint: FINGERPRINT }],
    ['another restart number', { restartNumber: 1 }],
  ] as const)('Continuation lineage conflicts with restart metadata (%s)', ([_name, overrides], { t }) => {
    parkedRun(t, 'parent');
    expectRejectedUnchanged(
      t.store,
      () => reserve(t.store, 'child', { parentRunId: 'parent', originSessionId: 'session-parent', ...overrides }),
      'Continuation lineage conflicts with restart metadata',
      'lineage',
    );
  });

  it('Continuation parent still has an active owner, live or expired', ({ t }) => {
    parkedRun(t, 'parent');
    const control = t.store.claimWorkflowRunForControl({ runId: 'parent', runnerId: 'control-1', claimToken: 'c', leaseMs: 1000 });
    expect(control?.status).toBe('parked');
    const input = { parentRunId: 'parent', originSessionId: 'session-parent' };
    expectRejectedUnchanged(t.store, () => reserve(t.store, 'child', input), 'Continuation parent still has an active owner', 'lineage');
    t.clock.advance(5000);
    expectRejectedUnchanged(t.store, () => reserve(t.store, 'child', input), 'Continuation parent still has an active owner', 'lineage');
  });

  it('Continuation parent already has a reserved continuation', ({ t }) => {
    parkedRun(t, 'parent');
    reserve(t.store, 'child-1', { parentRunId: 'parent', originSessionId: 'session-parent' });
    claim(t.store, 'child-1');
    t.store.parkWorkflowRun({ runId: 'child-1', claimToken: 'token-child-1' });
    expectRejectedUnchanged(
      t.store,
      () => reserve(t.store, 'child-2', { parentRunId: 'parent', originSessionId: 'session-parent' }),
      'Continuation parent already has a reserved continuation',
      'lineage',
    );
  });

  it('Continuation parent queue is <status> for queued, starting, running, failed and cancelled parents', ({ t }) => {
    const input = (parent: string) => ({ parentRunId: parent, originSessionId: `session-${parent}` });
    reserve(t.store, 'p-queued');
    expectRejectedUnchanged(t.store, () => reserve(t.store, 'c', input('p-queued')), 'Continuation parent queue is queued', 'lineage');
    reserve(t.store, 'p-starting');
    claim(t.store, 'p-starting');
    expectRejectedUnchanged(t.store, () => reserve(t.store, 'c', input('p-starting')), 'Continuation parent queue is starting', 'lineage');
    reserve(t.store, 'p-running');
    claim(t.store, 'p-running');
    t.store.markWorkflowRunRunning({ runId: 'p-running', claimToken: 'token-p-running' });
    expectRejectedUnchanged(t.store, () => reserve(t.store, 'c', input('p-running')), 'Continuation parent queue is running', 'lineage');
    terminalRun(t, 'p-failed');
    expectRejectedUnchanged(t.store, () => reserve(t.store, 'c', input('p-failed')), 'Continuation parent queue is failed', 'lineage');
    terminalRun(t, 'p-cancelled', {}, 'cancelled');
    expectRejectedUnchanged(t.store, () => reserve(t.store, 'c', input('p-cancelled')), 'Continuation parent queue is cancelled', 'lineage');
  });

  it('continues a parked parent: parent queue done + run.queue_done_for_continuation + one parent viewer bump, in one go', ({ t }) => {
    parkedRun(t, 'parent');
    const parentRevision = resourceRevision(t.store, 'parent');
    const parentViewer = viewerHead(t.store, 'parent').presentation;
    t.clock.advance(1000);
    const child = reserve(t.store, 'child', { parentRunId: 'parent', originSessionId: 'session-parent', restartNumber: 0 });
    expect(child).toMatchObject({ parentRunId: 'parent', rootRunId: 'parent', lineageKind: 'continuation', restartNumber: 0 });
    expect(rowOf(t.store, 'run_queue', 'parent')).toMatchObject({ status: 'done', updated_at: t.clock.t, finished_at: t.clock.t });
    expect(resourceRevision(t.store, 'parent')).toBe(parentRevision + 1);
    expect(eventsOf(t.store, 'parent').at(-1)).toEqual({
      seq: expect.any(Number),
      type: 'run.queue_done_for_continuation',
      revision: parentRevision + 1,
      actorType: 'session',
      actorId: 'session-parent',
      leaseGeneration: null,
      payload: { continuationRunId: 'child' },
      recordedAt: t.clock.t,
    });
    expect(viewerHead(t.store, 'parent').presentation).toBe(parentViewer + 1);
    expect(viewerRevisions(t.store, 'parent').at(-1)?.targets).toEqual(BUMP);
    // The new run itself records no viewer revision.
    expect(viewerHead(t.store, 'child')).toEqual({ presentation: 1, retainedFrom: 1 });
    expect(eventsOf(t.store, 'child').map((event) => event.type)).toEqual(['run.queued']);
  });

  it('a continuation inherits the chain root and restart number of a restart parent', ({ t }) => {
    terminalRun(t, 'root');
    reserveSkippingRestartPolicy(t.store, 'restart-1', {
      parentRunId: 'root',
      originSessionId: 'session-root',
      lineageKind: 'restart',
      parentTerminalFingerprint: FINGERPRINT,
    });
    claim(t.store, 'restart-1');
    t.store.parkWorkflowRun({ runId: 'restart-1', claimToken: 'token-restart-1' });
    const child = reserve(t.store, 'cont', { parentRunId: 'restart-1', originSessionId: 'session-root' });
    expect(child).toMatchObject({ rootRunId: 'root', restartNumber: 1, lineageKind: 'continuation', parentTerminalFingerprint: null });
  });

  it('rolls the parent back when a later write of the reservation fails', ({ t }) => {
    parkedRun(t, 'parent');
    expectRejectedUnchanged(
      t.store,
      () => reserve(t.store, 'child', { parentRunId: 'parent', originSessionId: 'session-parent', workflowSource: { kind: 'ftp' } }),
      'Stored workflow source identity is invalid',
      'validation',
    );
    expect(t.store.getWorkflowRun('parent')?.status).toBe('parked');
  });
});

describe('reserveWorkflowRun: project and session slots', () => {
  it('Controller project is not registered in the state database (global store)', () => {
    const global = openTestStore({ projectPath: null });
    try {
      expect(global.store.projectId).toBeNull();
      expectRejectedUnchanged(global.store, () => reserve(global.store, 'run-1'), 'Controller project is not registered in the state database', 'integrity');
    } finally {
      global.close();
    }
  });

  it('registers the project as project- + first 40 hex of SHA-256 of its real path', ({ t }) => {
    const rows = snapshotTables(t.store).projects as Array<{ project_id: string; canonical_path: string }>;
    expect(rows).toHaveLength(1);
    expect(rows[0]?.project_id).toBe(`project-${sha256Hex(rows[0]?.canonical_path ?? '').slice(0, 40)}`);
    expect(t.store.projectId).toBe(rows[0]?.project_id);
  });

  it('one active queue entry per origin session: a second queued run of the session is a conflict, nothing written', ({ t }) => {
    reserve(t.store, 'run-1', { originSessionId: 'S' });
    expectRejectedUnchanged(t.store, () => reserve(t.store, 'run-2', { originSessionId: 'S' }), 'Pi session already has an active workflow run: S', 'conflict');
  });

  it('a parked or finished run does not hold the session slot', ({ t }) => {
    reserve(t.store, 'run-1', { originSessionId: 'S' });
    claim(t.store, 'run-1');
    t.store.parkWorkflowRun({ runId: 'run-1', claimToken: 'token-run-1' });
    expect(reserve(t.store, 'run-2', { originSessionId: 'S' }).status).toBe('queued');
  });

  it('claiming a parked run while its session has another active entry is a conflict, nothing written', ({ t }) => {
    reserve(t.store, 'run-1', { originSessionId: 'S' });
    claim(t.store, 'run-1');
    t.store.parkWorkflowRun({ runId: 'run-1', claimToken: 'token-run-1' });
    reserve(t.store, 'run-2', { originSessionId: 'S' });
    expectRejectedUnchanged(
      t.store,
      () => t.store.claimWorkflowRun({ runId: 'run-1', runnerId: 'runner-1', claimToken: 'x', leaseMs: 1000 }),
      'Pi session already has an active workflow run: S',
      'conflict',
    );
    expectRejectedUnchanged(
      t.store,
      () => t.store.claimNextWorkflowRun({ runnerId: 'runner-1', sessionId: 'S', claimToken: 'x', leaseMs: 1000, excludeRunIds: [] }),
      'Pi session already has an active workflow run: S',
      'conflict',
    );
  });
});

describe('reserveWorkflowRun: pi-workflows’ reservation rules before our value checks', () => {
  /** Asserts `fn` is refused with `message` of `kind` and changes no table. */
  const refused = (t: TestStore, fn: () => unknown, message: string, kind: Parameters<typeof expectStoreError>[2]) =>
    expectRejectedUnchanged(t.store, fn, message, kind);
  /** A value the types refuse, as a JavaScript caller (or a JSON body) may still pass it. */
  const loose = <T>(value: unknown): T => value as T;

  it('a root run with restartNumber -1 (or 1.5): A root workflow run cannot declare restart metadata', ({ t }) => {
    refused(t, () => reserve(t.store, 'run-1', { restartNumber: -1 }), 'A root workflow run cannot declare restart metadata', 'lineage');
    refused(t, () => reserve(t.store, 'run-1', { restartNumber: 1.5 }), 'A root workflow run cannot declare restart metadata', 'lineage');
  });

  it('an existing run id with lineageKind "bogus": Workflow run already reserved: <id>', ({ t }) => {
    reserve(t.store, 'run-1');
    refused(
      t,
      () => reserve(t.store, 'run-1', { lineageKind: loose('bogus'), restartNumber: -1, executionMode: loose('sideways') }),
      'Workflow run already reserved: run-1',
      'conflict',
    );
  });

  it('a root run with lineageKind "bogus": A root workflow run cannot declare lineage', ({ t }) => {
    refused(t, () => reserve(t.store, 'run-1', { lineageKind: loose('bogus') }), 'A root workflow run cannot declare lineage', 'lineage');
  });

  it('a restart with restartNumber 1.5 (or -1): Restart number does not follow its parent', ({ t }) => {
    const parent = terminalRun(t, 'parent');
    const restart = {
      parentRunId: 'parent',
      originSessionId: 'session-parent',
      lineageKind: 'restart' as const,
      parentTerminalFingerprint: parent.terminalFingerprint as string,
    };
    refused(t, () => reserve(t.store, 'child', { ...restart, restartNumber: 1.5 }), 'Restart number does not follow its parent', 'lineage');
    refused(t, () => reserve(t.store, 'child', { ...restart, restartNumber: -1 }), 'Restart number does not follow its parent', 'lineage');
  });

  it('a continuation with restartNumber -1: Continuation lineage conflicts with restart metadata (parent untouched)', ({ t }) => {
    parkedRun(t, 'parent');
    refused(
      t,
      () => reserve(t.store, 'child', { parentRunId: 'parent', originSessionId: 'session-parent', restartNumber: -1 }),
      'Continuation lineage conflicts with restart metadata',
      'lineage',
    );
    expect(t.store.getWorkflowRun('parent')?.status).toBe('parked');
  });

  it('with a claim (prepare-or-adopt of a new run) the same order holds', ({ t }) => {
    refused(
      t,
      () => t.store.reserveWorkflowRun(reserveInput('run-1', { restartNumber: -1 }), { runnerId: 'r', claimToken: 'c', leaseMs: 1000 }),
      'A root workflow run cannot declare restart metadata',
      'lineage',
    );
  });

  it('a lineage kind pi-workflows treats as a continuation: pi-workflows decides while its rules fail', ({ t }) => {
    reserve(t.store, 'queued-parent', { originSessionId: 'S' });
    refused(
      t,
      () => reserve(t.store, 'child', { parentRunId: 'queued-parent', originSessionId: 'S', lineageKind: loose('bogus') }),
      'Continuation parent queue is queued',
      'lineage',
    );
  });

  it('what pi-workflows leaves open gets our value checks, after theirs, and the parent is rolled back', ({ t }) => {
    parkedRun(t, 'parent');
    const continuation = { parentRunId: 'parent', originSessionId: 'session-parent' };
    refused(t, () => reserve(t.store, 'child', { ...continuation, lineageKind: loose('bogus') }), 'lineageKind must be continuation or restart', 'validation');
    refused(
      t,
      () => reserve(t.store, 'child', { ...continuation, executionMode: loose('sideways') }),
      'executionMode must be interactive or headless',
      'validation',
    );
    refused(t, () => reserve(t.store, 'child', { ...continuation, workflowName: '' }), 'workflowName must be a non-empty string', 'validation');
    expect(t.store.getWorkflowRun('parent')?.status).toBe('parked');
    refused(t, () => reserve(t.store, 'root-2', { workflowSourceRef: '' }), 'workflowRef must be a non-empty string', 'validation');
  });
});

describe('the session slot is recognised by SQLite’s constraint code, not by error text', () => {
  it('a trigger failure whose text names the slot column is not taken for the slot; nothing written', ({ t }) => {
    reserve(t.store, 'run-1', { originSessionId: 'S' });
    claim(t.store, 'run-1');
    t.store.parkWorkflowRun({ runId: 'run-1', claimToken: 'token-run-1' });
    sql(
      t.store,
      `CREATE TEMP TRIGGER test_fake_slot BEFORE INSERT ON main.run_queue
       BEGIN SELECT RAISE(ABORT, 'UNIQUE constraint failed: run_queue.origin_session_id'); END`,
    );
    const before = snapshotTables(t.store);
    let thrown: unknown;
    try {
      reserve(t.store, 'run-2', { originSessionId: 'S' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown).not.toBeInstanceOf(StoreError);
    expect(thrown).toMatchObject({ code: 'SQLITE_CONSTRAINT_TRIGGER', message: 'UNIQUE constraint failed: run_queue.origin_session_id' });
    expect(snapshotTables(t.store)).toEqual(before);
  });

  it('the real unique-index violation still answers the slot conflict, on reserve, claim and mark-running', ({ t }) => {
    reserve(t.store, 'run-1', { originSessionId: 'S' });
    claim(t.store, 'run-1');
    t.store.parkWorkflowRun({ runId: 'run-1', claimToken: 'token-run-1' });
    reserve(t.store, 'run-2', { originSessionId: 'S' });
    expectRejectedUnchanged(t.store, () => reserve(t.store, 'run-3', { originSessionId: 'S' }), 'Pi session already has an active workflow run: S', 'conflict');
    expectRejectedUnchanged(
      t.store,
      () => t.store.claimWorkflowRun({ runId: 'run-1', runnerId: 'runner-1', claimToken: 'x', leaseMs: 1000 }),
      'Pi session already has an active workflow run: S',
      'conflict',
    );
    const control = t.store.claimWorkflowRunForControl({ runId: 'run-1', runnerId: 'control-1', claimToken: 'c', leaseMs: 1000 });
    expect(control?.status).toBe('parked');
    expectRejectedUnchanged(
      t.store,
      () => t.store.markWorkflowRunRunning({ runId: 'run-1', claimToken: 'c' }),
      'Pi session already has an active workflow run: S',
      'conflict',
    );
  });
});
