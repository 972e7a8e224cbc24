/**
 * Issue 12 over real HTTP and graphql-ws: a server started (read-write, as a new user would) on
 * a pi-workflows state file serves every query field (lineage, children, latestRun, the lineage
 * connection, filters, node), `viewerDeltas` and the subscriptions with resume; every mutation
 * answers ForbiddenError saying why; `/health` and the start banner say what is open. After the
 * session (and the server's shutdown) the main database file is byte-identical, `sqlite_schema`
 * is unchanged, application id and user version are unchanged, and the check pi-workflows makes
 * at open still accepts the file.
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
import { createPiWorkflowsFile, piWorkflowsOpenCheck, seedPiWorkflowsRuns, type PiWorkflowsFileFacts, type SeededRuns } from '../helpers/pi-workflows-file.js';
import { DELTAS_SUBSCRIPTION, deltaEvents, revisionsOf, subscribeWs, untilRevision, wsClient, type DeltasData } from '../helpers/live-fixtures.js';
import { REPO_ROOT } from '../helpers/fault-fixtures.js';
import { reserveInput, startTestServer, T0, type TestServer } from '../helpers/server-fixture.js';

const REASON = 'The server is read-only: the database is a pi-workflows state file, served read-only so that pi-workflows keeps accepting it';
const FORBIDDEN = { __typename: 'ForbiddenError', code: 'FORBIDDEN', message: REASON };

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

  it('answers ForbiddenError saying why to every mutation', async () => {
    const results = [
      (await fx.data(ReserveWorkflowRunDocument, { input: reserveInput('new-1', { originSessionId: 'session-9' }) })).reserveWorkflowRun,
      (await fx.data(RestartWorkflowRunDocument, { input: { runId: 'restart-b1', originSessionId: 'session-2' } })).restartWorkflowRun,
      (await fx.data(ClaimWorkflowRunDocument, { input: { runId: 'run-h', runnerId: 'r', claimToken: 't', leaseMs: 1_000 } })).claimWorkflowRun,
      (await fx.data(ClaimWorkflowRunDocument, { input: { runnerId: 'r', claimToken: 't', leaseMs: 1_000 } })).claimWorkflowRun,
      (await fx.data(ParkWorkflowRunDocument, { input: { runId: 'run-a3', claimToken: 'token-a3' } })).parkWorkflowRun,
      (await fx.data(SettleWorkflowRunDocument, { input: { runId: 'run-a3', claimToken: 'token-a3', status: 'COMPLETED' } })).settleWorkflowRun,
    ];
    for (const result of results) expect(result).toEqual(FORBIDDEN);
  });

  it('says on /health which kind of file is open', async () => {
    const body = (await (await fetch(fx.healthUrl)).json()) as unknown;
    expect(body).toEqual({
      status: 'ok',
      database: {
        path,
        readOnly: true,
        kind: 'pi-workflows',
        piWorkflows: {
          schemaVersion: 1,
          appVersion: '0.16.2',
          schemaDigest: facts.digest.toString('hex'),
          optionalColumns: { 'workflow_messages.trigger_turn': true },
        },
        quickCheck: 'ok',
      },
    });
  });

  it('after a session and shutdown the file is byte-identical and pi-workflows still accepts it', async () => {
    // Its own file and server: it shuts the server down, which the other tests (any order) use.
    const ownDir = mkdtempSync(join(tmpdir(), 'pi-file-session-'));
    try {
      const ownPath = join(ownDir, 'state.sqlite');
      const writer = createPiWorkflowsFile(ownPath);
      seedPiWorkflowsRuns(writer, T0);
      writer.close();
      const ownBefore = { hash: fileHash(ownPath), facts: fileFacts(ownPath) };
      const own = await startTestServer({ dbPath: ownPath });
      const ownClient = wsClient(own.url);
      // A session: a query, a subscription's replay, a refused mutation.
      await own.data(WorkflowRunLineageDocument, { runId: 'restart-b1', first: 2 });
      const { collector } = subscribeWs<DeltasData>(ownClient, DELTAS_SUBSCRIPTION, { runId: 'restart-b1', afterRevision: 0 });
      await collector.take(1);
      await own.gql(ReserveWorkflowRunDocument, { input: reserveInput('session-write') });
      await ownClient.dispose();
      await own.server.close();
      expect(fileHash(ownPath)).toBe(ownBefore.hash);
      expect(fileFacts(ownPath)).toEqual(ownBefore.facts);
      expect(ownBefore.facts).toMatchObject({ applicationId: 0x50495746, userVersion: 1 });
      expect(piWorkflowsOpenCheck(writer.facts)).toEqual([]);
    } finally {
      rmSync(ownDir, { recursive: true, force: true });
    }
  });
});

describe('the server CLI on a pi-workflows state file', () => {
  it('says in its start banner that it serves a pi-workflows state file read-only, and leaves the file untouched', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-file-cli-'));
    try {
      const path = join(dir, 'state.sqlite');
      const writer = createPiWorkflowsFile(path, { line: '0.14' });
      seedPiWorkflowsRuns(writer, T0);
      writer.close();
      const hash = fileHash(path);
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts', '--db', path, '--port', '0', '--log-level', 'silent', '--project', dir], {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
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
      expect(output).toContain(`  Database:  ${path} (pi-workflows state file: schema 1, pi-workflows 0.14.0; served read-only; 8 runs)\n`);
      // The CLI's /health says the same.
      const healthUrl = /Health:\s+(\S+)/.exec(output)?.[1] as string;
      expect(((await (await fetch(healthUrl)).json()) as { database: { kind: string } }).database.kind).toBe('pi-workflows');
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(fileHash(path)).toBe(hash);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
