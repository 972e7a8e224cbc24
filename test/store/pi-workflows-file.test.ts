/**
 * docs/PI-WORKFLOWS-FILES.md §1–§2 at the store level: the kind of file is recognised at open (our own, a pi-workflows
 * state file, anything else refused untouched); a pi-workflows file is checked for every table
 * and column the read side uses; opened read-only (asked for, or a release this server does not
 * write, docs/PI-WORKFLOWS-FILES.md §2) it is never changed and every write is refused; every
 * read works on it (also on a file holding only those columns). Read-write serving is
 * test/store/pi-workflows-read-write.test.ts.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { projectIdFor, WorkflowStore, type WorkflowRunRecord } from '../../src/store/index.js';
import {
  createPiWorkflowsFile,
  openLikePiWorkflows,
  piWorkflowsOpenCheck,
  seedPiWorkflowsRuns,
  type PiWorkflowsFileFacts,
  type PiWorkflowsFileOptions,
  type SeededRuns,
} from '../../fixtures/pi-workflows-file.js';
import { expectStoreError, reserveInput, T0, tempDir } from '../helpers/store-fixtures.js';
import { connectionOf } from '../helpers/store-internals.js';

let dir: string;
let path: string;
beforeEach(() => {
  dir = tempDir('pi-file-');
  path = join(dir, 'state.sqlite');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const fileHash = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

function schemaRows(file: string): unknown[] {
  const connection = new Database(file, { readonly: true });
  try {
    return connection.prepare('SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name').all();
  } finally {
    connection.close();
  }
}

/** A seeded pi-workflows file, closed as pi-workflows leaves it. */
function seededFile(options: PiWorkflowsFileOptions = {}): { facts: PiWorkflowsFileFacts; seeded: SeededRuns } {
  const writer = createPiWorkflowsFile(path, options);
  const seeded = seedPiWorkflowsRuns(writer, T0);
  writer.close();
  return { facts: writer.facts, seeded };
}

const open = (options: { readOnly?: boolean } = {}): WorkflowStore => WorkflowStore.open({ path, projectPath: dir, ...options });

describe('a pi-workflows state file', () => {
  it.each([
    ['the 0.16 layout (the identity a real 0.16.2 file carries)', {}, true],
    ['an unlisted layout', { schemaDigest: 'ddl' as const }, false],
  ])('%s is recognised; read-only (query_only) when asked or when its layout is not written', (_name, options, written) => {
    const { facts } = seededFile(options);
    const digest = facts.digest.toString('hex');
    expect(digest === '0469f429aad9046cacf63bf9df4ef8c98277ba633103a2478d9fc40226666327').toBe(written);
    const writeRefusal = written
      ? null
      : `its unlisted layout (schema digest ${digest.slice(0, 12)}…, app version 0.14.0) is not one this server writes (it writes the layout of pi-workflows 0.16.1, 0.16.2: schema digest 0469f429aad9…)`;
    for (const readOnly of [true, false]) {
      const store = open({ readOnly });
      try {
        expect(store.file).toEqual({
          kind: 'pi-workflows',
          schemaVersion: 1,
          appVersion: '0.14.0',
          schemaDigest: digest,
          layout: written ? { schemaDigest: digest, schemaVersion: 1, appVersion: '0.14.0', releases: ['0.16.1', '0.16.2'] } : null,
          tableCount: 47,
          optionalColumns: {},
          writeRefusal,
        });
        const servedReadOnly = readOnly || writeRefusal !== null;
        expect(store.readOnly).toBe(servedReadOnly);
        expect(connectionOf(store).readonly).toBe(servedReadOnly);
        expect(connectionOf(store).pragma('query_only', { simple: true })).toBe(servedReadOnly ? 1 : 0);
        expect(store.projectId).toBe(servedReadOnly ? null : projectIdFor(realpathSync(dir)));
      } finally {
        store.close();
      }
    }
  });

  it.each([
    ['0.16 opened read-only', {}, { readOnly: true }],
    ['an unlisted layout (not written)', { schemaDigest: 'ddl' as const }, {}],
  ])('%s is left byte for byte untouched: no migration, no prune, no project row; pi-workflows still accepts it', (_name, fileOptions, openOptions) => {
    const { facts, seeded } = seededFile(fileOptions);
    const before = fileHash(path);
    const schema = schemaRows(path);
    expect(piWorkflowsOpenCheck(facts)).toEqual([]);
    for (let round = 0; round < 2; round += 1) {
      const store = open(openOptions);
      expect(store.listWorkflowRunSlice(undefined, { limit: 101, inverted: false })).toHaveLength(8);
      expect(store.readViewerDeltas('run-a3', 1)?.kind).toBe('deltas');
      store.close();
      expect(fileHash(path)).toBe(before);
    }
    expect(schemaRows(path)).toEqual(schema);
    expect(piWorkflowsOpenCheck(facts)).toEqual([]);
    const connection = new Database(path, { readonly: true });
    try {
      expect(connection.pragma('application_id', { simple: true })).toBe(0x50495746);
      expect(connection.pragma('user_version', { simple: true })).toBe(1);
      expect(connection.prepare('SELECT count(*) AS n FROM projects').get()).toEqual({ n: 0 });
      const blobs = (connection.prepare('SELECT blob_hash FROM blobs').all() as Array<{ blob_hash: Buffer }>).map((row) => row.blob_hash.toString('hex'));
      for (const hash of seeded.foreignOnlyBlobs) expect(blobs).toContain(hash);
    } finally {
      connection.close();
    }
  });

  it('while pi-workflows has it open with its schema still in the WAL (stale header), it is still recognised: untouched read-only, read-write by default', () => {
    const writer = createPiWorkflowsFile(path);
    writer.connection.pragma('wal_autocheckpoint = 0');
    seedPiWorkflowsRuns(writer, T0);
    try {
      expect(readFileSync(path).readUInt32BE(68)).toBe(0); // the header does not show the application id yet
      const before = fileHash(path);
      const store = open({ readOnly: true });
      try {
        expect(store.file.kind).toBe('pi-workflows');
        expect(store.readOnly).toBe(true);
        expect(store.getWorkflowRun('restart-b2')?.runStateStatus).toBe('completed');
      } finally {
        store.close();
      }
      expect(fileHash(path)).toBe(before);
      const writing = open();
      try {
        expect(writing.file.kind).toBe('pi-workflows');
        expect(writing.readOnly).toBe(false);
        expect(writing.getWorkflowRun('restart-b2')?.runStateStatus).toBe('completed');
      } finally {
        writing.close();
      }
    } finally {
      writer.close();
    }
    expect(piWorkflowsOpenCheck(writer.facts)).toEqual([]);
  });

  it.each([
    ['0.16 opened read-only', {}, { readOnly: true }],
    ['an unlisted layout (not written)', { schemaDigest: 'ddl' as const }, {}],
  ])('%s refuses every write with Controller store is read-only, writing nothing', (_name, fileOptions, openOptions) => {
    seededFile(fileOptions);
    const before = fileHash(path);
    const store = open(openOptions);
    try {
      const writes: Array<() => unknown> = [
        () => store.reserveWorkflowRun(reserveInput('new-run')),
        () => store.restartWorkflowRun({ runId: 'run-b', originSessionId: 'session-2' }),
        () => store.claimWorkflowRun({ runId: 'run-h', runnerId: 'r', claimToken: 't', leaseMs: 1_000 }),
        () => store.claimNextWorkflowRun({ runnerId: 'r', claimToken: 't', leaseMs: 1_000 }),
        () => store.parkWorkflowRun({ runId: 'run-a3', claimToken: 'token-a3' }),
        () => store.settleWorkflowRun({ runId: 'run-a3', claimToken: 'token-a3', status: 'completed' }),
        () => store.cancelWorkflowRun({ runId: 'run-h' }),
        () => store.recordViewerDeltas('run-a3', [{ targetType: 'summary' }]),
      ];
      for (const write of writes) expectStoreError(write, 'Controller store is read-only', 'forbidden');
    } finally {
      store.close();
    }
    expect(fileHash(path)).toBe(before);
  });

  it('serves the run records as pi-workflows wrote them: lineage, fingerprints, headless, claim, deltas', () => {
    const { seeded } = seededFile();
    const store = open();
    try {
      const runs = new Map(store.getWorkflowRuns([...seeded.chainA, ...seeded.chainB, seeded.headless]).map((run) => [run?.runId, run as WorkflowRunRecord]));
      expect(runs.get('run-a3')).toMatchObject({
        rootRunId: 'run-a',
        parentRunId: 'run-a2',
        lineageKind: 'continuation',
        status: 'running',
        runStateStatus: 'running',
        claim: { ownerId: 'host-1', ownerType: 'host', leaseGeneration: 1 },
        input: { topic: 'alpha', step: 3 },
      });
      expect(runs.get('restart-b1')).toMatchObject({
        rootRunId: 'run-b',
        lineageKind: 'restart',
        restartNumber: 1,
        parentTerminalFingerprint: seeded.fingerprintsB[0],
        terminalFingerprint: seeded.fingerprintsB[1],
        errorCode: 'failed',
        errorMessage: 'beta broke again',
      });
      expect(runs.get('run-b')?.terminalFingerprint).toBe(seeded.fingerprintsB[0]);
      expect(runs.get('restart-b2')).toMatchObject({ restartNumber: 2, parentTerminalFingerprint: seeded.fingerprintsB[1], finalOutput: { merged: true } });
      expect(runs.get('run-h')).toMatchObject({ executionMode: 'headless', originSessionId: null, status: 'queued' });
      expect(store.lineageSlice('run-b', { limit: 10, inverted: false }).map(({ run }) => run.runId)).toEqual(seeded.chainB);
      expect(store.childrenOfRuns(['run-b', 'restart-b1'], 'restart').map((list) => list.map((run) => run.runId))).toEqual([['restart-b1'], ['restart-b2']]);
      expect(store.latestRunIdsOfChains(['run-a', 'run-b', 'run-h'])).toEqual(['run-a3', 'restart-b2', 'run-h']);
      expect(store.chainSizes(['run-a', 'run-b', 'run-h'])).toEqual([3, 3, 1]);
      const read = store.readViewerDeltas('run-a3', 3);
      expect(read?.kind).toBe('deltas');
      expect(read?.kind === 'deltas' ? read.batches.map((batch) => batch.deltas.map((delta) => [delta.targetType, delta.targetKey])) : []).toEqual([
        [
          ['summary', ''],
          ['replay', ''],
        ],
        [['timeline', 'step-1']],
        [['timeline', 'step-2']],
        [['timeline', 'step-3']],
      ]);
    } finally {
      store.close();
    }
  });

  it('a file holding only the tables and columns READ_SIDE_COLUMNS lists serves every read', () => {
    const { seeded } = seededFile({ readSideOnly: true });
    const store = open();
    try {
      expect(store.file).toMatchObject({ kind: 'pi-workflows', tableCount: 13, optionalColumns: {} });
      const filters = [
        undefined,
        { status: ['failed' as const] },
        { queueStatus: ['done' as const] },
        { rootRunId: 'run-b' },
        { parentRunId: 'run-a' },
        { lineageKind: 'restart' as const },
        { originSessionId: 'session-1' },
        { workflowName: 'review' },
      ];
      for (const filter of filters) {
        store.listWorkflowRunSlice(filter, { limit: 3, inverted: false, after: { at: seeded.end, runId: 'zzz' } });
        store.listWorkflowRunSlice(filter, { limit: 3, inverted: true, before: { at: 0, runId: '' } });
        store.countWorkflowRuns(filter);
      }
      expect(store.countWorkflowRuns()).toBe(8);
      expect(store.lineageSlice('run-a', { limit: 2, inverted: false }).map(({ run }) => run.runId)).toEqual(['run-a', 'run-a2']);
      expect(store.childrenOfRuns(['run-a'])[0]?.map((run) => run.runId)).toEqual(['run-a2']);
      expect(store.latestRunIdsOfChains(['run-a'])).toEqual(['run-a3']);
      expect(store.chainSizes(['run-b'])).toEqual([3]);
      expect(store.chainViewerHeads('run-a').size).toBe(3);
      expect(store.readViewerDeltas('run-a3', 1)?.kind).toBe('deltas');
      expect(store.getWorkflowRun('restart-b2')?.terminalFingerprint).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      store.close();
    }
  });
});

describe('files that are refused at open, untouched', () => {
  /** Refused read-write and read-only with `message`; the file's bytes unchanged; a file not in WAL mode gets no `-wal` file. */
  function expectRefused(message: string): void {
    const before = fileHash(path);
    const walMode = readFileSync(path)[18] === 2;
    expectStoreError(() => open(), message, 'integrity');
    expectStoreError(() => open({ readOnly: true }), message, 'integrity');
    expect(fileHash(path)).toBe(before);
    if (!walMode) expect(existsSync(`${path}-wal`)).toBe(false);
  }

  /** An empty pi-workflows file (schema and schema_meta only). */
  const emptyFile = (options: PiWorkflowsFileOptions): PiWorkflowsFileFacts => {
    const writer = createPiWorkflowsFile(path, options);
    writer.close();
    return writer.facts;
  };

  it('a pi-workflows file of an unknown schema version, naming its version and app version', () => {
    emptyFile({ schemaVersion: 2, appVersion: '0.20.0' });
    expectRefused(
      `pi-workflows state file ${path} has schema version 2 (app version 0.20.0), which this server cannot read (it reads schema version 1); it was not changed`,
    );
  });

  it('a pi-workflows file without a column or table the read side uses (the 0.12 layout), naming them all', () => {
    // What pi-workflows 0.12.1 lacks of the read side: the lineage columns, run sources and the viewer log.
    // Its schema digest and app version are invented here (the SHA-256 of this DDL, 0.12.1): an unlisted layout.
    const missing = [
      'runs.root_run_id',
      'runs.lineage_kind',
      'runs.restart_number',
      'runs.parent_terminal_fingerprint',
      'run_sources',
      'viewer_runs',
      'viewer_deltas',
    ];
    const digest = emptyFile({ schemaDigest: 'ddl', appVersion: '0.12.1', drop: missing }).digest.toString('hex');
    expectRefused(
      `pi-workflows state file ${path} (schema version 1, unlisted layout (schema digest ${digest.slice(0, 12)}…, app version 0.12.1)) lacks what this server reads: ` +
        'runs.root_run_id, runs.lineage_kind, runs.restart_number, runs.parent_terminal_fingerprint, table run_sources, table viewer_runs, table viewer_deltas; it was not changed',
    );
  });

  it('a database of another program', () => {
    const connection = new Database(path);
    connection.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); CREATE TABLE tags (name TEXT)');
    connection.close();
    expectRefused(
      `Not a workflow state database: ${path} holds 2 tables (notes, tags) but neither this server's schema_migrations table nor a pi-workflows schema_meta (application_id 0x00000000); it was not changed`,
    );
  });

  it('the pi-workflows application id without schema_meta', () => {
    const connection = new Database(path);
    connection.exec('CREATE TABLE runs (run_id TEXT PRIMARY KEY)');
    connection.pragma('application_id = 1346983750');
    connection.close();
    expectRefused(`Not a workflow state database: ${path} carries the pi-workflows application id 0x50495746 but has no schema_meta table; it was not changed`);
  });

  it('a pi-workflows schema_meta under another application id, or another schema name', () => {
    emptyFile({ applicationId: 7 });
    expectRefused(`Not a workflow state database: ${path} has a pi-workflows schema_meta but application_id 0x00000007, not 0x50495746; it was not changed`);
    for (const file of [path, `${path}-wal`, `${path}-shm`]) rmSync(file, { force: true });
    emptyFile({ schemaName: 'something-else' });
    expectRefused(
      `Not a workflow state database: ${path} has a schema_meta table without a pi-workflows row (schema_name "something-else"); it was not changed`,
    );
  });

  it('a pi-workflows file whose user_version disagrees with its schema_meta', () => {
    emptyFile({ userVersion: 3 });
    expectRefused(`pi-workflows state file ${path} has user_version 3 but schema_meta schema_version 1 (app version 0.14.0); it was not changed`);
  });
});

describe('our own file behind a WAL with frames (a writer still has it open)', () => {
  it('is looked at read-only first, then opened read-write as asked', () => {
    WorkflowStore.open({ path, projectPath: dir }).close();
    const other = openLikePiWorkflows(path);
    other.pragma('wal_autocheckpoint = 0');
    try {
      other.prepare('INSERT INTO projects(project_id, canonical_path, created_at) VALUES (?, ?, ?)').run('project-x', '/elsewhere', 1);
      expect(existsSync(`${path}-wal`)).toBe(true);
      const store = open();
      try {
        expect(store.file).toEqual({ kind: 'own' });
        expect(store.readOnly).toBe(false);
        expect(store.reserveWorkflowRun(reserveInput('run-1')).run.runId).toBe('run-1');
      } finally {
        store.close();
      }
    } finally {
      other.close();
    }
  });
});
