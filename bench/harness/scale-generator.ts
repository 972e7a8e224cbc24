/**
 * Builds big store files for the scale benchmark in minutes, not through
 * the store's per-run code (≈ 600 runs/s here, half an hour for 1,000,000 runs):
 *
 * 1. A template block of {@link TEMPLATE_CHAINS} chains of 5 runs (every tenth with a restart)
 *    is built through the store's own operations into a template file, so every row, hash and
 *    invariant is what the store writes.
 * 2. The target file is created by `WorkflowStore.open` (migrations, the same project), then
 *    the block is cloned into it with `INSERT … SELECT` from the attached template, once per
 *    block `g000001-`, `g000002-`, …: run ids, session ids and aggregate keys get the block's
 *    prefix, resource ids are recomputed from them (`resourceIdFor`, docs/STORE-RULES.md §3.3), event ids
 *    are fresh, change sequence numbers and every timestamp are shifted past the previous
 *    block, so newer blocks are newer runs. Blobs, definitions and the project row are shared
 *    (content-addressed, identical). Then the run-change head is set to the last change.
 * 3. The file is checked with the store's own reads: the run count, the newest page, one
 *    chain's lineage against the template's.
 *
 * Files are cached under `<tmpdir>/pi-workflows-scale-v<GENERATOR_VERSION>/` by run count, so
 * repeated bench runs reuse them (a cached file is first migrated in place to this code's schema
 * by a read-write open); bump {@link GENERATOR_VERSION} when this generator changes.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { loadMigrations, WorkflowStore } from '../../src/store/index.js';
import { resourceIdFor } from '../../src/store/values.js';
import { buildChain } from './chains.js';
import { steppingClock } from './store-inputs.js';

/**
 * Bump when the generator changes (or a schema change cannot be migrated in place): cached files
 * of other versions are not reused. Schema migrations alone are applied to cached files in place.
 */
export const GENERATOR_VERSION = 1;
/** Chains per template block (5 runs each). */
export const TEMPLATE_CHAINS = 100;
/** Runs per chain of the template. */
export const CHAIN_LENGTH = 5;
const BLOCK_RUNS = TEMPLATE_CHAINS * CHAIN_LENGTH;
/** Blocks cloned per transaction. */
const BLOCKS_PER_TRANSACTION = 20;

/** Columns holding a run id, a session id or another per-run key: prefixed per block. */
const KEY_COLUMNS = new Set(['run_id', 'parent_run_id', 'root_run_id', 'origin_session_id', 'aggregate_key', 'actor_id']);
/** Epoch-ms columns: shifted per block. */
const TIME_COLUMNS = new Set([
  'created_at',
  'updated_at',
  'finished_at',
  'started_at',
  'available_at',
  'recorded_at',
  'acquired_at',
  'heartbeat_at',
  'expires_at',
]);
/** Copied once (shared, content-addressed or global), or left to the target's own rows. */
const SHARED_TABLES = new Set(['projects', 'blobs', 'workflow_definitions', 'schema_migrations', 'run_change_head', 'sqlite_sequence']);
/** Tables the target's own triggers fill as the runs are cloned (cloning them too would count twice). */
const TRIGGER_KEPT_TABLES = new Set(['run_chain_sizes']);

/** The directory cached files live in. */
export function scaleCacheDir(): string {
  return join(tmpdir(), `pi-workflows-scale-v${GENERATOR_VERSION}`);
}

/** What {@link generateStoreFile} built or found. */
export interface GeneratedFile {
  path: string;
  /** The project path the runs are reserved under (open the store with it). */
  projectPath: string;
  runs: number;
  /** True when the cached file was reused. */
  cached: boolean;
  /** Build time, ms (0 when cached). */
  buildMs: number;
  /** Time the read-write open took that migrated a cached file to this code's schema, ms (0 when it was up to date or new). */
  migrateMs: number;
  /** Root run id of a chain in the newest block and its runs in lineage order. */
  sampleChain: { rootRunId: string; runIds: string[] };
}

function blockPrefix(block: number): string {
  return `g${String(block).padStart(6, '0')}-`;
}

/** `<path>.building`, the file a build writes before it is renamed to `path`, with any leftover of an interrupted build (and its -wal, -shm) removed. */
function freshBuildPath(path: string): string {
  const building = `${path}.building`;
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${building}${suffix}`, { force: true });
  return building;
}

/** The sample chain: the template's first chain, in the newest block. */
function sampleChainOf(template: string[], blocks: number): { rootRunId: string; runIds: string[] } {
  const runIds = template.map((runId) => `${blockPrefix(blocks - 1)}${runId}`);
  return { rootRunId: runIds[0] as string, runIds };
}

/**
 * Returns a store file of `runs` runs (a multiple of 500), generating it when the cache lacks
 * it.
 *
 * @param progress progress lines
 * @throws Error when the generated file fails the store's own reads
 */
export function generateStoreFile(runs: number, progress: (text: string) => void = () => undefined): GeneratedFile {
  if (runs % BLOCK_RUNS !== 0) throw new Error(`runs must be a multiple of ${BLOCK_RUNS}`);
  const dir = scaleCacheDir();
  const projectPath = join(dir, 'project');
  mkdirSync(projectPath, { recursive: true });
  const blocks = runs / BLOCK_RUNS;
  const path = join(dir, `runs-${runs}.db`);
  const templatePath = join(dir, 'template.db');
  const templateChain = buildTemplate(templatePath, projectPath);
  const sampleChain = sampleChainOf(templateChain, blocks);
  if (existsSync(path)) {
    const migrateMs = migrateInPlace(path, projectPath, progress);
    return { path, projectPath, runs, cached: true, buildMs: 0, migrateMs, sampleChain };
  }

  const started = performance.now();
  const building = freshBuildPath(path);
  WorkflowStore.open({ path: building, projectPath }).close();
  const db = new Database(building);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -400000');
    db.pragma('foreign_keys = OFF');
    db.prepare('ATTACH DATABASE ? AS tpl').run(templatePath);
    const templateKeys = new Map(
      (
        db.prepare("SELECT resource_id, aggregate_key FROM tpl.resources WHERE resource_type = 'run'").all() as Array<{
          resource_id: string;
          aggregate_key: string;
        }>
      ).map((row) => [row.resource_id, row.aggregate_key]),
    );
    db.function('gen_key', { deterministic: true }, (value: unknown, prefix: unknown) => (value === null ? null : `${String(prefix)}${String(value)}`));
    db.function('gen_resource', { deterministic: true }, (value: unknown, prefix: unknown) => {
      const key = templateKeys.get(String(value));
      if (key === undefined) throw new Error(`template resource without a run: ${String(value)}`);
      return resourceIdFor('run', `${String(prefix)}${key}`);
    });
    db.function('gen_event_id', () => `event-${randomUUID()}`);
    const span =
      (
        db.prepare(`SELECT max(t) - min(t) + 1 AS span FROM (SELECT created_at AS t FROM tpl.runs UNION ALL SELECT updated_at FROM tpl.runs)`).get() as {
          span: number;
        }
      ).span + 1_000;
    const seqStride = ((db.prepare('SELECT max(change_seq) AS m FROM tpl.run_changes').get() as { m: number | null }).m ?? 0) + 1;

    db.exec('INSERT OR IGNORE INTO main.blobs SELECT * FROM tpl.blobs');
    db.exec('INSERT OR IGNORE INTO main.workflow_definitions SELECT * FROM tpl.workflow_definitions');
    const tables = (
      db.prepare("SELECT name FROM tpl.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string }>
    )
      .map((row) => row.name)
      .filter((name) => !SHARED_TABLES.has(name) && !TRIGGER_KEPT_TABLES.has(name));
    const statements = tables.map((table) => {
      const columns = (db.prepare(`SELECT name FROM pragma_table_info(?, 'tpl')`).all(table) as Array<{ name: string }>).map((row) => row.name);
      const select = columns.map((column) => {
        if (column === 'event_seq') return 'NULL';
        if (column === 'event_id') return 'gen_event_id()';
        if (column === 'change_seq') return `${column} + @seqShift`;
        if (column === 'resource_id') return `gen_resource(${column}, @prefix)`;
        if (KEY_COLUMNS.has(column)) return `gen_key(${column}, @prefix)`;
        if (TIME_COLUMNS.has(column)) return `${column} + @timeShift`;
        return `"${column}"`;
      });
      const order = columns.includes('event_seq') ? ' ORDER BY event_seq' : columns.includes('change_seq') ? ' ORDER BY change_seq' : '';
      return db.prepare(
        `INSERT INTO main."${table}"(${columns.map((column) => `"${column}"`).join(', ')}) SELECT ${select.join(', ')} FROM tpl."${table}"${order}`,
      );
    });
    const cloneBlocks = db.transaction((first: number, last: number) => {
      for (let block = first; block < last; block += 1) {
        const parameters = { prefix: blockPrefix(block), timeShift: block * span, seqShift: block * seqStride };
        for (const statement of statements) statement.run(parameters);
      }
    });
    for (let first = 0; first < blocks; first += BLOCKS_PER_TRANSACTION) {
      cloneBlocks(first, Math.min(blocks, first + BLOCKS_PER_TRANSACTION));
      if (first % (BLOCKS_PER_TRANSACTION * 25) === 0)
        progress(`generator: ${((first + BLOCKS_PER_TRANSACTION) * BLOCK_RUNS).toLocaleString('en-US')} of ${runs.toLocaleString('en-US')} runs`);
    }
    db.exec('UPDATE main.run_change_head SET change_seq = (SELECT max(change_seq) FROM main.run_changes)');
    db.exec('DETACH DATABASE tpl');
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  verify(building, projectPath, runs, sampleChain);
  for (const suffix of ['-wal', '-shm']) rmSync(`${building}${suffix}`, { force: true });
  renameSync(building, path);
  return { path, projectPath, runs, cached: false, buildMs: performance.now() - started, migrateMs: 0, sampleChain };
}

/**
 * Brings a cached file to this code's schema: when it lacks a migration this code has (a file
 * generated before the migration was added; the generator's output is the same either way, so
 * {@link GENERATOR_VERSION} stays), one read-write `WorkflowStore.open` applies the pending
 * migrations in place. Read-only opens (the template's, the bench servers' readers) need a fully
 * migrated file.
 *
 * @returns the time of that open, ms; 0 when the file was up to date
 */
function migrateInPlace(path: string, projectPath: string, progress: (text: string) => void): number {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  let applied: number;
  try {
    applied = (db.prepare('SELECT count(*) AS n FROM schema_migrations').get() as { n: number }).n;
  } finally {
    db.close();
  }
  const pending = loadMigrations().slice(applied);
  if (pending.length === 0) return 0;
  progress(`migrating cached ${path} in place: ${pending.map((migration) => migration.name).join(', ')}`);
  const started = performance.now();
  WorkflowStore.open({ path, projectPath }).close();
  const ms = performance.now() - started;
  progress(`migrated ${path} in ${(ms / 1000).toFixed(1)} s`);
  return ms;
}

/** Builds (or reuses) the template block through the store; returns its first chain's run ids in lineage order. */
function buildTemplate(path: string, projectPath: string): string[] {
  if (!existsSync(path)) {
    const building = freshBuildPath(path);
    const store = WorkflowStore.open({ path: building, projectPath, clock: steppingClock(Date.parse('2026-01-01T00:00:00Z')) });
    try {
      store.transaction(() => {
        for (let index = 0; index < TEMPLATE_CHAINS; index += 1)
          buildChain(store, `c${String(index).padStart(3, '0')}`, CHAIN_LENGTH, index % 10 === 0 ? [2] : []);
      });
    } finally {
      store.close();
    }
    renameSync(building, path);
  } else {
    migrateInPlace(path, projectPath, () => undefined);
  }
  const store = WorkflowStore.open({ path, projectPath, readOnly: true });
  try {
    return store.lineageSlice('c000-0', { limit: CHAIN_LENGTH + 1, inverted: false }).map((entry) => entry.run.runId);
  } finally {
    store.close();
  }
}

/** The store's own reads on the generated file. */
function verify(path: string, projectPath: string, runs: number, sampleChain: { rootRunId: string; runIds: string[] }): void {
  const store = WorkflowStore.open({ path, projectPath, readOnly: true });
  try {
    const count = store.countWorkflowRuns();
    if (count !== runs) throw new Error(`generated ${count} runs, expected ${runs}`);
    const lineage = store.lineageSlice(sampleChain.rootRunId, { limit: CHAIN_LENGTH + 1, inverted: false }).map((entry) => entry.run.runId);
    if (JSON.stringify(lineage) !== JSON.stringify(sampleChain.runIds)) {
      throw new Error(`lineage of ${sampleChain.rootRunId} reads ${JSON.stringify(lineage)}, expected ${JSON.stringify(sampleChain.runIds)}`);
    }
    const newest = store.listWorkflowRunSlice(undefined, { limit: 1, inverted: false });
    if (JSON.stringify(newest).includes(blockPrefix(runs / BLOCK_RUNS - 1)) === false) throw new Error('the newest run is not of the newest block');
    const head = store.viewerHead(sampleChain.rootRunId);
    if (head === undefined) throw new Error('no viewer row for a generated run');
  } finally {
    store.close();
  }
}
