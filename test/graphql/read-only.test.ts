/**
 * A second server opened read-only on the same database file: reads work, every mutation
 * answers `ForbiddenError` `The server is read-only`, and nothing changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CancelWorkflowRunDocument,
  ClaimWorkflowRunDocument,
  MarkWorkflowRunRunningDocument,
  ParkWorkflowRunDocument,
  PauseWorkflowRunDocument,
  RenewWorkflowRunClaimDocument,
  ReportWorkflowRunStateDocument,
  ResumeWorkflowRunDocument,
  ReserveWorkflowRunDocument,
  RestartWorkflowRunDocument,
  SettleWorkflowRunDocument,
  WorkflowRunDocument,
} from '../../schema/generated/graphql.js';
import { claim, failedRoot, reserve, reserveInput, snapshotTables, startTestServer, type TestServer } from '../helpers/server-fixture.js';

const FORBIDDEN = { __typename: 'ForbiddenError', code: 'FORBIDDEN', message: 'The server is read-only' };

describe('read-only server', () => {
  let writer: TestServer;
  let reader: TestServer;
  beforeAll(async () => {
    writer = await startTestServer();
    await failedRoot(writer, 'failed-1', 'boom');
    await reserve(writer, reserveInput('claimed-1', { originSessionId: 'session-2' }));
    await claim(writer, 'claimed-1', 'token-c');
    reader = await startTestServer({ dbPath: writer.dbPath, readOnly: true, clock: writer.clock });
  });
  afterAll(async () => {
    await reader?.close();
    await writer?.close();
  });

  it('serves reads', async () => {
    const { workflowRun } = await reader.data(WorkflowRunDocument, { runId: 'failed-1' });
    expect(workflowRun).toMatchObject({ runId: 'failed-1', status: 'FAILED' });
  });

  it('answers ForbiddenError to every mutation and writes nothing', async () => {
    const before = snapshotTables(writer.store);
    const results = [
      (await reader.data(ReserveWorkflowRunDocument, { input: reserveInput('new-1', { originSessionId: 'session-3' }) })).reserveWorkflowRun,
      (await reader.data(RestartWorkflowRunDocument, { input: { runId: 'failed-1', originSessionId: 'session-1' } })).restartWorkflowRun,
      (await reader.data(ClaimWorkflowRunDocument, { input: { runId: 'failed-1', runnerId: 'r', claimToken: 't', leaseMs: 1_000 } })).claimWorkflowRun,
      (await reader.data(ClaimWorkflowRunDocument, { input: { runnerId: 'r', claimToken: 't', leaseMs: 1_000 } })).claimWorkflowRun,
      (await reader.data(ParkWorkflowRunDocument, { input: { runId: 'claimed-1', claimToken: 'token-c' } })).parkWorkflowRun,
      (await reader.data(SettleWorkflowRunDocument, { input: { runId: 'claimed-1', claimToken: 'token-c', status: 'COMPLETED' } })).settleWorkflowRun,
      (await reader.data(RenewWorkflowRunClaimDocument, { input: { runId: 'claimed-1', claimToken: 'token-c', leaseMs: 1_000 } })).renewWorkflowRunClaim,
      (await reader.data(MarkWorkflowRunRunningDocument, { input: { runId: 'claimed-1', claimToken: 'token-c' } })).markWorkflowRunRunning,
      (await reader.data(ReportWorkflowRunStateDocument, { input: { runId: 'claimed-1', claimToken: 'token-c', state: 'WAITING' } })).reportWorkflowRunState,
      (await reader.data(CancelWorkflowRunDocument, { input: { runId: 'claimed-1', claimToken: 'token-c' } })).cancelWorkflowRun,
      (await reader.data(CancelWorkflowRunDocument, { input: { runId: 'claimed-1' } })).cancelWorkflowRun,
      (await reader.data(PauseWorkflowRunDocument, { input: { runId: 'claimed-1' } })).pauseWorkflowRun,
      (await reader.data(ResumeWorkflowRunDocument, { input: { runId: 'claimed-1' } })).resumeWorkflowRun,
    ];
    for (const result of results) expect(result).toEqual(FORBIDDEN);
    expect(snapshotTables(writer.store)).toEqual(before);
    expect(snapshotTables(reader.store)).toEqual(before);
  });

  it('reports the read-only database on /health', async () => {
    const body = (await (await fetch(reader.healthUrl)).json()) as { status: string; database: { readOnly: boolean } };
    expect(body).toMatchObject({ status: 'ok', database: { readOnly: true } });
  });
});
