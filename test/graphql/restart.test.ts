/**
 * `restartWorkflowRun` over HTTP (docs/STORE-RULES.md §13.1): the default fingerprint and restart id, the
 * idempotent retry, the restart policy (limit, cancelled run, repeated outcome) and every typed
 * error with its exact text. A failed restart changes no table.
 */
import { createHash } from 'node:crypto';
import { describe, expect } from 'vitest';
import { ReserveWorkflowRunDocument, RestartWorkflowRunDocument, type RestartWorkflowRunInput } from '../../schema/generated/graphql.js';
import { canonicalJson, restartRunIdFor } from '../../src/store/index.js';
import { claim, failedRoot, reserve, reserveInput, restart, settle, snapshotTables, type TestServer } from '../helpers/server-fixture.js';
import { freshServerTest as it } from '../helpers/server-test.js';

async function restartFails(fx: TestServer, input: RestartWorkflowRunInput) {
  const before = snapshotTables(fx.store);
  const { restartWorkflowRun } = await fx.data(RestartWorkflowRunDocument, { input });
  expect(restartWorkflowRun.__typename).not.toBe('RestartWorkflowRunSuccess');
  expect(snapshotTables(fx.store)).toEqual(before);
  return restartWorkflowRun;
}

/** SHA-256 of the canonical JSON of the fingerprint facts (docs/STORE-RULES.md §7.1, §13.2). */
function fingerprintOf(facts: { workflowRef: string; input: unknown; status: string; finalOutput: unknown; error: string | null; reason: string | null }) {
  return createHash('sha256').update(canonicalJson(facts)).digest('hex');
}

describe('restartWorkflowRun', () => {
  it('restarts a failed run with its own fingerprint and the deterministic run id; a retry adopts it', async ({ fx }) => {
    const root = await failedRoot(fx, 'root-1', 'boom');
    const expected = fingerprintOf({
      workflowRef: 'workflows/demo.ts',
      input: { task: 'root-1' },
      status: 'failed',
      finalOutput: null,
      error: 'boom',
      reason: null,
    });
    expect(root.terminalFingerprint).toBe(expected);
    expect(fx.store.getWorkflowRun('root-1')?.terminalFingerprint).toBe(expected);

    const first = await restart(fx, { runId: 'root-1', originSessionId: 'session-1' });
    expect(first.adopted).toBe(false);
    expect(first.run).toMatchObject({
      runId: restartRunIdFor('root-1', expected),
      parentRunId: 'root-1',
      rootRunId: 'root-1',
      lineageKind: 'RESTART',
      restartNumber: 1,
      parentTerminalFingerprint: expected,
      terminalFingerprint: null,
      queueStatus: 'QUEUED',
      status: 'QUEUED',
      workflowName: 'demo',
      workflowRef: 'workflows/demo.ts',
      input: { task: 'root-1' },
      originSessionId: 'session-1',
      executionMode: 'INTERACTIVE',
      claim: null,
    });

    const before = snapshotTables(fx.store);
    const retry = await restart(fx, { runId: 'root-1', originSessionId: 'session-1' });
    expect(retry).toEqual({ adopted: true, run: first.run });
    expect(snapshotTables(fx.store)).toEqual(before);
  });

  it('accepts the fingerprint given explicitly (any case, sha256: prefix), a chosen restart id, and a claim', async ({ fx }) => {
    const root = await failedRoot(fx, 'root-1', 'boom');
    const given = `sha256:${(root.terminalFingerprint as string).toUpperCase()}`;
    const { run, adopted } = await restart(fx, {
      runId: 'root-1',
      originSessionId: 'session-1',
      parentTerminalFingerprint: given,
      restartRunId: 'my-restart',
      claim: { runnerId: 'runner-2', claimToken: 'restart-token', leaseMs: 10_000 },
    });
    expect(adopted).toBe(false);
    expect(run).toMatchObject({
      runId: 'my-restart',
      parentTerminalFingerprint: root.terminalFingerprint,
      queueStatus: 'STARTING',
      claim: { ownerId: 'runner-2', leaseGeneration: 1 },
    });
  });

  describe('typed errors (nothing written)', () => {
    it('NotFoundError: unknown run', async ({ fx }) => {
      expect(await restartFails(fx, { runId: 'x', originSessionId: 'session-1' })).toEqual({
        __typename: 'NotFoundError',
        code: 'NOT_FOUND',
        message: 'Workflow run not found: x',
      });
    });

    it('ValidationError: invalid run id', async ({ fx }) => {
      expect(await restartFails(fx, { runId: 'no spaces', originSessionId: 'session-1' })).toEqual({
        __typename: 'ValidationError',
        code: 'INVALID_INPUT',
        message: 'Invalid workflow run id: no spaces',
        field: 'runId',
      });
      await failedRoot(fx, 'root-1', 'boom');
      expect(await restartFails(fx, { runId: 'root-1', originSessionId: 'session-1', restartRunId: '-bad' })).toEqual({
        __typename: 'ValidationError',
        code: 'INVALID_INPUT',
        message: 'Invalid workflow run id: -bad',
        field: 'restartRunId',
      });
    });

    it('ForbiddenError: the run belongs to another session (a headless one included)', async ({ fx }) => {
      await failedRoot(fx, 'root-1', 'boom');
      expect(await restartFails(fx, { runId: 'root-1', originSessionId: 'session-2' })).toEqual({
        __typename: 'ForbiddenError',
        code: 'FORBIDDEN',
        message: 'Workflow run belongs to another Pi session',
      });
      await reserve(fx, reserveInput('headless-1', { executionMode: 'HEADLESS', originSessionId: 'session-3' }));
      await claim(fx, 'headless-1', 'token-h');
      await settle(fx, 'headless-1', 'token-h', 'FAILED', { error: 'boom' });
      expect(await restartFails(fx, { runId: 'headless-1', originSessionId: 'session-2' })).toEqual({
        __typename: 'ForbiddenError',
        code: 'FORBIDDEN',
        message: 'Workflow run belongs to another Pi session',
      });
    });

    it('RestartRejectedError: a headless run of the same session, with one text on restart and on reserve', async ({ fx }) => {
      await reserve(fx, reserveInput('headless-1', { executionMode: 'HEADLESS', originSessionId: 'session-3' }));
      await claim(fx, 'headless-1', 'token-h');
      const failed = await settle(fx, 'headless-1', 'token-h', 'FAILED', { error: 'boom' });
      expect(failed.terminalFingerprint).toMatch(/^[0-9a-f]{64}$/);
      const refusal = {
        __typename: 'RestartRejectedError',
        code: 'RESTART_REJECTED',
        message: 'Only interactive workflow runs can be restarted',
      };
      expect(await restartFails(fx, { runId: 'headless-1', originSessionId: 'session-3' })).toEqual(refusal);
      for (const executionMode of ['INTERACTIVE', 'HEADLESS'] as const) {
        const before = snapshotTables(fx.store);
        const { reserveWorkflowRun } = await fx.data(ReserveWorkflowRunDocument, {
          input: reserveInput('restart-1', {
            originSessionId: 'session-3',
            executionMode,
            parentRunId: 'headless-1',
            lineageKind: 'RESTART',
            parentTerminalFingerprint: failed.terminalFingerprint,
          }),
        });
        expect(reserveWorkflowRun).toEqual(refusal);
        expect(snapshotTables(fx.store)).toEqual(before);
      }
    });

    it('RestartRejectedError: an explicitly cancelled run', async ({ fx }) => {
      await reserve(fx, reserveInput('root-1'));
      await claim(fx, 'root-1', 'token-1');
      const cancelled = await settle(fx, 'root-1', 'token-1', 'CANCELLED');
      expect(cancelled).toMatchObject({ status: 'CANCELLED', queueStatus: 'CANCELLED', errorCode: 'cancelled' });
      expect(cancelled.terminalFingerprint).toMatch(/^[0-9a-f]{64}$/);
      expect(await restartFails(fx, { runId: 'root-1', originSessionId: 'session-1' })).toEqual({
        __typename: 'RestartRejectedError',
        code: 'RESTART_REJECTED',
        message: 'An explicitly cancelled workflow cannot be restarted',
      });
      // The reservation path applies the same policy (docs/STORE-RULES.md §13.11).
      const before = snapshotTables(fx.store);
      const { reserveWorkflowRun } = await fx.data(ReserveWorkflowRunDocument, {
        input: reserveInput('restart-1', {
          parentRunId: 'root-1',
          lineageKind: 'RESTART',
          parentTerminalFingerprint: cancelled.terminalFingerprint,
        }),
      });
      expect(reserveWorkflowRun).toEqual({
        __typename: 'RestartRejectedError',
        code: 'RESTART_REJECTED',
        message: 'An explicitly cancelled workflow cannot be restarted',
      });
      expect(snapshotTables(fx.store)).toEqual(before);
    });

    it('RestartRejectedError: limit of 3 restarts', async ({ fx }) => {
      await failedRoot(fx, 'root-1', 'failure 0');
      let current = 'root-1';
      for (let n = 1; n <= 3; n += 1) {
        const { run } = await restart(fx, {
          runId: current,
          originSessionId: 'session-1',
          claim: { runnerId: 'runner-1', claimToken: `token-r${n}`, leaseMs: 60_000 },
        });
        expect(run.restartNumber).toBe(n);
        fx.clock.advance(1_000);
        await settle(fx, run.runId, `token-r${n}`, 'FAILED', { error: `failure ${n}` });
        current = run.runId;
      }
      expect(await restartFails(fx, { runId: current, originSessionId: 'session-1' })).toEqual({
        __typename: 'RestartRejectedError',
        code: 'RESTART_REJECTED',
        message: 'Workflow restart limit reached (3 restarts)',
      });
    });

    it('RestartRejectedError: the same terminal outcome already occurred in the chain', async ({ fx }) => {
      await failedRoot(fx, 'root-1', 'boom');
      const { run } = await restart(fx, {
        runId: 'root-1',
        originSessionId: 'session-1',
        claim: { runnerId: 'runner-1', claimToken: 'token-r1', leaseMs: 60_000 },
      });
      const failedAgain = await settle(fx, run.runId, 'token-r1', 'FAILED', { error: 'boom' });
      expect(failedAgain.terminalFingerprint).toBe(run.parentTerminalFingerprint);
      expect(await restartFails(fx, { runId: run.runId, originSessionId: 'session-1' })).toEqual({
        __typename: 'RestartRejectedError',
        code: 'RESTART_REJECTED',
        message: 'The same terminal outcome already occurred in this restart chain',
      });
    });

    it('LineageError: the run is not terminal', async ({ fx }) => {
      await reserve(fx, reserveInput('root-1'));
      expect(await restartFails(fx, { runId: 'root-1', originSessionId: 'session-1' })).toEqual({
        __typename: 'LineageError',
        code: 'LINEAGE_INVALID',
        message: 'Restart parent is not terminal',
      });
    });

    it('ConflictError: a restart reservation with a well-formed fingerprint of another outcome; the real outcome still restarts', async ({ fx }) => {
      const root = await failedRoot(fx, 'root-1', 'boom');
      const bogus = 'f'.repeat(64);
      expect(root.terminalFingerprint).not.toBe(bogus);
      const conflict = {
        __typename: 'ConflictError',
        code: 'CONFLICT',
        message: 'Terminal fingerprint does not match the terminal outcome of workflow run: root-1',
      };
      for (const claimInput of [undefined, { runnerId: 'runner-1', claimToken: 'token-b', leaseMs: 60_000 }]) {
        const before = snapshotTables(fx.store);
        const { reserveWorkflowRun } = await fx.data(ReserveWorkflowRunDocument, {
          input: reserveInput('bogus-restart', {
            parentRunId: 'root-1',
            lineageKind: 'RESTART',
            parentTerminalFingerprint: bogus,
            ...(claimInput === undefined ? {} : { claim: claimInput }),
          }),
        });
        expect(reserveWorkflowRun).toEqual(conflict);
        expect(snapshotTables(fx.store)).toEqual(before);
      }
      // Nothing was adopted: the command restarts the parent's real outcome, and refuses the bogus one.
      expect(await restartFails(fx, { runId: 'root-1', originSessionId: 'session-1', parentTerminalFingerprint: bogus })).toEqual(conflict);
      const { run, adopted } = await restart(fx, { runId: 'root-1', originSessionId: 'session-1' });
      expect(adopted).toBe(false);
      expect(run).toMatchObject({ parentRunId: 'root-1', parentTerminalFingerprint: root.terminalFingerprint });
    });

    it('LineageError: a malformed fingerprint; ConflictError: a fingerprint of another outcome', async ({ fx }) => {
      await failedRoot(fx, 'root-1', 'boom');
      expect(await restartFails(fx, { runId: 'root-1', originSessionId: 'session-1', parentTerminalFingerprint: 'xyz' })).toEqual({
        __typename: 'LineageError',
        code: 'LINEAGE_INVALID',
        message: 'Expected a terminal fingerprint',
      });
      expect(await restartFails(fx, { runId: 'root-1', originSessionId: 'session-1', parentTerminalFingerprint: 'f'.repeat(64) })).toEqual({
        __typename: 'ConflictError',
        code: 'CONFLICT',
        message: 'Terminal fingerprint does not match the terminal outcome of workflow run: root-1',
      });
    });
  });
});
