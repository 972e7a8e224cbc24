/**
 * docs/PI-WORKFLOWS-FILES.md §9: the run view read from a state file's rows (src/store/run-view/)
 * agrees, field by field, with pi-workflows 0.16's own view of the same rows. The file is built
 * from the reference rows pi-workflows' own code wrote for eight runs
 * (test/data/pi-workflows-reference/, fixtures/pi-workflows-reference-file.ts), and every run's
 * view is compared with pi's own (`views.json`). pi shows times as ISO text, the store keeps
 * epoch ms: the test converts. Then: paging from both ends, missing tables, the run scope of
 * blob reads, and one snapshot per view.
 */
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, type JsonValue } from '../../src/store/canonical-json.js';
import {
  countRunTrace,
  readRunBlob,
  readRunDecisionSubmissions,
  readRunHumanDecisions,
  readRunRevision,
  readRunSessionEntry,
  readRunTrace,
  readRunValue,
  readRunView,
  readRunViewSnapshot,
  readRunWorkflowMessages,
  reduceDisplay,
  type BlobRef,
  type RunView,
  type ValueRef,
} from '../../src/store/run-view/index.js';
import { sha256 } from '../../src/store/values.js';
import {
  buildReferenceFile,
  decodeReferenceValue,
  loadReferenceRows,
  loadReferenceViews,
  REFERENCE_RUN_IDS,
  type PiRunView,
  type ReferenceRows,
  type ViewJson,
} from '../../fixtures/pi-workflows-reference-file.js';
import { expectStoreError, tempDir } from '../helpers/store-fixtures.js';

let dir: string;
let path: string;
let connection: Database.Database;
let rows: ReferenceRows;
let views: Record<string, PiRunView>;

beforeAll(() => {
  dir = tempDir('run-view-');
  path = join(dir, 'state.sqlite');
  buildReferenceFile(path);
  connection = new Database(path, { readonly: true });
  rows = loadReferenceRows();
  views = loadReferenceViews();
});
afterAll(() => {
  connection.close();
  rmSync(dir, { recursive: true, force: true });
});

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
/** A view value with `undefined` members dropped, comparable with what the store reads. */
const plain = (value: unknown): JsonValue => JSON.parse(canonicalJson(value)) as JsonValue;

function valueOf(runId: string, ref: ValueRef | null): JsonValue {
  return ref === null ? null : readRunValue(connection, runId, ref);
}

function blobOf(runId: string, ref: BlobRef | null): JsonValue {
  return ref === null ? null : readRunBlob(connection, runId, ref.hash).value;
}

function viewOf(runId: string): RunView {
  const view = readRunView(connection, runId);
  if (view === null) throw new Error(`no view of ${runId}`);
  return view;
}

describe.each(REFERENCE_RUN_IDS.map((runId) => [runId]))('%s agrees with pi-workflows 0.16', (runId) => {
  const pi = (): PiRunView => views[runId] as PiRunView;

  it('revision, title, status, input, final output, error and the rest of the run state', () => {
    const view = viewOf(runId);
    const state = pi().state;
    expect(view.revision).toBe(pi().revision);
    expect(view.state.title).toBe(state.runTitle ?? null);
    expect(view.state.status).toBe(state.status);
    expect(view.state.paused).toBe(state.paused ?? false);
    expect(view.state.statusDetail).toBe(state.statusDetail ?? null);
    expect(blobOf(runId, view.state.input)).toEqual(state.input);
    expect(blobOf(runId, view.state.finalOutput)).toEqual(state.finalOutput ?? null);
    expect(blobOf(runId, view.state.error)).toBe(state.error ?? null);
    expect(view.state.workflowName).toBe(state.workflowName);
    expect(view.state.workflowSource).toEqual(state.workflowSource ?? null);
    expect(view.state.parentRunId).toBe(state.parentRunId ?? null);
    expect(iso(view.state.createdAt)).toBe(state.startedAt);
    expect(iso(view.state.updatedAt)).toBe(state.updatedAt);
    expect(iso(view.state.finishedAt)).toBe(state.finishedAt ?? null);
    expect(view.state.traceSeq).toBe(state.traceSeq);
    expect(view.state.carriedStepCount).toBe(state.carriedStepCount ?? 0);
    expect(view.state.currentNode).toBe(state.currentNode ?? null);
    expect(view.state.waitingOn).toBe(state.waitingOn ?? null);
    expect(view.state.activeAttempt?.attemptId ?? null).toBe(state.currentAttemptId ?? null);
    expect(iso(view.state.activeAttempt?.startedAt ?? null)).toBe(state.currentNodeStartedAt ?? null);
    if (state.currentAttemptId !== undefined) expect(iso(view.state.activeAttempt?.deadlineAt ?? null)).toBe(state.currentNodeDeadlineAt);
    expect(view.state.humanDecision).toEqual(state.humanDecision ?? null);
  });

  it('queue record', () => {
    const { state } = viewOf(runId);
    const queue = pi().queue;
    expect(state.queue?.status).toBe(queue.status);
    expect(state.queue?.errorCode).toBe(queue.errorCode);
    expect(state.queue?.originSessionId).toBe(queue.originSessionId);
    expect(state.queue?.executionMode).toBe(queue.executionMode);
    expect(iso(state.queue?.createdAt ?? null)).toBe(queue.createdAt);
    expect(iso(state.queue?.updatedAt ?? null)).toBe(queue.updatedAt);
    expect(iso(state.queue?.startedAt ?? null)).toBe(queue.startedAt);
    expect(iso(state.queue?.finishedAt ?? null)).toBe(queue.finishedAt);
    expect(state.rootRunId).toBe(queue.rootRunId);
    expect(state.lineageKind).toBe(queue.lineageKind);
    expect(state.restartNumber).toBe(queue.restartNumber);
    expect(state.definitionDigest).toBe(queue.definitionDigest);
    expect(state.workflowRef).toBe(queue.workflowSourceRef);
  });

  it('definition: nodes, edges, start', () => {
    const { definition } = viewOf(runId);
    const workflow = pi().workflow;
    expect(definition.schema).toBe(workflow.schema);
    expect(definition.name).toBe(workflow.name);
    expect(definition.startAt).toBe(workflow.startAt);
    expect(definition.edges).toEqual(workflow.edges);
    expect(Object.fromEntries(definition.nodes.map((node) => [node.nodeId, node.fields]))).toEqual(workflow.nodes);
    expect(definition.nodes.map((node) => node.nodeType)).toEqual(
      Object.keys(workflow.nodes)
        .sort()
        .map((nodeId) => workflow.nodes[nodeId]?.nodeType),
    );
  });

  it('steps: attempt, node, type, outcome, times, prompt, output, error (blobs read)', () => {
    const { steps } = viewOf(runId);
    expect(steps.total).toBe(pi().stepTotal);
    expect(steps.start).toBe(pi().stepStart);
    const ours = steps.items.map((step) => ({
      attemptId: step.attemptId,
      nodeId: step.nodeId,
      nodeType: step.nodeType,
      outcome: step.outcome,
      startedAt: iso(step.startedAt),
      finishedAt: iso(step.finishedAt),
      prompt: valueOf(runId, step.prompt),
      output: valueOf(runId, step.output),
      error: step.error === null ? undefined : blobOf(runId, step.error),
      conversation: step.conversation ?? undefined,
    }));
    const theirs = pi().state.steps.map((step) => ({
      attemptId: step.attemptId,
      nodeId: step.nodeId,
      nodeType: step.nodeType,
      outcome: step.outcome,
      startedAt: step.startedAt,
      finishedAt: step.finishedAt,
      prompt: step.prompt,
      output: step.output,
      error: step.error,
      conversation: step.conversation,
    }));
    expect(plain(ours)).toEqual(plain(theirs));
  });

  it('graph steps, taken transitions and graph cursor', () => {
    const view = viewOf(runId);
    const compact = (step: { attemptId: string; nodeId: string; nodeType: string; outcome: string; startedAt: string | null; finishedAt: string | null }) => [
      step.attemptId,
      step.nodeId,
      step.nodeType,
      step.outcome,
      step.startedAt,
      step.finishedAt,
    ];
    expect(view.graphSteps.map((step) => compact({ ...step, startedAt: iso(step.startedAt), finishedAt: iso(step.finishedAt) }))).toEqual(
      pi().graphSteps.map(compact),
    );
    expect(view.takenTransitions.map((transition) => `${transition.from}->${transition.to}`)).toEqual(pi().takenTransitions);
    expect(view.graphCursor).toBe(pi().graphCursor);
  });

  it('trace page: seq, at, scope, type, node, attempt, payload', () => {
    const { trace } = viewOf(runId);
    const page = pi().tracePage;
    expect(trace.total).toBe(page.total);
    expect(trace.start).toBe(page.start);
    expect(trace.hasBefore).toBe(page.start > 0);
    expect(trace.hasAfter).toBe(false);
    const ours = trace.items.map((event) => ({
      seq: event.seq,
      at: iso(event.at),
      runId,
      scope: event.scope,
      type: event.type,
      nodeId: event.nodeId ?? undefined,
      attemptId: event.attemptId ?? undefined,
      payload: event.payload === null ? {} : valueOf(runId, event.payload),
    }));
    expect(plain(ours)).toEqual(plain(page.items));
  });

  it('captured Pi session: binding, capture, integrity, entries, events', () => {
    const view = viewOf(runId);
    const session = pi().session;
    expect(view.session?.binding ?? null).toEqual(session.binding);
    if (session.capture === null) expect(view.session).toBeNull();
    else {
      const { failure, ...counts } = view.session?.capture ?? { failure: null };
      expect({ ...counts, ...(failure === null ? {} : { failure }) }).toEqual({ ...session.capture, schema: undefined, eventSchema: undefined });
    }
    expect(view.session?.integrity ?? { status: 'unavailable', diagnostics: [] }).toEqual(session.integrity);
    expect(view.sessionEntries.total).toBe(session.entryPage.total);
    expect(view.sessionEntries.start).toBe(session.entryPage.start);
    expect(view.sessionEntries.items.map((item) => ({ seq: item.seq, at: iso(item.at), entry: blobOf(runId, item.entry) }))).toEqual(session.entryPage.items);
    for (const item of view.sessionEntries.items) {
      const entry = session.entryPage.items.find((candidate) => candidate.seq === item.seq)?.entry as Record<string, ViewJson>;
      const message = entry.message as Record<string, ViewJson> | undefined;
      expect([item.entryId, item.entryType, item.role, item.customType]).toEqual([entry.id, entry.type, message?.role ?? null, entry.customType ?? null]);
    }
    expect(view.sessionEvents.total).toBe(session.eventPage.total);
    expect(
      plain(
        view.sessionEvents.items.map((event) => ({
          seq: event.seq,
          at: iso(event.at),
          type: event.type,
          nodeId: event.nodeId ?? undefined,
          attemptId: event.attemptId ?? undefined,
          turnId: event.turnId ?? undefined,
          messageId: event.messageId ?? undefined,
          toolCallId: event.toolCallId ?? undefined,
          payload: blobOf(runId, event.payload),
        })),
      ),
    ).toEqual(plain(session.eventPage.items));
  });

  it('updates, settings and follow-ups', () => {
    const view = viewOf(runId);
    expect(view.updates.total).toBe(pi().updateTotal);
    expect(view.updates.start).toBe(pi().updateStart);
    const updates = view.updates.items.map((update) => ({
      updateId: update.updateId,
      seq: update.seq,
      at: iso(update.at),
      runId,
      nodeId: update.nodeId,
      attemptId: update.attemptId,
      type: update.type,
      key: update.key,
      data: blobOf(runId, update.data),
    }));
    expect(plain(updates)).toEqual(plain(pi().updates));
    expect(plain(updates)).toEqual(plain(pi().state.updates));
    expect(view.settings.total).toBe(pi().settingsTotal);
    expect(
      view.settings.items.map((scope) => ({
        scopeId: scope.scopeId,
        originRunId: scope.originRunId,
        activeRunId: scope.activeRunId,
        mountPath: scope.mountPath,
        invocation: scope.invocation,
        changeNumber: scope.changeNumber,
        settings: blobOf(runId, scope.settings),
        settingsHash: scope.settings.hash,
        createdAt: iso(scope.createdAt),
        updatedAt: iso(scope.updatedAt),
      })),
    ).toEqual(pi().settingsScopes);
    expect(view.followUps.total).toBe(pi().followUpTotal);
    const queue = pi().followUpQueue;
    const followUps =
      view.originSessionId === null
        ? null
        : {
            runId,
            originSessionId: view.originSessionId,
            items: view.followUps.items.map((followUp) => ({
              followUpId: followUp.followUpId,
              runId,
              requestId: followUp.requestId,
              order: followUp.order,
              targetSessionId: followUp.targetSessionId,
              actor: { type: followUp.actorType, id: followUp.actorId ?? undefined },
              source: followUp.source,
              prompt: blobOf(runId, followUp.prompt),
              state: followUp.state,
              reason: followUp.reason === null ? undefined : blobOf(runId, followUp.reason),
              createdAt: iso(followUp.createdAt),
              updatedAt: iso(followUp.updatedAt),
            })),
          };
    expect(plain(followUps)).toEqual(plain(queue));
  });

  it('display: status, activity, reason, controls; live and possibly interrupted', () => {
    const view = viewOf(runId);
    const { status, activity, reason, controls } = view.display;
    expect({ status, activity, reason, controls }).toEqual(pi().display);
    expect(view.live).toBe(pi().live);
    expect(view.possiblyInterrupted).toBe(pi().possiblyInterrupted);
  });
});

describe('questions a run asks a person, as pi-workflows wrote them', () => {
  const blobRow = (hash: unknown): unknown => {
    const key = (decodeReferenceValue(hash) as Buffer).toString('hex');
    const row = rows.blobs?.find((blob) => (decodeReferenceValue(blob.blob_hash) as Buffer).toString('hex') === key) as Record<string, unknown>;
    return row.$json ?? (row.content as Record<string, unknown>).$json ?? (row.content as Record<string, unknown>).$text;
  };

  it('ref-triage-77: the pending interactive request, its attempt and the step message', () => {
    const view = viewOf('ref-triage-77');
    const row = rows.interactive_requests?.[0] as Record<string, unknown>;
    const request = view.pendingRequest;
    expect(request).toMatchObject({
      requestId: row.request_id,
      attemptId: row.attempt_id,
      targetSessionId: row.target_session_id,
      kind: row.kind,
      revision: row.revision,
      status: 'pending',
      createdAt: row.created_at,
      settledAt: null,
    });
    expect(request?.attemptId).toBe(views['ref-triage-77']?.state.currentAttemptId);
    expect(blobOf('ref-triage-77', request?.contract ?? null)).toEqual(blobRow(row.contract_hash));
    expect(view.interactiveRequests.total).toBe(1);
    const message = rows.workflow_messages?.find((candidate) => candidate.run_id === 'ref-triage-77') as Record<string, unknown>;
    const messages = readRunWorkflowMessages(connection, 'ref-triage-77');
    expect(messages.items).toHaveLength(1);
    expect(messages.items[0]).toMatchObject({ workflowMessageId: message.workflow_message_id, kind: 'step', sourceId: row.request_id, status: 'pending' });
    expect(blobOf('ref-triage-77', messages.items[0]?.content ?? null)).toEqual(blobRow(message.content_hash));
    expect(view.workflowTurns.total).toBe(0);
  });

  it('ref-signoff-63: the human decision, its resolution and submission; ref-signoff-63-c1 carries the receipt', () => {
    const row = rows.human_decisions?.[0] as Record<string, unknown>;
    const decisions = readRunHumanDecisions(connection, 'ref-signoff-63');
    expect(decisions.total).toBe(1);
    const decision = decisions.items[0];
    expect(decision).toMatchObject({
      decisionId: row.decision_id,
      attemptId: row.attempt_id,
      audience: 'legal',
      title: row.title,
      deadlineAt: row.deadline_at,
    });
    expect(blobOf('ref-signoff-63', decision?.choices ?? null)).toEqual(blobRow(row.choices_hash));
    expect(decision?.resolution).toMatchObject({ outcome: 'accepted', provenance: 'human', channel: 'slack-demo', actorId: 'legal-ines' });
    const submissions = readRunDecisionSubmissions(connection, 'ref-signoff-63', String(row.decision_id));
    expect(submissions.items.map((item) => [item.source, item.outcome, item.actorId])).toEqual([['human', 'won', 'legal-ines']]);
    expect(readRunHumanDecisions(connection, 'ref-signoff-63-c1').total).toBe(0);
    expect(viewOf('ref-signoff-63-c1').state.humanDecision?.decisionId).toBe(row.decision_id);
  });

  it('ref-explain-14: session entries read as role, text, custom type and tool calls', () => {
    const entries = viewOf('ref-explain-14').sessionEntries.items.map((item) => readRunSessionEntry(connection, 'ref-explain-14', item.entry.hash));
    expect(entries.map((entry) => [entry.entryType, entry.role, entry.customType])).toEqual([
      ['custom_message', null, 'pi-workflows-step'],
      ['message', 'assistant', null],
      ['message', 'toolResult', null],
      ['message', 'assistant', null],
    ]);
    expect(entries[0]?.text).toBe('Explain what lib/scheduler.rs does and where jobs are retried.');
    expect(entries[1]?.toolCalls).toEqual([{ id: 'toolu_ref_01', name: 'read', arguments: { path: 'lib/scheduler.rs' } }]);
    expect([entries[2]?.toolCallId, entries[2]?.toolName]).toEqual(['toolu_ref_01', 'read']);
  });
});

describe('display rules', () => {
  const facts = {
    queueStatus: 'running',
    durableStatus: 'running',
    paused: false,
    ambiguous: false,
    workerActive: false,
    originTurnActive: false,
    pendingInteraction: false,
    errorMessage: null,
  };
  it('follows pi-workflows reduceWorkflowDisplay rule by rule', () => {
    expect(reduceDisplay({ ...facts, ambiguous: true, workerActive: true })).toEqual({
      status: 'ambiguous',
      activity: null,
      reason: 'An external effect needs explicit recovery.',
      controls: ['review'],
    });
    expect(reduceDisplay({ ...facts, workerActive: true, originTurnActive: true })).toMatchObject({ status: 'running', activity: 'supervised_worker' });
    expect(reduceDisplay({ ...facts, originTurnActive: true, durableStatus: 'failed' })).toMatchObject({ status: 'running', activity: 'origin_turn' });
    expect(reduceDisplay({ ...facts, durableStatus: 'timed_out', errorMessage: 'late' })).toEqual({
      status: 'timed_out',
      activity: null,
      reason: 'late',
      controls: [],
    });
    expect(reduceDisplay({ ...facts, durableStatus: 'waiting', paused: true, queueStatus: 'parked' })).toEqual({
      status: 'paused',
      activity: null,
      reason: 'The workflow is durably paused.',
      controls: ['resume', 'cancel'],
    });
    expect(reduceDisplay({ ...facts, queueStatus: 'parked' })).toEqual({
      status: 'queued',
      activity: null,
      reason: 'The workflow is ready to resume.',
      controls: ['resume', 'cancel'],
    });
    expect(reduceDisplay({ ...facts, queueStatus: 'queued', durableStatus: 'queued' })).toEqual({
      status: 'queued',
      activity: null,
      reason: null,
      controls: ['cancel'],
    });
    expect(reduceDisplay({ ...facts, queueStatus: 'done' }).status).toBe('completed');
    expect(reduceDisplay({ ...facts, queueStatus: 'cancelled', errorMessage: 'stop' })).toMatchObject({ status: 'cancelled', reason: 'stop' });
    expect(reduceDisplay({ ...facts, queueStatus: 'starting' })).toEqual({ status: 'running', activity: null, reason: null, controls: ['pause', 'cancel'] });
  });
});

describe('blob reads are scoped to the run', () => {
  it('reads a blob the run refers to, refuses one of another run and a malformed hash', () => {
    const view = viewOf('ref-translate-31');
    const input = view.state.input;
    expect(readRunBlob(connection, 'ref-translate-31', input.hash)).toMatchObject({ mediaType: 'application/json', byteLength: input.byteLength });
    expectStoreError(() => readRunBlob(connection, 'ref-import-52', input.hash), `Blob ${input.hash} is not part of run ref-import-52`, 'not_found');
    expectStoreError(() => readRunBlob(connection, 'ref-translate-31', 'abc'), 'A blob hash is 64 hex digits', 'validation');
    expectStoreError(() => readRunBlob(connection, 'no-such-run', input.hash), 'Workflow run not found: no-such-run', 'not_found');
    expect(readRunView(connection, 'no-such-run')).toBeNull();
  });

  it('a continuation reads the step and the decision blobs it carries from its parent', () => {
    const view = viewOf('ref-signoff-63-c1');
    const carried = view.steps.items[0];
    expect(carried?.attemptRunId).toBe('ref-signoff-63');
    expect(valueOf('ref-signoff-63-c1', carried?.prompt ?? null)).toBe('Prepare the signature packet for MSA-2291.');
  });
});

/**
 * A synthetic run of 600 trace events, written as pi-workflows' engine writes a trace event
 * (`insertRunEvent`: the envelope `{scope, nodeId, attemptId, payload}` as a canonical-JSON
 * blob, an `events` row at the next resource revision by `system`). Its ids, times and payloads
 * are invented for this test.
 */
function addSyntheticRun(file: string, runId: string, events: number): void {
  const writer = new Database(file);
  writer.pragma('foreign_keys = ON');
  const template = rows.runs?.find((run) => run.run_id === 'ref-translate-31') as Record<string, unknown>;
  const resourceId = `run-synthetic-${runId}`;
  const at = 1_800_000_000_000;
  writer.transaction(() => {
    writer.prepare("INSERT INTO resources VALUES (?, 'run', ?, ?, ?, ?)").run(resourceId, runId, events, at, at + events);
    writer.prepare('INSERT INTO leases(resource_id, generation) VALUES (?, 0)').run(resourceId);
    writer
      .prepare(
        `INSERT INTO runs(run_id, resource_id, root_run_id, definition_digest, workflow_ref, launch_options_hash, status, input_hash, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, 'running', ?, ?, ?)`,
      )
      .run(
        runId,
        resourceId,
        runId,
        decodeReferenceValue(template.definition_digest),
        template.workflow_ref,
        decodeReferenceValue(template.launch_options_hash),
        decodeReferenceValue(template.input_hash),
        at,
        at + events,
      );
    writer.prepare('INSERT INTO viewer_runs VALUES (?, 1, 1, ?)').run(runId, at);
    const blob = writer.prepare("INSERT OR IGNORE INTO blobs VALUES (?, 'application/json', ?, ?, ?)");
    const event = writer.prepare(
      "INSERT INTO events(event_id, resource_id, resource_revision, event_type, actor_type, payload_hash, recorded_at) VALUES (?, ?, ?, ?, 'system', ?, ?)",
    );
    for (let seq = 1; seq <= events; seq += 1) {
      const bytes = Buffer.from(canonicalJson({ scope: 'node', nodeId: `n${seq % 7}`, attemptId: `attempt-${seq}`, payload: { step: seq } }), 'utf8');
      const hash = sha256(bytes);
      blob.run(hash, bytes.length, bytes, at + seq);
      event.run(`event-synthetic-${seq}`, resourceId, seq, seq % 2 === 0 ? 'node_finished' : 'node_started', hash, at + seq);
    }
  })();
  writer.close();
}

describe('pages from both ends (a synthetic run of 600 trace events)', () => {
  let pagingPath: string;
  let reader: Database.Database;
  beforeAll(() => {
    pagingPath = join(dir, 'paging.sqlite');
    copyFileSync(path, pagingPath);
    addSyntheticRun(pagingPath, 'synthetic-600', 600);
    reader = new Database(pagingPath, { readonly: true });
  });
  afterAll(() => reader.close());

  const seqs = (request: Parameters<typeof readRunTrace>[2]) => {
    const page = readRunTrace(reader, 'synthetic-600', request);
    return {
      first: page.items[0]?.seq,
      last: page.items.at(-1)?.seq,
      count: page.items.length,
      start: page.start,
      hasBefore: page.hasBefore,
      hasAfter: page.hasAfter,
    };
  };

  it('walks forward with first/after and backward with last/before, 256 items at most', () => {
    expect(countRunTrace(reader, 'synthetic-600')).toBe(600);
    expect(seqs({ first: 256 })).toEqual({ first: 1, last: 256, count: 256, start: 0, hasBefore: false, hasAfter: true });
    expect(seqs({ first: 256, after: 256 })).toEqual({ first: 257, last: 512, count: 256, start: 256, hasBefore: true, hasAfter: true });
    expect(seqs({ first: 256, after: 512 })).toEqual({ first: 513, last: 600, count: 88, start: 512, hasBefore: true, hasAfter: false });
    expect(seqs({ last: 256 })).toEqual({ first: 345, last: 600, count: 256, start: 344, hasBefore: true, hasAfter: false });
    expect(seqs({ last: 256, before: 345 })).toEqual({ first: 89, last: 344, count: 256, start: 88, hasBefore: true, hasAfter: true });
    expect(seqs({ last: 256, before: 89 })).toEqual({ first: 1, last: 88, count: 88, start: 0, hasBefore: false, hasAfter: true });
    expect(seqs({})).toEqual(seqs({ last: 256 }));
    expect(seqs({ first: 10, after: 100, before: 105 })).toEqual({ first: 101, last: 104, count: 4, start: 100, hasBefore: true, hasAfter: true });
    expect(seqs({ first: 0, after: 600 })).toEqual({ first: undefined, last: undefined, count: 0, start: 600, hasBefore: true, hasAfter: false });
  });

  it('items carry the payload by reference; the envelope fields are read out of it', () => {
    const item = readRunTrace(reader, 'synthetic-600', { first: 1, after: 299 }).items[0];
    expect(item).toMatchObject({ seq: 300, scope: 'node', type: 'node_finished', nodeId: 'n6', attemptId: 'attempt-300', at: 1_800_000_000_300 });
    expect(item?.payload?.decode).toBe('trace-payload');
    expect(readRunValue(reader, 'synthetic-600', item?.payload as ValueRef)).toEqual({ step: 300 });
  });

  it('refuses malformed requests', () => {
    expectStoreError(() => readRunTrace(reader, 'synthetic-600', { first: 257 }), 'first must be an integer from 0 to 256', 'validation');
    expectStoreError(() => readRunTrace(reader, 'synthetic-600', { last: -1 }), 'last must be an integer from 0 to 256', 'validation');
    expectStoreError(() => readRunTrace(reader, 'synthetic-600', { first: 1, last: 1 }), 'Give first or last, not both', 'validation');
    expectStoreError(() => readRunTrace(reader, 'synthetic-600', { after: 1.5 }), 'after must be an integer', 'validation');
  });
});

describe('missing tables read as empty lists', () => {
  it('a file without session events, updates, attempt entries, effects and human decisions', () => {
    const partial = join(dir, 'partial.sqlite');
    copyFileSync(path, partial);
    const writer = new Database(partial);
    writer.pragma('foreign_keys = OFF');
    for (const name of [
      'session_events',
      'workflow_updates',
      'attempt_entries',
      'effect_attempts',
      'effects',
      'continuations',
      'human_decision_submissions',
      'human_decision_resolutions',
      'human_decisions',
    ]) {
      writer.exec(`DROP TABLE ${name}`);
    }
    writer.close();
    const reader = new Database(partial, { readonly: true });
    try {
      for (const runId of REFERENCE_RUN_IDS) {
        const view = readRunView(reader, runId) as RunView;
        expect(view.revision).toBe(views[runId]?.revision);
        expect(view.display.status).toBe(views[runId]?.display.status);
        expect(view.sessionEvents).toEqual({ items: [], total: 0, start: 0, hasBefore: false, hasAfter: false });
        expect(view.updates.total).toBe(0);
        expect(view.humanDecisions.total).toBe(0);
        expect(view.state.humanDecision).toBeNull();
        expect(readRunBlob(reader, runId, view.state.input.hash).value).toEqual(views[runId]?.state.input);
      }
      expect(readRunView(reader, 'ref-explain-14')?.sessionEntries.total).toBe(4);
    } finally {
      reader.close();
    }
  });
});

describe('one snapshot per view', () => {
  it('a write of a second connection between two reads inside one snapshot does not show', () => {
    const snapshotPath = join(dir, 'snapshot.sqlite');
    copyFileSync(path, snapshotPath);
    const reader = new Database(snapshotPath);
    const writer = new Database(snapshotPath);
    try {
      expect(reader.pragma('journal_mode', { simple: true })).toBe('wal');
      const runId = 'ref-translate-31';
      const resourceId = String(rows.runs?.find((run) => run.run_id === runId)?.resource_id);
      const seen = readRunViewSnapshot(reader, runId, ({ revision }) => {
        const before = { revision, trace: countRunTrace(reader, runId) };
        writer.transaction(() => {
          writer.prepare('UPDATE viewer_runs SET presentation_revision = presentation_revision + 1 WHERE run_id = ?').run(runId);
          writer
            .prepare(
              "INSERT INTO events(event_id, resource_id, resource_revision, event_type, actor_type, recorded_at) VALUES ('event-x', ?, 16, 'run.noted', 'system', 1)",
            )
            .run(resourceId);
        })();
        const after = { revision: readRunRevision(reader, runId), trace: countRunTrace(reader, runId), view: readRunView(reader, runId)?.revision };
        return { before, after };
      });
      expect(seen.before).toEqual({ revision: 16, trace: 15 });
      expect(seen.after).toEqual({ revision: 16, trace: 15, view: 16 });
      expect(readRunView(reader, runId)?.revision).toBe(17);
      expect(countRunTrace(reader, runId)).toBe(16);
    } finally {
      writer.close();
      reader.close();
    }
  });
});

describe('counts of the lists that only grow at their end (trace, session capture)', () => {
  const runId = 'ref-translate-31';
  let connection: Database.Database;
  let resourceId: string;
  let copyPath: string;
  beforeAll(() => {
    copyPath = join(dir, 'counts.sqlite');
    copyFileSync(path, copyPath);
    connection = new Database(copyPath);
    resourceId = String(rows.runs?.find((run) => run.run_id === runId)?.resource_id);
  });
  afterAll(() => connection.close());

  /** Inserts trace events of the run at these revisions (rows invented for this test). */
  const insertTrace = (revisions: number[]): void => {
    const insert = connection.prepare(
      "INSERT INTO events(event_id, resource_id, resource_revision, event_type, actor_type, recorded_at) VALUES (?, ?, ?, 'run.noted', 'system', 1)",
    );
    for (const revision of revisions) insert.run(`event-count-${revision}-${Math.random()}`, resourceId, revision);
  };
  const walked = (): number => (connection.prepare('SELECT count(*) AS n FROM events WHERE resource_id = ?').get(resourceId) as { n: number }).n;

  it('a read after appends counts the new rows on top of the last count, as a full walk does', () => {
    expect(countRunTrace(connection, runId)).toBe(15);
    insertTrace([16, 17]);
    expect(countRunTrace(connection, runId)).toBe(17);
    expect(readRunTrace(connection, runId, { last: 1 }).total).toBe(walked());
  });

  it('a list written anew (another first row), one that lost its first rows, or one that shrank is counted in full again', () => {
    expect(countRunTrace(connection, runId)).toBe(walked());
    // Written anew from revision 1, with gaps, past the last revision counted: the first row's
    // event_seq differs, so the rows are counted, not added to the old count.
    connection.prepare('DELETE FROM events WHERE resource_id = ?').run(resourceId);
    insertTrace([1, 2, 3, 18, 19, 20]);
    expect(countRunTrace(connection, runId)).toBe(6);
    // The first rows gone (the list starts later).
    connection.prepare('DELETE FROM events WHERE resource_id = ? AND resource_revision < 3').run(resourceId);
    insertTrace([21]);
    expect(countRunTrace(connection, runId)).toBe(5);
    // Shrunk at the end.
    connection.prepare('DELETE FROM events WHERE resource_id = ? AND resource_revision > 19').run(resourceId);
    expect(countRunTrace(connection, runId)).toBe(3);
    expect(walked()).toBe(3);
  });
});
