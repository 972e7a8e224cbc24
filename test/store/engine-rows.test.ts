/**
 * The engine-row writer (src/store/engine-rows/): what pi-workflows' engine writes for a run,
 * read back by the run-view reader (src/store/run-view/) exactly, on both kinds of file — our
 * own file after its migrations (0009 gives it pi's engine tables) and a pi-workflows state
 * file — and the pi-workflows file still passes pi's open check afterwards.
 *
 * The run: 3 steps (plan: agent with a prompt, an output, a captured session with a tool call
 * and a progress update; build: compute with an output; review: agent with a prompt, failed),
 * then the run failed.
 */
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPiWorkflowsFile, piWorkflowsOpenCheck, type PiWorkflowsFileFacts } from '../../fixtures/pi-workflows-file.js';
import { loadReferenceRows } from '../../fixtures/pi-workflows-reference-file.js';
import { canonicalJson, type JsonValue } from '../../src/store/canonical-json.js';
import { EngineRowWriter } from '../../src/store/engine-rows/index.js';
import { WorkflowStore } from '../../src/store/index.js';
import { readRunSessionEntry, readRunValue, readRunView, runSegmentId, type RunView, type ValueRef } from '../../src/store/run-view/index.js';
import { tempDir, TestClock } from '../helpers/store-fixtures.js';

const RUN = 'engine-1';
const SNAPSHOT = {
  schema: 'pi-workflows.definition-snapshot.v1',
  name: 'ship-release',
  startAt: 'plan',
  nodes: { plan: { nodeType: 'agent' }, build: { nodeType: 'compute' }, review: { nodeType: 'agent' } },
  edges: [
    { from: 'plan', to: 'build' },
    { from: 'build', to: 'review' },
  ],
};
const TOOL_CALL = { type: 'toolCall', id: 'call-1', name: 'read', arguments: { path: 'CHANGELOG.md' } };
const ENTRIES: Array<{ [key: string]: JsonValue }> = [
  { type: 'message', id: 'e1', parentId: null, message: { role: 'user', content: [{ type: 'text', text: 'Plan the release of v2.' }] } },
  { type: 'message', id: 'e2', parentId: 'e1', message: { role: 'assistant', content: [{ type: 'text', text: 'Reading the changelog.' }, TOOL_CALL] } },
  {
    type: 'message',
    id: 'e3',
    parentId: 'e2',
    message: { role: 'toolResult', toolCallId: 'call-1', toolName: 'read', isError: false, content: [{ type: 'text', text: '## 2.0.0' }] },
  },
  { type: 'message', id: 'e4', parentId: 'e3', message: { role: 'assistant', content: [{ type: 'text', text: 'Plan: build, then review.' }] } },
];
const PROGRESS = { schema: 'pi-workflows.progress.v1', label: 'Planning', status: 'running', completed: 1, total: 3, unit: 'steps' };

interface Kind {
  name: string;
  /** Creates the file; returns the pi-workflows file's facts (for its open check) or undefined. */
  create: (path: string) => PiWorkflowsFileFacts | undefined;
}

const KINDS: Kind[] = [
  { name: 'our own file (migrations through 0009)', create: () => undefined },
  {
    name: 'a pi-workflows state file',
    create: (path) => {
      const writer = createPiWorkflowsFile(path);
      writer.close();
      return writer.facts;
    },
  },
];

describe.each(KINDS)('engine rows on $name', (kind) => {
  let dir: string;
  let path: string;
  let facts: PiWorkflowsFileFacts | undefined;
  let view: RunView;
  let connection: Database.Database;
  const clock = new TestClock();
  const t0 = clock.t;
  const at = (ms: number): number => t0 + ms;
  const value = (ref: ValueRef | null): JsonValue => (ref === null ? null : readRunValue(connection, RUN, ref));

  beforeAll(() => {
    dir = tempDir('engine-rows-');
    path = join(dir, 'state.sqlite');
    facts = kind.create(path);
    const store = WorkflowStore.open({ path, projectPath: dir, clock: clock.now });
    const digest = createHash('sha256').update(canonicalJson(SNAPSHOT)).digest('hex');
    store.reserveWorkflowRun(
      {
        runId: RUN,
        workflowName: 'ship-release',
        workflowSourceRef: 'workflows/ship-release.ts',
        workflowSource: { kind: 'file', path: 'workflows/ship-release.ts', hash: digest },
        definitionDigest: `sha256:${digest}`,
        definitionSnapshot: SNAPSHOT,
        input: { version: '2.0.0' },
        originSessionId: 'pi-sess-1',
        executionMode: 'interactive',
      },
      { runnerId: 'host-1', claimToken: 'token-1', leaseMs: 60_000 },
    );
    expect(store.markWorkflowRunRunning({ runId: RUN, claimToken: 'token-1' })).toBeTruthy();
    store.close();

    const engine = EngineRowWriter.open({ path, clock: clock.now });
    const step = (ms: number): void => void (clock.t = at(ms));
    step(10);
    engine.startRun({ runId: RUN, title: 'Ship v2', statusDetail: 'planning' });
    step(20);
    engine.bindSession({ runId: RUN, piSessionId: 'pi-sess-1', cwd: '/work/app' });
    step(30);
    engine.startStep({ runId: RUN, nodeId: 'plan', attemptId: 'att-plan' });
    step(40);
    engine.sendPrompt({ runId: RUN, attemptId: 'att-plan', prompt: 'Plan the release of v2.' });
    ENTRIES.forEach((entry, index) => {
      step(45 + index);
      engine.appendSessionEntry({ runId: RUN, entry });
    });
    step(50);
    const ids = { nodeId: 'plan', attemptId: 'att-plan', turnId: 'turn-1' };
    engine.appendSessionEvents({
      runId: RUN,
      events: [
        { type: 'turn_started', ...ids, payload: {} },
        { type: 'tool_execution_started', ...ids, messageId: 'm-1', toolCallId: 'call-1', payload: { toolName: 'read', args: { path: 'CHANGELOG.md' } } },
        { type: 'tool_execution_finished', ...ids, messageId: 'm-1', toolCallId: 'call-1', payload: { isError: false, result: { lines: 12 } } },
        { type: 'turn_finished', ...ids, payload: {} },
      ],
    });
    step(60);
    engine.publishUpdate({ runId: RUN, attemptId: 'att-plan', type: 'progress', key: 'plan', data: PROGRESS });
    step(70);
    engine.finishStep({
      runId: RUN,
      attemptId: 'att-plan',
      outcome: 'ok',
      output: { steps: ['build', 'review'] },
      conversation: { firstEntryId: 'e1', lastEntryId: 'e4' },
    });
    step(80);
    engine.startStep({ runId: RUN, nodeId: 'build', attemptId: 'att-build' });
    step(90);
    engine.finishStep({ runId: RUN, attemptId: 'att-build', outcome: 'ok', output: { artifacts: 2 } });
    step(100);
    engine.startStep({ runId: RUN, nodeId: 'review', attemptId: 'att-review' });
    step(105);
    engine.sendPrompt({ runId: RUN, attemptId: 'att-review', prompt: 'Review the build.' });
    step(110);
    engine.finishStep({ runId: RUN, attemptId: 'att-review', outcome: 'failed', error: 'review found 3 problems' });
    step(120);
    engine.finishSessionCapture({ runId: RUN, status: 'complete' });
    step(130);
    engine.finishRun({ runId: RUN, status: 'failed', error: 'Node review failed: review found 3 problems' });
    engine.close();

    connection = new Database(path, { readonly: true });
    view = readRunView(connection, RUN) as RunView;
  });
  afterAll(() => {
    connection.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes in pi-workflows’ own shapes: every viewer target and key, and every trace envelope’s scope and fields per event type, are ones pi-workflows itself wrote (the reference rows)', () => {
    const rows = loadReferenceRows();
    // rows.json keeps a JSON blob's value beside its bytes (`$json`).
    const blobOf = new Map(rows.blobs?.map((blob) => [(blob.blob_hash as { $blob: string }).$blob, (blob.content as { $json?: unknown }).$json]));
    const piTargets = new Set(rows.viewer_deltas?.map((delta) => `${String(delta.target_type)}|${String(delta.target_key)}`));
    const ours = connection.prepare('SELECT DISTINCT target_type AS type, target_key AS key FROM viewer_deltas WHERE run_id = ?').all(RUN) as Array<{
      type: string;
      key: string;
    }>;
    for (const target of ours) expect(piTargets, `${target.type}|${target.key}`).toContain(`${target.type}|${target.key}`);
    /** Event type → the envelope's scope and sorted field names, as pi wrote them (engine events only: the queue's have no envelope). */
    const shapes = new Map<string, string>();
    for (const event of rows.events ?? []) {
      const envelope = blobOf.get((event.payload_hash as { $blob: string } | null)?.$blob ?? '') as Record<string, unknown> | undefined;
      if (envelope === undefined || typeof envelope.scope !== 'string') continue;
      shapes.set(String(event.event_type), `${envelope.scope}:${Object.keys(envelope).sort().join(',')}`);
    }
    const written = connection
      .prepare(
        'SELECT e.event_type AS type, CAST(b.content AS TEXT) AS body FROM events e JOIN blobs b ON b.blob_hash = e.payload_hash JOIN runs r ON r.resource_id = e.resource_id WHERE r.run_id = ?',
      )
      .all(RUN) as Array<{ type: string; body: string }>;
    let compared = 0;
    for (const { type, body } of written) {
      const envelope = JSON.parse(body) as Record<string, unknown>;
      if (typeof envelope.scope !== 'string' || !shapes.has(type)) continue;
      expect(`${envelope.scope}:${Object.keys(envelope).sort().join(',')}`, type).toBe(shapes.get(type));
      compared += 1;
    }
    // run_started, node_started, agent_prompt_sent, node_finished, node_failed, run_failed … at least these are pi's too.
    expect(compared).toBeGreaterThanOrEqual(6);
  });

  it('the run state: failed, titled, its error, trace position, times', () => {
    expect(view.state).toMatchObject({
      status: 'failed',
      title: 'Ship v2',
      statusDetail: null,
      traceSeq: 16,
      createdAt: t0,
      updatedAt: at(130),
      finishedAt: at(130),
      currentNode: null,
      activeAttempt: null,
      finalOutput: null,
    });
    expect(value({ ...(view.state.error as ValueRef), decode: 'value' })).toBe('Node review failed: review found 3 problems');
    expect(view.definition).toMatchObject({ schema: 'pi-workflows.definition-snapshot.v1', startAt: 'plan' });
  });

  it('three steps with their prompts, outputs, error and conversation, in run order', () => {
    expect(view.steps.total).toBe(3);
    expect(
      view.steps.items.map((step) => ({
        stepIndex: step.stepIndex,
        attemptId: step.attemptId,
        nodeId: step.nodeId,
        nodeType: step.nodeType,
        attemptNumber: step.attemptNumber,
        outcome: step.outcome,
        startedAt: step.startedAt,
        finishedAt: step.finishedAt,
        prompt: value(step.prompt),
        output: value(step.output),
        error: step.error === null ? null : value({ ...step.error, decode: 'value' }),
        conversation: step.conversation,
      })),
    ).toEqual([
      {
        stepIndex: 0,
        attemptId: 'att-plan',
        nodeId: 'plan',
        nodeType: 'agent',
        attemptNumber: 1,
        outcome: 'ok',
        startedAt: at(30),
        finishedAt: at(70),
        prompt: 'Plan the release of v2.',
        output: { steps: ['build', 'review'] },
        error: null,
        conversation: { firstEntryId: 'e1', lastEntryId: 'e4' },
      },
      {
        stepIndex: 1,
        attemptId: 'att-build',
        nodeId: 'build',
        nodeType: 'compute',
        attemptNumber: 1,
        outcome: 'ok',
        startedAt: at(80),
        finishedAt: at(90),
        prompt: null,
        output: { artifacts: 2 },
        error: null,
        conversation: null,
      },
      {
        stepIndex: 2,
        attemptId: 'att-review',
        nodeId: 'review',
        nodeType: 'agent',
        attemptNumber: 1,
        outcome: 'failed',
        startedAt: at(100),
        finishedAt: at(110),
        prompt: 'Review the build.',
        output: null,
        error: 'review found 3 problems',
        conversation: null,
      },
    ]);
    expect(view.graphSteps.map((step) => step.nodeId)).toEqual(['plan', 'build', 'review']);
    expect(view.takenTransitions).toEqual([
      { from: 'build', to: 'review' },
      { from: 'plan', to: 'build' },
    ]);
    expect(view.graphCursor).toBe(2);
  });

  it('the trace: the queue events, then the engine events with their envelope (scope, node, attempt, payload)', () => {
    const trace = view.trace.items.map((event) => ({
      seq: event.seq,
      at: event.at,
      scope: event.scope,
      type: event.type,
      nodeId: event.nodeId,
      attemptId: event.attemptId,
      actor: event.actorType,
      payload: value(event.payload),
    }));
    const engine = (
      seq: number,
      ms: number,
      scope: string,
      type: string,
      payload: JsonValue,
      nodeId: string | null = null,
      attemptId: string | null = null,
    ) => ({
      seq,
      at: at(ms),
      scope,
      type,
      nodeId,
      attemptId,
      actor: 'system',
      payload,
    });
    expect(trace.slice(0, 3).map((event) => [event.seq, event.type, event.scope, event.payload])).toEqual([
      [1, 'run.queued', 'run', {}],
      [2, 'lease.claimed', 'run', {}],
      [3, 'run.queue_running', 'run', {}],
    ]);
    expect(trace.slice(3)).toEqual([
      engine(4, 10, 'run', 'run_initialized', { workflowName: 'ship-release' }),
      engine(5, 10, 'run', 'run_started', { inputStored: true, runTitle: 'Ship v2', workflowName: 'ship-release' }),
      engine(6, 20, 'session', 'session_bound', { piSessionId: 'pi-sess-1' }),
      engine(7, 30, 'node', 'node_started', { nodeType: 'agent' }, 'plan', 'att-plan'),
      engine(8, 40, 'agent', 'agent_prompt_sent', { promptStored: true }, 'plan', 'att-plan'),
      engine(
        9,
        60,
        'node',
        'update_published',
        { updateId: view.updates.items[0]?.updateId ?? '', type: 'progress', key: 'plan', data: PROGRESS },
        'plan',
        'att-plan',
      ),
      engine(10, 70, 'node', 'node_finished', { durationMs: 40, outcome: 'ok', outputStored: true }, 'plan', 'att-plan'),
      engine(11, 80, 'node', 'node_started', { nodeType: 'compute' }, 'build', 'att-build'),
      engine(12, 90, 'node', 'node_finished', { durationMs: 10, outcome: 'ok', outputStored: true }, 'build', 'att-build'),
      engine(13, 100, 'node', 'node_started', { nodeType: 'agent' }, 'review', 'att-review'),
      engine(14, 105, 'agent', 'agent_prompt_sent', { promptStored: true }, 'review', 'att-review'),
      engine(15, 110, 'node', 'node_failed', { durationMs: 10, outcome: 'failed' }, 'review', 'att-review'),
      engine(16, 130, 'run', 'run_failed', { error: 'Node review failed: review found 3 problems', status: 'failed' }),
    ]);
  });

  it('the captured session: binding, capture, entries (a tool call and its result) and events', () => {
    expect(view.session).toEqual({
      segmentId: runSegmentId(RUN),
      binding: { schema: 'pi-workflows.session-binding.v1', runId: RUN, piSessionId: 'pi-sess-1', cwd: '/work/app', boundAt: new Date(at(20)).toISOString() },
      capture: { status: 'complete', entryCount: 4, eventCount: 4, lastEventSeq: 4, failure: null },
      integrity: { status: 'complete', diagnostics: [] },
      createdAt: at(20),
      finishedAt: at(120),
    });
    expect(view.sessionEntries.items.map((entry) => [entry.seq, entry.at, entry.entryId, entry.entryType, entry.role])).toEqual([
      [1, at(45), 'e1', 'message', 'user'],
      [2, at(46), 'e2', 'message', 'assistant'],
      [3, at(47), 'e3', 'message', 'toolResult'],
      [4, at(48), 'e4', 'message', 'assistant'],
    ]);
    const call = readRunSessionEntry(connection, RUN, view.sessionEntries.items[1]?.entry.hash ?? '');
    expect([call.text, call.toolCalls]).toEqual(['Reading the changelog.', [{ id: 'call-1', name: 'read', arguments: { path: 'CHANGELOG.md' } }]]);
    const result = readRunSessionEntry(connection, RUN, view.sessionEntries.items[2]?.entry.hash ?? '');
    expect([result.toolCallId, result.toolName, result.text]).toEqual(['call-1', 'read', '## 2.0.0']);
    expect(view.sessionEvents.items.map((event) => [event.seq, event.at, event.type, event.turnId, event.messageId, event.toolCallId])).toEqual([
      [1, at(50), 'turn_started', 'turn-1', null, null],
      [2, at(50), 'tool_execution_started', 'turn-1', 'm-1', 'call-1'],
      [3, at(50), 'tool_execution_finished', 'turn-1', 'm-1', 'call-1'],
      [4, at(50), 'turn_finished', 'turn-1', null, null],
    ]);
  });

  it('the progress update, at the run revision of its trace event', () => {
    expect(view.updates.items.map((update) => ({ ...update, data: value({ ...update.data, decode: 'value' }) }))).toEqual([
      {
        seq: 9,
        updateId: expect.stringMatching(/^upd_[0-9a-f-]{36}$/),
        at: at(60),
        nodeId: 'plan',
        attemptId: 'att-plan',
        type: 'progress',
        key: 'plan',
        data: PROGRESS,
      },
    ]);
  });

  it("viewer deltas with pi's targets, keys and patch paths, each patch starting with replace /presentationRevision", () => {
    const rows = connection
      .prepare(
        `SELECT d.presentation_revision AS revision, d.target_type AS type, d.target_key AS key, CAST(b.content AS TEXT) AS patch
         FROM viewer_deltas d JOIN blobs b ON b.blob_hash = d.patch_hash WHERE d.run_id = ? ORDER BY d.presentation_revision, d.delta_index`,
      )
      .all(RUN) as Array<{ revision: number; type: string; key: string; patch: string }>;
    for (const row of rows) {
      expect(JSON.parse(row.patch)[0]).toEqual({ op: 'replace', path: '/presentationRevision', value: row.revision });
    }
    const targets = (revision: number): string[] => rows.filter((row) => row.revision === revision).map((row) => `${row.type}:${row.key}`);
    const revisionOf = (type: string, key: string, predicate: (patch: Array<{ op: string; path: string; value?: unknown }>) => boolean): number =>
      rows.find((row) => row.type === type && row.key === key && predicate(JSON.parse(row.patch)))?.revision ?? -1;
    const finished = revisionOf('timeline', 'trace:tail', (patch) => (patch[1]?.value as Array<{ type: string }>)[0]?.type === 'node_finished');
    expect(targets(finished)).toEqual(['graph:', 'timeline:trace:tail', 'replay:steps:reload']);
    const graph = JSON.parse(rows.find((row) => row.revision === finished && row.type === 'graph')?.patch ?? '[]') as Array<{
      op: string;
      path: string;
      value: unknown;
    }>;
    expect(graph.map((op) => op.path)).toEqual(
      expect.arrayContaining([
        '/state/traceSeq',
        '/state/status',
        '/state/updates',
        '/state/currentNode',
        '/graphSteps',
        '/takenTransitions',
        '/stepTotal',
        '/live',
      ]),
    );
    expect(graph.find((op) => op.path === '/stepTotal')?.value).toBe(1);
    const entry = revisionOf('conversation', 'entries:tail', () => true);
    expect(targets(entry)).toEqual(['conversation:entries:tail', 'conversation:capture']);
    const tail = JSON.parse(rows.find((row) => row.revision === entry && row.type === 'conversation')?.patch ?? '[]') as unknown[];
    expect(tail.slice(1)).toEqual([
      { op: 'append', path: '/items', value: [{ at: new Date(at(45)).toISOString(), entry: ENTRIES[0], seq: 1 }] },
      { op: 'replace', path: '/total', value: 1 },
    ]);
    expect(rows.some((row) => row.type === 'timeline' && row.key === 'session:tail')).toBe(true);
    expect(view.revision).toBe(rows.at(-1)?.revision);
  });

  it('a pi-workflows file still passes pi-workflows’ open check (our own file: its migrations all recorded)', () => {
    if (facts !== undefined) expect(piWorkflowsOpenCheck(facts)).toEqual([]);
    else expect(connection.prepare('SELECT max(version) AS v FROM schema_migrations').get()).toEqual({ v: 9 });
  });
});
