/**
 * Replica mode (`--replica <primary URL>`, docs/DEPLOYMENT.md "Read replicas") with real server
 * processes on real files: a primary serving its own file, and a replica serving a copy that the
 * test keeps up to date the two ways a restore tool does: commits applied in place by another
 * connection (the SQLite backup API writing the replica file, in rollback-journal mode, as
 * `litestream restore -f` does), and a new copy (VACUUM INTO a temporary file) renamed over the
 * replica's path (a plain restore, then `mv`). No timing: every step waits for an event (a
 * subscription event, a log line of the replica).
 */
import { renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Client } from 'graphql-ws';
import { afterEach, describe, expect, it } from 'vitest';
import { createPiWorkflowsFile } from '../../fixtures/pi-workflows-file.js';
import { subscribeWs, wsClient, type StreamResult, DELTAS_SUBSCRIPTION, type DeltasData, revisionsOf, untilRevision } from '../helpers/live-fixtures.js';
import { graphqlData, healthOf, ReplicaServers, RESERVE, reserveOn } from '../helpers/replica-servers.js';
import { reserveInput } from '../helpers/server-fixture.js';
import type { ServiceProcess } from '../helpers/service-process.js';

const CHANGES = /* GraphQL */ `
  subscription Changes($after: String) {
    workflowRunChanges(after: $after) {
      __typename
      ... on WorkflowRunChange { cursor run { runId queueStatus } }
      ... on WorkflowRunChangesResetRequired { cursor }
    }
  }
`;
const CANCEL = /* GraphQL */ `
  mutation Cancel($runId: String!) {
    cancelWorkflowRun(input: { runId: $runId }) { __typename ... on Error { code message } }
  }
`;
const HEAD = '{ workflowRuns(first: 10) { changeCursor edges { node { runId } } } workflowRun(runId: "run-a") { presentationRevision } }';

interface ChangesData {
  workflowRunChanges: { __typename: string; cursor: string; run?: { runId: string; queueStatus: string } };
}

interface Health {
  status: string;
  database: { runChanges: { databaseId: string; head: number } };
  replica?: Record<string, unknown>;
}

let dir: string;
let servers: ReplicaServers;
let clients: Client[] = [];

afterEach(async () => {
  for (const client of clients) await client.dispose();
  clients = [];
  await servers.dispose();
});

/** A consistent copy of `from` in a new rollback-journal file `to` (VACUUM INTO through a read-only connection). */
function copyOf(from: string, to: string): void {
  const source = new Database(from, { readonly: true, fileMustExist: true });
  try {
    source.exec(`VACUUM INTO '${to.replaceAll("'", "''")}'`);
  } finally {
    source.close();
  }
}

/** The primary's current state written into the replica file in place, in one transaction of another connection (backup API). */
async function applyInPlace(primary: string, replica: string): Promise<void> {
  const staged = `${replica}.staged`;
  copyOf(primary, staged);
  const source = new Database(staged, { readonly: true, fileMustExist: true });
  try {
    await source.backup(replica);
  } finally {
    source.close();
    rmSync(staged, { force: true });
  }
}

/** A new copy of the primary renamed over the replica's path (how a plain restore installs a copy). */
function replaceByRename(primary: string, replica: string): void {
  const fresh = `${replica}.new`;
  copyOf(primary, fresh);
  renameSync(fresh, replica);
}

function label(result: StreamResult<ChangesData>): string {
  expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
  const event = result.data?.workflowRunChanges;
  return event?.__typename === 'WorkflowRunChange' ? `${event.run?.runId} ${event.run?.queueStatus}` : String(event?.__typename);
}

/** The replica's log lines with message `msg` so far. */
function logged(service: ServiceProcess, msg: string): Array<Record<string, unknown>> {
  return service.lines.events.filter((line) => line.msg === msg);
}

async function untilLogged(service: ServiceProcess, msg: string, count: number): Promise<Record<string, unknown>> {
  await service.lines.until(() => logged(service, msg).length >= count, `${count}× "${msg}"`);
  return logged(service, msg)[count - 1] as Record<string, unknown>;
}

/** A primary with run-a, and a replica started on a copy of it. */
async function primaryAndReplica(): Promise<{ primaryUrl: string; replicaUrl: string; primaryDb: string; replicaDb: string; replica: ServiceProcess }> {
  servers = new ReplicaServers('piwf-replica-');
  dir = servers.dir;
  const primaryDb = join(dir, 'primary.db');
  const replicaDb = join(dir, 'replica.db');
  const primaryUrl = await servers.start(primaryDb, 'primary').listening();
  await reserveOn(primaryUrl, 'run-a');
  copyOf(primaryDb, replicaDb);
  const replica = servers.start(replicaDb, 'replica', ['--replica', primaryUrl, '--replica-poll-ms', '100']);
  const replicaUrl = await replica.listening();
  return { primaryUrl, replicaUrl, primaryDb, replicaDb, replica };
}

describe('--replica', () => {
  it('commits applied in place reach a graphql-ws subscriber; /health measures the lag against the primary; a mutation is refused naming the primary', async () => {
    const { primaryUrl, replicaUrl, primaryDb, replicaDb, replica } = await primaryAndReplica();
    const start = await graphqlData<{ workflowRuns: { changeCursor: string } }>(replicaUrl, HEAD);
    const client = wsClient(replicaUrl);
    clients.push(client);
    const changes = subscribeWs<ChangesData>(client, CHANGES, { after: start.workflowRuns.changeCursor }, 'changes').collector;
    await untilLogged(replica, 'replica caught up with the primary', 1);
    const startHead = (await healthOf<Health>(replicaUrl)).database.runChanges.head;

    await reserveOn(primaryUrl, 'run-b');
    await reserveOn(primaryUrl, 'run-c');
    const primaryHead = (await healthOf<Health>(primaryUrl)).database.runChanges;
    // The replica notices it is behind before the copy moves (it polls the primary's /health).
    const behind = await untilLogged(replica, 'replica behind the primary', 1);
    expect(behind.position).toBe(startHead);
    // (the look at the primary may fall between the two reservations)
    expect(behind.primaryPosition).toBeGreaterThan(startHead);
    expect(behind.primaryPosition).toBeLessThanOrEqual(primaryHead.head);
    await applyInPlace(primaryDb, replicaDb);
    expect((await changes.take(2)).map(label)).toEqual(['run-b QUEUED', 'run-c QUEUED']);
    await untilLogged(replica, 'replica caught up with the primary', 2);

    const replicaHealth = await healthOf<Health>(replicaUrl);
    expect(replicaHealth.database.runChanges).toEqual(primaryHead);
    expect(replicaHealth.replica).toMatchObject({
      primary: primaryUrl,
      databaseId: primaryHead.databaseId,
      position: primaryHead.head,
      primaryPosition: primaryHead.head,
      primaryDatabaseId: primaryHead.databaseId,
      primaryError: null,
      positionsBehind: 0,
      lagSeconds: 0,
      reopens: 0,
      lastReopenAt: null,
      reopenError: null,
    });
    const metrics = await (await fetch(replicaUrl.replace(/\/graphql$/, '/metrics'))).text();
    expect(metrics).toContain(`pi_workflows_replica_position ${primaryHead.head}\n`);
    expect(metrics).toContain('pi_workflows_replica_positions_behind 0\n');
    expect(metrics).toContain('pi_workflows_replica_reopens_total 0\n');

    const refused = await graphqlData(replicaUrl, RESERVE, { input: reserveInput('run-x') });
    expect(refused).toEqual({
      reserveWorkflowRun: {
        __typename: 'ForbiddenError',
        code: 'FORBIDDEN',
        message: `The server is a read-only replica: send mutations to the primary at ${primaryUrl}`,
      },
    });
    // Nothing was written: the replica's log is where it was, and no run-x anywhere.
    expect((await healthOf<Health>(replicaUrl)).database.runChanges).toEqual(primaryHead);
    const runs = await graphqlData<{ workflowRuns: { edges: Array<{ node: { runId: string } }> } }>(replicaUrl, HEAD);
    expect(runs.workflowRuns.edges.map(({ node }) => node.runId)).toEqual(['run-c', 'run-b', 'run-a']);
  });

  it('a copy renamed over the file is reopened: subscribers keep their connection and get the new changes once, in order, from their cursors', async () => {
    const { primaryUrl, replicaUrl, primaryDb, replicaDb, replica } = await primaryAndReplica();
    const start = await graphqlData<{ workflowRuns: { changeCursor: string }; workflowRun: { presentationRevision: number } }>(replicaUrl, HEAD);
    const client = wsClient(replicaUrl);
    clients.push(client);
    let connections = 0;
    client.on('connected', () => (connections += 1));
    const changes = subscribeWs<ChangesData>(client, CHANGES, { after: start.workflowRuns.changeCursor }, 'changes').collector;
    const deltas = subscribeWs<DeltasData>(
      client,
      DELTAS_SUBSCRIPTION,
      { runId: 'run-a', afterRevision: start.workflowRun.presentationRevision },
      'deltas',
    ).collector;

    await reserveOn(primaryUrl, 'run-b');
    await applyInPlace(primaryDb, replicaDb);
    expect((await changes.take(1)).map(label)).toEqual(['run-b QUEUED']);

    // Two commits on the primary; the replica gets them only through a new copy renamed over its file.
    await reserveOn(primaryUrl, 'run-c');
    expect(await graphqlData(primaryUrl, CANCEL, { runId: 'run-a' })).toEqual({ cancelWorkflowRun: { __typename: 'CancelWorkflowRunSuccess' } });
    const cancelled = await graphqlData<{ workflowRun: { presentationRevision: number } }>(primaryUrl, HEAD);
    replaceByRename(primaryDb, replicaDb);
    const reopened = await untilLogged(replica, 'replica file replaced: reopened', 1);
    expect(typeof reopened.ms).toBe('number');
    expect((await changes.take(3)).map(label)).toEqual(['run-b QUEUED', 'run-c QUEUED', 'run-a CANCELLED']);
    await untilRevision(deltas, cancelled.workflowRun.presentationRevision);

    // The new file is followed in place too (its watcher was re-armed), and nothing came twice.
    await reserveOn(primaryUrl, 'run-d');
    await applyInPlace(primaryDb, replicaDb);
    expect((await changes.take(4)).map(label)).toEqual(['run-b QUEUED', 'run-c QUEUED', 'run-a CANCELLED', 'run-d QUEUED']);
    const cursors = changes.events.map((result) => result.data?.workflowRunChanges.cursor);
    expect(new Set(cursors).size).toBe(4);
    expect(revisionsOf(deltas.events)).toEqual(
      Array.from(
        { length: cancelled.workflowRun.presentationRevision - start.workflowRun.presentationRevision },
        (_, index) => start.workflowRun.presentationRevision + 1 + index,
      ),
    );
    expect(connections).toBe(1);
    expect(changes.error).toBeUndefined();

    const replicaHealth = await healthOf<Health>(replicaUrl);
    expect(replicaHealth.replica).toMatchObject({ reopens: 1, reopenError: null, position: (await healthOf<Health>(primaryUrl)).database.runChanges.head });
    expect(typeof replicaHealth.replica?.lastReopenMs).toBe('number');
    expect(replicaHealth.replica?.lastReopenAt).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('refuses a pi-workflows state file, before serving anything', async () => {
    servers = new ReplicaServers('piwf-replica-');
    dir = servers.dir;
    const path = join(dir, 'state.db');
    createPiWorkflowsFile(path).close();
    const service = servers.start(path, 'replica', ['--replica', 'http://127.0.0.1:9/graphql']);
    expect(await service.exited).toBe(1);
    expect(service.stderr()).toBe(
      `pi-workflows-graphql: Replica mode serves a copy of this server's own database file only: ${path} is a pi-workflows state file ` +
        '(a replication tool such as Litestream adds its own tables to the file it replicates, which pi-workflows refuses)\n',
    );
  });
});
