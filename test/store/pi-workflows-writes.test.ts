/**
 * Per operation, the rows one store call writes, diffed before/after (test/helpers/write-diff.ts)
 * and compared with docs/PI-WORKFLOWS-FILES.md §5 — what pi-workflows 0.16.2's own operation
 * writes: tables, row counts, changed columns, event types, actors, lease generations, payload
 * keys and value types, viewer delta targets, keys, patches and revision steps, statuses, blob
 * media types, and one clock reading per call (every time a call writes is the same value).
 *
 * The clock ticks 1 ms at every reading, so a call that read it twice would write two times.
 *
 * Our own file's extra trigger-kept tables (run_changes, run_change_head, run_chain_sizes,
 * unowned_started_runs: docs/PI-WORKFLOWS-FILES.md §4) are left out of every diff by name: a
 * pi-workflows file has none of them, and the rows of every other table must be the ones pi
 * writes.
 */
import type Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { canonicalJson, WorkflowStore, type ReserveWorkflowRunInput } from '../../src/store/index.js';
import { createPiWorkflowsFile, piWorkflowsIdentity, piWorkflowsOpenCheck } from '../../fixtures/pi-workflows-file.js';
import { openTestStore, reserveInput, reserveSkippingRestartPolicy, sha256Hex, tempDir, TestClock, type TestStore } from '../helpers/store-fixtures.js';
import { connectionOf, storeInternals } from '../helpers/store-internals.js';
import { diffCall, writeShape, type Row, type WriteDiff } from '../helpers/write-diff.js';

/** Tables only our own file has, kept by its triggers; never compared. */
const OWN_FILE_ONLY_TABLES: ReadonlySet<string> = new Set(['run_changes', 'run_change_head', 'run_chain_sizes', 'unowned_started_runs']);

const LEASE = 60_000;

/** A clock that moves 1 ms at every reading. */
class TickingClock extends TestClock {
  override readonly now = (): number => this.t++;
}

/** A store on one kind of file, its clock and its connection. */
interface Fixture {
  kind: string;
  store: WorkflowStore;
  clock: TickingClock;
  connection: Database.Database;
  close(): void;
}

/** One project directory for every store, so both kinds of file get the same project id. */
const PROJECT_DIR = tempDir('pi-writes-project-');
afterAll(() => rmSync(PROJECT_DIR, { recursive: true, force: true }));

const OWN = 'our own file';
const PI = 'a pi-workflows 0.16.2 file';

const KINDS: Array<{ kind: string; open(): Fixture }> = [
  {
    kind: OWN,
    open() {
      const clock = new TickingClock();
      const t: TestStore = openTestStore({ file: true, clock, projectPath: PROJECT_DIR });
      return { kind: OWN, store: t.store, clock, connection: connectionOf(t.store), close: () => t.close() };
    },
  },
  {
    kind: PI,
    open() {
      const dir = tempDir('pi-writes-');
      const path = join(dir, 'state.sqlite');
      const writer = createPiWorkflowsFile(path);
      writer.close();
      const identity = piWorkflowsIdentity(path);
      const clock = new TickingClock();
      const store = WorkflowStore.open({ path, projectPath: PROJECT_DIR, clock: clock.now });
      const connection = connectionOf(store);
      return {
        kind: PI,
        store,
        clock,
        connection,
        close() {
          try {
            readBackAsPiWorkflows(connection);
            store.close();
            // pi-workflows' own open accepts the file as the cases left it (docs/PI-WORKFLOWS-FILES.md §3).
            expect(piWorkflowsOpenCheck(writer.facts, identity)).toEqual([]);
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        },
      };
    },
  },
];

/**
 * Reads a pi-workflows file back as pi-workflows reads its runs: every run through its run
 * select (run, definition, queue, binding, lease joined), every run's root source row, every
 * JSON blob parsed and in canonical form (its own canonical JSON), every text blob UTF-8.
 */
function readBackAsPiWorkflows(connection: Database.Database): void {
  const runs = connection.prepare('SELECT count(*) AS n FROM runs').get() as { n: number };
  const joined = connection
    .prepare(
      `SELECT r.run_id, d.workflow_name, q.status, l.generation, b.origin_session_id, s.source_type
       FROM runs r JOIN workflow_definitions d ON d.definition_digest = r.definition_digest
       JOIN run_queue q ON q.run_id = r.run_id LEFT JOIN run_bindings b ON b.run_id = r.run_id
       JOIN leases l ON l.resource_id = r.resource_id
       JOIN run_sources s ON s.run_id = r.run_id AND s.mount_path = ''`,
    )
    .all();
  expect(joined).toHaveLength(runs.n);
  for (const blob of connection.prepare('SELECT content, media_type, byte_length FROM blobs').all() as Array<{
    content: Buffer;
    media_type: string;
    byte_length: number;
  }>) {
    expect(blob.byte_length).toBe(blob.content.length);
    const text = blob.content.toString('utf8');
    if (blob.media_type === 'application/json') expect(canonicalJson(JSON.parse(text))).toBe(text);
    else expect(blob.media_type).toBe('text/plain');
  }
}

let open: Fixture[] = [];
afterEach(() => {
  for (const fixture of open) fixture.close();
  open = [];
});

function fixture(kind: (typeof KINDS)[number]): Fixture {
  const f = kind.open();
  open.push(f);
  return f;
}

/** What one call wrote, and the one time it wrote (the clock reading of the call). */
function written<T>(f: Fixture, fn: () => T): { result: T; diff: WriteDiff; at: number } {
  const at = f.clock.t;
  const { result, diff } = diffCall(f.connection, fn, OWN_FILE_ONLY_TABLES);
  record(f, diff);
  return { result, diff, at };
}

/** Every diff of the cases, per kind of file, in order, keyed by case name and call number. */
const recorded = new Map<string, Map<string, { diff: WriteDiff; columns: (table: string) => Set<string> }>>();

function record(f: Fixture, diff: WriteDiff): void {
  const full = expect.getState().currentTestName ?? '';
  if (!full.startsWith('what each store operation writes')) return;
  const name = full.split(' > ').slice(1).join(' > ');
  const byKind = recorded.get(f.kind) ?? new Map();
  recorded.set(f.kind, byKind);
  let index = 1;
  while (byKind.has(`${name} #${index}`)) index += 1;
  const connection = f.connection;
  const columns = (table: string) =>
    new Set((connection.prepare('SELECT name FROM pragma_table_info(?)').all(table) as Array<{ name: string }>).map((row) => row.name));
  const known = new Map<string, Set<string>>();
  for (const table of Object.keys(diff)) known.set(table, columns(table));
  byKind.set(`${name} #${index}`, { diff, columns: (table: string) => known.get(table) ?? new Set() });
}

/** A diff with only the given columns of each row, event ids (random) left out. */
function projected(diff: WriteDiff, keep: (table: string) => Set<string>): WriteDiff {
  const pick = (table: string, row: Row): Row =>
    Object.fromEntries(Object.entries(row).filter(([column]) => keep(table).has(column) && !(table === 'events' && column === 'event_id')));
  const out: WriteDiff = {};
  for (const [table, writes] of Object.entries(diff)) {
    out[table] = {
      inserted: writes.inserted.map((row) => pick(table, row)),
      updated: writes.updated.map((update) => ({
        key: table === 'events' ? '' : update.key,
        before: pick(table, update.before),
        after: pick(table, update.after),
        columns: update.columns.filter((column) => keep(table).has(column)),
      })),
      deleted: writes.deleted.map((row) => pick(table, row)),
    };
  }
  return out;
}

const TIME_COLUMN = /_at$/;

/**
 * Every time a diff wrote (inserted rows' and changed columns' `*_at` values), except lease
 * `expires_at`, which is that time + the lease.
 */
function timesWritten(diff: WriteDiff): number[] {
  const times = new Set<number>();
  for (const [table, writes] of Object.entries(diff)) {
    const take = (row: Row, columns: string[]): void => {
      for (const column of columns) {
        if (!TIME_COLUMN.test(column) || (table === 'leases' && column === 'expires_at')) continue;
        const value = row[column];
        if (value !== null) times.add(value as number);
      }
    };
    for (const row of writes.inserted) take(row, Object.keys(row));
    for (const update of writes.updated) take(update.after, update.columns);
  }
  return [...times];
}

function blobText(connection: Database.Database, hashHex: unknown): string {
  const row = connection.prepare('SELECT content FROM blobs WHERE blob_hash = ?').get(Buffer.from(String(hashHex), 'hex')) as { content: Buffer };
  return row.content.toString('utf8');
}

/** The events a diff inserted, in event_seq order, payloads read back. */
function eventsWritten(f: Fixture, diff: WriteDiff): Array<Record<string, unknown>> {
  return (diff.events?.inserted ?? [])
    .slice()
    .sort((a, b) => (a.event_seq as number) - (b.event_seq as number))
    .map((row) => ({
      type: row.event_type,
      resourceRevision: row.resource_revision,
      actor: [row.actor_type, row.actor_id],
      leaseGeneration: row.lease_generation,
      payload: JSON.parse(blobText(f.connection, row.payload_hash)) as unknown,
      eventId: /^event-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(String(row.event_id)),
    }));
}

/** The viewer deltas a diff inserted, as `revision target[/key] patch`. */
function deltasWritten(f: Fixture, diff: WriteDiff): Array<[number, number, string, unknown]> {
  return (diff.viewer_deltas?.inserted ?? [])
    .map((row): [number, number, string, unknown] => [
      row.presentation_revision as number,
      row.delta_index as number,
      row.target_key === '' ? String(row.target_type) : `${String(row.target_type)}/${String(row.target_key)}`,
      JSON.parse(blobText(f.connection, row.patch_hash)) as unknown,
    ])
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

/** The blobs a diff inserted, as `media type: content`, sorted. */
function blobsWritten(diff: WriteDiff): string[] {
  return (diff.blobs?.inserted ?? []).map((row) => `${String(row.media_type)}: ${Buffer.from(String(row.content), 'hex').toString('utf8')}`).sort();
}

const revisionPatch = (revision: number) => [{ op: 'replace', path: '/presentationRevision', value: revision }];

/** The 4 deltas of a resource bump at revision `n` (docs/PI-WORKFLOWS-FILES.md §4). */
function bumpDeltas(n: number): Array<[number, number, string, unknown]> {
  return ['summary', 'graph', 'replay', 'inspector/run'].map((target, index) => [n, index, target, revisionPatch(n)]);
}

/** The 2 deltas (summary, replay) at revision `n`. */
function summaryReplay(n: number): Array<[number, number, string, unknown]> {
  return ['summary', 'replay'].map((target, index) => [n, index, target, revisionPatch(n)]);
}

/** The viewer_runs change of a call that recorded up to revision `n`. */
function viewerAt(diff: WriteDiff, runId: string): Row | undefined {
  return diff.viewer_runs?.updated.find((update) => update.key === runId)?.after;
}

/** Non-null columns of a row, sorted. */
const columnsSet = (row: Row | undefined): string[] =>
  Object.keys(row ?? {})
    .filter((column) => (row as Row)[column] !== null)
    .sort();

function reserveRun(f: Fixture, runId: string, overrides: Partial<ReserveWorkflowRunInput> = {}): void {
  f.store.reserveWorkflowRun(reserveInput(runId, overrides));
}

function claimRun(f: Fixture, runId: string, runnerId = 'runner-1', leaseMs = LEASE): void {
  if (f.store.claimWorkflowRun({ runId, runnerId, claimToken: `token-${runId}`, leaseMs }) === undefined) throw new Error(`setup: claim of ${runId} refused`);
}

function parkRun(f: Fixture, runId: string): void {
  if (!f.store.parkWorkflowRun({ runId, claimToken: `token-${runId}` })) throw new Error(`setup: park of ${runId} refused`);
}

const PROJECT_ID = /^project-[0-9a-f]{40}$/;
const resourceOf = (f: Fixture, runId: string): string =>
  (f.connection.prepare('SELECT resource_id FROM runs WHERE run_id = ?').get(runId) as { resource_id: string }).resource_id;

/** A run claimed for interaction validation with a waiting attempt, a pending request and a validating submission. */
function runWithInteractionOn(f: Fixture, runId: string): void {
  reserveRun(f, runId);
  const interactions = storeInternals(f.store).interactions;
  interactions.openInteraction(
    { runId, nodeId: 'ask', attemptId: `attempt-${runId}`, requestId: `request-${runId}`, targetSessionId: `session-${runId}` },
    f.clock.t,
  );
  interactions.addValidatingSubmission(
    { submissionId: `submission-${runId}`, requestId: `request-${runId}`, idempotencyKey: 'k', payload: { answer: 'yes' } },
    f.clock.t,
  );
  if (f.store.claimWorkflowRunForInteractionValidation({ runId, runnerId: 'runner-1', claimToken: `token-${runId}`, leaseMs: LEASE }) === undefined) {
    throw new Error('setup: claim refused');
  }
}

describe.each(KINDS)('what each store operation writes on $kind (docs/PI-WORKFLOWS-FILES.md §5)', (kind) => {
  test('reserve a root: the run rows, one run.queued by the origin session, no viewer delta; blobs and definition only when new', () => {
    const f = fixture(kind);
    reserveRun(f, 'run-0');
    const { diff, at } = written(f, () => reserveRun(f, 'run-1', { runnerId: 'runner-a', launchOptions: { model: 'x' } }));
    expect(writeShape(diff)).toEqual({
      blobs: { inserted: 1 },
      events: { inserted: 1 },
      leases: { inserted: 1 },
      resources: { inserted: 1 },
      run_bindings: { inserted: 1 },
      run_queue: { inserted: 1 },
      run_sources: { inserted: 1 },
      runs: { inserted: 1 },
      sqlite_sequence: { updated: [['seq']] },
      viewer_runs: { inserted: 1 },
    });
    expect(timesWritten(diff)).toEqual([at]);
    expect(blobsWritten(diff)).toEqual(['application/json: {"model":"x"}']);
    const resourceId = resourceOf(f, 'run-1');
    expect(resourceId).toMatch(/^run-[0-9a-f]{40}$/);
    expect(diff.resources?.inserted[0]).toMatchObject({ resource_id: resourceId, resource_type: 'run', aggregate_key: 'run-1', revision: 1 });
    expect(diff.leases?.inserted[0]).toEqual({
      resource_id: resourceId,
      generation: 0,
      owner_type: null,
      owner_id: null,
      token_hash: null,
      acquired_at: null,
      heartbeat_at: null,
      expires_at: null,
    });
    const run = diff.runs?.inserted[0] as Row;
    expect(run).toMatchObject({
      run_id: 'run-1',
      status: 'queued',
      paused: 0,
      root_run_id: 'run-1',
      parent_run_id: null,
      lineage_kind: null,
      restart_number: 0,
      parent_terminal_fingerprint: null,
      workflow_ref: 'workflows/demo.json',
      created_at: at,
      updated_at: at,
    });
    expect(String(run.project_id)).toMatch(PROJECT_ID);
    expect(String(run.definition_digest)).toHaveLength(64);
    expect(columnsSet(run)).toEqual(
      [
        'created_at',
        'definition_digest',
        'input_hash',
        'launch_options_hash',
        'paused',
        'project_id',
        'resource_id',
        'restart_number',
        'root_run_id',
        'run_id',
        'status',
        'updated_at',
        'workflow_ref',
      ].sort(),
    );
    expect(diff.viewer_runs?.inserted[0]).toEqual({ run_id: 'run-1', presentation_revision: 1, retained_from_revision: 1, updated_at: at });
    expect(diff.run_sources?.inserted[0]).toMatchObject({ run_id: 'run-1', mount_path: '', source_type: 'file', source_ref: 'workflows/demo.json' });
    expect(diff.run_bindings?.inserted[0]).toMatchObject({
      run_id: 'run-1',
      origin_session_id: 'session-run-1',
      execution_mode: 'interactive',
      created_at: at,
    });
    expect(diff.run_queue?.inserted[0]).toMatchObject({
      run_id: 'run-1',
      status: 'queued',
      available_at: at,
      affinity_runner_id: 'runner-a',
      origin_session_id: 'session-run-1',
      consecutive_errors: 0,
      error_code: null,
      error_hash: null,
      started_at: null,
      finished_at: null,
      created_at: at,
      updated_at: at,
    });
    expect(eventsWritten(f, diff)).toEqual([
      { type: 'run.queued', resourceRevision: 1, actor: ['session', 'session-run-1'], leaseGeneration: null, payload: {}, eventId: true },
    ]);
  });

  test('reserve a continuation: the parent first (queue done, bump, run.queue_done_for_continuation, 4 deltas), then the child rows', () => {
    const f = fixture(kind);
    reserveRun(f, 'run-1', { originSessionId: 'S' });
    claimRun(f, 'run-1');
    parkRun(f, 'run-1');
    const { diff, at } = written(f, () => reserveRun(f, 'run-2', { originSessionId: 'S', parentRunId: 'run-1' }));
    expect(writeShape(diff)).toEqual({
      blobs: { inserted: 2 },
      events: { inserted: 2 },
      leases: { inserted: 1 },
      resources: { inserted: 1, updated: [['revision', 'updated_at']] },
      run_bindings: { inserted: 1 },
      run_queue: { inserted: 1, updated: [['finished_at', 'status', 'updated_at']] },
      run_sources: { inserted: 1 },
      runs: { inserted: 1 },
      sqlite_sequence: { updated: [['seq']] },
      viewer_deltas: { inserted: 4 },
      viewer_runs: { inserted: 1, updated: [['presentation_revision', 'updated_at']] },
    });
    expect(timesWritten(diff)).toEqual([at]);
    expect(diff.run_queue?.updated[0]?.after).toMatchObject({ run_id: 'run-1', status: 'done', finished_at: at });
    expect(diff.runs?.inserted[0]).toMatchObject({
      run_id: 'run-2',
      parent_run_id: 'run-1',
      root_run_id: 'run-1',
      lineage_kind: 'continuation',
      restart_number: 0,
    });
    expect(eventsWritten(f, diff)).toEqual([
      {
        type: 'run.queue_done_for_continuation',
        resourceRevision: 4,
        actor: ['session', 'S'],
        leaseGeneration: null,
        payload: { continuationRunId: 'run-2' },
        eventId: true,
      },
      { type: 'run.queued', resourceRevision: 1, actor: ['session', 'S'], leaseGeneration: null, payload: {}, eventId: true },
    ]);
    expect(deltasWritten(f, diff)).toEqual(bumpDeltas(5));
    expect(viewerAt(diff, 'run-1')).toMatchObject({ presentation_revision: 5, retained_from_revision: 1 });
  });

  test('reserve a restart: only the new run (restart number + 1, fingerprint 32 bytes); the parent is not touched', () => {
    const f = fixture(kind);
    reserveRun(f, 'run-1', { originSessionId: 'S' });
    claimRun(f, 'run-1');
    f.store.settleWorkflowRun({ runId: 'run-1', claimToken: 'token-run-1', status: 'failed', error: 'boom' });
    const fingerprint = 'ab'.repeat(32);
    const { diff, at } = written(f, () =>
      reserveSkippingRestartPolicy(f.store, 'run-2', {
        originSessionId: 'S',
        parentRunId: 'run-1',
        lineageKind: 'restart',
        parentTerminalFingerprint: `sha256:${fingerprint}`,
      }),
    );
    expect(writeShape(diff)).toEqual({
      events: { inserted: 1 },
      leases: { inserted: 1 },
      resources: { inserted: 1 },
      run_bindings: { inserted: 1 },
      run_queue: { inserted: 1 },
      run_sources: { inserted: 1 },
      runs: { inserted: 1 },
      sqlite_sequence: { updated: [['seq']] },
      viewer_runs: { inserted: 1 },
    });
    expect(timesWritten(diff)).toEqual([at]);
    expect(diff.runs?.inserted[0]).toMatchObject({
      run_id: 'run-2',
      parent_run_id: 'run-1',
      root_run_id: 'run-1',
      lineage_kind: 'restart',
      restart_number: 1,
      parent_terminal_fingerprint: fingerprint,
    });
    expect(eventsWritten(f, diff).map((event) => event.type)).toEqual(['run.queued']);
  });

  test('prepare-or-adopt, new: the reserve rows with the queue inserted starting (affinity: the claiming runner), run.queued then lease.claimed, 4 deltas at revision 2', () => {
    const f = fixture(kind);
    const { diff, at } = written(f, () => f.store.reserveWorkflowRun(reserveInput('run-1'), { runnerId: 'host-b', claimToken: 'tok', leaseMs: LEASE }));
    expect(writeShape(diff)).toEqual({
      blobs: { inserted: 5 },
      events: { inserted: 2 },
      leases: { inserted: 1 },
      resources: { inserted: 1 },
      run_bindings: { inserted: 1 },
      run_queue: { inserted: 1 },
      run_sources: { inserted: 1 },
      runs: { inserted: 1 },
      sqlite_sequence: { inserted: 1 },
      viewer_deltas: { inserted: 4 },
      viewer_runs: { inserted: 1 },
      workflow_definitions: { inserted: 1 },
    });
    expect(timesWritten(diff)).toEqual([at]);
    expect(diff.run_queue?.inserted[0]).toMatchObject({ status: 'starting', affinity_runner_id: 'host-b', available_at: at, updated_at: at, started_at: null });
    expect(diff.leases?.inserted[0]).toMatchObject({
      generation: 1,
      owner_type: 'host',
      owner_id: 'host-b',
      acquired_at: at,
      heartbeat_at: at,
      expires_at: at + LEASE,
    });
    expect(diff.resources?.inserted[0]).toMatchObject({ revision: 2 });
    expect(diff.viewer_runs?.inserted[0]).toMatchObject({ presentation_revision: 2, retained_from_revision: 1 });
    expect(eventsWritten(f, diff)).toEqual([
      { type: 'run.queued', resourceRevision: 1, actor: ['session', 'session-run-1'], leaseGeneration: null, payload: {}, eventId: true },
      { type: 'lease.claimed', resourceRevision: 2, actor: ['host', 'host-b'], leaseGeneration: 1, payload: { expiresAt: at + LEASE }, eventId: true },
    ]);
    expect(deltasWritten(f, diff)).toEqual(bumpDeltas(2));
    expect(blobsWritten(diff).map((blob) => blob.split(':')[0])).toEqual(Array(5).fill('application/json'));
  });

  test('prepare-or-adopt, existing: compatible writes nothing (token not compared, lease not renewed); incompatible is refused and writes nothing', () => {
    const f = fixture(kind);
    f.store.reserveWorkflowRun(reserveInput('run-1'), { runnerId: 'runner-1', claimToken: 'tok', leaseMs: LEASE });
    const adopted = written(f, () => f.store.reserveWorkflowRun(reserveInput('run-1'), { runnerId: 'runner-2', claimToken: 'other', leaseMs: 5 }));
    expect(adopted.result.state).toBe('adopted');
    expect(adopted.diff).toEqual({});
    const refused = written(f, () => {
      try {
        f.store.reserveWorkflowRun(reserveInput('run-1', { input: { topic: 'other' } }), { runnerId: 'runner-1', claimToken: 'tok', leaseMs: LEASE });
        return 'written';
      } catch (error) {
        return (error as Error).message;
      }
    });
    expect(refused.result).toBe('Workflow run preparation conflicts: run-1');
    expect(refused.diff).toEqual({});
  });

  test('claim by id: lease generation + 1 with owner, token hash and times; queue starting with error cleared; bump, lease.claimed {expiresAt: epoch ms}, 4 deltas', () => {
    const f = fixture(kind);
    reserveRun(f, 'run-1');
    const { diff, at } = written(f, () => claimRun(f, 'run-1', 'runner-1'));
    expect(writeShape(diff)).toEqual({
      blobs: { inserted: 2 },
      events: { inserted: 1 },
      leases: { updated: [['acquired_at', 'expires_at', 'generation', 'heartbeat_at', 'owner_id', 'owner_type', 'token_hash']] },
      resources: { updated: [['revision', 'updated_at']] },
      run_queue: { updated: [['status', 'updated_at']] },
      sqlite_sequence: { updated: [['seq']] },
      viewer_deltas: { inserted: 4 },
      viewer_runs: { updated: [['presentation_revision', 'updated_at']] },
    });
    expect(timesWritten(diff)).toEqual([at]);
    expect(diff.leases?.updated[0]?.after).toMatchObject({
      generation: 1,
      owner_type: 'session',
      owner_id: 'runner-1',
      token_hash: sha256Hex('token-run-1'),
      acquired_at: at,
      heartbeat_at: at,
      expires_at: at + LEASE,
    });
    expect(diff.run_queue?.updated[0]?.after).toMatchObject({ status: 'starting', error_code: null, error_hash: null });
    expect(eventsWritten(f, diff)).toEqual([
      { type: 'lease.claimed', resourceRevision: 2, actor: ['session', 'runner-1'], leaseGeneration: 1, payload: { expiresAt: at + LEASE }, eventId: true },
    ]);
    expect(deltasWritten(f, diff)).toEqual(bumpDeltas(2));
  });

  test('claim by id refused writes nothing: another runner holds a live lease, an interaction is pending, the queue is done', () => {
    const f = fixture(kind);
    reserveRun(f, 'run-1');
    claimRun(f, 'run-1', 'runner-1');
    const foreign = written(f, () => f.store.claimWorkflowRun({ runId: 'run-1', runnerId: 'runner-2', claimToken: 'x', leaseMs: LEASE }));
    expect(foreign.result).toBeUndefined();
    expect(foreign.diff).toEqual({});
    reserveRun(f, 'run-2');
    storeInternals(f.store).interactions.openInteraction(
      { runId: 'run-2', nodeId: 'ask', attemptId: 'attempt-2', requestId: 'request-2', targetSessionId: 'session-run-2' },
      f.clock.t,
    );
    const pending = written(f, () => f.store.claimWorkflowRun({ runId: 'run-2', runnerId: 'runner-1', claimToken: 'x', leaseMs: LEASE }));
    expect(pending.result).toBeUndefined();
    expect(pending.diff).toEqual({});
    f.store.completeWorkflowRun({ runId: 'run-1', claimToken: 'token-run-1' });
    const done = written(f, () => f.store.claimWorkflowRun({ runId: 'run-1', runnerId: 'runner-1', claimToken: 'x', leaseMs: LEASE }));
    expect(done.result).toBeUndefined();
    expect(done.diff).toEqual({});
    // The same runner may claim again: a new generation.
    reserveRun(f, 'run-3');
    claimRun(f, 'run-3', 'runner-1');
    const again = written(f, () => claimRun(f, 'run-3', 'runner-1'));
    expect(again.diff.leases?.updated[0]?.after).toMatchObject({ generation: 2, owner_id: 'runner-1' });
  });

  test('claim next: exactly the rows of a claim by id, on the oldest eligible run', () => {
    const f = fixture(kind);
    reserveRun(f, 'run-1', { originSessionId: 'S' });
    const { diff, at, result } = written(f, () => f.store.claimNextWorkflowRun({ runnerId: 'runner-1', sessionId: 'S', claimToken: 'tok', leaseMs: LEASE }));
    expect(result?.runId).toBe('run-1');
    expect(writeShape(diff)).toEqual({
      blobs: { inserted: 2 },
      events: { inserted: 1 },
      leases: { updated: [['acquired_at', 'expires_at', 'generation', 'heartbeat_at', 'owner_id', 'owner_type', 'token_hash']] },
      resources: { updated: [['revision', 'updated_at']] },
      run_queue: { updated: [['status', 'updated_at']] },
      sqlite_sequence: { updated: [['seq']] },
      viewer_deltas: { inserted: 4 },
      viewer_runs: { updated: [['presentation_revision', 'updated_at']] },
    });
    expect(timesWritten(diff)).toEqual([at]);
    expect(eventsWritten(f, diff).map((event) => [event.type, event.payload])).toEqual([['lease.claimed', { expiresAt: at + LEASE }]]);
  });

  test('report running: queue running with started_at set once; bump, run.queue_running {status}, 4 deltas', () => {
    const f = fixture(kind);
    reserveRun(f, 'run-1');
    claimRun(f, 'run-1');
    const { diff, at } = written(f, () => f.store.markWorkflowRunRunning({ runId: 'run-1', claimToken: 'token-run-1' }));
    expect(writeShape(diff)).toEqual({
      blobs: { inserted: 2 },
      events: { inserted: 1 },
      resources: { updated: [['revision', 'updated_at']] },
      run_queue: { updated: [['started_at', 'status', 'updated_at']] },
      sqlite_sequence: { updated: [['seq']] },
      viewer_deltas: { inserted: 4 },
      viewer_runs: { updated: [['presentation_revision', 'updated_at']] },
    });
    expect(timesWritten(diff)).toEqual([at]);
    expect(eventsWritten(f, diff)).toEqual([
      { type: 'run.queue_running', resourceRevision: 3, actor: ['session', 'runner-1'], leaseGeneration: 1, payload: { status: 'running' }, eventId: true },
    ]);
    expect(deltasWritten(f, diff)).toEqual(bumpDeltas(3));
    const again = written(f, () => f.store.markWorkflowRunRunning({ runId: 'run-1', claimToken: 'token-run-1' }));
    expect(again.diff.run_queue?.updated[0]?.columns).toEqual(['updated_at']);
  });

  test('heartbeat: lease heartbeat_at and expires_at only, 2 deltas (summary, replay); no event, no resource bump', () => {
    const f = fixture(kind);
    reserveRun(f, 'run-1');
    claimRun(f, 'run-1');
    const { diff, at } = written(f, () => f.store.renewWorkflowRunClaim({ runId: 'run-1', claimToken: 'token-run-1', leaseMs: 30_000 }));
    expect(writeShape(diff)).toEqual({
      blobs: { inserted: 1 },
      leases: { updated: [['expires_at', 'heartbeat_at']] },
      viewer_deltas: { inserted: 2 },
      viewer_runs: { updated: [['presentation_revision', 'updated_at']] },
    });
    expect(timesWritten(diff)).toEqual([at]);
    expect(diff.leases?.updated[0]?.after).toMatchObject({ heartbeat_at: at, expires_at: at + 30_000 });
    expect(deltasWritten(f, diff)).toEqual(summaryReplay(3));
  });

  test('park: queue parked, lease owner columns cleared (generation kept), bump, run.queue_parked by the lease owner, 4 + 2 deltas', () => {
    const f = fixture(kind);
    reserveRun(f, 'run-1');
    claimRun(f, 'run-1', 'host-1');
    const { diff, at } = written(f, () => parkRun(f, 'run-1'));
    expect(writeShape(diff)).toEqual({
      blobs: { inserted: 3 },
      events: { inserted: 1 },
      leases: { updated: [['acquired_at', 'expires_at', 'heartbeat_at', 'owner_id', 'owner_type', 'token_hash']] },
      resources: { updated: [['revision', 'updated_at']] },
      run_queue: { updated: [['status', 'updated_at']] },
      sqlite_sequence: { updated: [['seq']] },
      viewer_deltas: { inserted: 6 },
      viewer_runs: { updated: [['presentation_revision', 'updated_at']] },
    });
    expect(timesWritten(diff)).toEqual([at]);
    expect(diff.leases?.updated[0]?.after).toMatchObject({ generation: 1, owner_type: null });
    expect(eventsWritten(f, diff)).toEqual([
      { type: 'run.queue_parked', resourceRevision: 3, actor: ['host', 'host-1'], leaseGeneration: 1, payload: { status: 'parked' }, eventId: true },
    ]);
    expect(deltasWritten(f, diff)).toEqual([...bumpDeltas(3), ...summaryReplay(4)]);
  });

  test('park for no progress: as park, plus queue workerNoProgress with the detail as a text blob and available_at now, runs.status_detail', () => {
    const f = fixture(kind);
    reserveRun(f, 'run-1');
    claimRun(f, 'run-1');
    const { diff, at } = written(f, () => f.store.parkWorkflowRunForWorkerNoProgress({ runId: 'run-1', claimToken: 'token-run-1', detail: 'no progress' }));
    expect(writeShape(diff)).toEqual({
      blobs: { inserted: 4 },
      events: { inserted: 1 },
      leases: { updated: [['acquired_at', 'expires_at', 'heartbeat_at', 'owner_id', 'owner_type', 'token_hash']] },
      resources: { updated: [['revision', 'updated_at']] },
      run_queue: { updated: [['available_at', 'error_code', 'error_hash', 'status', 'updated_at']] },
      runs: { updated: [['status_detail', 'updated_at']] },
      sqlite_sequence: { updated: [['seq']] },
      viewer_deltas: { inserted: 6 },
      viewer_runs: { updated: [['presentation_revision', 'updated_at']] },
    });
    expect(timesWritten(diff)).toEqual([at]);
    expect(diff.run_queue?.updated[0]?.after).toMatchObject({ status: 'parked', error_code: 'workerNoProgress', available_at: at });
    expect(diff.runs?.updated[0]?.after).toMatchObject({ status_detail: 'no progress' });
    expect(blobsWritten(diff)).toContain('text/plain: no progress');
    expect(eventsWritten(f, diff)).toEqual([
      {
        type: 'run.worker_no_progress',
        resourceRevision: 3,
        actor: ['session', 'runner-1'],
        leaseGeneration: 1,
        payload: { status: 'parked', code: 'workerNoProgress' },
        eventId: true,
      },
    ]);
    expect(deltasWritten(f, diff)).toEqual([...bumpDeltas(3), ...summaryReplay(4)]);
  });

  /** A claimed run with a sent message carrying a started turn, and a pending step message. */
  function runWithMessages(f: Fixture, runId: string): void {
    reserveRun(f, runId, { originSessionId: 'S' });
    claimRun(f, runId);
    const content = (text: string) => ({
      schema: 'pi-workflows.workflow-message-content.v1' as const,
      customType: 'pi-workflows.step',
      content: text,
      display: true,
      details: {},
      triggerTurn: true,
    });
    const sent = f.store.createWorkflowMessage({
      idempotencyKey: 'k-1',
      runId,
      targetSessionId: 'S',
      kind: 'step',
      sourceId: 'request-a',
      content: content('one'),
    });
    f.store.markWorkflowMessageSent({ workflowMessageId: sent.workflowMessageId, targetSessionId: 'S', piSessionEntryId: 'entry-1' });
    f.store.startWorkflowTurn({ workflowTurnId: 'turn-1', workflowMessageId: sent.workflowMessageId, runId, targetSessionId: 'S' });
    f.store.createWorkflowMessage({ idempotencyKey: 'k-2', runId, targetSessionId: 'S', kind: 'step', sourceId: 'request-b', content: content('two') });
  }

  test("settle COMPLETED: the runs row as the engine's run-state persistence writes it, then the queue completion; no message settling", () => {
    const f = fixture(kind);
    runWithMessages(f, 'run-1');
    f.store.reportWorkflowRunState({ runId: 'run-1', claimToken: 'token-run-1', status: 'running', detail: 'working' });
    const { diff, at } = written(f, () =>
      f.store.settleWorkflowRun({ runId: 'run-1', claimToken: 'token-run-1', status: 'completed', output: { answer: 42 } }),
    );
    expect(writeShape(diff)).toEqual({
      blobs: { inserted: 4 },
      events: { inserted: 1 },
      leases: { updated: [['acquired_at', 'expires_at', 'heartbeat_at', 'owner_id', 'owner_type', 'token_hash']] },
      resources: { updated: [['revision', 'updated_at']] },
      run_queue: { updated: [['finished_at', 'status', 'updated_at']] },
      runs: { updated: [['final_output_hash', 'finished_at', 'status', 'status_detail', 'updated_at']] },
      sqlite_sequence: { updated: [['seq']] },
      viewer_deltas: { inserted: 6 },
      viewer_runs: { updated: [['presentation_revision', 'updated_at']] },
    });
    expect(timesWritten(diff)).toEqual([at]);
    expect(diff.runs?.updated[0]?.after).toMatchObject({ status: 'completed', status_detail: null, paused: 0, finished_at: at, error_hash: null });
    expect(diff.run_queue?.updated[0]?.after).toMatchObject({ status: 'done', finished_at: at, error_code: null });
    expect(blobsWritten(diff)).toContain('application/json: {"answer":42}');
    expect(eventsWritten(f, diff)).toEqual([
      { type: 'run.queue_done', resourceRevision: 4, actor: ['session', 'runner-1'], leaseGeneration: 1, payload: { status: 'done' }, eventId: true },
    ]);
    expect(deltasWritten(f, diff)).toEqual([...bumpDeltas(5), ...summaryReplay(6)]);
  });

  test('settle FAILED: error text blob; queue failed with the code, runs failed; open turns ended lost, pending messages cancelled; run.queue_failed {status, code, error}', () => {
    const f = fixture(kind);
    runWithMessages(f, 'run-1');
    const { diff, at } = written(f, () => f.store.settleWorkflowRun({ runId: 'run-1', claimToken: 'token-run-1', status: 'failed', error: 'boom' }));
    expect(writeShape(diff)).toEqual({
      blobs: { inserted: 4 },
      events: { inserted: 1 },
      leases: { updated: [['acquired_at', 'expires_at', 'heartbeat_at', 'owner_id', 'owner_type', 'token_hash']] },
      resources: { updated: [['revision', 'updated_at']] },
      run_queue: { updated: [['error_code', 'error_hash', 'finished_at', 'status', 'updated_at']] },
      runs: { updated: [['error_hash', 'finished_at', 'status', 'updated_at']] },
      sqlite_sequence: { updated: [['seq']] },
      viewer_deltas: { inserted: 6 },
      viewer_runs: { updated: [['presentation_revision', 'updated_at']] },
      workflow_messages: { updated: [['status', 'updated_at']] },
      workflow_turns: { updated: [['ended_at', 'state', 'stop_reason']] },
    });
    expect(timesWritten(diff)).toEqual([at]);
    expect(diff.run_queue?.updated[0]?.after).toMatchObject({ status: 'failed', error_code: 'failed' });
    expect(diff.runs?.updated[0]?.after).toMatchObject({ status: 'failed', paused: 0, status_detail: null });
    expect(diff.workflow_turns?.updated[0]?.after).toMatchObject({ state: 'ended', stop_reason: 'lost' });
    expect(diff.workflow_messages?.updated[0]?.after).toMatchObject({ status: 'cancelled' });
    expect(blobsWritten(diff)).toContain('text/plain: boom');
    expect(eventsWritten(f, diff)).toEqual([
      {
        type: 'run.queue_failed',
        resourceRevision: 3,
        actor: ['session', 'runner-1'],
        leaseGeneration: 1,
        payload: { status: 'failed', code: 'failed', error: 'boom' },
        eventId: true,
      },
    ]);
    expect(deltasWritten(f, diff)).toEqual([...bumpDeltas(3), ...summaryReplay(4)]);
  });

  const runWithInteraction = runWithInteractionOn;

  test('cancel with the claim: the fail rows with status and code cancelled, and the dependents (attempts, submissions with the receipt, requests)', () => {
    const f = fixture(kind);
    runWithInteraction(f, 'run-1');
    const { diff, at } = written(f, () => f.store.cancelWorkflowRun({ runId: 'run-1', claimToken: 'token-run-1' }));
    expect(writeShape(diff)).toEqual({
      blobs: { inserted: 5 },
      events: { inserted: 1 },
      interactive_requests: { updated: [['revision', 'status', 'updated_at']] },
      interactive_submissions: { updated: [['outcome', 'receipt_hash']] },
      leases: { updated: [['acquired_at', 'expires_at', 'heartbeat_at', 'owner_id', 'owner_type', 'token_hash']] },
      node_attempts: { updated: [['error_hash', 'finished_at', 'status', 'updated_at']] },
      resources: { updated: [['revision', 'updated_at']] },
      run_queue: { updated: [['error_code', 'error_hash', 'finished_at', 'status', 'updated_at']] },
      runs: { updated: [['error_hash', 'finished_at', 'status', 'updated_at']] },
      sqlite_sequence: { updated: [['seq']] },
      viewer_deltas: { inserted: 6 },
      viewer_runs: { updated: [['presentation_revision', 'updated_at']] },
    });
    expect(timesWritten(diff)).toEqual([at]);
    expect(blobsWritten(diff)).toEqual([
      'application/json: [{"op":"replace","path":"/presentationRevision","value":3}]',
      'application/json: [{"op":"replace","path":"/presentationRevision","value":4}]',
      'application/json: {"code":"cancelled","error":"Workflow run cancelled","status":"cancelled"}',
      'application/json: {"error":"Workflow run cancelled","status":"rejected"}',
      'text/plain: Workflow run cancelled',
    ]);
    const cancelText = diff.run_queue?.updated[0]?.after.error_hash;
    expect(diff.node_attempts?.updated[0]?.after).toMatchObject({ status: 'cancelled', error_hash: cancelText, finished_at: at });
    expect(diff.interactive_submissions?.updated[0]?.after).toMatchObject({ outcome: 'rejected' });
    expect(diff.interactive_requests?.updated[0]?.after).toMatchObject({ status: 'cancelled', revision: 2 });
    expect(diff.runs?.updated[0]?.after).toMatchObject({ status: 'cancelled', error_hash: cancelText });
    expect(eventsWritten(f, diff)).toEqual([
      {
        type: 'run.queue_cancelled',
        resourceRevision: 3,
        actor: ['session', 'runner-1'],
        leaseGeneration: 1,
        payload: { status: 'cancelled', code: 'cancelled', error: 'Workflow run cancelled' },
        eventId: true,
      },
    ]);
    expect(deltasWritten(f, diff)).toEqual([...bumpDeltas(3), ...summaryReplay(4)]);
  });

  test('cancel with the claim puts the receipt blob even when no submission refers to it', () => {
    const f = fixture(kind);
    reserveRun(f, 'run-1');
    claimRun(f, 'run-1');
    const { diff } = written(f, () => f.store.cancelWorkflowRun({ runId: 'run-1', claimToken: 'token-run-1' }));
    expect(blobsWritten(diff)).toContain('application/json: {"error":"Workflow run cancelled","status":"rejected"}');
  });

  test('cancel without a claim, queued with no owner: the cancel rows by actor system, no id, no generation; the lease untouched', () => {
    const f = fixture(kind);
    reserveRun(f, 'run-1');
    const { diff, at } = written(f, () => f.store.cancelWorkflowRun({ runId: 'run-1' }));
    expect(writeShape(diff)).toEqual({
      blobs: { inserted: 5 },
      events: { inserted: 1 },
      resources: { updated: [['revision', 'updated_at']] },
      run_queue: { updated: [['error_code', 'error_hash', 'finished_at', 'status', 'updated_at']] },
      runs: { updated: [['error_hash', 'finished_at', 'status', 'updated_at']] },
      sqlite_sequence: { updated: [['seq']] },
      viewer_deltas: { inserted: 6 },
      viewer_runs: { updated: [['presentation_revision', 'updated_at']] },
    });
    expect(timesWritten(diff)).toEqual([at]);
    expect(eventsWritten(f, diff)).toEqual([
      {
        type: 'run.queue_cancelled',
        resourceRevision: 2,
        actor: ['system', null],
        leaseGeneration: null,
        payload: { status: 'cancelled', code: 'cancelled', error: 'Workflow run cancelled' },
        eventId: true,
      },
    ]);
    expect(deltasWritten(f, diff)).toEqual([...bumpDeltas(2), ...summaryReplay(3)]);
  });

  test.each([
    ['absent (parked)', ['generation']],
    ['expired', ['acquired_at', 'expires_at', 'generation', 'heartbeat_at', 'owner_id', 'owner_type', 'token_hash']],
  ])(
    'cancel without a claim, the claim %s: control claim workflow-control taken and released (generation + 1 net), actor control, staleControl',
    (state, leaseColumns) => {
      const f = fixture(kind);
      reserveRun(f, 'run-1');
      claimRun(f, 'run-1', 'runner-1', 1_000);
      if (state.startsWith('absent')) parkRun(f, 'run-1');
      else f.clock.advance(5_000);
      const before = f.connection.prepare('SELECT revision FROM resources WHERE resource_id = ?').get(resourceOf(f, 'run-1')) as { revision: number };
      const { diff, at } = written(f, () => f.store.cancelWorkflowRun({ runId: 'run-1' }));
      expect(writeShape(diff)).toEqual({
        blobs: { inserted: 5 },
        events: { inserted: 1 },
        leases: { updated: [leaseColumns] },
        resources: { updated: [['revision', 'updated_at']] },
        run_queue: { updated: [['error_code', 'error_hash', 'finished_at', 'status', 'updated_at']] },
        runs: { updated: [['error_hash', 'finished_at', 'status', 'updated_at']] },
        sqlite_sequence: { updated: [['seq']] },
        viewer_deltas: { inserted: 6 },
        viewer_runs: { updated: [['presentation_revision', 'updated_at']] },
      });
      expect(timesWritten(diff)).toEqual([at]);
      expect(diff.leases?.updated[0]?.after).toMatchObject({ generation: 2, owner_type: null, owner_id: null, token_hash: null, expires_at: null });
      const revision = before.revision + 1;
      expect(eventsWritten(f, diff)).toEqual([
        {
          type: 'run.queue_cancelled',
          resourceRevision: revision,
          actor: ['control', 'workflow-control'],
          leaseGeneration: 2,
          payload: { status: 'cancelled', code: 'cancelled', staleControl: true },
          eventId: true,
        },
      ]);
      const n = (viewerAt(diff, 'run-1')?.presentation_revision as number) - 1;
      expect(deltasWritten(f, diff)).toEqual([...bumpDeltas(n), ...summaryReplay(n + 1)]);
    },
  );

  test('cancel without a claim while another runner holds a live lease writes nothing', () => {
    const f = fixture(kind);
    reserveRun(f, 'run-1');
    claimRun(f, 'run-1');
    const { diff, result } = written(f, () => f.store.cancelWorkflowRun({ runId: 'run-1' }));
    expect(result).toBe(false);
    expect(diff).toEqual({});
  });

  /** A parked run the engine reported waiting, with a pending interaction. */
  function parkedWaiting(f: Fixture, runId: string): void {
    reserveRun(f, runId);
    claimRun(f, runId);
    f.store.reportWorkflowRunState({ runId, claimToken: `token-${runId}`, status: 'waiting' });
    parkRun(f, runId);
    storeInternals(f.store).interactions.openInteraction(
      { runId, nodeId: 'ask', attemptId: `attempt-${runId}`, requestId: `request-${runId}`, targetSessionId: `session-${runId}` },
      f.clock.t,
    );
  }

  test('pause a parked run: paused 1, detail paused; bump, run.paused by control {status: parked}, 4 + 2 deltas', () => {
    const f = fixture(kind);
    parkedWaiting(f, 'run-1');
    const { diff, at } = written(f, () => f.store.pauseParkedWorkflowRun({ runId: 'run-1' }));
    expect(writeShape(diff)).toEqual({
      blobs: { inserted: 2 },
      events: { inserted: 1 },
      resources: { updated: [['revision', 'updated_at']] },
      runs: { updated: [['paused', 'status_detail', 'updated_at']] },
      sqlite_sequence: { updated: [['seq']] },
      viewer_deltas: { inserted: 6 },
      viewer_runs: { updated: [['presentation_revision', 'updated_at']] },
    });
    expect(timesWritten(diff)).toEqual([at]);
    expect(diff.runs?.updated[0]?.after).toMatchObject({ paused: 1, status_detail: 'paused' });
    expect(eventsWritten(f, diff)).toEqual([
      { type: 'run.paused', resourceRevision: 5, actor: ['control', null], leaseGeneration: null, payload: { status: 'parked' }, eventId: true },
    ]);
    expect(deltasWritten(f, diff)).toEqual([...bumpDeltas(7), ...summaryReplay(8)]);
    const again = written(f, () => f.store.pauseParkedWorkflowRun({ runId: 'run-1' }));
    expect(again.result).toBe(true);
    expect(again.diff).toEqual({});
  });

  test('resume a paused interaction: paused 0, detail waiting for origin-session input; bump, run.resumed by control {status: waiting}, 4 + 2 deltas', () => {
    const f = fixture(kind);
    parkedWaiting(f, 'run-1');
    f.store.pauseParkedWorkflowRun({ runId: 'run-1' });
    const { diff, at } = written(f, () => f.store.resumePausedInteraction({ runId: 'run-1' }));
    expect(writeShape(diff)).toEqual({
      blobs: { inserted: 2 },
      events: { inserted: 1 },
      resources: { updated: [['revision', 'updated_at']] },
      runs: { updated: [['paused', 'status_detail', 'updated_at']] },
      sqlite_sequence: { updated: [['seq']] },
      viewer_deltas: { inserted: 6 },
      viewer_runs: { updated: [['presentation_revision', 'updated_at']] },
    });
    expect(timesWritten(diff)).toEqual([at]);
    expect(diff.runs?.updated[0]?.after).toMatchObject({ paused: 0, status_detail: 'waiting for origin-session input' });
    expect(eventsWritten(f, diff)).toEqual([
      { type: 'run.resumed', resourceRevision: 6, actor: ['control', null], leaseGeneration: null, payload: { status: 'waiting' }, eventId: true },
    ]);
    expect(deltasWritten(f, diff)).toEqual([...bumpDeltas(9), ...summaryReplay(10)]);
  });

  test('fail with the claim and a code: the code in the queue and the payload, the error text on run and queue', () => {
    const f = fixture(kind);
    reserveRun(f, 'run-1');
    claimRun(f, 'run-1');
    const { diff, at } = written(f, () =>
      f.store.failWorkflowRun({ runId: 'run-1', claimToken: 'token-run-1', errorCode: 'exploded', errorMessage: 'it blew up' }),
    );
    expect(timesWritten(diff)).toEqual([at]);
    expect(diff.run_queue?.updated[0]?.after).toMatchObject({ status: 'failed', error_code: 'exploded', finished_at: at });
    expect(diff.runs?.updated[0]?.after).toMatchObject({ status: 'failed', error_hash: diff.run_queue?.updated[0]?.after.error_hash });
    expect(blobsWritten(diff)).toContain('text/plain: it blew up');
    expect(eventsWritten(f, diff).map((event) => [event.type, event.actor, event.leaseGeneration, event.payload])).toEqual([
      ['run.queue_failed', ['session', 'runner-1'], 1, { status: 'failed', code: 'exploded', error: 'it blew up' }],
    ]);
  });

  test('interaction timeout (control claim held): request cancelled, run running, queue starting, receipt on the submission; bump, then summary, replay, conversation', () => {
    const f = fixture(kind);
    parkedWaiting(f, 'run-1');
    const deadline = f.clock.t + 1_000;
    f.connection.prepare("UPDATE node_attempts SET deadline_at = ? WHERE attempt_id = 'attempt-run-1'").run(deadline);
    const message = f.store.createWorkflowMessage({
      idempotencyKey: 'k',
      runId: 'run-1',
      targetSessionId: 'session-run-1',
      kind: 'step',
      sourceId: 'request-run-1',
      content: {
        schema: 'pi-workflows.workflow-message-content.v1',
        customType: 'pi-workflows.step',
        content: 'answer',
        display: true,
        details: {},
        triggerTurn: true,
      },
    });
    f.store.markWorkflowMessageSent({ workflowMessageId: message.workflowMessageId, targetSessionId: 'session-run-1', piSessionEntryId: 'entry-1' });
    f.store.startWorkflowTurn({ workflowTurnId: 'turn-1', workflowMessageId: message.workflowMessageId, runId: 'run-1', targetSessionId: 'session-run-1' });
    storeInternals(f.store).interactions.addValidatingSubmission(
      { submissionId: 'sub-1', requestId: 'request-run-1', idempotencyKey: 'i', payload: { a: 1 } },
      f.clock.t,
    );
    f.clock.t = deadline;
    if (f.store.claimWorkflowRunForControl({ runId: 'run-1', runnerId: 'host-control', claimToken: 'ctl', leaseMs: LEASE }) === undefined)
      throw new Error('setup: control claim refused');
    const { diff, at } = written(f, () => f.store.beginWorkflowRunInteractionTimeout({ runId: 'run-1', claimToken: 'ctl', targetSessionId: 'session-run-1' }));
    expect(writeShape(diff)).toEqual({
      blobs: { inserted: 4 },
      events: { inserted: 1 },
      interactive_requests: { updated: [['revision', 'status', 'updated_at']] },
      interactive_submissions: { updated: [['outcome', 'receipt_hash']] },
      resources: { updated: [['revision', 'updated_at']] },
      run_queue: { updated: [['status', 'updated_at']] },
      runs: { updated: [['finished_at', 'status', 'status_detail', 'updated_at']] },
      sqlite_sequence: { updated: [['seq']] },
      viewer_deltas: { inserted: 7 },
      viewer_runs: { updated: [['presentation_revision', 'updated_at']] },
    });
    expect(timesWritten(diff)).toEqual([at]);
    expect(diff.runs?.updated[0]?.after).toMatchObject({ status: 'running', status_detail: 'finishing expired interaction deadline', finished_at: null });
    expect(blobsWritten(diff)).toContain('application/json: {"error":"Workflow node model-turn deadline expired","status":"rejected"}');
    const events = eventsWritten(f, diff);
    expect(events.map((event) => [event.type, event.actor, event.leaseGeneration, event.payload])).toEqual([
      ['run.interaction_timeout_started', ['host', 'host-control'], 2, { requestId: 'request-run-1', attemptId: 'attempt-run-1' }],
    ]);
    const n = (viewerAt(diff, 'run-1')?.presentation_revision as number) - 1;
    expect(deltasWritten(f, diff)).toEqual([
      ...bumpDeltas(n),
      ...['summary', 'replay', 'conversation'].map((target, index): [number, number, string, unknown] => [n + 1, index, target, revisionPatch(n + 1)]),
    ]);
  });

  test('workflow messages: create (the row and its content blob), sent with the session entry, start turn (one started turn)', () => {
    const f = fixture(kind);
    reserveRun(f, 'run-1', { originSessionId: 'S' });
    const content = {
      schema: 'pi-workflows.workflow-message-content.v1' as const,
      customType: 'pi-workflows.step',
      content: 'hi',
      display: true,
      details: {},
      triggerTurn: true,
    };
    const created = written(f, () =>
      f.store.createWorkflowMessage({ idempotencyKey: 'k', runId: 'run-1', targetSessionId: 'S', kind: 'step', sourceId: 'request-1', content }),
    );
    expect(writeShape(created.diff)).toEqual({ blobs: { inserted: 1 }, workflow_messages: { inserted: 1 } });
    expect(timesWritten(created.diff)).toEqual([created.at]);
    expect(created.diff.workflow_messages?.inserted[0]).toMatchObject({
      run_id: 'run-1',
      target_session_id: 'S',
      kind: 'step',
      source_id: 'request-1',
      status: 'pending',
      order_number: 1,
    });
    expect(JSON.parse(blobText(f.connection, created.diff.workflow_messages?.inserted[0]?.content_hash))).toEqual(content);
    const id = created.result.workflowMessageId;
    const sent = written(f, () => f.store.markWorkflowMessageSent({ workflowMessageId: id, targetSessionId: 'S', piSessionEntryId: 'entry-1' }));
    expect(writeShape(sent.diff)).toEqual({ workflow_messages: { updated: [['pi_session_entry_id', 'status', 'updated_at']] } });
    expect(sent.diff.workflow_messages?.updated[0]?.after).toMatchObject({ status: 'sent', pi_session_entry_id: 'entry-1', updated_at: sent.at });
    const turn = written(f, () => f.store.startWorkflowTurn({ workflowTurnId: 'turn-1', workflowMessageId: id, runId: 'run-1', targetSessionId: 'S' }));
    expect(writeShape(turn.diff)).toEqual({ workflow_turns: { inserted: 1 } });
    expect(turn.diff.workflow_turns?.inserted[0]).toMatchObject({ workflow_turn_id: 'turn-1', state: 'started', started_at: turn.at, ended_at: null });
  });
});

describe.each(KINDS)(
  'cancel on $kind: the dependents of pi-workflows’ tables, which our own file has since migration 0009 (docs/PI-WORKFLOWS-FILES.md §5)',
  (kind) => {
    test('pending effect cancelled, applying effect ambiguous with its attempt interrupted (where the file keeps attempts), each bumped with effect.* by control; unresolved decision resolved cancelled', () => {
      const f = fixture(kind);
      // effect_attempts is a table of pi-workflows files only: our own file keeps no attempts.
      const keepsAttempts = f.kind === PI;
      runWithInteractionOn(f, 'run-1');
      const at0 = f.clock.t - 1_000;
      const blob = (text: string): Buffer => {
        const bytes = Buffer.from(text, 'utf8');
        const hash = createHash('sha256').update(bytes).digest();
        f.connection
          .prepare('INSERT OR IGNORE INTO blobs(blob_hash, media_type, byte_length, content, created_at) VALUES (?, ?, ?, ?, ?)')
          .run(hash, 'application/json', bytes.length, bytes, at0);
        return hash;
      };
      const runResource = resourceOf(f, 'run-1');
      f.connection.transaction(() => {
        for (const [effectId, status, attempts] of [
          ['effect-a', 'pending', 0],
          ['effect-b', 'applying', 1],
          ['effect-c', 'applied', 1],
        ] as const) {
          const resourceId = `effect-resource-${effectId}`;
          f.connection
            .prepare("INSERT INTO resources(resource_id, resource_type, aggregate_key, revision, created_at, updated_at) VALUES (?, 'effect', ?, 1, ?, ?)")
            .run(resourceId, effectId, at0, at0);
          f.connection.prepare('INSERT INTO leases(resource_id, generation) VALUES (?, 0)').run(resourceId);
          f.connection
            .prepare(
              `INSERT INTO effects(effect_id, resource_id, source_resource_id, source_revision, effect_type, idempotency_key, payload_hash,
               owner_scope, status, attempt_count, created_at, updated_at) VALUES (?, ?, ?, 1, 'http.post', ?, ?, 'run', ?, ?, ?, ?)`,
            )
            .run(effectId, resourceId, runResource, effectId, blob(`{"effect":"${effectId}"}`), status, attempts, at0, at0);
          if (attempts > 0 && keepsAttempts) {
            f.connection
              .prepare("INSERT INTO effect_attempts(effect_id, attempt_number, owner_id, lease_generation, started_at) VALUES (?, 1, 'host-1', 1, ?)")
              .run(effectId, at0);
          }
        }
        f.connection
          .prepare(
            `INSERT INTO resources(resource_id, resource_type, aggregate_key, revision, created_at, updated_at) VALUES ('decision-resource', 'decision', 'decision-1', 1, ?, ?)`,
          )
          .run(at0, at0);
        f.connection
          .prepare(
            `INSERT INTO human_decisions(decision_id, resource_id, run_id, attempt_id, audience, title, subject_hash, presentation_hash, choices_hash,
             request_digest, presentation_revision, request_hash, created_at)
           VALUES ('decision-1', 'decision-resource', 'run-1', 'attempt-run-1', 'origin', 'Pick', ?, ?, ?, ?, 1, ?, ?)`,
          )
          .run(blob('{"s":1}'), blob('{"p":1}'), blob('[1]'), Buffer.alloc(32, 7), blob('{"r":1}'), at0);
      })();
      const { diff, at } = written(f, () => f.store.cancelWorkflowRun({ runId: 'run-1', claimToken: 'token-run-1' }));
      expect(timesWritten(diff)).toEqual([at]);
      const cancelText = diff.run_queue?.updated[0]?.after.error_hash;
      expect(writeShape(diff)).toMatchObject({
        effects: {
          updated: [
            ['error_hash', 'settled_at', 'status', 'updated_at'],
            ['error_hash', 'settled_at', 'status', 'updated_at'],
          ],
        },
        ...(keepsAttempts ? { effect_attempts: { updated: [['error_hash', 'finished_at', 'outcome']] } } : {}),
        human_decision_resolutions: { inserted: 1 },
        resources: {
          updated: [
            ['revision', 'updated_at'],
            ['revision', 'updated_at'],
            ['revision', 'updated_at'],
          ],
        },
        events: { inserted: 3 },
      });
      expect(diff.effects?.updated.map((update) => [update.key, update.after.status, update.after.error_hash, update.after.next_attempt_at])).toEqual([
        ['effect-a', 'cancelled', cancelText, null],
        ['effect-b', 'ambiguous', cancelText, null],
      ]);
      if (keepsAttempts) {
        expect(diff.effect_attempts?.updated[0]?.after).toMatchObject({
          effect_id: 'effect-b',
          outcome: 'interrupted',
          finished_at: at,
          error_hash: cancelText,
        });
      } else {
        expect(diff.effect_attempts).toBeUndefined();
      }
      expect(diff.human_decision_resolutions?.inserted[0]).toEqual({
        decision_id: 'decision-1',
        outcome: 'cancelled',
        provenance: 'explicit_cancel',
        response_hash: null,
        reason: 'Workflow run cancelled',
        channel: null,
        actor_id: 'runner-1',
        request_digest: '07'.repeat(32),
        resolved_at: at,
      });
      expect(eventsWritten(f, diff).map((event) => [event.type, event.resourceRevision, event.actor, event.leaseGeneration, event.payload])).toEqual([
        ['effect.cancelled', 2, ['control', 'runner-1'], null, { runId: 'run-1', reason: 'workflowCancelled' }],
        ['effect.ambiguous', 2, ['control', 'runner-1'], null, { runId: 'run-1', reason: 'workflowCancelled' }],
        ['run.queue_cancelled', 3, ['session', 'runner-1'], 1, { status: 'cancelled', code: 'cancelled', error: 'Workflow run cancelled' }],
      ]);
      // Effects have no viewer row: the viewer deltas are the run's only.
      expect(deltasWritten(f, diff)).toEqual([...bumpDeltas(3), ...summaryReplay(4)]);
    });
  },
);

describe('both kinds of file', () => {
  test('every case above wrote the same rows to the shared tables of our own file and of a pi-workflows file (the columns both have)', () => {
    const own = recorded.get(OWN) ?? new Map();
    const pi = recorded.get(PI) ?? new Map();
    expect([...pi.keys()]).toEqual([...own.keys()]);
    expect(own.size).toBeGreaterThan(20);
    for (const [name, ours] of own) {
      const theirs = pi.get(name);
      if (theirs === undefined) throw new Error(`no pi-workflows diff for ${name}`);
      const common = (table: string) => new Set([...ours.columns(table)].filter((column) => theirs.columns(table).has(column)));
      expect(projected(theirs.diff, common), name).toEqual(projected(ours.diff, common));
    }
  });
});
