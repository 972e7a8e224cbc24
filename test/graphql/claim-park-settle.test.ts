/**
 * `claimWorkflowRun`, `parkWorkflowRun` and `settleWorkflowRun` over HTTP: leases on the
 * injected clock (no sleeps), claim tokens never echoed, and the typed errors with their exact
 * texts. A failed mutation changes no table.
 */
import { createHash } from 'node:crypto';
import { describe, expect } from 'vitest';
import {
  ClaimWorkflowRunDocument,
  ParkWorkflowRunDocument,
  SettleWorkflowRunDocument,
  type ClaimWorkflowRunInput,
  type ParkWorkflowRunInput,
  type SettleWorkflowRunInput,
} from '../../schema/generated/graphql.js';
import { canonicalJson } from '../../src/store/index.js';
import { claim, park, reserve, reserveInput, settle, snapshotTables, type TestServer } from '../helpers/server-fixture.js';
import { freshServerTest as it } from '../helpers/server-test.js';

async function unchanged<T>(fx: TestServer, action: () => Promise<T>): Promise<T> {
  const before = snapshotTables(fx.store);
  const result = await action();
  expect(snapshotTables(fx.store)).toEqual(before);
  return result;
}

const claimFails = (fx: TestServer, input: ClaimWorkflowRunInput) =>
  unchanged(fx, async () => (await fx.data(ClaimWorkflowRunDocument, { input })).claimWorkflowRun);
const parkFails = (fx: TestServer, input: ParkWorkflowRunInput) =>
  unchanged(fx, async () => (await fx.data(ParkWorkflowRunDocument, { input })).parkWorkflowRun);
const settleFails = (fx: TestServer, input: SettleWorkflowRunInput) =>
  unchanged(fx, async () => (await fx.data(SettleWorkflowRunDocument, { input })).settleWorkflowRun);

describe('claimWorkflowRun', () => {
  it('claims a run by id: STARTING, a claim with generation and expiry, and no token in the response', async ({ fx }) => {
    await reserve(fx, reserveInput('root-1'));
    fx.clock.advance(5_000);
    const response = await fx.gql(ClaimWorkflowRunDocument, {
      input: { runId: 'root-1', runnerId: 'runner-1', claimToken: 'very-secret-claim-token', leaseMs: 60_000 },
    });
    expect(response.text).not.toContain('very-secret-claim-token');
    expect(response.data?.claimWorkflowRun).toMatchObject({
      __typename: 'ClaimWorkflowRunSuccess',
      run: {
        runId: 'root-1',
        queueStatus: 'STARTING',
        status: 'QUEUED',
        presentationRevision: 2,
        updatedAt: '2026-01-01T00:00:05.000Z',
        claim: { ownerId: 'runner-1', leaseGeneration: 1, expiresAt: '2026-01-01T00:01:05.000Z' },
      },
    });
  });

  it('answers run: null while another runner holds a live lease, and claims once it expired', async ({ fx }) => {
    await reserve(fx, reserveInput('root-1'));
    await claim(fx, 'root-1', 'token-a', { runnerId: 'runner-a', leaseMs: 10_000 });
    const refused = await claimFails(fx, { runId: 'root-1', runnerId: 'runner-b', claimToken: 'token-b', leaseMs: 10_000 });
    expect(refused).toEqual({ __typename: 'ClaimWorkflowRunSuccess', run: null });
    fx.clock.advance(10_000);
    const taken = await claim(fx, 'root-1', 'token-b', { runnerId: 'runner-b', leaseMs: 10_000 });
    expect(taken.claim).toEqual({ ownerId: 'runner-b', leaseGeneration: 2, expiresAt: '2026-01-01T00:00:20.000Z' });
  });

  it('claims the next eligible run: interactive queued runs only for their own session, headless runs for anyone', async ({ fx }) => {
    await reserve(fx, reserveInput('interactive-1'));
    fx.clock.advance(1_000);
    const none = await claimFails(fx, { runnerId: 'runner-1', claimToken: 't1', leaseMs: 10_000 });
    expect(none).toEqual({ __typename: 'ClaimWorkflowRunSuccess', run: null });
    const own = await fx.data(ClaimWorkflowRunDocument, {
      input: { runnerId: 'runner-1', claimToken: 't1', leaseMs: 10_000, sessionId: 'session-1' },
    });
    expect(own.claimWorkflowRun).toMatchObject({ run: { runId: 'interactive-1', queueStatus: 'STARTING' } });
    await reserve(fx, reserveInput('headless-1', { executionMode: 'HEADLESS', originSessionId: 'session-9' }));
    const headless = await fx.data(ClaimWorkflowRunDocument, { input: { runnerId: 'runner-2', claimToken: 't2', leaseMs: 10_000 } });
    expect(headless.claimWorkflowRun).toMatchObject({ run: { runId: 'headless-1', claim: { ownerId: 'runner-2' } } });
  });

  it('ValidationError: lease duration out of range, with field leaseMs', async ({ fx }) => {
    await reserve(fx, reserveInput('root-1'));
    for (const leaseMs of [0, 86_400_001]) {
      expect(await claimFails(fx, { runId: 'root-1', runnerId: 'runner-1', claimToken: 't', leaseMs })).toEqual({
        __typename: 'ValidationError',
        code: 'INVALID_INPUT',
        message: 'Lease duration must be an integer from 1 to 86400000 ms',
        field: 'leaseMs',
      });
    }
  });

  it('ValidationError: invalid run id; NotFoundError: unknown run', async ({ fx }) => {
    expect(await claimFails(fx, { runId: 'bad/id', runnerId: 'runner-1', claimToken: 't', leaseMs: 1_000 })).toEqual({
      __typename: 'ValidationError',
      code: 'INVALID_INPUT',
      message: 'Invalid workflow run id: bad/id',
      field: 'runId',
    });
    expect(await claimFails(fx, { runId: 'x', runnerId: 'runner-1', claimToken: 't', leaseMs: 1_000 })).toEqual({
      __typename: 'NotFoundError',
      code: 'NOT_FOUND',
      message: 'Workflow run not found: x',
    });
  });
});

describe('parkWorkflowRun', () => {
  it('parks a claimed run and releases the claim', async ({ fx }) => {
    await reserve(fx, reserveInput('root-1'));
    await claim(fx, 'root-1', 'token-1');
    fx.clock.advance(2_000);
    expect(await park(fx, 'root-1', 'token-1')).toMatchObject({
      queueStatus: 'PARKED',
      status: 'QUEUED',
      claim: null,
      finishedAt: null,
      updatedAt: '2026-01-01T00:00:02.000Z',
    });
  });

  it('parks for worker no progress with error code workerNoProgress', async ({ fx }) => {
    await reserve(fx, reserveInput('root-1'));
    await claim(fx, 'root-1', 'token-1');
    const { parkWorkflowRun } = await fx.data(ParkWorkflowRunDocument, {
      input: { runId: 'root-1', claimToken: 'token-1', noProgressDetail: 'no tool call in 5 turns' },
    });
    expect(parkWorkflowRun).toMatchObject({
      __typename: 'ParkWorkflowRunSuccess',
      run: {
        queueStatus: 'PARKED',
        status: 'QUEUED',
        statusDetail: 'no tool call in 5 turns',
        errorCode: 'workerNoProgress',
        errorMessage: 'no tool call in 5 turns',
        claim: null,
      },
    });
  });

  it('ClaimLostError: wrong token or expired lease; NotFoundError: unknown run', async ({ fx }) => {
    await reserve(fx, reserveInput('root-1'));
    await claim(fx, 'root-1', 'token-1', { leaseMs: 5_000 });
    expect(await parkFails(fx, { runId: 'root-1', claimToken: 'wrong' })).toEqual({
      __typename: 'ClaimLostError',
      code: 'CLAIM_LOST',
      message: 'Claim token is not the live claim of workflow run: root-1',
    });
    fx.clock.advance(5_000);
    expect(await parkFails(fx, { runId: 'root-1', claimToken: 'token-1' })).toEqual({
      __typename: 'ClaimLostError',
      code: 'CLAIM_LOST',
      message: 'Claim token is not the live claim of workflow run: root-1',
    });
    expect(await parkFails(fx, { runId: 'x', claimToken: 'token-1' })).toEqual({
      __typename: 'NotFoundError',
      code: 'NOT_FOUND',
      message: 'Workflow run not found: x',
    });
  });
});

describe('settleWorkflowRun', () => {
  it('COMPLETED stores the output, finishes the run and queue, releases the claim', async ({ fx }) => {
    await reserve(fx, reserveInput('root-1'));
    await claim(fx, 'root-1', 'token-1');
    fx.clock.advance(3_000);
    const run = await settle(fx, 'root-1', 'token-1', 'COMPLETED', { output: { answer: 42 } });
    expect(run).toMatchObject({
      status: 'COMPLETED',
      queueStatus: 'DONE',
      claim: null,
      errorCode: null,
      finishedAt: '2026-01-01T00:00:03.000Z',
    });
    const facts = { workflowRef: 'workflows/demo.ts', input: { task: 'root-1' }, status: 'completed', finalOutput: { answer: 42 }, error: null, reason: null };
    expect(run.terminalFingerprint).toBe(createHash('sha256').update(canonicalJson(facts)).digest('hex'));
  });

  it('FAILED and TIMED_OUT record the error code and text', async ({ fx }) => {
    await reserve(fx, reserveInput('root-1'));
    await claim(fx, 'root-1', 'token-1');
    expect(await settle(fx, 'root-1', 'token-1', 'FAILED', { error: 'tool crashed' })).toMatchObject({
      status: 'FAILED',
      queueStatus: 'FAILED',
      errorCode: 'failed',
      errorMessage: 'tool crashed',
    });
    await reserve(fx, reserveInput('root-2', { originSessionId: 'session-2' }));
    await claim(fx, 'root-2', 'token-2');
    expect(await settle(fx, 'root-2', 'token-2', 'TIMED_OUT')).toMatchObject({
      status: 'TIMED_OUT',
      queueStatus: 'FAILED',
      errorCode: 'timed_out',
      errorMessage: 'Workflow run timed out',
    });
  });

  it('ClaimLostError: wrong token, expired lease, already settled; NotFoundError: unknown run', async ({ fx }) => {
    await reserve(fx, reserveInput('root-1'));
    await claim(fx, 'root-1', 'token-1', { leaseMs: 5_000 });
    const lost = {
      __typename: 'ClaimLostError',
      code: 'CLAIM_LOST',
      message: 'Claim token is not the live claim of workflow run: root-1',
    };
    expect(await settleFails(fx, { runId: 'root-1', claimToken: 'wrong', status: 'COMPLETED' })).toEqual(lost);
    fx.clock.advance(5_000);
    expect(await settleFails(fx, { runId: 'root-1', claimToken: 'token-1', status: 'FAILED', error: 'late' })).toEqual(lost);
    await claim(fx, 'root-1', 'token-2');
    await settle(fx, 'root-1', 'token-2', 'COMPLETED');
    expect(await settleFails(fx, { runId: 'root-1', claimToken: 'token-2', status: 'COMPLETED' })).toEqual(lost);
    expect(await settleFails(fx, { runId: 'x', claimToken: 'token-1', status: 'COMPLETED' })).toEqual({
      __typename: 'NotFoundError',
      code: 'NOT_FOUND',
      message: 'Workflow run not found: x',
    });
  });
});
