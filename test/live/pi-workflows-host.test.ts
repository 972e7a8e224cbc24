/**
 * docs/PI-WORKFLOWS-FILES.md §6: while pi-workflows' own host keeps its state file open and commits
 * with plain SQL from another process (test/children/pi-host.ts), a server serving that
 * file read-only delivers every change to subscribers: each new viewer revision once, in order,
 * after a resumed cursor; the changed run; a continuation joining the chain. Queries see the
 * new run at once (the in-process run order index follows the commits). After the session the
 * file still passes the check pi-workflows makes at open, with its schema unchanged.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkflowRunLineageDocument, WorkflowRunsDocument } from '../../schema/generated/graphql.js';
import { createPiWorkflowsFile, piWorkflowsOpenCheck, seedPiWorkflowsRuns, type PiWorkflowsFileFacts } from '../../fixtures/pi-workflows-file.js';
import {
  DELTAS_SUBSCRIPTION,
  deltaEvents,
  revisionsOf,
  spawnReadyChild,
  subscribeWs,
  untilRevision,
  withoutRecordedAt,
  wsClient,
  type ChildProcessHandle,
  type DeltasData,
} from '../helpers/live-fixtures.js';
import { feedWaiters } from '../helpers/server-signals.js';
import { startTestServer, T0, type TestServer } from '../helpers/server-fixture.js';

const HOST = 'test/children/pi-host.ts';

const RUN_UPDATED = /* GraphQL */ `
  subscription Updated($runId: String!) {
    workflowRunUpdated(runId: $runId) { runId status queueStatus presentationRevision }
  }
`;
const LINEAGE_UPDATED = /* GraphQL */ `
  subscription Lineage($rootRunId: String!) {
    workflowRunLineageUpdated(rootRunId: $rootRunId) { runId parentRunId lineageKind status queueStatus }
  }
`;

interface RunState {
  runId: string;
  status: string;
  queueStatus: string;
  parentRunId?: string | null;
  lineageKind?: string | null;
}

function schemaOf(path: string): unknown[] {
  const connection = new Database(path, { readonly: true });
  try {
    return connection.prepare('SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name').all();
  } finally {
    connection.close();
  }
}

describe('pi-workflows host commits from another process', () => {
  let dir: string;
  let facts: PiWorkflowsFileFacts;
  let schema: unknown[];
  let fx: TestServer;
  let client: Client;
  let host: ChildProcessHandle;

  /** Sends one host command and waits for its answer line. */
  async function command(line: string): Promise<Record<string, unknown>> {
    const before = host.lines.events.length;
    host.send(line);
    await host.lines.take(before + 1);
    return host.lines.events[before] as Record<string, unknown>;
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pi-host-'));
    const writer = createPiWorkflowsFile(join(dir, 'state.sqlite'));
    seedPiWorkflowsRuns(writer, T0);
    writer.close();
    facts = writer.facts;
    schema = schemaOf(facts.path);
    fx = await startTestServer({ dbPath: facts.path });
    client = wsClient(fx.url);
    host = await spawnReadyChild(HOST, [facts.path], 'pi-host', 'the host to open the file');
  });
  afterAll(async () => {
    host?.kill();
    await client?.dispose();
    await fx?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reaches subscribers: deltas after a resumed cursor, the changed run, a continuation joining the chain; after the host and the server stop, pi-workflows still accepts the file, its schema unchanged', async () => {
    const deltas = subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId: 'run-a3', afterRevision: 5 }, 'deltas').collector;
    const updated = subscribeWs<{ workflowRunUpdated: RunState }>(client, RUN_UPDATED, { runId: 'run-a3' }, 'updated').collector;
    const lineage = subscribeWs<{ workflowRunLineageUpdated: RunState }>(client, LINEAGE_UPDATED, { rootRunId: 'run-a' }, 'lineage').collector;
    await untilRevision(deltas, 7); // the replay of 6 and 7
    await feedWaiters(fx.server, (count) => count >= 3, 'the three subscriptions wait on the feed');

    expect(await command('delta run-a3 1')).toEqual({ command: 'delta', revision: 8 });
    expect(await command('delta run-a3 2')).toEqual({ command: 'delta', revision: 9 });
    await untilRevision(deltas, 9);
    expect(revisionsOf(deltas.events)).toEqual([6, 7, 8, 9]);
    expect(deltaEvents(deltas.events).slice(2).map(withoutRecordedAt)).toEqual(
      [8, 9].map((revision, index) => ({
        __typename: 'ViewerDeltaBatch',
        runId: 'run-a3',
        presentationRevision: revision,
        deltas: [
          {
            deltaIndex: 0,
            targetType: 'TIMELINE',
            targetKey: 'items',
            patch: [
              { op: 'REPLACE', path: '/presentationRevision', value: revision },
              { op: 'APPEND', path: '/items', value: [{ k: index + 1 }] },
            ],
          },
        ],
      })),
    );

    await command('wait run-a3');
    await updated.until((events) => events.some((event) => event.data?.workflowRunUpdated.status === 'WAITING'), 'run-a3 waiting');
    await command('continue run-a3 run-a4');
    await lineage.until((events) => events.some((event) => event.data?.workflowRunLineageUpdated.runId === 'run-a4'), 'run-a4 joining the chain');
    await command('settle run-a4');
    await lineage.until(
      (events) =>
        events.some((event) => event.data?.workflowRunLineageUpdated.runId === 'run-a4' && event.data.workflowRunLineageUpdated.status === 'COMPLETED'),
      'run-a4 completed',
    );
    await updated.until((events) => events.at(-1)?.data?.workflowRunUpdated.queueStatus === 'DONE', 'run-a3 done for its continuation');

    expect(lineage.events.find((event) => event.data?.workflowRunLineageUpdated.runId === 'run-a4')?.data?.workflowRunLineageUpdated).toEqual({
      runId: 'run-a4',
      parentRunId: 'run-a3',
      lineageKind: 'CONTINUATION',
      status: 'QUEUED',
      queueStatus: 'QUEUED',
    });
    expect(updated.events.map((event) => event.data?.workflowRunUpdated.status)).toContain('WAITING');
    expect(deltas.error).toBeUndefined();
    expect(updated.error).toBeUndefined();
    expect(lineage.error).toBeUndefined();

    // Queries see the new run at once: lineage, latestRun, the run list.
    const chain = await fx.data(WorkflowRunLineageDocument, { runId: 'run-a', first: 10 });
    expect(chain.workflowRun?.lineage.edges.map((edge) => edge.node.runId)).toEqual(['run-a', 'run-a2', 'run-a3', 'run-a4']);
    expect(chain.workflowRun?.latestRun.runId).toBe('run-a4');
    expect(chain.workflowRun?.lineage.totalCount).toBe(4);
    const list = await fx.data(WorkflowRunsDocument, { first: 1 });
    expect(list.workflowRuns).toMatchObject({ totalCount: 9, edges: [{ node: { runId: 'run-a4', status: 'COMPLETED' } }] });

    // Then, after the host and the server stop, pi-workflows still accepts the file, its schema
    // unchanged. (One test: this step is about the end of the activity above, so it cannot run
    // on its own or before it.)
    host.send('exit');
    expect(await host.exited).toBe(0);
    await client.dispose();
    await fx.server.close();
    expect(schemaOf(facts.path)).toEqual(schema);
    expect(piWorkflowsOpenCheck(facts)).toEqual([]);
  });
});
