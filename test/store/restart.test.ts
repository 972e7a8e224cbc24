import { describe, expect } from 'vitest';
import {
  restartRunIdFor,
  type ReserveWorkflowRunInput,
  type RestartWorkflowRunInput,
  type StoreErrorKind,
  type WorkflowRunRecord,
} from '../../src/store/index.js';
import { reserveWorkflowRunSkippingRestartPolicy } from '../../src/store/run-reservation.js';
import {
  claim,
  digestHex,
  expectNoWrite,
  expectRejectedUnchanged,
  reserve,
  sha256Hex,
  terminalRun,
  WORKFLOW_REF,
  type TestStore,
  reserveSkippingRestartPolicy,
} from '../helpers/store-fixtures.js';
import { storeContextOf } from '../helpers/store-internals.js';
import { storeTest as it } from '../helpers/store-test.js';

const SESSION = 'session-root';
const CLAIM = { runnerId: 'runner-r', claimToken: 'restart-token', leaseMs: 60_000 };

/** Fingerprint of a run that failed with `error` (docs/STORE-RULES.md §7.1), from literal canonical JSON. */
function failedFingerprint(error: string): string {
  return sha256Hex(
    `{"error":${JSON.stringify(error)},"finalOutput":null,"input":{"topic":"tests"},"reason":null,"status":"failed","workflowRef":"${WORKFLOW_REF}"}`,
  );
}

/** The restart run id of docs/STORE-RULES.md §7 rule 11, recomputed from its definition. */
function expectedRestartId(parentRunId: string, fingerprint: string): string {
  const messageId = `workflow-message-${sha256Hex(`{"idempotencyKey":"${fingerprint}","kind":"terminal","sourceId":"terminal:${parentRunId}"}`)}`;
  return `restart-${sha256Hex(messageId).slice(0, 40)}`;
}

/** `restartWorkflowRun(input)` must throw exactly `message` of `kind` and change no table. */
function expectRestartRefused(t: TestStore, input: RestartWorkflowRunInput, message: string, kind: StoreErrorKind): void {
  expectRejectedUnchanged(t.store, () => t.store.restartWorkflowRun(input), message, kind);
}

/** `reserveWorkflowRun(input)` must throw exactly `message` of `kind` and change no table. */
function expectPolicyRefused(t: TestStore, input: ReserveWorkflowRunInput, message: string, kind: StoreErrorKind): void {
  expectRejectedUnchanged(t.store, () => t.store.reserveWorkflowRun(input), message, kind);
}

/** Settles a claimed restart run failed with `error`. */
function fail(t: TestStore, run: WorkflowRunRecord, error: string, token = CLAIM.claimToken): WorkflowRunRecord {
  return t.store.settleWorkflowRun({ runId: run.runId, claimToken: token, status: 'failed', error });
}

describe('restartRunIdFor (docs/STORE-RULES.md §7 rule 11)', () => {
  it('is restart- + 40 hex of SHA-256 of the terminal message id derived from parent and fingerprint', () => {
    const fp = 'ab'.repeat(32);
    expect(restartRunIdFor('root', fp)).toBe(expectedRestartId('root', fp));
    expect(restartRunIdFor('root', fp)).toMatch(/^restart-[0-9a-f]{40}$/);
    expect(restartRunIdFor('other', fp)).not.toBe(restartRunIdFor('root', fp));
  });
});

describe('restartWorkflowRun: accepted (docs/STORE-RULES.md §13.1)', () => {
  it('reserves the restart with the deterministic id, the parent’s facts and restart lineage', ({ t }) => {
    const root = terminalRun(t, 'root', { launchOptions: { model: 'm' } });
    const fp = failedFingerprint('boom');
    expect(root.terminalFingerprint).toBe(fp);
    const result = t.store.restartWorkflowRun({ runId: 'root', originSessionId: SESSION });
    expect(result.adopted).toBe(false);
    expect(result.run).toMatchObject({
      runId: expectedRestartId('root', fp),
      workflowName: 'demo',
      workflowSourceRef: WORKFLOW_REF,
      workflowSource: { root: { kind: 'file', path: WORKFLOW_REF, hash: digestHex() }, mounted: [] },
      definitionDigest: `sha256:${digestHex()}`,
      input: { topic: 'tests' },
      launchOptions: { model: 'm' },
      originSessionId: SESSION,
      executionMode: 'interactive',
      parentRunId: 'root',
      rootRunId: 'root',
      lineageKind: 'restart',
      restartNumber: 1,
      parentTerminalFingerprint: fp,
      status: 'queued',
      affinityRunnerId: null,
      claimToken: null,
    });
  });

  it('with a claim: reserved and claimed at once; a retry adopts the same run', ({ t }) => {
    terminalRun(t, 'root');
    const first = t.store.restartWorkflowRun({ runId: 'root', originSessionId: SESSION, claim: CLAIM });
    expect(first.adopted).toBe(false);
    expect(first.run).toMatchObject({ status: 'starting', claimToken: 'restart-token', runnerId: 'runner-r', affinityRunnerId: 'runner-r' });
    const retry = expectNoWrite(t.store, () => t.store.restartWorkflowRun({ runId: 'root', originSessionId: SESSION, claim: CLAIM }));
    expect(retry.adopted).toBe(true);
    expect(retry.run.runId).toBe(first.run.runId);
    expect(retry.run.claimToken).toBeNull();
  });

  it('a retry without claim adopts the same run and writes nothing', ({ t }) => {
    terminalRun(t, 'root');
    const first = t.store.restartWorkflowRun({ runId: 'root', originSessionId: SESSION });
    const retry = expectNoWrite(t.store, () => t.store.restartWorkflowRun({ runId: 'root', originSessionId: SESSION }));
    expect(retry).toEqual({ run: first.run, adopted: true });
  });

  it('accepts a given fingerprint equal to the run’s own, in any spelling', ({ t }) => {
    terminalRun(t, 'root');
    const fp = failedFingerprint('boom');
    const result = t.store.restartWorkflowRun({
      runId: 'root',
      originSessionId: SESSION,
      parentTerminalFingerprint: `sha256:${fp.toUpperCase()}`,
    });
    expect(result.run.parentTerminalFingerprint).toBe(fp);
    expect(result.run.runId).toBe(expectedRestartId('root', fp));
  });

  it('uses a given restart run id', ({ t }) => {
    terminalRun(t, 'root');
    expect(t.store.restartWorkflowRun({ runId: 'root', originSessionId: SESSION, restartRunId: 'my-restart' }).run.runId).toBe('my-restart');
  });

  it('restarts a continuation: same chain root, restart number + 1', ({ t }) => {
    reserve(t.store, 'root');
    claim(t.store, 'root');
    t.store.parkWorkflowRun({ runId: 'root', claimToken: 'token-root' });
    reserve(t.store, 'cont', { parentRunId: 'root', originSessionId: SESSION });
    claim(t.store, 'cont');
    t.store.settleWorkflowRun({ runId: 'cont', claimToken: 'token-cont', status: 'failed', error: 'boom' });
    const result = t.store.restartWorkflowRun({ runId: 'cont', originSessionId: SESSION });
    expect(result.run).toMatchObject({ parentRunId: 'cont', rootRunId: 'root', restartNumber: 1, lineageKind: 'restart' });
  });
});

describe('restartWorkflowRun: checks in order, each writing nothing', () => {
  it('1. Workflow run not found: <runId> (not_found)', ({ t }) => {
    expectRestartRefused(t, { runId: 'ghost', originSessionId: SESSION }, 'Workflow run not found: ghost', 'not_found');
  });

  it('2. Workflow run belongs to another Pi session (forbidden), a headless run of another session included', ({ t }) => {
    terminalRun(t, 'root');
    expectRestartRefused(t, { runId: 'root', originSessionId: 'intruder' }, 'Workflow run belongs to another Pi session', 'forbidden');
    terminalRun(t, 'headless', { executionMode: 'headless', originSessionId: 'session-h' });
    expectRestartRefused(t, { runId: 'headless', originSessionId: 'intruder' }, 'Workflow run belongs to another Pi session', 'forbidden');
  });

  it('2b. Only interactive workflow runs can be restarted: a headless run of the same session (restart_rejected)', ({ t }) => {
    terminalRun(t, 'headless', { executionMode: 'headless', originSessionId: 'session-h' });
    expectRestartRefused(t, { runId: 'headless', originSessionId: 'session-h' }, 'Only interactive workflow runs can be restarted', 'restart_rejected');
  });

  it('2b before 3 and 4: a headless run is refused even with a restart child or when cancelled', ({ t }) => {
    terminalRun(t, 'headless', { executionMode: 'headless', originSessionId: 'session-h' }, 'cancelled');
    expectRestartRefused(t, { runId: 'headless', originSessionId: 'session-h' }, 'Only interactive workflow runs can be restarted', 'restart_rejected');
    const parent = terminalRun(t, 'headless-2', { executionMode: 'headless', originSessionId: 'session-h2' });
    // pi-workflows' plain reservation accepts a restart child of a headless run; the command does not adopt it
    reserveSkippingRestartPolicy(t.store, 'child', {
      originSessionId: 'session-h2',
      parentRunId: 'headless-2',
      lineageKind: 'restart',
      parentTerminalFingerprint: parent.terminalFingerprint as string,
    });
    expectRestartRefused(t, { runId: 'headless-2', originSessionId: 'session-h2' }, 'Only interactive workflow runs can be restarted', 'restart_rejected');
  });

  it('2 before 3: another session’s cancelled run is forbidden', ({ t }) => {
    terminalRun(t, 'root', {}, 'cancelled');
    expectRestartRefused(t, { runId: 'root', originSessionId: 'intruder' }, 'Workflow run belongs to another Pi session', 'forbidden');
  });

  it('3. An explicitly cancelled workflow cannot be restarted (settled cancelled, or cancelled while queued)', ({ t }) => {
    terminalRun(t, 'root', {}, 'cancelled');
    expectRestartRefused(t, { runId: 'root', originSessionId: SESSION }, 'An explicitly cancelled workflow cannot be restarted', 'restart_rejected');
    reserve(t.store, 'queued-run');
    expect(t.store.cancelWorkflowRun({ runId: 'queued-run' })).toBe(true);
    expectRestartRefused(
      t,
      { runId: 'queued-run', originSessionId: 'session-queued-run' },
      'An explicitly cancelled workflow cannot be restarted',
      'restart_rejected',
    );
  });

  it('3 before 4: a cancelled run with a restart child is rejected, not adopted', ({ t }) => {
    terminalRun(t, 'root', {}, 'cancelled');
    reserveSkippingRestartPolicy(t.store, 'child', {
      parentRunId: 'root',
      originSessionId: SESSION,
      lineageKind: 'restart',
      parentTerminalFingerprint: 'ab'.repeat(32),
    });
    expectRestartRefused(t, { runId: 'root', originSessionId: SESSION }, 'An explicitly cancelled workflow cannot be restarted', 'restart_rejected');
  });

  it('4. an existing restart child is adopted before any later check (even with another fingerprint)', ({ t }) => {
    terminalRun(t, 'root');
    const child = reserveSkippingRestartPolicy(t.store, 'child', {
      parentRunId: 'root',
      originSessionId: SESSION,
      lineageKind: 'restart',
      parentTerminalFingerprint: 'ab'.repeat(32),
    });
    const result = expectNoWrite(t.store, () =>
      t.store.restartWorkflowRun({ runId: 'root', originSessionId: SESSION, parentTerminalFingerprint: 'not-a-digest', claim: CLAIM }),
    );
    expect(result).toEqual({ run: child, adopted: true });
  });

  it('5. Workflow restart limit reached (3 restarts), checked before "not terminal"', ({ t }) => {
    terminalRun(t, 'root');
    let parent = 'root';
    for (let n = 1; n <= 3; n += 1) {
      const restart = t.store.restartWorkflowRun({ runId: parent, originSessionId: SESSION, claim: CLAIM }).run;
      expect(restart.restartNumber).toBe(n);
      parent = restart.runId;
      if (n < 3) fail(t, restart, `boom-${n}`);
    }
    // The third restart is still running: the limit is reported, not "not terminal".
    expectRestartRefused(t, { runId: parent, originSessionId: SESSION }, 'Workflow restart limit reached (3 restarts)', 'restart_rejected');
    fail(t, t.store.getWorkflowRun(parent) as WorkflowRunRecord, 'boom-3');
    expectRestartRefused(t, { runId: parent, originSessionId: SESSION }, 'Workflow restart limit reached (3 restarts)', 'restart_rejected');
  });

  it('6. Restart parent is not terminal (lineage)', ({ t }) => {
    reserve(t.store, 'root');
    expectRestartRefused(t, { runId: 'root', originSessionId: SESSION }, 'Restart parent is not terminal', 'lineage');
  });

  it('7. Expected a terminal fingerprint for a malformed given fingerprint (lineage)', ({ t }) => {
    terminalRun(t, 'root');
    for (const fingerprint of ['abc', `md5:${'a'.repeat(64)}`, 'g'.repeat(64)]) {
      expectRestartRefused(
        t,
        { runId: 'root', originSessionId: SESSION, parentTerminalFingerprint: fingerprint },
        'Expected a terminal fingerprint',
        'lineage',
      );
    }
  });

  it('8. a given fingerprint that is not the run’s own is a conflict', ({ t }) => {
    terminalRun(t, 'root');
    expectRestartRefused(
      t,
      { runId: 'root', originSessionId: SESSION, parentTerminalFingerprint: 'cd'.repeat(32) },
      'Terminal fingerprint does not match the terminal outcome of workflow run: root',
      'conflict',
    );
  });

  it('9. The same terminal outcome already occurred in this restart chain', ({ t }) => {
    terminalRun(t, 'root');
    const first = t.store.restartWorkflowRun({ runId: 'root', originSessionId: SESSION, claim: CLAIM }).run;
    const failed = fail(t, first, 'boom'); // the same outcome as the root: the same fingerprint
    expect(failed.terminalFingerprint).toBe(failedFingerprint('boom'));
    expectRestartRefused(
      t,
      { runId: first.runId, originSessionId: SESSION },
      'The same terminal outcome already occurred in this restart chain',
      'restart_rejected',
    );
  });
});

describe('reserveWorkflowRun: the restart policy (docs/STORE-RULES.md §13.11)', () => {
  const FP1 = '11'.repeat(32);
  const restartOf = (parent: string, fingerprint: string) => ({
    parentRunId: parent,
    originSessionId: SESSION,
    lineageKind: 'restart' as const,
    parentTerminalFingerprint: fingerprint,
  });
  const input = (runId: string, overrides = {}) => ({
    runId,
    workflowName: 'demo',
    workflowSourceRef: WORKFLOW_REF,
    workflowSource: { kind: 'file', path: WORKFLOW_REF, hash: digestHex() },
    definitionDigest: digestHex(),
    definitionSnapshot: { name: 'demo' },
    input: { topic: 'tests' },
    originSessionId: SESSION,
    ...overrides,
  });
  /** The run's own terminal fingerprint, as a restart of it must carry it. */
  const own = (t: TestStore, runId: string): string => t.store.getWorkflowRun(runId)?.terminalFingerprint as string;

  it('reserves without a claim, reserves and claims with one, adopts on retry', ({ t }) => {
    expect(t.store.reserveWorkflowRun(input('a', { originSessionId: 's-a' })).state).toBe('reserved');
    const claimed = t.store.reserveWorkflowRun(input('b', { originSessionId: 's-b' }), CLAIM);
    expect(claimed.state).toBe('claimed');
    expect(claimed.run.claimToken).toBe('restart-token');
    expect(expectNoWrite(t.store, () => t.store.reserveWorkflowRun(input('b', { originSessionId: 's-b' }), CLAIM)).state).toBe('adopted');
  });

  it('reserves a restart that carries the parent’s own terminal fingerprint, in any spelling', ({ t }) => {
    terminalRun(t, 'root');
    const result = t.store.reserveWorkflowRun(input('child', restartOf('root', `sha256:${own(t, 'root').toUpperCase()}`)));
    expect(result.state).toBe('reserved');
    expect(result.run).toMatchObject({ parentRunId: 'root', lineageKind: 'restart', restartNumber: 1, parentTerminalFingerprint: own(t, 'root') });
  });

  it('refuses a restart of a cancelled parent, which the plain reservation accepts', ({ t }) => {
    terminalRun(t, 'root', {}, 'cancelled');
    expectPolicyRefused(t, input('child', restartOf('root', own(t, 'root'))), 'An explicitly cancelled workflow cannot be restarted', 'restart_rejected');
    expect(reserveWorkflowRunSkippingRestartPolicy(storeContextOf(t.store), input('child', restartOf('root', own(t, 'root')))).run.lineageKind).toBe('restart');
  });

  it('refuses a fourth restart', ({ t }) => {
    terminalRun(t, 'root');
    let parent = 'root';
    for (let n = 1; n <= 3; n += 1) {
      const runId = `r${n}`;
      t.store.reserveWorkflowRun(input(runId, restartOf(parent, own(t, parent))));
      claim(t.store, runId);
      t.store.settleWorkflowRun({ runId, claimToken: `token-${runId}`, status: 'failed', error: `e${n}` });
      parent = runId;
    }
    expectPolicyRefused(t, input('r4', restartOf('r3', own(t, 'r3'))), 'Workflow restart limit reached (3 restarts)', 'restart_rejected');
  });

  it('refuses the parent’s fingerprint when that outcome was already restarted in the chain', ({ t }) => {
    terminalRun(t, 'root');
    t.store.reserveWorkflowRun(input('r1', restartOf('root', own(t, 'root'))));
    claim(t.store, 'r1');
    t.store.settleWorkflowRun({ runId: 'r1', claimToken: 'token-r1', status: 'failed', error: 'boom' }); // as the root
    expect(own(t, 'r1')).toBe(own(t, 'root'));
    expectPolicyRefused(
      t,
      input('r2', restartOf('r1', `sha256:${own(t, 'r1').toUpperCase()}`)),
      'The same terminal outcome already occurred in this restart chain',
      'restart_rejected',
    );
  });

  it('then applies the reservation rules in their order', ({ t }) => {
    reserve(t.store, 'live', { originSessionId: SESSION });
    claim(t.store, 'live');
    t.store.parkWorkflowRun({ runId: 'live', claimToken: 'token-live' });
    expectPolicyRefused(t, input('child', restartOf('live', FP1)), 'Restart parent is not terminal', 'lineage');
    terminalRun(t, 'root', { originSessionId: SESSION });
    expectPolicyRefused(t, input('child', restartOf('root', 'nope')), 'Expected a terminal fingerprint', 'validation');
    expectPolicyRefused(
      t,
      input('child', { parentRunId: 'root', originSessionId: SESSION, lineageKind: 'restart' }),
      'Restart requires the parent terminal fingerprint',
      'lineage',
    );
    expectPolicyRefused(
      t,
      input('child', { ...restartOf('root', FP1), originSessionId: 'intruder' }),
      'Workflow parent belongs to another Pi session',
      'lineage',
    );
    expectPolicyRefused(t, input('child', restartOf('ghost', FP1)), 'Workflow run not found: ghost', 'not_found');
    expectPolicyRefused(
      t,
      input('child', { ...restartOf('root', own(t, 'root')), restartNumber: 1.5 }),
      'Restart number does not follow its parent',
      'lineage',
    );
  });

  it('checks pi-workflows’ syntax rules (run id, timestamp, digest) before the policy', ({ t }) => {
    terminalRun(t, 'root', {}, 'cancelled');
    const restart = restartOf('root', own(t, 'root'));
    expectPolicyRefused(t, input('bad id', restart), 'Invalid workflow run id: bad id', 'validation');
    expectPolicyRefused(t, input('child', { ...restart, now: 'never' }), 'Invalid timestamp', 'validation');
    expectPolicyRefused(t, input('child', { ...restart, definitionDigest: 'x' }), 'Expected a SHA-256 digest', 'validation');
  });

  it('a parent of another session gets pi-workflows’ session error, not the policy (nothing about the run leaks)', ({ t }) => {
    terminalRun(t, 'root', {}, 'cancelled');
    expectPolicyRefused(
      t,
      input('child', { ...restartOf('root', own(t, 'root')), originSessionId: 'intruder' }),
      'Workflow parent belongs to another Pi session',
      'lineage',
    );
  });

  it('pi-workflows’ rules decide before the policy: restart number 5 with a fingerprint not the parent’s is pi-workflows’ lineage error', ({ t }) => {
    terminalRun(t, 'root');
    const bogus = 'cd'.repeat(32);
    expect(own(t, 'root')).not.toBe(bogus);
    for (const claimRequest of [undefined, CLAIM]) {
      expectRejectedUnchanged(
        t.store,
        () => t.store.reserveWorkflowRun(input('child', { ...restartOf('root', bogus), restartNumber: 5 }), claimRequest),
        'Restart number does not follow its parent',
        'lineage',
      );
    }
    // A cancelled parent too: the restart number is pi-workflows’ rule, the cancelled parent the policy’s.
    terminalRun(t, 'gone', { originSessionId: SESSION }, 'cancelled');
    expectPolicyRefused(t, input('child', { ...restartOf('gone', own(t, 'gone')), restartNumber: 5 }), 'Restart number does not follow its parent', 'lineage');
    // With the right restart number the policy then decides.
    expectPolicyRefused(
      t,
      input('child', { ...restartOf('root', bogus), restartNumber: 1 }),
      'Terminal fingerprint does not match the terminal outcome of workflow run: root',
      'conflict',
    );
  });

  it('leaves an existing run id to the reservation (already reserved), skipping the policy', ({ t }) => {
    terminalRun(t, 'root', {}, 'cancelled');
    reserveWorkflowRunSkippingRestartPolicy(storeContextOf(t.store), input('child', restartOf('root', FP1)));
    expectPolicyRefused(t, input('child', restartOf('root', FP1)), 'Workflow run already reserved: child', 'conflict');
  });
});

describe('one restart rule on both paths', () => {
  const restartInput = (runId: string, parent: string, fingerprint: string, session = SESSION) => ({
    runId,
    workflowName: 'demo',
    workflowSourceRef: WORKFLOW_REF,
    workflowSource: { kind: 'file', path: WORKFLOW_REF, hash: digestHex() },
    definitionDigest: digestHex(),
    definitionSnapshot: { name: 'demo' },
    input: { topic: 'tests' },
    originSessionId: session,
    parentRunId: parent,
    lineageKind: 'restart' as const,
    parentTerminalFingerprint: fingerprint,
  });

  it('a restart reservation with a well-formed fingerprint that is not the parent’s own is a conflict; nothing written', ({ t }) => {
    const root = terminalRun(t, 'root');
    const bogus = 'cd'.repeat(32);
    expect(root.terminalFingerprint).not.toBe(bogus);
    expectPolicyRefused(
      t,
      restartInput('bogus-child', 'root', bogus),
      'Terminal fingerprint does not match the terminal outcome of workflow run: root',
      'conflict',
    );
    expectRejectedUnchanged(
      t.store,
      () => t.store.reserveWorkflowRun(restartInput('bogus-child', 'root', bogus), CLAIM),
      'Terminal fingerprint does not match the terminal outcome of workflow run: root',
      'conflict',
    );
    // The parent's real outcome still gets its restart, by the command
    const restart = t.store.restartWorkflowRun({ runId: 'root', originSessionId: SESSION });
    expect(restart.adopted).toBe(false);
    expect(restart.run.parentTerminalFingerprint).toBe(root.terminalFingerprint);
  });

  it('a headless parent: the same refusal and text from the reservation and from the command; nothing written', ({ t }) => {
    const headless = terminalRun(t, 'headless', { executionMode: 'headless', originSessionId: SESSION });
    const fingerprint = headless.terminalFingerprint as string;
    for (const executionMode of ['interactive', 'headless'] as const) {
      expectPolicyRefused(
        t,
        { ...restartInput('child', 'headless', fingerprint), executionMode },
        'Only interactive workflow runs can be restarted',
        'restart_rejected',
      );
    }
    expectRestartRefused(t, { runId: 'headless', originSessionId: SESSION }, 'Only interactive workflow runs can be restarted', 'restart_rejected');
  });
});
