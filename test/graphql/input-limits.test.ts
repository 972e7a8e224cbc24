/**
 * The input limits of every mutation (src/schema/input-limits.ts, checked by
 * @pothos/plugin-validation before the resolver): an oversized value is the ValidationError
 * member of the mutation's result union, naming the field (a nested one by its path inside
 * `input`), and nothing is written.
 */
import { describe, expect } from 'vitest';
import {
  CancelWorkflowRunDocument,
  ClaimWorkflowRunDocument,
  MarkWorkflowRunRunningDocument,
  ParkWorkflowRunDocument,
  PauseWorkflowRunDocument,
  RenewWorkflowRunClaimDocument,
  ReportWorkflowRunStateDocument,
  ReserveWorkflowRunDocument,
  ResumeWorkflowRunDocument,
  RestartWorkflowRunDocument,
  SettleWorkflowRunDocument,
} from '../../schema/generated/graphql.js';
import { claim, reserve, reserveInput, snapshotTables, type TestServer } from '../helpers/server-fixture.js';
import { freshServerTest as it } from '../helpers/server-test.js';

it.beforeEach(async ({ fx }) => {
  await reserve(fx, reserveInput('root-1'));
  await claim(fx, 'root-1', 'token-1');
});

const LONG = 'x'.repeat(4_097);
const VERY_LONG = 'x'.repeat(65_537);
const invalid = (field: string, message: string) => ({ __typename: 'ValidationError', code: 'INVALID_INPUT', message, field });

/** Runs a mutation that must answer a typed error and change no table; returns the error. */
async function refused(fx: TestServer, send: () => Promise<Record<string, unknown>>): Promise<unknown> {
  const before = snapshotTables(fx.store);
  const result = Object.values(await send())[0];
  expect(snapshotTables(fx.store)).toEqual(before);
  return result;
}

describe('input limits', () => {
  it('reserveWorkflowRun: a nested claim field is named by its path', async ({ fx }) => {
    const input = reserveInput('root-2', { originSessionId: 'session-2', claim: { runnerId: LONG, claimToken: 't', leaseMs: 1_000 } });
    expect(await refused(fx, () => fx.data(ReserveWorkflowRunDocument, { input }))).toEqual(
      invalid('claim.runnerId', 'claim.runnerId must be at most 4096 characters'),
    );
  });

  it('reserveWorkflowRun: of several oversized fields the first in definition order is named, a nested claim at its place', async ({ fx }) => {
    const both = reserveInput('root-2', {
      originSessionId: LONG,
      input: { text: 'x'.repeat(1_048_576) },
      claim: { runnerId: LONG, claimToken: 't', leaseMs: 1_000 },
    });
    expect(await refused(fx, () => fx.data(ReserveWorkflowRunDocument, { input: both }))).toEqual(invalid('input', 'input is larger than 1048576 bytes'));
    const claimFirst = reserveInput('root-2', { originSessionId: 'session-2', claim: { runnerId: 'r', claimToken: LONG, leaseMs: 1_000 }, runId: LONG });
    expect(await refused(fx, () => fx.data(ReserveWorkflowRunDocument, { input: claimFirst }))).toEqual(
      invalid('runId', 'runId must be at most 4096 characters'),
    );
    const claimOnly = reserveInput('root-2', { originSessionId: 'session-2', claim: { runnerId: LONG, claimToken: LONG, leaseMs: 1_000 } });
    expect(await refused(fx, () => fx.data(ReserveWorkflowRunDocument, { input: claimOnly }))).toEqual(
      invalid('claim.runnerId', 'claim.runnerId must be at most 4096 characters'),
    );
  });

  it('restartWorkflowRun: restartRunId', async ({ fx }) => {
    const input = { runId: 'root-1', originSessionId: 'session-1', restartRunId: LONG };
    expect(await refused(fx, () => fx.data(RestartWorkflowRunDocument, { input }))).toEqual(
      invalid('restartRunId', 'restartRunId must be at most 4096 characters'),
    );
  });

  it('claimWorkflowRun: sessionId', async ({ fx }) => {
    const input = { runnerId: 'runner-2', claimToken: 't', leaseMs: 1_000, sessionId: LONG };
    expect(await refused(fx, () => fx.data(ClaimWorkflowRunDocument, { input }))).toEqual(invalid('sessionId', 'sessionId must be at most 4096 characters'));
  });

  it('parkWorkflowRun: noProgressDetail has the long-text limit', async ({ fx }) => {
    const input = { runId: 'root-1', claimToken: 'token-1', noProgressDetail: VERY_LONG };
    expect(await refused(fx, () => fx.data(ParkWorkflowRunDocument, { input }))).toEqual(
      invalid('noProgressDetail', 'noProgressDetail must be at most 65536 characters'),
    );
  });

  it('settleWorkflowRun: error text and output JSON', async ({ fx }) => {
    const error = { runId: 'root-1', claimToken: 'token-1', status: 'FAILED' as const, error: VERY_LONG };
    expect(await refused(fx, () => fx.data(SettleWorkflowRunDocument, { input: error }))).toEqual(invalid('error', 'error must be at most 65536 characters'));
    let deep: unknown = 1;
    for (let i = 0; i < 70; i += 1) deep = { a: deep };
    const output = { runId: 'root-1', claimToken: 'token-1', status: 'COMPLETED' as const, output: deep };
    expect(await refused(fx, () => fx.data(SettleWorkflowRunDocument, { input: output }))).toEqual(invalid('output', 'output is nested deeper than 64 levels'));
  });

  it('the run-life mutations: ids and tokens have the text limit, a reported detail the long-text limit', async ({ fx }) => {
    const runId = invalid('runId', 'runId must be at most 4096 characters');
    const claimToken = invalid('claimToken', 'claimToken must be at most 4096 characters');
    expect(await refused(fx, () => fx.data(RenewWorkflowRunClaimDocument, { input: { runId: 'root-1', claimToken: LONG, leaseMs: 1_000 } }))).toEqual(
      claimToken,
    );
    expect(await refused(fx, () => fx.data(MarkWorkflowRunRunningDocument, { input: { runId: LONG, claimToken: 'token-1' } }))).toEqual(runId);
    const detail = { runId: 'root-1', claimToken: 'token-1', state: 'WAITING' as const, detail: VERY_LONG };
    expect(await refused(fx, () => fx.data(ReportWorkflowRunStateDocument, { input: detail }))).toEqual(
      invalid('detail', 'detail must be at most 65536 characters'),
    );
    expect(await refused(fx, () => fx.data(CancelWorkflowRunDocument, { input: { runId: 'root-1', claimToken: LONG } }))).toEqual(claimToken);
    expect(await refused(fx, () => fx.data(PauseWorkflowRunDocument, { input: { runId: LONG } }))).toEqual(runId);
    expect(await refused(fx, () => fx.data(ResumeWorkflowRunDocument, { input: { runId: LONG } }))).toEqual(runId);
  });

  it('reserveWorkflowRun: a JSON value is measured by the UTF-8 bytes of its JSON text, escapes included', async ({ fx }) => {
    // 1,048,574 characters: exactly 1,048,576 bytes with the quotes, the largest accepted.
    const largest = reserveInput('root-2', { originSessionId: 'session-2', launchOptions: 'x'.repeat(1_048_574) });
    expect((await fx.data(ReserveWorkflowRunDocument, { input: largest })).reserveWorkflowRun.__typename).toBe('ReserveWorkflowRunSuccess');
    const over = reserveInput('root-3', { originSessionId: 'session-3', launchOptions: 'x'.repeat(1_048_575) });
    expect(await refused(fx, () => fx.data(ReserveWorkflowRunDocument, { input: over }))).toEqual(
      invalid('launchOptions', 'launchOptions is larger than 1048576 bytes'),
    );
    // 180,000 control characters are 1,080,002 bytes of JSON (each written \u0001).
    const escaped = reserveInput('root-3', { originSessionId: 'session-3', input: { text: '\u0001'.repeat(180_000) } });
    expect(await refused(fx, () => fx.data(ReserveWorkflowRunDocument, { input: escaped }))).toEqual(invalid('input', 'input is larger than 1048576 bytes'));
    // 300,000 newlines are 600,002 bytes (each written \n): accepted.
    const newlines = reserveInput('root-3', { originSessionId: 'session-3', input: { text: '\n'.repeat(300_000) } });
    expect((await fx.data(ReserveWorkflowRunDocument, { input: newlines })).reserveWorkflowRun.__typename).toBe('ReserveWorkflowRunSuccess');
  });
});
