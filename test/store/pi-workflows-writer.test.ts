/**
 * The pi-workflows writer of the tests (fixtures/pi-workflows-file.ts) claims, renews,
 * parks and settles the way pi-workflows 0.16.2 does (docs/PI-WORKFLOWS-FILES.md §6): the rows
 * each call writes, read back from the file. The tests beside a live pi-workflows host rely on
 * these rows being pi's.
 */
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPiWorkflowsFile, piWorkflowsOpenCheck, runResourceId, type PiWorkflowsWriter } from '../../fixtures/pi-workflows-file.js';
import { T0, tempDir } from '../helpers/store-fixtures.js';

let dir: string;
let writer: PiWorkflowsWriter;
beforeEach(() => {
  dir = tempDir('pi-writer-');
  writer = createPiWorkflowsFile(join(dir, 'state.sqlite'));
  writer.transaction(() => {
    writer.reserveRun({ runId: 'run-1', originSessionId: 'session-1', at: T0, executionMode: 'headless' });
    writer.reserveRun({ runId: 'run-2', originSessionId: 'session-2', at: T0 + 1, executionMode: 'headless', runnerId: 'host-b' });
  });
});
afterEach(() => {
  writer.close();
  rmSync(dir, { recursive: true, force: true });
});

const sha = (text: string): Buffer => createHash('sha256').update(text).digest();
const HOUR = 3_600_000;

/** The rows a run's calls leave: lease, queue, events (type, actor, generation, payload), deltas. */
function rowsOf(runId: string) {
  const db = writer.connection;
  const resourceId = runResourceId(runId);
  return {
    lease: db
      .prepare('SELECT generation, owner_type, owner_id, token_hash, acquired_at, heartbeat_at, expires_at FROM leases WHERE resource_id = ?')
      .get(resourceId),
    queue: db.prepare('SELECT status, error_code, affinity_runner_id, updated_at, finished_at FROM run_queue WHERE run_id = ?').get(runId),
    run: db
      .prepare(
        'SELECT status, paused, status_detail, finished_at, CAST(b.content AS TEXT) AS output FROM runs LEFT JOIN blobs b ON b.blob_hash = final_output_hash WHERE run_id = ?',
      )
      .get(runId),
    revision: (db.prepare('SELECT revision FROM resources WHERE resource_id = ?').get(resourceId) as { revision: number }).revision,
    events: db
      .prepare(
        `SELECT resource_revision AS rev, event_type AS type, actor_type AS actor, actor_id AS actorId, lease_generation AS generation,
           CAST(b.content AS TEXT) AS payload, recorded_at AS at
         FROM events e JOIN blobs b ON b.blob_hash = e.payload_hash WHERE resource_id = ? ORDER BY event_seq`,
      )
      .all(resourceId) as Array<{ rev: number; type: string; actor: string; actorId: string | null; generation: number | null; payload: string; at: number }>,
    deltas: (
      db
        .prepare(
          `SELECT presentation_revision AS r, target_type AS t, target_key AS k, CAST(b.content AS TEXT) AS patch
           FROM viewer_deltas d JOIN blobs b ON b.blob_hash = d.patch_hash WHERE run_id = ? ORDER BY presentation_revision, delta_index`,
        )
        .all(runId) as Array<{ r: number; t: string; k: string; patch: string }>
    ).map((row) => `${row.r} ${row.t}/${row.k} ${row.patch}`),
    viewer: db.prepare('SELECT presentation_revision, retained_from_revision, updated_at FROM viewer_runs WHERE run_id = ?').get(runId),
  };
}

const marker = (revision: number) => `[{"op":"replace","path":"/presentationRevision","value":${revision}}]`;
const bumpDeltas = (revision: number) => ['summary/', 'graph/', 'replay/', 'inspector/run'].map((target) => `${revision} ${target} ${marker(revision)}`);
const summaryReplay = (revision: number) => ['summary/', 'replay/'].map((target) => `${revision} ${target} ${marker(revision)}`);

describe('the pi-workflows writer of the tests', () => {
  it('claims by id: generation + 1, owner type by runner id prefix, token hash, one clock reading, lease.claimed with epoch ms, 4 deltas', () => {
    const now = T0 + 10_000;
    expect(writer.claimRun('run-1', { runnerId: 'host-a', claimToken: 'tok-a', leaseMs: HOUR, now })).toEqual({
      runId: 'run-1',
      generation: 1,
      expiresAt: now + HOUR,
      revision: 2,
      presentationRevision: 2,
    });
    const rows = rowsOf('run-1');
    expect(rows.lease).toEqual({
      generation: 1,
      owner_type: 'host',
      owner_id: 'host-a',
      token_hash: sha('tok-a'),
      acquired_at: now,
      heartbeat_at: now,
      expires_at: now + HOUR,
    });
    expect(rows.queue).toEqual({ status: 'starting', error_code: null, affinity_runner_id: null, updated_at: now, finished_at: null });
    expect(rows.events).toEqual([
      { rev: 1, type: 'run.queued', actor: 'session', actorId: 'session-1', generation: null, payload: '{}', at: T0 },
      { rev: 2, type: 'lease.claimed', actor: 'host', actorId: 'host-a', generation: 1, payload: `{"expiresAt":${now + HOUR}}`, at: now },
    ]);
    expect(rows.deltas).toEqual(bumpDeltas(2));
    expect(rows.viewer).toEqual({ presentation_revision: 2, retained_from_revision: 1, updated_at: now });

    // Another runner is refused while the lease is live (nothing written); a session runner after expiry takes it.
    expect(writer.claimRun('run-1', { runnerId: 'host-b', claimToken: 'tok-b', leaseMs: HOUR, now: now + HOUR - 1 })).toBeUndefined();
    expect(rowsOf('run-1')).toEqual(rows);
    expect(writer.claimRun('run-1', { runnerId: 'session-x', claimToken: 'tok-x', leaseMs: 5, now: now + HOUR })).toMatchObject({ generation: 2, revision: 3 });
    expect(rowsOf('run-1').lease).toMatchObject({ generation: 2, owner_type: 'session', owner_id: 'session-x', token_hash: sha('tok-x') });
  });

  it('claims next: oldest available, affinity kept for its runner, a live foreign lease skipped, nothing when none is eligible', () => {
    const claim = { claimToken: 'tok', leaseMs: HOUR, now: T0 + 5 };
    expect(writer.connection.prepare("SELECT affinity_runner_id FROM run_queue WHERE run_id = 'run-2'").get()).toEqual({ affinity_runner_id: 'host-b' });
    expect(writer.claimNextRun({ ...claim, runnerId: 'host-a' })?.runId).toBe('run-1');
    // run-2 is queued with affinity host-b: not for host-a; run-1 is under host-a's live lease.
    expect(writer.claimNextRun({ ...claim, runnerId: 'host-c' })).toBeUndefined();
    expect(writer.claimNextRun({ ...claim, runnerId: 'host-a', excludeRunIds: ['run-1'] })).toBeUndefined();
    expect(writer.claimNextRun({ ...claim, runnerId: 'host-b' })?.runId).toBe('run-2');
  });

  it('renews (heartbeat): lease times only and 2 deltas, no event, no bump; refused for another token, runner or generation', () => {
    writer.claimRun('run-1', { runnerId: 'host-a', claimToken: 'tok-a', leaseMs: HOUR, now: T0 + 10 });
    const before = rowsOf('run-1');
    for (const wrong of [
      { runnerId: 'host-a', claimToken: 'other', generation: 1 },
      { runnerId: 'host-b', claimToken: 'tok-a', generation: 1 },
      { runnerId: 'host-a', claimToken: 'tok-a', generation: 2 },
    ]) {
      expect(writer.renewClaim({ runId: 'run-1', ...wrong, leaseMs: HOUR, now: T0 + 20 })).toBeUndefined();
    }
    expect(writer.renewClaim({ runId: 'run-1', runnerId: 'host-a', claimToken: 'tok-a', generation: 1, leaseMs: HOUR, now: T0 + 10 + HOUR })).toBeUndefined();
    expect(rowsOf('run-1')).toEqual(before);
    expect(writer.renewClaim({ runId: 'run-1', runnerId: 'host-a', claimToken: 'tok-a', generation: 1, leaseMs: 2 * HOUR, now: T0 + 30 })).toBe(3);
    const after = rowsOf('run-1');
    expect(after.lease).toEqual({ ...(before.lease as object), heartbeat_at: T0 + 30, expires_at: T0 + 30 + 2 * HOUR });
    expect(after.events).toEqual(before.events);
    expect(after.revision).toBe(before.revision);
    expect(after.queue).toEqual(before.queue);
    expect(after.deltas).toEqual([...bumpDeltas(2), ...summaryReplay(3)]);
  });

  it('parks (lease released, generation kept, run.queue_parked by the owner, 4 + 2 deltas), then completes after a re-claim, then refuses the old token', () => {
    writer.claimRun('run-1', { runnerId: 'host-a', claimToken: 'tok-a', leaseMs: HOUR, now: T0 + 10 });
    expect(writer.parkRun({ runId: 'run-1', claimToken: 'tok-a', now: T0 + 20 })).toBe(true);
    let rows = rowsOf('run-1');
    expect(rows.lease).toEqual({ generation: 1, owner_type: null, owner_id: null, token_hash: null, acquired_at: null, heartbeat_at: null, expires_at: null });
    expect(rows.queue).toMatchObject({ status: 'parked', updated_at: T0 + 20 });
    expect(rows.events.at(-1)).toEqual({
      rev: 3,
      type: 'run.queue_parked',
      actor: 'host',
      actorId: 'host-a',
      generation: 1,
      payload: '{"status":"parked"}',
      at: T0 + 20,
    });
    expect(rows.deltas.slice(4)).toEqual([...bumpDeltas(3), ...summaryReplay(4)]);
    expect(writer.parkRun({ runId: 'run-1', claimToken: 'tok-a', now: T0 + 21 })).toBe(false);

    writer.claimRun('run-1', { runnerId: 'session-9', claimToken: 'tok-9', leaseMs: HOUR, now: T0 + 30 });
    expect(writer.completeRun({ runId: 'run-1', claimToken: 'tok-a', now: T0 + 40 })).toBe(false);
    expect(writer.completeRun({ runId: 'run-1', claimToken: 'tok-9', output: { ok: 1 }, now: T0 + 40 })).toBe(true);
    rows = rowsOf('run-1');
    expect(rows.run).toEqual({ status: 'completed', paused: 0, status_detail: null, finished_at: T0 + 40, output: '{"ok":1}' });
    expect(rows.queue).toMatchObject({ status: 'done', finished_at: T0 + 40 });
    expect(rows.lease).toMatchObject({ generation: 2, owner_id: null });
    expect(rows.events.map((event) => [event.rev, event.type, event.actor, event.generation])).toEqual([
      [1, 'run.queued', 'session', null],
      [2, 'lease.claimed', 'host', 1],
      [3, 'run.queue_parked', 'host', 1],
      [4, 'lease.claimed', 'session', 2],
      [5, 'run.queue_done', 'session', 2],
    ]);
    expect(rows.viewer).toEqual({ presentation_revision: 7, retained_from_revision: 1, updated_at: T0 + 40 });
    expect(writer.claimRun('run-1', { runnerId: 'host-a', claimToken: 'tok-a', leaseMs: HOUR, now: T0 + 50 })).toBeUndefined();
  });

  it('fails: error text blob on queue and run, code default failed, run.queue_failed {status, code, error}, 4 + 2 deltas; the file passes pi-workflows’ open check', () => {
    writer.claimRun('run-2', { runnerId: 'host-b', claimToken: 'tok-b', leaseMs: HOUR, now: T0 + 10 });
    expect(writer.failRun({ runId: 'run-2', claimToken: 'tok-b', error: 'boom', now: T0 + 20 })).toBe(true);
    const rows = rowsOf('run-2');
    expect(rows.queue).toMatchObject({ status: 'failed', error_code: 'failed', finished_at: T0 + 20 });
    expect(rows.run).toEqual({ status: 'failed', paused: 0, status_detail: null, finished_at: T0 + 20, output: null });
    const errors = writer.connection
      .prepare(
        "SELECT CAST(b.content AS TEXT) AS text, b.media_type AS type FROM run_queue q JOIN runs r USING (run_id) JOIN blobs b ON b.blob_hash = q.error_hash AND b.blob_hash = r.error_hash WHERE run_id = 'run-2'",
      )
      .all();
    expect(errors).toEqual([{ text: 'boom', type: 'text/plain' }]);
    expect(rows.events.at(-1)).toMatchObject({
      type: 'run.queue_failed',
      actor: 'host',
      generation: 1,
      payload: '{"code":"failed","error":"boom","status":"failed"}',
    });
    expect(rows.deltas.slice(4)).toEqual([...bumpDeltas(3), ...summaryReplay(4)]);
    writer.connection.pragma('wal_checkpoint(TRUNCATE)');
    expect(piWorkflowsOpenCheck(writer.facts)).toEqual([]);
    expect(writer.connection.pragma('foreign_key_check')).toEqual([]);
  });
});
