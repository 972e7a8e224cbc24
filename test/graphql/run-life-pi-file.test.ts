/**
 * A run's whole life over HTTP on a pi-workflows 0.16 state file (served read-write): reserve
 * with a claim, heartbeat, running, waiting, park, pause, resume, cancel without a token (a
 * control claim), a second run cancelled with its claim (a refused cancel changes no table), and a
 * third settled failed, restarted, and its restart settled completed. The file carries the identity
 * a real 0.16.2 file carries (schema digest 0469f429…, app version 0.14.0) and is served read-write.
 * After the server's shutdown pi-workflows' open check still accepts the file, its identity
 * unchanged (docs/PI-WORKFLOWS-FILES.md §3, §5).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CancelWorkflowRunDocument,
  MarkWorkflowRunRunningDocument,
  ParkWorkflowRunDocument,
  PauseWorkflowRunDocument,
  RenewWorkflowRunClaimDocument,
  ReportWorkflowRunStateDocument,
  ReserveWorkflowRunDocument,
  ResumeWorkflowRunDocument,
} from '../../schema/generated/graphql.js';
import { createPiWorkflowsFile, piWorkflowsIdentity, piWorkflowsOpenCheck } from '../../fixtures/pi-workflows-file.js';
import { claim as claimRun, reserveInput, restart, settle, snapshotTables, startTestServer, T0 } from '../helpers/server-fixture.js';
import { storeInternals } from '../helpers/store-internals.js';

const iso = (ms: number): string => new Date(ms).toISOString();

describe('a run’s whole life on a pi-workflows state file', () => {
  it('every run-life mutation writes the file; pi-workflows still accepts it after shutdown', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-file-life-'));
    const path = join(dir, 'state.sqlite');
    const writer = createPiWorkflowsFile(path);
    writer.close();
    try {
      const before = piWorkflowsIdentity(path);
      // The identity a file made by pi-workflows 0.16.2 carries (docs/PI-WORKFLOWS-FILES.md §1).
      expect(before).toMatchObject({
        applicationId: 0x50495746,
        userVersion: 1,
        schemaMeta: {
          schema_name: 'pi-workflows-state',
          schema_version: 1,
          schema_digest: '0469f429aad9046cacf63bf9df4ef8c98277ba633103a2478d9fc40226666327',
          app_version: '0.14.0',
        },
      });
      const fx = await startTestServer({ dbPath: path });
      try {
        expect(fx.store.readOnly).toBe(false);
        const claim = { runnerId: 'host-1', claimToken: 'tok-1', leaseMs: 60_000 };
        const reserved = (await fx.data(ReserveWorkflowRunDocument, { input: reserveInput('life-1', { claim }) })).reserveWorkflowRun;
        expect(reserved).toMatchObject({ __typename: 'ReserveWorkflowRunSuccess', run: { queueStatus: 'STARTING' } });
        fx.clock.advance(10_000);
        expect(
          (await fx.data(RenewWorkflowRunClaimDocument, { input: { runId: 'life-1', claimToken: 'tok-1', leaseMs: 60_000 } })).renewWorkflowRunClaim,
        ).toMatchObject({
          __typename: 'RenewWorkflowRunClaimSuccess',
          run: { claim: { ownerId: 'host-1', expiresAt: iso(T0 + 70_000) } },
        });
        expect((await fx.data(MarkWorkflowRunRunningDocument, { input: { runId: 'life-1', claimToken: 'tok-1' } })).markWorkflowRunRunning).toMatchObject({
          __typename: 'MarkWorkflowRunRunningSuccess',
          run: { queueStatus: 'RUNNING' },
        });
        const waiting = (await fx.data(ReportWorkflowRunStateDocument, { input: { runId: 'life-1', claimToken: 'tok-1', state: 'WAITING' } }))
          .reportWorkflowRunState;
        expect(waiting).toMatchObject({ __typename: 'ReportWorkflowRunStateSuccess', run: { status: 'WAITING' } });
        expect((await fx.data(ParkWorkflowRunDocument, { input: { runId: 'life-1', claimToken: 'tok-1' } })).parkWorkflowRun).toMatchObject({
          run: { queueStatus: 'PARKED' },
        });
        // The engine opens the interactive request (no mutation does): the test stands in for it.
        storeInternals(fx.store).interactions.openInteraction(
          { runId: 'life-1', nodeId: 'ask', attemptId: 'attempt-1', requestId: 'request-1', targetSessionId: 'session-1' },
          fx.clock.t,
        );
        expect((await fx.data(PauseWorkflowRunDocument, { input: { runId: 'life-1' } })).pauseWorkflowRun).toMatchObject({
          __typename: 'PauseWorkflowRunSuccess',
          run: { paused: true, statusDetail: 'paused' },
        });
        expect((await fx.data(ResumeWorkflowRunDocument, { input: { runId: 'life-1' } })).resumeWorkflowRun).toMatchObject({
          __typename: 'ResumeWorkflowRunSuccess',
          run: { paused: false, statusDetail: 'waiting for origin-session input' },
        });
        expect((await fx.data(CancelWorkflowRunDocument, { input: { runId: 'life-1' } })).cancelWorkflowRun).toMatchObject({
          __typename: 'CancelWorkflowRunSuccess',
          run: { status: 'CANCELLED', queueStatus: 'CANCELLED', claim: null },
        });

        const second = { runnerId: 'host-2', claimToken: 'tok-2', leaseMs: 60_000 };
        await fx.data(ReserveWorkflowRunDocument, { input: reserveInput('life-2', { originSessionId: 'session-2', claim: second }) });
        const snapshot = snapshotTables(fx.store);
        expect((await fx.data(CancelWorkflowRunDocument, { input: { runId: 'life-2' } })).cancelWorkflowRun).toEqual({
          __typename: 'ConflictError',
          code: 'CONFLICT',
          message: `Workflow run life-2 is claimed by host-2 until ${iso(T0 + 70_000)}: cancel it with that claim's token, or once the lease has expired`,
        });
        expect(snapshotTables(fx.store)).toEqual(snapshot);
        expect((await fx.data(CancelWorkflowRunDocument, { input: { runId: 'life-2', claimToken: 'tok-2' } })).cancelWorkflowRun).toMatchObject({
          __typename: 'CancelWorkflowRunSuccess',
          run: { status: 'CANCELLED', queueStatus: 'CANCELLED' },
        });

        // A third run settles failed, is restarted, and its restart completes.
        await fx.data(ReserveWorkflowRunDocument, { input: reserveInput('life-3', { originSessionId: 'session-3' }) });
        await claimRun(fx, 'life-3', 'tok-3');
        expect(await settle(fx, 'life-3', 'tok-3', 'FAILED', { error: 'step test failed' })).toMatchObject({ status: 'FAILED', queueStatus: 'FAILED' });
        const { run: restarted } = await restart(fx, { runId: 'life-3', originSessionId: 'session-3' });
        expect(restarted).toMatchObject({ lineageKind: 'RESTART', restartNumber: 1 });
        await claimRun(fx, restarted.runId, 'tok-4');
        expect(await settle(fx, restarted.runId, 'tok-4', 'COMPLETED', { output: { ok: true } })).toMatchObject({
          status: 'COMPLETED',
          queueStatus: 'DONE',
        });
      } finally {
        await fx.close();
      }
      expect(piWorkflowsOpenCheck(writer.facts, before)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
