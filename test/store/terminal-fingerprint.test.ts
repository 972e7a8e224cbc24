import { describe, expect } from 'vitest';
import { canonicalJson, terminalFingerprint } from '../../src/store/index.js';
import { claim, reserve, sha256Hex, sql, terminalRun, WORKFLOW_REF } from '../helpers/store-fixtures.js';
import { storeTest as it } from '../helpers/store-test.js';

/** SHA-256 of canonical {workflowRef, input, status, finalOutput, error, reason} (docs/STORE-RULES.md §7.1, §13.2). */
function expected(facts: { input: unknown; status: string; finalOutput: unknown; error: string | null; reason: string | null }): string {
  return sha256Hex(canonicalJson({ workflowRef: WORKFLOW_REF, ...facts }));
}

describe('terminal fingerprint (docs/STORE-RULES.md §7.1, §13.2)', () => {
  it('hashes the literal canonical JSON of the six facts', ({ t }) => {
    const run = terminalRun(t, 'run-1');
    const literal = `{"error":"boom","finalOutput":null,"input":{"topic":"tests"},"reason":null,"status":"failed","workflowRef":"${WORKFLOW_REF}"}`;
    expect(run.terminalFingerprint).toBe(sha256Hex(literal));
    expect(run.terminalFingerprint).toMatch(/^[0-9a-f]{64}$/);
  });

  it('completed: final output, no error', ({ t }) => {
    const run = terminalRun(t, 'run-1', {}, 'completed');
    expect(run.terminalFingerprint).toBe(expected({ input: { topic: 'tests' }, status: 'completed', finalOutput: { answer: 42 }, error: null, reason: null }));
  });

  it('timed_out and cancelled: the stored error text', ({ t }) => {
    const timedOut = terminalRun(t, 'run-1', {}, 'timed_out');
    expect(timedOut.terminalFingerprint).toBe(
      expected({ input: { topic: 'tests' }, status: 'timed_out', finalOutput: null, error: 'Workflow run timed out', reason: null }),
    );
    const cancelled = terminalRun(t, 'run-2', {}, 'cancelled');
    expect(cancelled.terminalFingerprint).toBe(
      expected({ input: { topic: 'tests' }, status: 'cancelled', finalOutput: null, error: 'Workflow run cancelled', reason: null }),
    );
  });

  it('takes the error as text even when it parses as JSON', ({ t }) => {
    reserve(t.store, 'run-1');
    claim(t.store, 'run-1');
    const run = t.store.settleWorkflowRun({ runId: 'run-1', claimToken: 'token-run-1', status: 'failed', error: '{"code":7}' });
    expect(run.runError).toBe('{"code":7}');
    expect(run.terminalFingerprint).toBe(expected({ input: { topic: 'tests' }, status: 'failed', finalOutput: null, error: '{"code":7}', reason: null }));
    expect(run.terminalFingerprint).not.toBe(
      sha256Hex(canonicalJson({ workflowRef: WORKFLOW_REF, input: { topic: 'tests' }, status: 'failed', finalOutput: null, error: { code: 7 }, reason: null })),
    );
  });

  it('reason = the status detail of a completed run: null after settle COMPLETED (it clears the detail), the detail when a host left one', ({ t }) => {
    reserve(t.store, 'run-1');
    claim(t.store, 'run-1');
    t.store.parkWorkflowRunForWorkerNoProgress({ runId: 'run-1', claimToken: 'token-run-1', detail: 'stuck' });
    claim(t.store, 'run-1', 'runner-1', 'second');
    const run = t.store.settleWorkflowRun({ runId: 'run-1', claimToken: 'second', status: 'completed', output: 'ok' });
    expect(run.statusDetail).toBeNull();
    expect(run.terminalFingerprint).toBe(expected({ input: { topic: 'tests' }, status: 'completed', finalOutput: 'ok', error: null, reason: null }));
    // A pi-workflows engine persisting a completed run state with a detail (host stand-in).
    sql(t.store, "UPDATE runs SET status_detail = 'stuck' WHERE run_id = 'run-1'");
    const stored = t.store.getWorkflowRun('run-1');
    expect(stored?.statusDetail).toBe('stuck');
    expect(stored?.terminalFingerprint).toBe(expected({ input: { topic: 'tests' }, status: 'completed', finalOutput: 'ok', error: null, reason: 'stuck' }));
  });

  it('is computed for headless runs too, with a null input', ({ t }) => {
    const run = terminalRun(t, 'run-1', { executionMode: 'headless', input: undefined });
    expect(run.terminalFingerprint).toBe(expected({ input: null, status: 'failed', finalOutput: null, error: 'boom', reason: null }));
  });

  it('is null for a run that is not terminal, and the exported function agrees with the record', ({ t }) => {
    expect(reserve(t.store, 'run-1').terminalFingerprint).toBeNull();
    const run = terminalRun(t, 'run-2');
    expect(
      terminalFingerprint({ workflowRef: WORKFLOW_REF, input: { topic: 'tests' }, status: 'failed', finalOutput: null, error: 'boom', reason: null }),
    ).toBe(run.terminalFingerprint);
  });
});
