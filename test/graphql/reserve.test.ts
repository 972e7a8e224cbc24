/**
 * `reserveWorkflowRun` over HTTP: root runs, continuations, restarts, reserve-and-claim with
 * adoption, and every typed error with the store's exact text. A failed reservation changes
 * no table.
 */
import { describe, expect } from 'vitest';
import { ReserveWorkflowRunDocument, type ReserveWorkflowRunInput, type ReserveWorkflowRunMutation } from '../../schema/generated/graphql.js';
import { claim, DEFINITION, failedRoot, park, reserve, reserveInput, snapshotTables, type TestServer } from '../helpers/server-fixture.js';
import { freshServerTest as it } from '../helpers/server-test.js';
import { reserveAsOlderBuild } from '../helpers/older-canonical-form.js';
import { connectionOf } from '../helpers/store-internals.js';

type ReserveResult = ReserveWorkflowRunMutation['reserveWorkflowRun'];

/** Runs a reservation that must fail with a typed error and change nothing. */
async function reserveFails(fx: TestServer, input: ReserveWorkflowRunInput): Promise<ReserveResult> {
  const before = snapshotTables(fx.store);
  expect(before.projects).toHaveLength(1);
  const { reserveWorkflowRun } = await fx.data(ReserveWorkflowRunDocument, { input });
  expect(reserveWorkflowRun.__typename).not.toBe('ReserveWorkflowRunSuccess');
  expect(snapshotTables(fx.store)).toEqual(before);
  return reserveWorkflowRun;
}

/** A root that is claimed and parked with no owner, ready for a continuation. */
async function parkedRoot(fx: TestServer, runId: string): Promise<void> {
  await reserve(fx, reserveInput(runId));
  fx.clock.advance(1_000);
  await claim(fx, runId, `token-${runId}`);
  fx.clock.advance(1_000);
  await park(fx, runId, `token-${runId}`);
  fx.clock.advance(1_000);
}

describe('reserveWorkflowRun', () => {
  it('reserves a root run with every field mapped', async ({ fx }) => {
    const run = await reserve(fx, reserveInput('root-1', { launchOptions: { model: 'fast' }, input: { task: 'write tests', n: 3 } }));
    expect(run).toEqual({
      id: expect.any(String),
      runId: 'root-1',
      workflowName: 'demo',
      workflowRef: 'workflows/demo.ts',
      status: 'QUEUED',
      queueStatus: 'QUEUED',
      paused: false,
      statusDetail: null,
      executionMode: 'INTERACTIVE',
      originSessionId: 'session-1',
      input: { task: 'write tests', n: 3 },
      launchOptions: { model: 'fast' },
      errorCode: null,
      errorMessage: null,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      startedAt: null,
      finishedAt: null,
      parentRunId: null,
      rootRunId: 'root-1',
      lineageKind: null,
      restartNumber: 0,
      parentTerminalFingerprint: null,
      terminalFingerprint: null,
      presentationRevision: 1,
      claim: null,
    });
  });

  it('reserves a headless run with no origin session shown', async ({ fx }) => {
    const run = await reserve(fx, reserveInput('headless-1', { executionMode: 'HEADLESS' }));
    expect(run.executionMode).toBe('HEADLESS');
    expect(run.originSessionId).toBeNull();
    expect(run.input).toEqual({ task: 'headless-1' });
    expect(run.launchOptions).toEqual({});
  });

  it('reserves and claims in one call, and adopts an identical retry without writing', async ({ fx }) => {
    const input = reserveInput('root-1', { claim: { runnerId: 'runner-1', claimToken: 'secret-token', leaseMs: 30_000 } });
    const first = await fx.data(ReserveWorkflowRunDocument, { input });
    expect(first.reserveWorkflowRun).toMatchObject({
      __typename: 'ReserveWorkflowRunSuccess',
      adopted: false,
      run: {
        runId: 'root-1',
        queueStatus: 'STARTING',
        claim: { ownerId: 'runner-1', leaseGeneration: 1, expiresAt: '2026-01-01T00:00:30.000Z' },
      },
    });
    const before = snapshotTables(fx.store);
    const retry = await fx.data(ReserveWorkflowRunDocument, { input });
    expect(retry.reserveWorkflowRun).toMatchObject({ __typename: 'ReserveWorkflowRunSuccess', adopted: true, run: { runId: 'root-1' } });
    expect(snapshotTables(fx.store)).toEqual(before);
  });

  it('stores runnerId as run_queue.affinity_runner_id; with claim the claim runner, the row starting; absent: NULL', async ({ fx }) => {
    await reserve(fx, reserveInput('root-1', { runnerId: 'runner-a' }));
    await reserve(fx, reserveInput('root-2', { originSessionId: 'session-2' }));
    await reserve(
      fx,
      reserveInput('root-3', { originSessionId: 'session-3', runnerId: 'runner-b', claim: { runnerId: 'runner-c', claimToken: 't', leaseMs: 1_000 } }),
    );
    const rows = connectionOf(fx.store).prepare('SELECT run_id, status, affinity_runner_id FROM run_queue ORDER BY run_id').all();
    expect(rows).toEqual([
      { run_id: 'root-1', status: 'queued', affinity_runner_id: 'runner-a' },
      { run_id: 'root-2', status: 'queued', affinity_runner_id: null },
      { run_id: 'root-3', status: 'starting', affinity_runner_id: 'runner-c' },
    ]);
  });

  it('runnerId: empty is a ValidationError, longer than 4096 characters too; nothing written', async ({ fx }) => {
    expect(await reserveFails(fx, reserveInput('root-1', { runnerId: '' }))).toEqual({
      __typename: 'ValidationError',
      code: 'INVALID_INPUT',
      message: 'runnerId must be a non-empty string',
      field: 'runnerId',
    });
    expect(await reserveFails(fx, reserveInput('root-1', { runnerId: 'x'.repeat(4_097) }))).toEqual({
      __typename: 'ValidationError',
      code: 'INVALID_INPUT',
      message: 'runnerId must be at most 4096 characters',
      field: 'runnerId',
    });
  });

  it('adopts an identical retry of a run an older build stored with keys in code-unit order (docs/PI-WORKFLOWS-FILES.md §8)', async ({ fx }) => {
    const definition = { name: 'numbered', steps: { 10: 'deploy', 2: 'build' } };
    const older = { definition, input: { 10: 'ten', 2: 'two' }, launchOptions: { retries: { 3: true, 20: false } } };
    const claimInput = { runnerId: 'runner-1', claimToken: 'secret-token', leaseMs: 30_000 };
    const digest = reserveAsOlderBuild(
      fx.store,
      { runId: 'root-1', workflowName: 'demo', workflowSourceRef: 'workflows/demo.ts', originSessionId: 'session-1', ...older },
      claimInput,
      fx.clock.now(),
    );
    const before = snapshotTables(fx.store);
    const retry = reserveInput('root-1', { ...older, claim: { ...claimInput, claimToken: 'other-token' } });
    const { reserveWorkflowRun } = await fx.data(ReserveWorkflowRunDocument, { input: retry });
    expect(reserveWorkflowRun).toMatchObject({ __typename: 'ReserveWorkflowRunSuccess', adopted: true, run: { runId: 'root-1', input: older.input } });
    expect(snapshotTables(fx.store)).toEqual(before);
    expect(connectionOf(fx.store).prepare('SELECT hex(definition_digest) AS digest FROM runs').get()).toEqual({ digest: digest.toUpperCase() });
    // Another definition is still a conflict.
    expect(await reserveFails(fx, { ...retry, definition: { ...definition, name: 'other' } })).toEqual({
      __typename: 'ConflictError',
      code: 'CONFLICT',
      message: 'Workflow run preparation conflicts: root-1',
    });
  });

  it('reserves a continuation of a parked root without an owner; the parent queue becomes DONE', async ({ fx }) => {
    await parkedRoot(fx, 'root-1');
    const continuation = await reserve(fx, reserveInput('cont-1', { parentRunId: 'root-1' }));
    expect(continuation).toMatchObject({
      runId: 'cont-1',
      parentRunId: 'root-1',
      rootRunId: 'root-1',
      lineageKind: 'CONTINUATION',
      restartNumber: 0,
      parentTerminalFingerprint: null,
    });
    const { reserveWorkflowRun } = await fx.data(ReserveWorkflowRunDocument, {
      input: reserveInput('cont-2', { parentRunId: 'root-1', lineageKind: 'CONTINUATION' }),
    });
    expect(reserveWorkflowRun).toEqual({
      __typename: 'LineageError',
      code: 'LINEAGE_INVALID',
      message: 'Continuation parent already has a reserved continuation',
    });
  });

  describe('typed errors (nothing written)', () => {
    it('ConflictError: already reserved', async ({ fx }) => {
      await reserve(fx, reserveInput('root-1'));
      expect(await reserveFails(fx, reserveInput('root-1'))).toEqual({
        __typename: 'ConflictError',
        code: 'CONFLICT',
        message: 'Workflow run already reserved: root-1',
      });
    });

    it('ConflictError: preparation conflicts (reserve-and-claim of an existing run with other parameters)', async ({ fx }) => {
      await reserve(fx, reserveInput('root-1', { claim: { runnerId: 'runner-1', claimToken: 't1', leaseMs: 30_000 } }));
      expect(
        await reserveFails(fx, reserveInput('root-1', { input: { task: 'other' }, claim: { runnerId: 'runner-1', claimToken: 't1', leaseMs: 30_000 } })),
      ).toEqual({ __typename: 'ConflictError', code: 'CONFLICT', message: 'Workflow run preparation conflicts: root-1' });
    });

    it('LineageError: a root cannot declare lineage or restart metadata', async ({ fx }) => {
      expect(await reserveFails(fx, reserveInput('root-1', { lineageKind: 'CONTINUATION' }))).toEqual({
        __typename: 'LineageError',
        code: 'LINEAGE_INVALID',
        message: 'A root workflow run cannot declare lineage',
      });
      expect(await reserveFails(fx, reserveInput('root-1', { restartNumber: 1 }))).toEqual({
        __typename: 'LineageError',
        code: 'LINEAGE_INVALID',
        message: 'A root workflow run cannot declare restart metadata',
      });
    });

    it('NotFoundError: unknown parent', async ({ fx }) => {
      expect(await reserveFails(fx, reserveInput('child-1', { parentRunId: 'missing-parent' }))).toEqual({
        __typename: 'NotFoundError',
        code: 'NOT_FOUND',
        message: 'Workflow run not found: missing-parent',
      });
    });

    it('LineageError: parent of another session', async ({ fx }) => {
      await parkedRoot(fx, 'root-1');
      expect(await reserveFails(fx, reserveInput('cont-1', { parentRunId: 'root-1', originSessionId: 'session-2' }))).toEqual({
        __typename: 'LineageError',
        code: 'LINEAGE_INVALID',
        message: 'Workflow parent belongs to another Pi session',
      });
    });

    it('LineageError: continuation of a queued parent', async ({ fx }) => {
      await reserve(fx, reserveInput('root-1'));
      expect(await reserveFails(fx, reserveInput('cont-1', { parentRunId: 'root-1' }))).toEqual({
        __typename: 'LineageError',
        code: 'LINEAGE_INVALID',
        message: 'Continuation parent queue is queued',
      });
    });

    it('LineageError: continuation with restart metadata', async ({ fx }) => {
      await parkedRoot(fx, 'root-1');
      expect(await reserveFails(fx, reserveInput('cont-1', { parentRunId: 'root-1', restartNumber: 1 }))).toEqual({
        __typename: 'LineageError',
        code: 'LINEAGE_INVALID',
        message: 'Continuation lineage conflicts with restart metadata',
      });
    });

    it('LineageError: restart of a parent that is not terminal', async ({ fx }) => {
      await parkedRoot(fx, 'root-1');
      expect(
        await reserveFails(fx, reserveInput('restart-1', { parentRunId: 'root-1', lineageKind: 'RESTART', parentTerminalFingerprint: 'a'.repeat(64) })),
      ).toEqual({ __typename: 'LineageError', code: 'LINEAGE_INVALID', message: 'Restart parent is not terminal' });
    });

    it('LineageError: restart without fingerprint, or with a wrong restart number', async ({ fx }) => {
      const root = await failedRoot(fx, 'root-1', 'boom');
      expect(await reserveFails(fx, reserveInput('restart-1', { parentRunId: 'root-1', lineageKind: 'RESTART' }))).toEqual({
        __typename: 'LineageError',
        code: 'LINEAGE_INVALID',
        message: 'Restart requires the parent terminal fingerprint',
      });
      expect(
        await reserveFails(
          fx,
          reserveInput('restart-1', {
            parentRunId: 'root-1',
            lineageKind: 'RESTART',
            parentTerminalFingerprint: root.terminalFingerprint,
            restartNumber: 2,
          }),
        ),
      ).toEqual({ __typename: 'LineageError', code: 'LINEAGE_INVALID', message: 'Restart number does not follow its parent' });
    });

    it('ValidationError: bad fingerprint syntax, with its field', async ({ fx }) => {
      await failedRoot(fx, 'root-1', 'boom');
      expect(
        await reserveFails(fx, reserveInput('restart-1', { parentRunId: 'root-1', lineageKind: 'RESTART', parentTerminalFingerprint: 'not-a-fingerprint' })),
      ).toEqual({
        __typename: 'ValidationError',
        code: 'INVALID_INPUT',
        message: 'Expected a terminal fingerprint',
        field: 'parentTerminalFingerprint',
      });
    });

    it('ValidationError: invalid run id, with its field', async ({ fx }) => {
      expect(await reserveFails(fx, reserveInput('bad id!'))).toEqual({
        __typename: 'ValidationError',
        code: 'INVALID_INPUT',
        message: 'Invalid workflow run id: bad id!',
        field: 'runId',
      });
    });

    it('ValidationError: claim lease out of range, with its field', async ({ fx }) => {
      expect(await reserveFails(fx, reserveInput('root-1', { claim: { runnerId: 'runner-1', claimToken: 't1', leaseMs: 0 } }))).toEqual({
        __typename: 'ValidationError',
        code: 'INVALID_INPUT',
        message: 'Lease duration must be an integer from 1 to 86400000 ms',
        field: 'leaseMs',
      });
    });

    it('ValidationError: oversized text and JSON inputs', async ({ fx }) => {
      expect(await reserveFails(fx, reserveInput('x'.repeat(4_097)))).toEqual({
        __typename: 'ValidationError',
        code: 'INVALID_INPUT',
        message: 'runId must be at most 4096 characters',
        field: 'runId',
      });
      let deep: unknown = 1;
      for (let i = 0; i < 70; i += 1) deep = [deep];
      expect(await reserveFails(fx, reserveInput('root-1', { input: deep }))).toEqual({
        __typename: 'ValidationError',
        code: 'INVALID_INPUT',
        message: 'input is nested deeper than 64 levels',
        field: 'input',
      });
    });

    it('ConflictError: a second active run of the same session', async ({ fx }) => {
      await reserve(fx, reserveInput('root-1'));
      expect(await reserveFails(fx, reserveInput('root-2'))).toEqual({
        __typename: 'ConflictError',
        code: 'CONFLICT',
        message: 'Pi session already has an active workflow run: session-1',
      });
    });
  });

  describe('pi-workflows’ lineage rules come before our value checks (nothing written)', () => {
    const lineageError = (message: string) => ({ __typename: 'LineageError', code: 'LINEAGE_INVALID', message });

    it('a root run with restartNumber -1: A root workflow run cannot declare restart metadata', async ({ fx }) => {
      expect(await reserveFails(fx, reserveInput('root-1', { restartNumber: -1 }))).toEqual(
        lineageError('A root workflow run cannot declare restart metadata'),
      );
    });

    it('an existing run id with bad lineage: Workflow run already reserved', async ({ fx }) => {
      await reserve(fx, reserveInput('root-1'));
      expect(await reserveFails(fx, reserveInput('root-1', { lineageKind: 'RESTART', restartNumber: -1 }))).toEqual({
        __typename: 'ConflictError',
        code: 'CONFLICT',
        message: 'Workflow run already reserved: root-1',
      });
    });

    it('a restart with restartNumber 5 and a well-formed fingerprint not the parent’s: pi-workflows’ rule decides first', async ({ fx }) => {
      const root = await failedRoot(fx, 'root-1', 'boom');
      const other = 'cd'.repeat(32);
      expect(root.terminalFingerprint).not.toBe(other);
      const restart = { parentRunId: 'root-1', lineageKind: 'RESTART' as const, parentTerminalFingerprint: other, restartNumber: 5 };
      expect(await reserveFails(fx, reserveInput('restart-1', restart))).toEqual(lineageError('Restart number does not follow its parent'));
      const claimed = { ...restart, claim: { runnerId: 'runner-1', claimToken: 't', leaseMs: 1_000 } };
      expect(await reserveFails(fx, reserveInput('restart-1', claimed))).toEqual(lineageError('Restart number does not follow its parent'));
      // Our own check comes after: with the right number, the fingerprint mismatch.
      expect(await reserveFails(fx, reserveInput('restart-1', { ...restart, restartNumber: 1 }))).toEqual({
        __typename: 'ConflictError',
        code: 'CONFLICT',
        message: 'Terminal fingerprint does not match the terminal outcome of workflow run: root-1',
      });
    });

    it('a restart with restartNumber -1: Restart number does not follow its parent', async ({ fx }) => {
      const root = await failedRoot(fx, 'root-1', 'boom');
      expect(
        await reserveFails(
          fx,
          reserveInput('restart-1', {
            parentRunId: 'root-1',
            lineageKind: 'RESTART',
            parentTerminalFingerprint: root.terminalFingerprint,
            restartNumber: -1,
          }),
        ),
      ).toEqual(lineageError('Restart number does not follow its parent'));
    });

    it('a continuation with restartNumber -1: Continuation lineage conflicts with restart metadata', async ({ fx }) => {
      await parkedRoot(fx, 'root-1');
      expect(await reserveFails(fx, reserveInput('cont-1', { parentRunId: 'root-1', restartNumber: -1 }))).toEqual(
        lineageError('Continuation lineage conflicts with restart metadata'),
      );
    });

    it('a restartNumber of 1.5 or a lineageKind "bogus" is not a valid GraphQL request: refused by the schema types before any resolver', async ({ fx }) => {
      await reserve(fx, reserveInput('root-1'));
      for (const [overrides, message] of [
        [{ restartNumber: 1.5 }, 'Variable "$input" got invalid value at "input.restartNumber"; Int cannot represent non-integer value.'],
        [{ lineageKind: 'bogus' }, 'Variable "$input" got invalid value at "input.lineageKind"; Value "bogus" does not exist in "LineageKind" enum.'],
      ] as const) {
        const before = snapshotTables(fx.store);
        const response = await fx.gql(ReserveWorkflowRunDocument, { input: { ...reserveInput('root-1'), ...overrides } as ReserveWorkflowRunInput });
        expect(response.data).toBeUndefined();
        expect(response.errors?.map((error) => error.message)).toEqual([message]);
        expect(snapshotTables(fx.store)).toEqual(before);
      }
    });
  });

  it('computes the definition digest itself: the same definition with keys reordered is the same run', async ({ fx }) => {
    const input = reserveInput('root-1', { claim: { runnerId: 'runner-1', claimToken: 't1', leaseMs: 30_000 } });
    await reserve(fx, input);
    const reordered = { steps: DEFINITION.steps, name: DEFINITION.name };
    const { reserveWorkflowRun } = await fx.data(ReserveWorkflowRunDocument, { input: { ...input, definition: reordered } });
    expect(reserveWorkflowRun).toMatchObject({ __typename: 'ReserveWorkflowRunSuccess', adopted: true });
  });
});
