/**
 * `/mcp` with the MCP SDK's own client (`Client` + `StreamableHTTPClientTransport`) over real
 * HTTP against the real server (docs/MCP.md): which tools a full and a read token list, the run
 * list with filters and order, inspection with lineage and viewer deltas, restart and cancel
 * read back from the database, refused calls that change nothing, a wait that returns when a
 * mutation commits and one that times out, and the request gate (origin, host, token) in front.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GraphQLEnumType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/schema/index.js';
import { loadMcpOperations } from '../../src/server/mcp/graphql-calls.js';
import { OPERATIONS_DIR } from '../../src/server/page/static-files.js';
import { CancelWorkflowRunDocument, ReportWorkflowRunStateDocument, ReserveWorkflowRunDocument, WorkflowRunDocument } from '../../schema/generated/graphql.js';
import { buildReferenceFile, loadReferenceViews } from '../../fixtures/pi-workflows-reference-file.js';
import { EngineRowWriter } from '../../src/store/engine-rows/index.js';
import { httpRequest } from '../helpers/raw-http.js';
import { captureLog } from '../helpers/log-capture.js';
import { feedWaiters } from '../helpers/server-signals.js';
import { connectionOf, storeInternals } from '../helpers/store-internals.js';
import { claim, failedRoot, park, reserve, reserveInput, restart, snapshotTables, startTestServer, type TestServer } from '../helpers/server-fixture.js';

const FULL = 'mcp-full-token';
const READ = 'mcp-read-token';
const READ_TOOLS = ['list_runs', 'inspect_run', 'wait_for_run_change'];
const WRITE_TOOLS = ['restart_run', 'cancel_run', 'pause_run', 'resume_run'];
/** The test server's --max-body-bytes. */
const MAX_BODY = 65_536;
const UNAUTHORIZED = 'Unauthorized: send Authorization: Bearer <token>';
const WRONG_TOKEN =
  "Unauthorized: the token sent is not accepted: send Authorization: Bearer <token> with the server's --token, a --read-token or a --metadata-token";
const FOREIGN_ORIGIN = 'Origin "http://evil.example" is not allowed; start the server with --cors-origin <origin> to allow it';

/** `http://127.0.0.1:<port>/mcp` of a test server. */
function mcpUrl(fx: TestServer): URL {
  return new URL('/mcp', fx.url);
}

const clients: Client[] = [];

/** An SDK client connected to `/mcp` with these headers (the Authorization among them). */
async function connect(fx: TestServer, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl(fx), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

/** A tool call's result. */
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The structured content of a successful call; its text is the same JSON. */
function ok(result: CallToolResult): Record<string, unknown> {
  expect(result.isError, JSON.stringify(result.content)).toBeUndefined();
  const structured = result.structuredContent as Record<string, unknown>;
  expect(result.content).toEqual([{ type: 'text', text: JSON.stringify(structured, null, 2) }]);
  return structured;
}

/** The text of a tool error. */
function refused(result: CallToolResult): string {
  expect(result.isError).toBe(true);
  const [first] = result.content as Array<{ type: string; text: string }>;
  expect(first?.type).toBe('text');
  return first?.text ?? '';
}

/** Rows of the runs of a chain, read from the database. */
function chainRows(fx: TestServer, rootRunId: string): unknown[] {
  return connectionOf(fx.store)
    .prepare(
      `SELECT r.run_id, r.parent_run_id, r.lineage_kind, r.restart_number, r.status, q.status AS queue_status
       FROM runs r JOIN run_queue q ON q.run_id = r.run_id WHERE r.root_run_id = ? ORDER BY r.created_at, r.run_id`,
    )
    .all(rootRunId);
}

describe('/mcp', () => {
  let fx: TestServer;
  let full: Client;
  let read: Client;
  const log = captureLog('info');

  beforeAll(async () => {
    fx = await startTestServer({ token: FULL, readTokens: [READ], logger: log.logger, maxBodyBytes: MAX_BODY });
    // The run list: three roots a second apart, one failed, one of another session and workflow.
    await failedRoot(fx, 'list-a', 'boom');
    fx.clock.advance(1_000);
    await reserve(fx, reserveInput('list-b'));
    fx.clock.advance(1_000);
    await reserve(fx, reserveInput('list-c', { originSessionId: 'session-2', workflowName: 'other', definition: { name: 'other', steps: [] } }));
    full = await connect(fx, { authorization: `Bearer ${FULL}` });
    read = await connect(fx, { authorization: `Bearer ${READ}` });
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await fx.close();
  });

  describe('tools/list', () => {
    it('lists every tool for the full token, and only the read tools for a read token', async () => {
      expect((await full.listTools()).tools.map((tool) => tool.name)).toEqual([...READ_TOOLS, ...WRITE_TOOLS]);
      expect((await read.listTools()).tools.map((tool) => tool.name)).toEqual(READ_TOOLS);
    });

    it("describes each tool's input as JSON Schema, with the schema's own enum values", async () => {
      const { tools } = await full.listTools();
      const listRuns = tools.find((tool) => tool.name === 'list_runs');
      const statuses = (schema.getType('WorkflowRunStatus') as GraphQLEnumType).getValues().map((value) => value.name);
      expect(listRuns?.inputSchema.properties?.status).toMatchObject({ type: 'array', items: { type: 'string', enum: statuses } });
      expect(listRuns?.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(listRuns?.annotations).toMatchObject({ readOnlyHint: true });
      expect(tools.find((tool) => tool.name === 'cancel_run')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
      expect(tools.find((tool) => tool.name === 'wait_for_run_change')?.inputSchema.required).toEqual(['runId', 'afterRevision']);
    });
  });

  describe('list_runs', () => {
    it('answers the newest runs first by default, with totalCount and pageInfo', async () => {
      const page = ok(await call(read, 'list_runs', { first: 2 }));
      expect((page.runs as Array<{ runId: string }>).map((run) => run.runId)).toEqual(['list-c', 'list-b']);
      expect(page.totalCount).toBe(3);
      expect(page.pageInfo).toMatchObject({ hasNextPage: true });
      const next = ok(await call(read, 'list_runs', { first: 2, after: (page.pageInfo as { endCursor: string }).endCursor }));
      expect((next.runs as Array<{ runId: string }>).map((run) => run.runId)).toEqual(['list-a']);
      expect(next.pageInfo).toMatchObject({ hasNextPage: false });
    });

    it('filters and orders as workflowRuns does', async () => {
      const ids = async (args: Record<string, unknown>): Promise<string[]> =>
        (ok(await call(read, 'list_runs', args)).runs as Array<{ runId: string }>).map((run) => run.runId);
      expect(await ids({ status: ['FAILED'] })).toEqual(['list-a']);
      expect(await ids({ queueStatus: ['QUEUED'], orderBy: 'CREATED_AT', direction: 'ASC' })).toEqual(['list-b', 'list-c']);
      expect(await ids({ originSessionId: 'session-2' })).toEqual(['list-c']);
      expect(await ids({ workflowName: 'demo', direction: 'ASC' })).toEqual(['list-a', 'list-b']);
      expect(await ids({ search: 'LIST-B' })).toEqual(['list-b']);
      expect(await ids({ createdAfter: '2026-01-01T00:00:00.000Z', createdBefore: '2020-01-01T00:00:00.000Z' })).toEqual([]);
    });

    it("answers the run as GraphQL's workflowRun does", async () => {
      const [run] = ok(await call(read, 'list_runs', { status: ['FAILED'] })).runs as Array<Record<string, unknown>>;
      const { workflowRun } = await fx.data(WorkflowRunDocument, { runId: 'list-a' });
      expect(run).toEqual({
        id: workflowRun?.id,
        runId: 'list-a',
        workflowName: 'demo',
        workflowRef: 'workflows/demo.ts',
        status: 'FAILED',
        queueStatus: 'FAILED',
        paused: false,
        statusDetail: workflowRun?.statusDetail,
        executionMode: 'INTERACTIVE',
        originSessionId: 'session-1',
        errorCode: workflowRun?.errorCode,
        errorMessage: 'boom',
        createdAt: workflowRun?.createdAt,
        updatedAt: workflowRun?.updatedAt,
        startedAt: workflowRun?.startedAt,
        finishedAt: workflowRun?.finishedAt,
        parentRunId: null,
        rootRunId: 'list-a',
        lineageKind: null,
        restartNumber: 0,
        terminalFingerprint: workflowRun?.terminalFingerprint,
        presentationRevision: workflowRun?.presentationRevision,
        claim: null,
      });
    });

    it('refuses bad arguments with the field and the rule, before anything runs', async () => {
      expect(refused(await call(read, 'list_runs', { first: 101 }))).toBe(
        'Invalid arguments for list_runs: first: Too big: expected number to be <=100. Nothing was run.',
      );
      expect(refused(await call(read, 'list_runs', { status: ['DONE'] }))).toMatch(
        /^Invalid arguments for list_runs: status\.0: Invalid option: expected one of "/,
      );
      expect(refused(await call(read, 'list_runs', { colour: 'red' }))).toBe(
        'Invalid arguments for list_runs: (arguments): Unrecognized key: "colour". Nothing was run.',
      );
    });

    it("answers GraphQL's own refusal as a tool error (a DateTime that is not one)", async () => {
      const text = refused(await call(read, 'list_runs', { createdAfter: 'yesterday' }));
      expect(text).toBe(
        'BAD_USER_INPUT: Variable "$filter" got invalid value at "filter.createdAfter"; DateTime cannot represent an invalid date-time-string yesterday.',
      );
    });
  });

  describe('an internal fault', () => {
    it('answers the masked error as a tool error and logs the fault once, as /graphql does', async () => {
      const fault = 'The database connection is not open';
      const target = fx.store as unknown as Record<string, unknown>;
      target.getWorkflowRuns = () => {
        throw new Error(fault);
      };
      const from = log.lines.length;
      let result: CallToolResult;
      try {
        result = await call(read, 'inspect_run', { runId: 'list-a' });
      } finally {
        delete target.getWorkflowRuns;
      }
      expect(refused(result)).toBe('INTERNAL_SERVER_ERROR: Unexpected error.');
      expect(result.structuredContent).toEqual({ errors: [{ message: 'Unexpected error.', code: 'INTERNAL_SERVER_ERROR', path: ['workflowRun'] }] });
      const logged = log.lines.slice(from).filter((line) => line.includes('unexpected error'));
      expect(logged).toHaveLength(1);
      expect(JSON.parse(logged[0] as string)).toMatchObject({ msg: 'unexpected error', err: { message: fault }, path: ['workflowRun'] });
    });
  });

  describe('inspect_run', () => {
    it('answers the run, its chain and its most recent viewer deltas', async () => {
      await failedRoot(fx, 'chain-1', 'first try', 's-chain-1');
      const restarted = await restart(fx, { runId: 'chain-1', originSessionId: 's-chain-1' });
      const inspected = ok(await call(read, 'inspect_run', { runId: 'chain-1', recentRevisions: 2 }));
      const run = inspected.run as Record<string, unknown> & { presentationRevision: number };
      expect(run).toMatchObject({
        runId: 'chain-1',
        status: 'FAILED',
        input: { task: 'chain-1' },
        restart: { runId: restarted.run.runId },
        continuation: null,
        latestRun: { runId: restarted.run.runId },
      });
      expect(inspected.lineage).toMatchObject({ totalCount: 2, pageInfo: { hasNextPage: false } });
      expect(
        (inspected.lineage as { runs: Array<{ runId: string; lineageKind: string | null }> }).runs.map((entry) => [entry.runId, entry.lineageKind]),
      ).toEqual([
        ['chain-1', null],
        [restarted.run.runId, 'RESTART'],
      ]);
      const deltas = inspected.viewerDeltas as { kind: string; currentRevision: number; batches: Array<{ presentationRevision: number }> };
      expect(deltas.kind).toBe('DELTAS');
      expect(deltas.currentRevision).toBe(run.presentationRevision);
      expect(deltas.batches.map((batch) => batch.presentationRevision)).toEqual([run.presentationRevision - 1, run.presentationRevision]);
    });

    it('answers the essentials of the run view: display, error, steps (none here), what it waits for', async () => {
      await failedRoot(fx, 'view-1', 'the build broke', 's-view-1');
      const inspected = ok(await call(read, 'inspect_run', { runId: 'view-1', recentRevisions: 0 }));
      expect(inspected.view).toEqual({
        revision: (inspected.run as { presentationRevision: number }).presentationRevision,
        cursor: expect.any(String),
        title: null,
        display: { status: 'FAILED', activity: null, reason: 'the build broke', controls: [] },
        error: 'the build broke',
        finalOutput: null,
        currentNode: null,
        waitingOn: null,
        pendingRequest: null,
        stepTotal: 0,
        steps: [],
      });
    });

    it('answers an unknown run as a NOT_FOUND tool error', async () => {
      expect(refused(await call(read, 'inspect_run', { runId: 'nope' }))).toBe('NOT_FOUND: no run "nope"');
    });
  });

  describe('write tools', () => {
    it('restart_run reserves the restart; the database holds it', async () => {
      await failedRoot(fx, 'restart-1', 'broke', 's-restart-1');
      const result = ok(await call(full, 'restart_run', { runId: 'restart-1', originSessionId: 's-restart-1' }));
      const run = result.run as { runId: string };
      expect(result).toMatchObject({ adopted: false, run: { parentRunId: 'restart-1', lineageKind: 'RESTART', restartNumber: 1, status: 'QUEUED' } });
      expect(chainRows(fx, 'restart-1')).toEqual([
        { run_id: 'restart-1', parent_run_id: null, lineage_kind: null, restart_number: 0, status: 'failed', queue_status: 'failed' },
        { run_id: run.runId, parent_run_id: 'restart-1', lineage_kind: 'restart', restart_number: 1, status: 'queued', queue_status: 'queued' },
      ]);
      // A retry adopts the same restart and writes nothing.
      const before = snapshotTables(fx.store);
      expect(ok(await call(full, 'restart_run', { runId: 'restart-1', originSessionId: 's-restart-1' }))).toMatchObject({
        adopted: true,
        run: { runId: run.runId },
      });
      expect(snapshotTables(fx.store)).toEqual(before);
    });

    it('cancel_run cancels an unclaimed run without a claim token; the database holds it', async () => {
      await reserve(fx, reserveInput('cancel-1', { originSessionId: 's-cancel-1' }));
      const result = ok(await call(full, 'cancel_run', { runId: 'cancel-1' }));
      expect(result).toMatchObject({ run: { runId: 'cancel-1', status: 'CANCELLED', queueStatus: 'CANCELLED', errorCode: 'cancelled' } });
      expect(chainRows(fx, 'cancel-1')).toEqual([
        { run_id: 'cancel-1', parent_run_id: null, lineage_kind: null, restart_number: 0, status: 'cancelled', queue_status: 'cancelled' },
      ]);
    });

    it('pause_run and resume_run pause and resume a run waiting for input; the database holds each', async () => {
      await reserve(fx, reserveInput('pause-1', { originSessionId: 's-pause-1' }));
      await claim(fx, 'pause-1', 'token-pause-1');
      const { reportWorkflowRunState } = await fx.data(ReportWorkflowRunStateDocument, {
        input: { runId: 'pause-1', claimToken: 'token-pause-1', state: 'WAITING' },
      });
      expect(reportWorkflowRunState.__typename).toBe('ReportWorkflowRunStateSuccess');
      await park(fx, 'pause-1', 'token-pause-1');
      // The engine opens the request (no mutation does): the test stands in for it.
      storeInternals(fx.store).interactions.openInteraction(
        { runId: 'pause-1', nodeId: 'ask', attemptId: 'attempt-pause-1', requestId: 'request-pause-1', targetSessionId: 's-pause-1' },
        fx.clock.t,
      );
      const row = (): unknown => connectionOf(fx.store).prepare('SELECT paused, status, status_detail FROM runs WHERE run_id = ?').get('pause-1');
      expect(ok(await call(full, 'pause_run', { runId: 'pause-1' }))).toMatchObject({ run: { runId: 'pause-1', paused: true, statusDetail: 'paused' } });
      expect(row()).toEqual({ paused: 1, status: 'waiting', status_detail: 'paused' });
      expect(ok(await call(full, 'resume_run', { runId: 'pause-1' }))).toMatchObject({
        run: { paused: false, statusDetail: 'waiting for origin-session input' },
      });
      expect(row()).toEqual({ paused: 0, status: 'waiting', status_detail: 'waiting for origin-session input' });
    });

    it('refused calls change nothing: unknown run, read token, bad input, another session, a finished run', async () => {
      await failedRoot(fx, 'refuse-1', 'broke', 's-refuse-1');
      const before = snapshotTables(fx.store);
      expect(refused(await call(full, 'restart_run', { runId: 'nope', originSessionId: 'session-1' }))).toBe('NOT_FOUND: Workflow run not found: nope');
      expect(refused(await call(full, 'cancel_run', { runId: 'nope' }))).toBe('NOT_FOUND: Workflow run not found: nope');
      expect(refused(await call(read, 'restart_run', { runId: 'refuse-1', originSessionId: 's-refuse-1' }))).toBe(
        'FORBIDDEN: This token has the read scope only; mutations need the write scope',
      );
      expect(refused(await call(read, 'cancel_run', { runId: 'list-b' }))).toBe(
        'FORBIDDEN: This token has the read scope only; mutations need the write scope',
      );
      expect(refused(await call(full, 'cancel_run', { runId: 5 }))).toBe(
        'Invalid arguments for cancel_run: runId: Invalid input: expected string, received number. Nothing was run.',
      );
      expect(refused(await call(full, 'restart_run', { runId: 'refuse-1' }))).toBe(
        'Invalid arguments for restart_run: originSessionId: Invalid input: expected string, received undefined. Nothing was run.',
      );
      expect(refused(await call(full, 'restart_run', { runId: 'refuse-1', originSessionId: 'session-9' }))).toBe(
        'FORBIDDEN: Workflow run belongs to another Pi session',
      );
      expect(refused(await call(full, 'cancel_run', { runId: 'refuse-1' }))).toBe('CONFLICT: Workflow run refuse-1 has already finished (queue status failed)');
      expect(refused(await call(full, 'pause_run', { runId: 'refuse-1' }))).toBe(
        'CONFLICT: Workflow run refuse-1 is not parked (queue status failed): only a parked run can be paused',
      );
      // A typed error also comes structured.
      expect((await call(full, 'cancel_run', { runId: 'nope' })).structuredContent).toEqual({
        error: { type: 'NotFoundError', code: 'NOT_FOUND', message: 'Workflow run not found: nope' },
      });
      expect(snapshotTables(fx.store)).toEqual(before);
    });

    it('an unknown tool is a JSON-RPC error naming it, its message sent once without the SDK prefix', async () => {
      const before = snapshotTables(fx.store);
      await expect(full.callTool({ name: 'drop_everything', arguments: {} })).rejects.toMatchObject({
        code: -32602,
        message: 'MCP error -32602: Unknown tool "drop_everything": tools/list names the tools of this token',
      });
      const response = await fetch(mcpUrl(fx), {
        method: 'POST',
        headers: { authorization: `Bearer ${FULL}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'drop_everything', arguments: {} } }),
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32602, message: 'Unknown tool "drop_everything": tools/list names the tools of this token' },
      });
      expect(snapshotTables(fx.store)).toEqual(before);
    });
  });

  describe('wait_for_run_change', () => {
    it('returns when a mutation commits, with the new revision and the run as stored', async () => {
      await reserve(fx, reserveInput('wait-1', { originSessionId: 's-wait-1' }));
      const { run } = ok(await call(read, 'inspect_run', { runId: 'wait-1', recentRevisions: 0 })) as { run: { presentationRevision: number } };
      const waiters = fx.server.feed.waiterCount;
      let settled = false;
      const waiting = call(read, 'wait_for_run_change', { runId: 'wait-1', afterRevision: run.presentationRevision }).finally(() => {
        settled = true;
      });
      // The wait's subscription waits on the change feed; nothing has changed yet.
      await feedWaiters(fx.server, waiters + 1, 'the wait subscribed');
      expect(settled).toBe(false);
      const { cancelWorkflowRun } = await fx.data(CancelWorkflowRunDocument, { input: { runId: 'wait-1' } });
      expect(cancelWorkflowRun.__typename).toBe('CancelWorkflowRunSuccess');
      const change = ok(await waiting);
      expect(change).toMatchObject({
        kind: 'changed',
        runId: 'wait-1',
        afterRevision: run.presentationRevision,
        presentationRevision: run.presentationRevision + 1,
        run: { runId: 'wait-1', status: 'CANCELLED' },
      });
      // The run as stored once the change came: what GraphQL reads now (the cancel may write more than one revision).
      const { workflowRun } = await fx.data(WorkflowRunDocument, { runId: 'wait-1' });
      expect((change.run as { presentationRevision: number }).presentationRevision).toBe(workflowRun?.presentationRevision);
      expect((change.deltas as unknown[]).length).toBeGreaterThan(0);
      // Its subscription is gone once it answered.
      await feedWaiters(fx.server, waiters, 'the wait unsubscribed');
    });

    it('answers at once when the run already changed after afterRevision', async () => {
      await failedRoot(fx, 'wait-2', 'broke', 's-wait-2');
      const change = ok(await call(read, 'wait_for_run_change', { runId: 'wait-2', afterRevision: 1 }));
      expect(change).toMatchObject({ kind: 'changed', afterRevision: 1, presentationRevision: 2, run: { runId: 'wait-2', status: 'FAILED' } });
    });

    it('answers snapshot_required for a revision it cannot replay', async () => {
      const change = ok(await call(read, 'wait_for_run_change', { runId: 'wait-2', afterRevision: 0 }));
      expect(change).toMatchObject({ kind: 'snapshot_required', runId: 'wait-2', retainedFromRevision: 1, run: { runId: 'wait-2' } });
      expect(change.currentRevision).toBe((change.run as { presentationRevision: number }).presentationRevision);
    });

    it('times out with a clear result when nothing changes', async () => {
      await reserve(fx, reserveInput('wait-3', { originSessionId: 's-wait-3' }));
      const { run } = ok(await call(read, 'inspect_run', { runId: 'wait-3', recentRevisions: 0 })) as { run: { presentationRevision: number } };
      const waiters = fx.server.feed.waiterCount;
      const result = ok(await call(read, 'wait_for_run_change', { runId: 'wait-3', afterRevision: run.presentationRevision, timeoutMs: 50 }));
      expect(result).toEqual({
        kind: 'timeout',
        runId: 'wait-3',
        afterRevision: run.presentationRevision,
        timeoutMs: 50,
        message: `No change of run "wait-3" after revision ${run.presentationRevision} within 50 ms`,
      });
      await feedWaiters(fx.server, waiters, 'the timed-out wait unsubscribed');
    });

    it('a client that goes away mid-wait leaves no subscription behind', async () => {
      await reserve(fx, reserveInput('wait-4', { originSessionId: 's-wait-4' }));
      const waiters = fx.server.feed.waiterCount;
      const controller = new AbortController();
      const request = fetch(mcpUrl(fx), {
        method: 'POST',
        headers: { authorization: `Bearer ${READ}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'wait_for_run_change', arguments: { runId: 'wait-4', afterRevision: 1 } },
        }),
        signal: controller.signal,
      });
      await feedWaiters(fx.server, waiters + 1, 'the wait subscribed');
      controller.abort();
      await expect(request).rejects.toThrow('This operation was aborted');
      await feedWaiters(fx.server, waiters, 'the abandoned wait unsubscribed');
    });

    it('refuses a timeout over 30 s and an unknown run', async () => {
      expect(refused(await call(read, 'wait_for_run_change', { runId: 'wait-3', afterRevision: 1, timeoutMs: 30_001 }))).toBe(
        'Invalid arguments for wait_for_run_change: timeoutMs: Too big: expected number to be <=30000. Nothing was run.',
      );
      expect(refused(await call(read, 'wait_for_run_change', { runId: 'nope', afterRevision: 1, timeoutMs: 1_000 }))).toBe(
        'NOT_FOUND: Workflow run not found: nope',
      );
    });
  });

  describe('the request gate', () => {
    it('refuses a foreign Origin with 403 before any MCP runs', async () => {
      await expect(connect(fx, { authorization: `Bearer ${FULL}`, origin: 'http://evil.example' })).rejects.toMatchObject({
        code: 403,
        message: 'Streamable HTTP error: Error POSTing to endpoint: ' + JSON.stringify({ errors: [{ message: FOREIGN_ORIGIN }] }),
      });
      const response = await fetch(mcpUrl(fx), {
        method: 'POST',
        headers: {
          authorization: `Bearer ${FULL}`,
          origin: 'http://evil.example',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({ errors: [{ message: FOREIGN_ORIGIN }] });
    });

    it('refuses a request without a token (401) and one with a wrong token', async () => {
      const unauthorized = (message: string) => ({
        code: 401,
        message: 'Streamable HTTP error: Error POSTing to endpoint: ' + JSON.stringify({ errors: [{ message }] }),
      });
      await expect(connect(fx, {})).rejects.toMatchObject(unauthorized(UNAUTHORIZED));
      await expect(connect(fx, { authorization: 'Bearer wrong' })).rejects.toMatchObject(unauthorized(WRONG_TOKEN));
      const response = await fetch(mcpUrl(fx), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(await response.json()).toEqual({ errors: [{ message: UNAUTHORIZED }] });
    });

    it('refuses a Host the server does not answer for with 421', async () => {
      const response = await httpRequest(mcpUrl(fx).href, {
        method: 'POST',
        headers: { host: 'evil.example', authorization: `Bearer ${FULL}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(response.status).toBe(421);
      expect(JSON.parse(response.text)).toEqual({
        errors: [{ message: 'This server does not answer for host "evil.example"; start it with --allowed-host <name> to allow a name' }],
      });
    });

    it('refuses a body over --max-body-bytes with 413, and serves a chunked body within it', async () => {
      const headers = { authorization: `Bearer ${FULL}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const large = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_runs', arguments: { search: 'x'.repeat(MAX_BODY) } } });
      const tooLarge = await fetch(mcpUrl(fx), { method: 'POST', headers, body: large });
      expect(tooLarge.status).toBe(413);
      expect(await tooLarge.json()).toEqual({ errors: [{ message: `Request body larger than ${MAX_BODY} bytes` }] });
      // A body of unknown length: the gate reads it (up to the cap) before /mcp gets it.
      const body = new TextEncoder().encode(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }));
      const chunked = await fetch(mcpUrl(fx), {
        method: 'POST',
        headers: { ...headers, 'mcp-protocol-version': '2025-11-25' },
        body: new ReadableStream({
          start(controller) {
            controller.enqueue(body.slice(0, 10));
            controller.enqueue(body.slice(10));
            controller.close();
          },
        }),
        duplex: 'half',
      } as RequestInit);
      expect(chunked.status).toBe(200);
      const answer = (await chunked.json()) as { id: number; result: { tools: Array<{ name: string }> } };
      expect(answer.id).toBe(7);
      expect(answer.result.tools.map((tool) => tool.name)).toEqual([...READ_TOOLS, ...WRITE_TOOLS]);
    });

    it('answers GET (no session stream) 405', async () => {
      const response = await fetch(mcpUrl(fx), { headers: { authorization: `Bearer ${FULL}`, accept: 'text/event-stream' } });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    });

    it('logs one line per /mcp request and the request line of each operation a tool ran, with the scope', async () => {
      const from = log.lines.length;
      ok(await call(read, 'list_runs', { first: 1 }));
      const records = log.lines.slice(from).map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(records.find((record) => record.msg === 'request')).toMatchObject({ path: '/graphql', operationName: 'McpListRuns', scope: 'read', status: 200 });
      expect(records.find((record) => record.msg === 'mcp request')).toMatchObject({
        method: 'POST',
        path: '/mcp',
        rpcMethod: 'tools/call',
        tool: 'list_runs',
        scope: 'read',
        isError: false,
        status: 200,
      });
      expect(log.lines.slice(from).join('\n')).not.toContain(READ);
    });
  });

  describe('--persisted-operations', () => {
    const MANIFEST = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'schema', 'generated', 'persisted-documents.json');
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'mcp-manifest-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('with --only-persisted and the codegen manifest, the tools run by id', async () => {
      const persisted = await startTestServer({ persistedOperations: MANIFEST, onlyPersisted: true });
      try {
        // Seeded by id as well: this server runs nothing else.
        const seeded = await fetch(persisted.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ documentId: (ReserveWorkflowRunDocument.__meta__ as { hash: string }).hash, variables: { input: reserveInput('p-1') } }),
        });
        expect(((await seeded.json()) as { data: { reserveWorkflowRun: { __typename: string } } }).data.reserveWorkflowRun.__typename).toBe(
          'ReserveWorkflowRunSuccess',
        );
        const client = await connect(persisted, {});
        expect((ok(await call(client, 'list_runs', {})).runs as Array<{ runId: string }>).map((run) => run.runId)).toEqual(['p-1']);
        const { run } = ok(await call(client, 'inspect_run', { runId: 'p-1' })) as { run: { presentationRevision: number } };
        expect(ok(await call(client, 'wait_for_run_change', { runId: 'p-1', afterRevision: 0 }))).toMatchObject({ kind: 'snapshot_required' });
        expect(ok(await call(client, 'cancel_run', { runId: 'p-1' }))).toMatchObject({ run: { status: 'CANCELLED' } });
        expect(ok(await call(client, 'wait_for_run_change', { runId: 'p-1', afterRevision: run.presentationRevision }))).toMatchObject({ kind: 'changed' });
        expect(ok(await call(client, 'inspect_run', { runId: 'p-1' }))).toMatchObject({ viewerDeltas: { kind: 'DELTAS' } });
      } finally {
        await persisted.close();
      }
    });

    it('every MCP operation is in the codegen manifest, found by its definitions', () => {
      const operations = loadMcpOperations(join(OPERATIONS_DIR, 'mcp.graphql'), MANIFEST);
      const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8')) as Record<string, string>;
      expect(operations.size).toBe(10);
      for (const [name, operation] of operations) {
        expect(operation.documentId, name).toBeDefined();
        expect(manifest[operation.documentId as string], name).toContain(`${name}(`);
      }
    });

    it('with --only-persisted and a manifest without the MCP operations, a tool answers the refusal', async () => {
      const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8')) as Record<string, string>;
      const withoutMcp = Object.fromEntries(Object.entries(manifest).filter(([, text]) => !text.includes('Mcp')));
      const path = join(dir, 'without-mcp.json');
      writeFileSync(path, JSON.stringify(withoutMcp));
      const persisted = await startTestServer({ persistedOperations: path, onlyPersisted: true });
      try {
        const client = await connect(persisted, {});
        expect(refused(await call(client, 'list_runs', {}))).toBe(
          'PERSISTED_QUERY_ONLY: This server runs only persisted operations (--only-persisted): send documentId (or extensions.persistedQuery) instead of query.',
        );
      } finally {
        await persisted.close();
      }
    });
  });

  it('closing the server ends a wait in progress with a tool error', async () => {
    const closing = await startTestServer();
    await reserve(closing, reserveInput('close-1'));
    const client = await connect(closing, {});
    const { run } = ok(await call(client, 'inspect_run', { runId: 'close-1', recentRevisions: 0 })) as { run: { presentationRevision: number } };
    const waiting = call(client, 'wait_for_run_change', { runId: 'close-1', afterRevision: run.presentationRevision });
    await feedWaiters(closing.server, 1, 'the wait subscribed');
    const closed = closing.close();
    expect(refused(await waiting)).toBe('The wait was stopped: the server is closing or the client went away');
    await closed;
  });
});

describe('inspect_run on a file pi-workflows wrote', () => {
  let dir: string;
  let piServer: TestServer;
  let client: Client;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-reference-'));
    const path = join(dir, 'state.sqlite');
    buildReferenceFile(path);
    piServer = await startTestServer({ dbPath: path, token: FULL, metadataTokens: ['mcp-meta'] });
    client = await connect(piServer, { authorization: `Bearer ${FULL}` });
  });
  afterAll(async () => {
    await piServer.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the view: title, steps with outcomes, the final output, as pi-workflows shows them', async () => {
    const pi = loadReferenceViews()['ref-translate-31'];
    const { view } = ok(await call(client, 'inspect_run', { runId: 'ref-translate-31', recentRevisions: 0 })) as {
      view: { title: string; display: { status: string }; finalOutput: { text: string }; stepTotal: number; steps: Array<Record<string, unknown>> };
    };
    expect(view).toMatchObject({ title: pi.state.runTitle, display: { status: 'COMPLETED' }, stepTotal: pi.stepTotal });
    expect(view.finalOutput.text).toBe(typeof pi.state.finalOutput === 'string' ? pi.state.finalOutput : JSON.stringify(pi.state.finalOutput, null, 2));
    expect(view.steps.map((step) => [step.nodeId, step.outcome, step.error])).toEqual(
      pi.state.steps.map((step) => [step.nodeId, step.outcome.toUpperCase(), null]),
    );
  });

  it('a waiting run says what it waits on; with a metadata token the content is null, not a failure', async () => {
    const meta = await connect(piServer, { authorization: 'Bearer mcp-meta' });
    const { view } = ok(await call(meta, 'inspect_run', { runId: 'ref-triage-77', recentRevisions: 0 })) as {
      view: { waitingOn: string; display: { status: string; controls: string[] }; pendingRequest: { kind: string; status: string } | null };
    };
    const pi = loadReferenceViews()['ref-triage-77'];
    expect(view).toMatchObject({
      waitingOn: pi.state.waitingOn,
      display: { status: 'WAITING', controls: pi.display.controls.map((control) => control.toUpperCase()) },
      pendingRequest: { kind: 'agent', status: 'pending' },
    });
    const failed = ok(await call(meta, 'inspect_run', { runId: 'ref-import-52', recentRevisions: 0 })) as {
      view: { error: null; display: { status: string } };
    };
    expect(failed.view).toMatchObject({ error: null, display: { status: 'FAILED' } });
  });

  it('wait_for_run_change with the view cursor says what changed in the view: a trace event pi-workflows’ engine adds from another connection', async () => {
    const inspected = ok(await call(client, 'inspect_run', { runId: 'ref-triage-77', recentRevisions: 0 })) as {
      run: { presentationRevision: number };
      view: { cursor: string; revision: number };
    };
    const waiting = call(client, 'wait_for_run_change', {
      runId: 'ref-triage-77',
      afterRevision: inspected.run.presentationRevision,
      viewCursor: inspected.view.cursor,
      timeoutMs: 20_000,
    });
    const engine = EngineRowWriter.open({ path: join(dir, 'state.sqlite') });
    try {
      engine.trace({ runId: 'ref-triage-77', scope: 'node', type: 'node_heartbeat', nodeId: 'classify', payload: { beat: 1 } });
    } finally {
      engine.close();
    }
    const answer = ok(await waiting) as {
      kind: string;
      view: { kind: string; fromRevision: number; cursor: string; traceEvents: Array<{ type: string; nodeId: string }>; steps: unknown[] };
    };
    expect(answer.kind).toBe('changed');
    expect(answer.view).toMatchObject({ kind: 'changed', fromRevision: inspected.view.revision, steps: [] });
    expect(answer.view.traceEvents.map((event) => [event.type, event.nodeId])).toEqual([['node_heartbeat', 'classify']]);
    expect(answer.view.cursor).not.toBe(inspected.view.cursor);
  });
});
