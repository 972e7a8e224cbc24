/**
 * docs/PI-WORKFLOWS-FILES.md over real HTTP and graphql-ws: a server started (read-write, as a new user would) on
 * a pi-workflows state file serves every query field (lineage, children, latestRun, the lineage
 * connection, filters, node), `viewerDeltas` and the subscriptions with resume; `/health` and the
 * start banner say what is open and whether it is written (docs/PI-WORKFLOWS-FILES.md §2). A
 * 0.16 file is written: after reserve+claim, park, claim and settle over GraphQL and the server's
 * shutdown, pi-workflows' open check still accepts it with its schema, ids and `schema_meta`
 * unchanged. Served read-only (`--read-only`, or a release this server does not write) every
 * mutation answers ForbiddenError saying why, and the main database file stays byte-identical.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ClaimWorkflowRunDocument,
  NodeDocument,
  ParkWorkflowRunDocument,
  ReserveWorkflowRunDocument,
  RestartWorkflowRunDocument,
  SettleWorkflowRunDocument,
  ViewerDeltasDocument,
  WorkflowRunDocument,
  WorkflowRunLineageDocument,
  WorkflowRunsDocument,
} from '../../schema/generated/graphql.js';
import {
  createPiWorkflowsFile,
  piWorkflowsIdentity,
  piWorkflowsOpenCheck,
  seedPiWorkflowsRuns,
  type PiWorkflowsFileFacts,
  type PiWorkflowsFileOptions,
  type SeededRuns,
} from '../../fixtures/pi-workflows-file.js';
import { DELTAS_SUBSCRIPTION, deltaEvents, revisionsOf, subscribeWs, untilRevision, wsClient, type DeltasData } from '../helpers/live-fixtures.js';
import { REPO_ROOT } from '../helpers/fault-fixtures.js';
import { reserveInput, startTestServer, T0, type TestServer } from '../helpers/server-fixture.js';

/** The schema digest a file made by pi-workflows 0.16.1 or 0.16.2 stores (docs/PI-WORKFLOWS-FILES.md §1). */
const DIGEST_0_16 = '0469f429aad9046cacf63bf9df4ef8c98277ba633103a2478d9fc40226666327';
/** A digest no pi-workflows release stores (invented: SHA-256 of `unlisted`). */
const UNLISTED = createHash('sha256').update('unlisted').digest();
const WRITES = 'it writes the layout of pi-workflows 0.16.1, 0.16.2: schema digest 0469f429aad9…';
const UNLISTED_LAYOUT = `unlisted layout (schema digest ${UNLISTED.toString('hex').slice(0, 12)}…, app version 0.14.0)`;
const NOT_WRITTEN = `its ${UNLISTED_LAYOUT} is not one this server writes (${WRITES})`;
const LAYOUT_0_16 = 'layout of pi-workflows 0.16.1, 0.16.2 (schema digest 0469f429aad9…, app version 0.14.0)';
const WRITTEN_LAYOUTS = [{ schemaDigest: DIGEST_0_16, appVersion: '0.14.0', releases: ['0.16.1', '0.16.2'] }];
const forbidden = (message: string) => ({ __typename: 'ForbiddenError', code: 'FORBIDDEN', message });

const fileHash = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

function fileFacts(path: string): { schema: unknown[]; applicationId: unknown; userVersion: unknown } {
  const connection = new Database(path, { readonly: true });
  try {
    return {
      schema: connection.prepare('SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name').all(),
      applicationId: connection.pragma('application_id', { simple: true }),
      userVersion: connection.pragma('user_version', { simple: true }),
    };
  } finally {
    connection.close();
  }
}

describe('serving a pi-workflows state file', () => {
  let dir: string;
  let path: string;
  let facts: PiWorkflowsFileFacts;
  let seeded: SeededRuns;
  let fx: TestServer;
  let client: Client;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pi-file-graphql-'));
    path = join(dir, 'state.sqlite');
    const writer = createPiWorkflowsFile(path);
    seeded = seedPiWorkflowsRuns(writer, T0);
    writer.close();
    facts = writer.facts;
    fx = await startTestServer({ dbPath: path });
    client = wsClient(fx.url);
  });
  afterAll(async () => {
    await client?.dispose();
    await fx?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves one run with its lineage fields, fingerprints and claim', async () => {
    const { workflowRun } = await fx.data(WorkflowRunLineageDocument, { runId: 'restart-b1', first: 2 });
    expect(workflowRun).toMatchObject({
      runId: 'restart-b1',
      status: 'FAILED',
      queueStatus: 'FAILED',
      rootRunId: 'run-b',
      parentRunId: 'run-b',
      lineageKind: 'RESTART',
      restartNumber: 1,
      parentTerminalFingerprint: seeded.fingerprintsB[0],
      terminalFingerprint: seeded.fingerprintsB[1],
      errorMessage: 'beta broke again',
      parent: { runId: 'run-b' },
      rootRun: { runId: 'run-b' },
      children: [{ runId: 'restart-b2', lineageKind: 'RESTART' }],
      restarts: [{ runId: 'restart-b2' }],
      continuations: [],
      restart: { runId: 'restart-b2' },
      continuation: null,
      latestRun: { runId: 'restart-b2' },
      lineage: {
        totalCount: 3,
        edges: [{ node: { runId: 'run-b', parentRunId: null } }, { node: { runId: 'restart-b1', parentRunId: 'run-b' } }],
        pageInfo: { hasNextPage: true },
      },
    });
    const after = workflowRun?.lineage.pageInfo.endCursor;
    const next = await fx.data(WorkflowRunLineageDocument, { runId: 'run-b', first: 2, after });
    expect(next.workflowRun?.lineage.edges.map((edge) => edge.node.runId)).toEqual(['restart-b2']);
    expect(next.workflowRun?.lineage.pageInfo.hasNextPage).toBe(false);

    const running = await fx.data(WorkflowRunDocument, { runId: 'run-a3' });
    expect(running.workflowRun).toMatchObject({
      status: 'RUNNING',
      queueStatus: 'RUNNING',
      lineageKind: 'CONTINUATION',
      claim: { ownerId: 'host-1', leaseGeneration: 1 },
    });
    const headless = await fx.data(WorkflowRunDocument, { runId: 'run-h' });
    expect(headless.workflowRun).toMatchObject({ executionMode: 'HEADLESS', originSessionId: null, queueStatus: 'QUEUED' });
    const node = await fx.data(NodeDocument, { id: running.workflowRun?.id as string });
    expect(node.node).toMatchObject({ __typename: 'WorkflowRun', runId: 'run-a3', status: 'RUNNING' });
  });

  it('lists runs newest first with filters, cursors and totals', async () => {
    const all = await fx.data(WorkflowRunsDocument, { first: 3 });
    expect(all.workflowRuns.totalCount).toBe(8);
    expect(all.workflowRuns.edges.map((edge) => edge.node.runId)).toEqual(['run-c', 'run-h', 'restart-b2']);
    const rest = await fx.data(WorkflowRunsDocument, { first: 10, after: all.workflowRuns.pageInfo.endCursor });
    expect(rest.workflowRuns.edges.map((edge) => edge.node.runId)).toEqual(['restart-b1', 'run-b', 'run-a3', 'run-a2', 'run-a']);
    const last = await fx.data(WorkflowRunsDocument, { last: 2 });
    expect(last.workflowRuns.edges.map((edge) => edge.node.runId)).toEqual(['run-a2', 'run-a']);
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ rootRunId: 'run-a' }, ['run-a3', 'run-a2', 'run-a']],
      [{ parentRunId: 'run-b' }, ['restart-b1']],
      [{ lineageKind: 'RESTART' }, ['restart-b2', 'restart-b1']],
      [{ status: ['FAILED'] }, ['restart-b1', 'run-b']],
      [{ queueStatus: ['DONE'] }, ['restart-b2', 'run-a2', 'run-a']],
      [{ originSessionId: 'session-1' }, ['run-a3', 'run-a2', 'run-a']],
      [{ originSessionId: 'session-h' }, []],
      [{ workflowName: 'review', rootRunId: 'run-b', status: ['COMPLETED'] }, ['restart-b2']],
    ];
    for (const [filter, expected] of cases) {
      const { workflowRuns } = await fx.data(WorkflowRunsDocument, { first: 10, filter });
      expect(
        workflowRuns.edges.map((edge) => edge.node.runId),
        JSON.stringify(filter),
      ).toEqual(expected);
      expect(workflowRuns.totalCount, JSON.stringify(filter)).toBe(expected.length);
    }
  });

  it('serves viewerDeltas and the delta subscription with resume, as pi-workflows recorded them', async () => {
    const page = await fx.data(ViewerDeltasDocument, { runId: 'run-a3', afterRevision: 5 });
    expect(page.workflowRun?.viewerDeltas).toMatchObject({ kind: 'DELTAS', currentRevision: 7, retainedFromRevision: 1 });
    expect(page.workflowRun?.viewerDeltas.batches.map((batch) => [batch.presentationRevision, batch.deltas.map((delta) => delta.targetKey)])).toEqual([
      [6, ['step-2']],
      [7, ['step-3']],
    ]);
    const replay = subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId: 'run-a3', afterRevision: 4 }, 'replay');
    await untilRevision(replay.collector, 7);
    expect(revisionsOf(replay.collector.events)).toEqual([5, 6, 7]);
    expect(deltaEvents(replay.collector.events)[0]).toMatchObject({
      deltas: [
        {
          targetType: 'TIMELINE',
          targetKey: 'step-1',
          patch: [
            { op: 'REPLACE', path: '/presentationRevision', value: 5 },
            { op: 'APPEND', path: '/items', value: [{ step: 1 }] },
          ],
        },
      ],
    });
    replay.unsubscribe();
    const stale = subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId: 'run-a3', afterRevision: 0 }, 'snapshot');
    await untilRevision(stale.collector, 7);
    expect(revisionsOf(stale.collector.events)).toEqual(['snapshot@7']);
    stale.unsubscribe();
  });

  it('says on /health which kind of file is open, and that it is written', async () => {
    expect(facts.digest.toString('hex')).toBe(DIGEST_0_16);
    const body = (await (await fetch(fx.healthUrl)).json()) as unknown;
    expect(body).toEqual({
      status: 'ok',
      database: {
        path,
        readOnly: false,
        kind: 'pi-workflows',
        piWorkflows: {
          schemaVersion: 1,
          appVersion: '0.14.0',
          schemaDigest: DIGEST_0_16,
          layoutReleases: ['0.16.1', '0.16.2'],
          optionalColumns: {},
          writable: true,
          readOnlyReason: null,
          writtenLayouts: WRITTEN_LAYOUTS,
        },
        quickCheck: 'ok',
        runChanges: { databaseId: fx.store.runChangeHead().databaseId, head: fx.store.runChangeHead().head },
      },
    });
  });
});

/** A seeded pi-workflows file in its own directory. */
function seededPiFile(options: PiWorkflowsFileOptions = {}): { dir: string; path: string; facts: PiWorkflowsFileFacts } {
  const dir = mkdtempSync(join(tmpdir(), 'pi-file-session-'));
  const path = join(dir, 'state.sqlite');
  const writer = createPiWorkflowsFile(path, options);
  seedPiWorkflowsRuns(writer, T0);
  writer.close();
  return { dir, path, facts: writer.facts };
}

describe('writing a pi-workflows 0.16 state file over GraphQL', () => {
  it('reserve+claim, park, claim, settle, then shutdown: pi-workflows still accepts the file, its schema, ids and schema_meta unchanged', async () => {
    const { dir, path, facts } = seededPiFile();
    try {
      const before = piWorkflowsIdentity(path);
      const fx = await startTestServer({ dbPath: path });
      try {
        const claim = { runnerId: 'host-7', claimToken: 'tok-life', leaseMs: 60_000 };
        const reserved = (await fx.data(ReserveWorkflowRunDocument, { input: reserveInput('life-1', { originSessionId: 'session-9', claim }) }))
          .reserveWorkflowRun;
        expect(reserved).toMatchObject({ __typename: 'ReserveWorkflowRunSuccess', adopted: false, run: { runId: 'life-1', queueStatus: 'STARTING' } });
        const parked = (await fx.data(ParkWorkflowRunDocument, { input: { runId: 'life-1', claimToken: 'tok-life' } })).parkWorkflowRun;
        expect(parked).toMatchObject({ __typename: 'ParkWorkflowRunSuccess', run: { queueStatus: 'PARKED' } });
        const again = (await fx.data(ClaimWorkflowRunDocument, { input: { runId: 'life-1', runnerId: 'host-7', claimToken: 'tok-2', leaseMs: 60_000 } }))
          .claimWorkflowRun;
        expect(again).toMatchObject({ __typename: 'ClaimWorkflowRunSuccess', run: { queueStatus: 'STARTING' } });
        const settled = (
          await fx.data(SettleWorkflowRunDocument, { input: { runId: 'life-1', claimToken: 'tok-2', status: 'COMPLETED', output: { ok: true } } })
        ).settleWorkflowRun;
        expect(settled).toMatchObject({ __typename: 'SettleWorkflowRunSuccess', run: { status: 'COMPLETED', queueStatus: 'DONE' } });
        expect((await fx.data(WorkflowRunsDocument, { first: 1 })).workflowRuns.totalCount).toBe(9);
        const listed = await fx.data(WorkflowRunsDocument, { first: 10, filter: { originSessionId: 'session-9' } });
        expect(listed.workflowRuns.edges.map((edge) => edge.node.runId)).toEqual(['life-1']);
      } finally {
        await fx.close();
      }
      expect(piWorkflowsOpenCheck(facts, before)).toEqual([]);
      const connection = new Database(path, { readonly: true });
      try {
        expect(connection.prepare("SELECT r.status, q.status AS queue FROM runs r JOIN run_queue q USING (run_id) WHERE run_id = 'life-1'").get()).toEqual({
          status: 'completed',
          queue: 'done',
        });
      } finally {
        connection.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const CHANGES = /* GraphQL */ `
  subscription Changes($after: String) {
    workflowRunChanges(after: $after) {
      __typename
      ... on WorkflowRunChange { cursor run { runId queueStatus } }
      ... on WorkflowRunChangesResetRequired { cursor }
    }
  }
`;
interface ChangesData {
  workflowRunChanges: { __typename: string; cursor: string; run?: { runId: string; queueStatus: string } };
}
const changeLabel = (event: { data?: ChangesData | null } | undefined): string =>
  `${event?.data?.workflowRunChanges.run?.runId ?? event?.data?.workflowRunChanges.__typename} ${event?.data?.workflowRunChanges.run?.queueStatus ?? ''}`;

describe('the run-list change feed on a pi-workflows file the server writes', () => {
  it('delivers the server’s own writes once, in order, and a cursor stays valid across a server restart', async () => {
    const { dir, path } = seededPiFile();
    try {
      let fx = await startTestServer({ dbPath: path });
      let client = wsClient(fx.url);
      let cursor: string;
      try {
        const page = await fx.data<{ workflowRuns: { changeCursor: string } }, Record<string, never>>('query { workflowRuns(first: 1) { changeCursor } }');
        await fx.data(ReserveWorkflowRunDocument, { input: reserveInput('feed-1', { originSessionId: 'session-f1' }) });
        const { collector, unsubscribe } = subscribeWs<ChangesData>(client, CHANGES, { after: page.workflowRuns.changeCursor }, 'changes');
        expect((await collector.take(1)).map(changeLabel)).toEqual(['feed-1 QUEUED']);
        await fx.data(ClaimWorkflowRunDocument, { input: { runId: 'feed-1', runnerId: 'host-1', claimToken: 'tok-f1', leaseMs: 60_000 } });
        await fx.data(ReserveWorkflowRunDocument, { input: reserveInput('feed-2', { originSessionId: 'session-f2' }) });
        const events = await collector.take(3);
        expect(events.map(changeLabel)).toEqual(['feed-1 QUEUED', 'feed-1 STARTING', 'feed-2 QUEUED']);
        cursor = events[2]?.data?.workflowRunChanges.cursor as string;
        unsubscribe();
      } finally {
        await client.dispose();
        await fx.close();
      }
      fx = await startTestServer({ dbPath: path });
      client = wsClient(fx.url);
      try {
        const { collector } = subscribeWs<ChangesData>(client, CHANGES, { after: cursor }, 'after-restart');
        // Nothing after the cursor yet: the first event is the write made now, nothing replayed twice.
        await fx.data(ParkWorkflowRunDocument, { input: { runId: 'feed-1', claimToken: 'tok-f1' } });
        expect((await collector.take(1)).map(changeLabel)).toEqual(['feed-1 PARKED']);
      } finally {
        await client.dispose();
        await fx.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a pi-workflows state file served read-only', () => {
  it.each([
    ['a file of the 0.16 layout with --read-only', {}, true, 'The server is read-only', 'the server was started read-only (--read-only)', DIGEST_0_16],
    [
      'a file of an unlisted layout',
      { schemaDigest: UNLISTED },
      false,
      `The server is read-only: the database is a pi-workflows state file and ${NOT_WRITTEN}`,
      NOT_WRITTEN,
      UNLISTED.toString('hex'),
    ],
  ])(
    '%s: every mutation answers ForbiddenError saying why, /health says so, the file stays byte-identical',
    async (_name, fileOptions, readOnly, message, reason, schemaDigest) => {
      const { dir, path, facts } = seededPiFile(fileOptions);
      try {
        const before = { hash: fileHash(path), facts: fileFacts(path) };
        const fx = await startTestServer({ dbPath: path, readOnly });
        const client = wsClient(fx.url);
        try {
          const results = [
            (await fx.data(ReserveWorkflowRunDocument, { input: reserveInput('new-1', { originSessionId: 'session-9' }) })).reserveWorkflowRun,
            (await fx.data(RestartWorkflowRunDocument, { input: { runId: 'restart-b1', originSessionId: 'session-2' } })).restartWorkflowRun,
            (await fx.data(ClaimWorkflowRunDocument, { input: { runId: 'run-h', runnerId: 'r', claimToken: 't', leaseMs: 1_000 } })).claimWorkflowRun,
            (await fx.data(ClaimWorkflowRunDocument, { input: { runnerId: 'r', claimToken: 't', leaseMs: 1_000 } })).claimWorkflowRun,
            (await fx.data(ParkWorkflowRunDocument, { input: { runId: 'run-a3', claimToken: 'token-a3' } })).parkWorkflowRun,
            (await fx.data(SettleWorkflowRunDocument, { input: { runId: 'run-a3', claimToken: 'token-a3', status: 'COMPLETED' } })).settleWorkflowRun,
          ];
          for (const result of results) expect(result).toEqual(forbidden(message));
          const health = (await (await fetch(fx.healthUrl)).json()) as { database: { readOnly: boolean; piWorkflows: unknown } };
          expect(health.database.readOnly).toBe(true);
          expect(health.database.piWorkflows).toMatchObject({
            appVersion: '0.14.0',
            schemaDigest,
            writable: false,
            readOnlyReason: reason,
            writtenLayouts: WRITTEN_LAYOUTS,
          });
          // A session: a query and a subscription's replay.
          await fx.data(WorkflowRunLineageDocument, { runId: 'restart-b1', first: 2 });
          const { collector } = subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId: 'restart-b1', afterRevision: 0 });
          await collector.take(1);
        } finally {
          await client.dispose();
          await fx.close();
        }
        expect(fileHash(path)).toBe(before.hash);
        expect(fileFacts(path)).toEqual(before.facts);
        expect(before.facts).toMatchObject({ applicationId: 0x50495746, userVersion: 1 });
        expect(piWorkflowsOpenCheck(facts)).toEqual([]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

describe('the server CLI on a pi-workflows state file', () => {
  it.each([
    ['an unlisted layout (not written)', { schemaDigest: UNLISTED }, [], `; served read-only: ${NOT_WRITTEN}; 8 runs`, false],
    ['the 0.16 layout', {}, [], `, ${LAYOUT_0_16}; served read-write; 8 runs`, true],
    [
      'the 0.16 layout with --read-only',
      {},
      ['--read-only'],
      `, ${LAYOUT_0_16}; served read-only: the server was started read-only (--read-only); 8 runs`,
      false,
    ],
  ])('%s: the start banner says how the file is served and why; /health the same', async (_name, fileOptions, flags, banner, writable) => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-file-cli-'));
    try {
      const path = join(dir, 'state.sqlite');
      const writer = createPiWorkflowsFile(path, fileOptions);
      seedPiWorkflowsRuns(writer, T0);
      writer.close();
      const hash = fileHash(path);
      const identity = piWorkflowsIdentity(path);
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', 'src/server/main.ts', '--db', path, '--port', '0', '--log-level', 'silent', '--project', dir, ...flags],
        { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let output = '';
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      let exitCode: number | null;
      try {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no banner: ${output}`)), 30_000);
          const onData = (chunk: Buffer): void => {
            output += chunk.toString('utf8');
            if (/Health: /.test(output)) {
              clearTimeout(timer);
              resolve();
            }
          };
          child.stdout.on('data', onData);
          child.stderr.on('data', onData);
          void exited.then(() => reject(new Error(`exited: ${output}`)));
        });
        expect(output).toContain(`  Database:  ${path} (pi-workflows state file: schema 1${banner})\n`);
        // The CLI's /health says the same.
        const healthUrl = /Health:\s+(\S+)/.exec(output)?.[1] as string;
        const health = (await (await fetch(healthUrl)).json()) as { database: { kind: string; readOnly: boolean; piWorkflows: { writable: boolean } } };
        expect(health.database).toMatchObject({ kind: 'pi-workflows', readOnly: !writable, piWorkflows: { writable } });
      } finally {
        // Stopped also when an expectation above failed: no server outlives its test.
        child.kill('SIGTERM');
        exitCode = await exited;
      }
      expect(exitCode).toBe(0);
      if (!writable) expect(fileHash(path)).toBe(hash);
      expect(piWorkflowsOpenCheck(writer.facts, identity)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
