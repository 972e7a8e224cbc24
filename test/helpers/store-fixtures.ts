/**
 * Shared fixtures of the store tests: a test store with an injected clock that tests advance
 * explicitly, a base reservation input, table snapshots to prove that a failing operation
 * wrote nothing, and small readers for events, viewer revisions and lease rows.
 *
 * Some helpers write rows with plain SQL where the store has no operation because the
 * workflow host does it (the engine reporting a run `running` or `waiting`); they are named
 * `host*` and say so.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { canonicalJson, StoreError, WorkflowStore, type ReserveWorkflowRunInput, type StoreErrorKind, type WorkflowRunRecord } from '../../src/store/index.js';
import { reserveWorkflowRunSkippingRestartPolicy } from '../../src/store/run-reservation.js';
import { connectionOf, storeContextOf } from './store-internals.js';

/** 2026-01-01T00:00:00.000Z, the tests' epoch. */
export const T0 = Date.parse('2026-01-01T00:00:00.000Z');

/** A clock the test moves by hand: `clock.now()` is what the store sees. */
export class TestClock {
  t: number;

  constructor(start = T0) {
    this.t = start;
  }

  /** The store's clock function. */
  readonly now = (): number => this.t;

  /** Moves time forward by `ms` and returns the new epoch ms. */
  advance(ms: number): number {
    this.t += ms;
    return this.t;
  }

  /** The current time as ISO-8601. */
  iso(offsetMs = 0): string {
    return new Date(this.t + offsetMs).toISOString();
  }
}

/** An open test store, its clock, its files. */
export interface TestStore {
  store: WorkflowStore;
  clock: TestClock;
  /** Database path (`:memory:` for in-memory stores). */
  path: string;
  /** Temporary directory holding the file (and used as project path). */
  dir: string;
  /** Closes the store and removes the temporary directory. */
  close(): void;
}

/** Options of {@link openTestStore}. */
export interface OpenTestStoreOptions {
  /** Use a database file in a temporary directory instead of `:memory:`. */
  file?: boolean;
  /** Project path (default: the temporary directory); `null` for a global store. */
  projectPath?: string | null;
  clock?: TestClock;
}

/** Makes a fresh temporary directory (the caller removes it). */
export function tempDir(prefix = 'store-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Opens a store on `:memory:` (or a temp file) with an injected clock and a project path. */
export function openTestStore(options: OpenTestStoreOptions = {}): TestStore {
  const dir = tempDir();
  const clock = options.clock ?? new TestClock();
  const path = options.file === true ? join(dir, 'state.db') : ':memory:';
  const store = WorkflowStore.open({
    path,
    projectPath: options.projectPath === undefined ? dir : options.projectPath,
    clock: clock.now,
  });
  return {
    store,
    clock,
    path,
    dir,
    close() {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** SHA-256 of a string's UTF-8 bytes as 64 lowercase hex. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The default definition snapshot. */
export const DEFINITION = {
  name: 'demo',
  version: 1,
  nodes: [
    { id: 'ask', type: 'agent', prompt: 'Ask the user' },
    { id: 'done', type: 'end' },
  ],
};

/** Definition digest as callers compute it: SHA-256 of the snapshot's canonical JSON (64 hex). */
export function digestHex(definition: unknown = DEFINITION): string {
  return sha256Hex(canonicalJson(definition));
}

/** The default workflow ref. */
export const WORKFLOW_REF = 'workflows/demo.json';

/**
 * A complete reservation input for `runId`. The origin session defaults to
 * `session-<runId>` so independent runs never share the one active queue slot of a session.
 */
export function reserveInput(runId: string, overrides: Partial<ReserveWorkflowRunInput> = {}): ReserveWorkflowRunInput {
  return {
    runId,
    workflowName: 'demo',
    workflowSourceRef: WORKFLOW_REF,
    workflowSource: { kind: 'file', path: WORKFLOW_REF, hash: digestHex() },
    definitionDigest: `sha256:${digestHex()}`,
    definitionSnapshot: DEFINITION,
    input: { topic: 'tests' },
    originSessionId: `session-${runId}`,
    ...overrides,
  };
}

/** Reserves a run with {@link reserveInput} through the store (every rule, the restart policy included). */
export function reserve(store: WorkflowStore, runId: string, overrides: Partial<ReserveWorkflowRunInput> = {}): WorkflowRunRecord {
  return store.reserveWorkflowRun(reserveInput(runId, overrides)).run;
}

/**
 * {@link reserve} WITHOUT the restart policy (`reserveWorkflowRunSkippingRestartPolicy`): the
 * seeds' rules only. For rows the policy refuses (a restart child with a foreign fingerprint, of
 * a cancelled or headless parent) and tests of the seeds' rules alone.
 */
export function reserveSkippingRestartPolicy(store: WorkflowStore, runId: string, overrides: Partial<ReserveWorkflowRunInput> = {}): WorkflowRunRecord {
  return reserveWorkflowRunSkippingRestartPolicy(storeContextOf(store), reserveInput(runId, overrides)).run;
}

/** Default claim parameters. */
export const LEASE_MS = 60_000;

/** Claims a run by id and fails the test when the claim is refused. */
export function claim(store: WorkflowStore, runId: string, runnerId = 'runner-1', claimToken = `token-${runId}`, leaseMs = LEASE_MS): WorkflowRunRecord {
  const record = store.claimWorkflowRun({ runId, runnerId, claimToken, leaseMs });
  if (record === undefined) throw new Error(`test setup: claim of ${runId} refused`);
  return record;
}

/** A full snapshot of every table: `SELECT *` ordered by all columns, keyed by table name. */
export type TableSnapshot = Record<string, unknown[]>;

/** Dumps every table of the store's database (sqlite_master's table list) in a stable order. */
export function snapshotTables(store: WorkflowStore): TableSnapshot {
  const connection = connectionOf(store);
  const tables = connection.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>;
  const snapshot: TableSnapshot = {};
  for (const { name } of tables) {
    const columns = connection.prepare(`SELECT name FROM pragma_table_info(?) ORDER BY cid`).all(name) as Array<{ name: string }>;
    const order = columns.map((_, index) => String(index + 1)).join(', ');
    snapshot[name] = connection.prepare(`SELECT * FROM "${name}" ORDER BY ${order}`).all();
  }
  return snapshot;
}

/** Runs `fn`, which must throw a {@link StoreError} with exactly `message` (and `kind`). */
export function expectStoreError(fn: () => unknown, message: string, kind?: StoreErrorKind): StoreError {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `expected a StoreError "${message}"`).toBeInstanceOf(StoreError);
  const error = thrown as StoreError;
  expect(error.message).toBe(message);
  if (kind !== undefined) expect(error.kind).toBe(kind);
  return error;
}

/** Like {@link expectStoreError}, and every table is unchanged afterwards. */
export function expectRejectedUnchanged(store: WorkflowStore, fn: () => unknown, message: string, kind?: StoreErrorKind): StoreError {
  const before = snapshotTables(store);
  const error = expectStoreError(fn, message, kind);
  expect(snapshotTables(store)).toEqual(before);
  return error;
}

/** Runs `fn` and asserts it changed no table; returns its result. */
export function expectNoWrite<T>(store: WorkflowStore, fn: () => T): T {
  const before = snapshotTables(store);
  const result = fn();
  expect(snapshotTables(store)).toEqual(before);
  return result;
}

/** One stored event of a run, payload parsed. */
export interface EventRow {
  seq: number;
  type: string;
  revision: number;
  actorType: string;
  actorId: string | null;
  leaseGeneration: number | null;
  payload: unknown;
  recordedAt: number;
}

/** Every event of a run's resource, in event_seq order. */
export function eventsOf(store: WorkflowStore, runId: string): EventRow[] {
  const rows = connectionOf(store)
    .prepare(
      `SELECT e.event_seq AS seq, e.event_type AS type, e.resource_revision AS revision, e.actor_type AS actorType,
         e.actor_id AS actorId, e.lease_generation AS leaseGeneration, b.content AS content, e.recorded_at AS recordedAt
       FROM events e JOIN runs r ON r.resource_id = e.resource_id
       LEFT JOIN blobs b ON b.blob_hash = e.payload_hash
       WHERE r.run_id = ? ORDER BY e.event_seq`,
    )
    .all(runId) as Array<Omit<EventRow, 'payload'> & { content: Buffer | null }>;
  return rows.map(({ content, ...row }) => ({
    ...row,
    payload: content === null ? null : (JSON.parse(content.toString('utf8')) as unknown),
  }));
}

/** The last event of a run. */
export function lastEvent(store: WorkflowStore, runId: string): EventRow {
  const events = eventsOf(store, runId);
  const event = events.at(-1);
  if (event === undefined) throw new Error(`no events for ${runId}`);
  return event;
}

/** The run resource's revision. */
export function resourceRevision(store: WorkflowStore, runId: string): number {
  const row = connectionOf(store)
    .prepare('SELECT res.revision FROM resources res JOIN runs r ON r.resource_id = res.resource_id WHERE r.run_id = ?')
    .get(runId) as { revision: number } | undefined;
  if (row === undefined) throw new Error(`no resource for ${runId}`);
  return row.revision;
}

/** A stored viewer revision: its deltas as `type` or `type/key`, with parsed patches. */
export interface ViewerRevisionRow {
  revision: number;
  targets: string[];
  patches: unknown[];
}

/** Every stored viewer delta of a run, grouped by revision, in order. */
export function viewerRevisions(store: WorkflowStore, runId: string): ViewerRevisionRow[] {
  const rows = connectionOf(store)
    .prepare(
      `SELECT d.presentation_revision AS revision, d.delta_index AS deltaIndex, d.target_type AS targetType,
         d.target_key AS targetKey, b.content AS content
       FROM viewer_deltas d JOIN blobs b ON b.blob_hash = d.patch_hash
       WHERE d.run_id = ? ORDER BY d.presentation_revision, d.delta_index`,
    )
    .all(runId) as Array<{ revision: number; deltaIndex: number; targetType: string; targetKey: string; content: Buffer }>;
  const result: ViewerRevisionRow[] = [];
  for (const row of rows) {
    let entry = result.at(-1);
    if (entry === undefined || entry.revision !== row.revision) {
      entry = { revision: row.revision, targets: [], patches: [] };
      result.push(entry);
    }
    expect(row.deltaIndex).toBe(entry.targets.length);
    entry.targets.push(row.targetKey === '' ? row.targetType : `${row.targetType}/${row.targetKey}`);
    entry.patches.push(JSON.parse(row.content.toString('utf8')) as unknown);
  }
  return result;
}

/** The run's viewer_runs row. */
export function viewerHead(store: WorkflowStore, runId: string): { presentation: number; retainedFrom: number } {
  const row = connectionOf(store)
    .prepare('SELECT presentation_revision AS presentation, retained_from_revision AS retainedFrom FROM viewer_runs WHERE run_id = ?')
    .get(runId) as { presentation: number; retainedFrom: number } | undefined;
  if (row === undefined) throw new Error(`no viewer row for ${runId}`);
  return row;
}

/** The four targets of a bump revision (docs/STORE-RULES.md §5), as {@link viewerRevisions} lists them. */
export const BUMP = ['summary', 'graph', 'replay', 'inspector/run'];
/** The summary + replay targets. */
export const SUMMARY_REPLAY = ['summary', 'replay'];

/** The targets of the viewer revisions recorded after revision `after`. */
export function targetsAfter(store: WorkflowStore, runId: string, after: number): string[][] {
  return viewerRevisions(store, runId)
    .filter((row) => row.revision > after)
    .map((row) => row.targets);
}

/** A run's lease row. */
export interface LeaseRow {
  generation: number;
  owner_type: string | null;
  owner_id: string | null;
  token_hash: Buffer | null;
  acquired_at: number | null;
  heartbeat_at: number | null;
  expires_at: number | null;
}

/** Reads a run's lease row. */
export function leaseOf(store: WorkflowStore, runId: string): LeaseRow {
  const row = connectionOf(store)
    .prepare(
      `SELECT l.generation, l.owner_type, l.owner_id, l.token_hash, l.acquired_at, l.heartbeat_at, l.expires_at
       FROM leases l JOIN runs r ON r.resource_id = l.resource_id WHERE r.run_id = ?`,
    )
    .get(runId) as LeaseRow | undefined;
  if (row === undefined) throw new Error(`no lease for ${runId}`);
  return row;
}

/** A lease row without owner, at `generation`. */
export function freeLease(generation: number): LeaseRow {
  return {
    generation,
    owner_type: null,
    owner_id: null,
    token_hash: null,
    acquired_at: null,
    heartbeat_at: null,
    expires_at: null,
  };
}

/** One row of a table, by its run id (runs, run_queue, run_bindings, viewer_runs). */
export function rowOf(store: WorkflowStore, table: string, runId: string): Record<string, unknown> {
  const row = connectionOf(store).prepare(`SELECT * FROM ${table} WHERE run_id = ?`).get(runId) as Record<string, unknown> | undefined;
  if (row === undefined) throw new Error(`no ${table} row for ${runId}`);
  return row;
}

/** Runs raw SQL on the test store's connection (fixtures standing in for the host). */
export function sql(store: WorkflowStore, text: string, ...params: unknown[]): void {
  connectionOf(store)
    .prepare(text)
    .run(...params);
}

/**
 * Host stand-in: the engine reports the run's durable status (`running`, or `waiting` with
 * finished_at as the CHECK wants). The store has no operation for this; the host writes it.
 */
export function hostSetRunStatus(store: WorkflowStore, runId: string, status: 'running' | 'waiting', at: number): void {
  sql(store, 'UPDATE runs SET status = ?, finished_at = ?, updated_at = ? WHERE run_id = ?', status, status === 'waiting' ? at : null, at, runId);
}

/**
 * Reserves and drives a run to "parked, run `waiting`" as the host does when the engine waits
 * for input: claim, engine reports waiting, release to parked.
 */
export function parkedWaitingRun(t: TestStore, runId: string, overrides: Partial<ReserveWorkflowRunInput> = {}): void {
  reserve(t.store, runId, overrides);
  claim(t.store, runId);
  hostSetRunStatus(t.store, runId, 'waiting', t.clock.t);
  if (!t.store.parkWorkflowRun({ runId, claimToken: `token-${runId}` })) throw new Error('test setup: park refused');
}

/** Reserves, claims and settles a run terminal (default `failed` with error `boom`). */
export function terminalRun(
  t: TestStore,
  runId: string,
  overrides: Partial<ReserveWorkflowRunInput> = {},
  status: 'completed' | 'failed' | 'timed_out' | 'cancelled' = 'failed',
): WorkflowRunRecord {
  reserve(t.store, runId, overrides);
  claim(t.store, runId);
  return t.store.settleWorkflowRun({
    runId,
    claimToken: `token-${runId}`,
    status,
    ...(status === 'failed' ? { error: 'boom' } : {}),
    ...(status === 'completed' ? { output: { answer: 42 } } : {}),
  });
}

/**
 * Installs a trigger that silently skips (RAISE(IGNORE)) every UPDATE of `table`, so an
 * operation's compare-and-set on it hits zero rows: the way to reach the "changed during …"
 * race texts without a second writer. Returns a function that drops it.
 */
export function ignoreUpdatesOf(store: WorkflowStore, table: string, when = '1'): () => void {
  const name = `test_ignore_${table}`;
  connectionOf(store).exec(`CREATE TEMP TRIGGER ${name} BEFORE UPDATE ON main.${table} WHEN ${when} BEGIN SELECT RAISE(IGNORE); END`);
  return () => connectionOf(store).exec(`DROP TRIGGER ${name}`);
}

/**
 * Reads the next `count` values of a feed stream, in order.
 *
 * @throws Error `stream ended after <n> events` when the stream finishes first.
 */
export async function take<T>(stream: AsyncIterator<T>, count: number): Promise<T[]> {
  const values: T[] = [];
  for (let index = 0; index < count; index += 1) {
    const item = await stream.next();
    if (item.done === true) throw new Error(`stream ended after ${index} events`);
    values.push(item.value);
  }
  return values;
}
