/**
 * `WorkflowRun.view` over HTTP on a file pi-workflows' own code wrote (the reference rows of
 * eight runs, test/data/pi-workflows-reference/): each run's view agrees, field by field, with the
 * view pi-workflows' own viewer computed for it (`views.json`) — title, status, input, final
 * output, error, display, definition, steps with prompts and outputs, transitions, trace,
 * session entries and events, updates, settings, follow-ups (docs/GRAPHQL-CONTRACT.md "The run
 * view"). pi shows times as ISO text and statuses in lower case; the API's enums are upper case.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReferenceFile, loadReferenceViews, REFERENCE_RUN_IDS, type PiRunView } from '../../fixtures/pi-workflows-reference-file.js';
import { startTestServer, type TestServer } from '../helpers/server-fixture.js';
import { tempDir } from '../helpers/store-fixtures.js';

const VIEW_QUERY = /* GraphQL */ `
  query View($runId: String!) {
    workflowRun(runId: $runId) {
      view {
        runId
        revision
        traceSeq
        title
        workflowName
        status
        paused
        statusDetail
        input { json }
        finalOutput { json }
        error { text }
        createdAt
        updatedAt
        finishedAt
        display { status activity reason controls }
        live
        possiblyInterrupted
        definition { name startAt nodes { nodeId nodeType fields } edges { from to } }
        currentNode
        currentAttemptId
        currentNodeStartedAt
        waitingOn
        carriedStepCount
        steps {
          totalCount
          startIndex
          edges { node { attemptId nodeId nodeType outcome startedAt finishedAt prompt { text } output { json } error { text } firstEntryId lastEntryId } }
        }
        graphSteps { attemptId nodeId outcome }
        takenTransitions { from to }
        trace { totalCount startIndex edges { node { seq at scope type nodeId attemptId payload { json } } } }
        session {
          piSessionId
          cwd
          binding
          captureStatus
          integrity
          entries { totalCount startIndex edges { node { seq at content { json } } } }
          events { totalCount startIndex edges { node { seq at type nodeId attemptId turnId payload { json } } } }
        }
        updates { totalCount edges { node { seq updateId at type key nodeId attemptId data { json } } } }
        settings { totalCount edges { node { scopeId mountPath invocation changeNumber settings { json } createdAt updatedAt } } }
        followUps { totalCount edges { node { order followUpId state prompt { text } reason { text } targetSessionId createdAt updatedAt } } }
      }
    }
  }
`;

interface Edge<T> {
  node: T;
}
interface Connection<T> {
  totalCount: number;
  startIndex: number;
  edges: Array<Edge<T>>;
}
/** The view as the query above reads it. */
interface ApiView {
  [key: string]: unknown;
  runId: string;
  display: { status: string; activity: string | null; reason: string | null; controls: string[] };
  steps: Connection<Record<string, unknown>>;
  trace: Connection<Record<string, unknown>>;
  session: null | (Record<string, unknown> & { entries: Connection<Record<string, unknown>>; events: Connection<Record<string, unknown>> });
  updates: Connection<Record<string, unknown>>;
  settings: Connection<Record<string, unknown>>;
  followUps: Connection<Record<string, unknown>>;
}

const upper = (value: string | null | undefined): string | null => (value == null ? null : value.toUpperCase());
const nodes = <T>(connection: Connection<T>): T[] => connection.edges.map((edge) => edge.node);

let dir: string;
let fx: TestServer;
let views: Record<string, PiRunView>;
const api = new Map<string, ApiView>();

beforeAll(async () => {
  dir = tempDir('run-view-graphql-');
  const path = join(dir, 'state.sqlite');
  buildReferenceFile(path);
  views = loadReferenceViews();
  fx = await startTestServer({ dbPath: path });
  for (const runId of REFERENCE_RUN_IDS) {
    const data = (await fx.data(VIEW_QUERY as never, { runId } as never)) as { workflowRun: { view: ApiView } };
    api.set(runId, data.workflowRun.view);
  }
});
afterAll(async () => {
  await fx.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(REFERENCE_RUN_IDS.map((runId) => [runId]))('the view of %s agrees with pi-workflows’ own', (runId) => {
  const pi = (): PiRunView => views[runId] as PiRunView;
  const view = (): ApiView => api.get(runId) as ApiView;

  it('run: revision, title, status, input, final output, error, times, what it is on', () => {
    const { state } = pi();
    expect(view()).toMatchObject({
      runId,
      revision: pi().revision,
      traceSeq: state.traceSeq,
      title: state.runTitle ?? null,
      workflowName: state.workflowName,
      status: upper(state.status),
      paused: state.paused ?? false,
      statusDetail: state.statusDetail ?? null,
      input: { json: state.input },
      finalOutput: state.finalOutput === undefined ? null : { json: state.finalOutput },
      error: state.error === undefined ? null : { text: state.error },
      createdAt: state.startedAt,
      updatedAt: state.updatedAt,
      finishedAt: state.finishedAt ?? null,
      currentNode: state.currentNode ?? null,
      currentAttemptId: state.currentAttemptId ?? null,
      currentNodeStartedAt: state.currentNodeStartedAt ?? null,
      waitingOn: state.waitingOn ?? null,
      carriedStepCount: state.carriedStepCount ?? 0,
      live: pi().live,
      possiblyInterrupted: pi().possiblyInterrupted,
    });
  });

  it('display: status, activity, reason, controls', () => {
    const { display } = pi();
    expect(view().display).toEqual({
      status: upper(display.status),
      activity: upper(display.activity),
      reason: display.reason,
      controls: display.controls.map((control) => control.toUpperCase()),
    });
  });

  it('definition: name, start, nodes, edges', () => {
    const { workflow } = pi();
    expect(view().definition).toEqual({
      name: workflow.name,
      startAt: workflow.startAt,
      nodes: Object.keys(workflow.nodes)
        .sort()
        .map((nodeId) => ({ nodeId, nodeType: workflow.nodes[nodeId]?.nodeType, fields: workflow.nodes[nodeId] })),
      edges: workflow.edges,
    });
  });

  it('steps in run order with prompt, output and error; graph steps and transitions', () => {
    const { state } = pi();
    expect(view().steps).toMatchObject({ totalCount: pi().stepTotal, startIndex: pi().stepStart });
    expect(nodes(view().steps)).toEqual(
      state.steps.map((step) => ({
        attemptId: step.attemptId,
        nodeId: step.nodeId,
        nodeType: step.nodeType,
        outcome: upper(step.outcome),
        startedAt: step.startedAt,
        finishedAt: step.finishedAt,
        prompt: step.prompt === null ? null : { text: step.prompt },
        output: step.output === undefined ? null : { json: step.output },
        error: step.error === undefined ? null : { text: step.error },
        firstEntryId: step.conversation?.firstEntryId ?? null,
        lastEntryId: step.conversation?.lastEntryId ?? null,
      })),
    );
    expect(view().graphSteps).toEqual(pi().graphSteps.map((step) => ({ attemptId: step.attemptId, nodeId: step.nodeId, outcome: upper(step.outcome) })));
    expect(view().takenTransitions).toEqual(
      pi().takenTransitions.map((transition) => {
        const [from, to] = transition.split('->');
        return { from, to };
      }),
    );
  });

  it('trace: every event with its scope, type, node, attempt and payload', () => {
    const page = pi().tracePage;
    expect(view().trace).toMatchObject({ totalCount: page.total, startIndex: page.start });
    expect(nodes(view().trace)).toEqual(
      page.items.map((event) => ({
        seq: event.seq,
        at: event.at,
        scope: upper(event.scope),
        type: event.type,
        nodeId: event.nodeId ?? null,
        attemptId: event.attemptId ?? null,
        payload: { json: event.payload },
      })),
    );
  });

  it('session: binding, capture, entries and events', () => {
    const session = pi().session;
    if (session.binding === null && session.entryPage.total === 0) {
      expect(view().session).toBeNull();
      return;
    }
    const api = view().session;
    expect(api).toMatchObject({
      piSessionId: session.binding?.piSessionId ?? null,
      cwd: session.binding?.cwd ?? null,
      binding: session.binding,
      captureStatus: session.capture?.status,
      integrity: session.integrity.status,
    });
    expect(api?.entries).toMatchObject({ totalCount: session.entryPage.total, startIndex: session.entryPage.start });
    expect(nodes(api?.entries as Connection<unknown>)).toEqual(
      session.entryPage.items.map((item) => ({ seq: item.seq, at: item.at, content: { json: item.entry } })),
    );
    expect(api?.events).toMatchObject({ totalCount: session.eventPage.total, startIndex: session.eventPage.start });
    expect(nodes(api?.events as Connection<unknown>)).toEqual(
      session.eventPage.items.map((item) => ({
        seq: item.seq,
        at: item.at,
        type: item.type,
        nodeId: item.nodeId ?? null,
        attemptId: item.attemptId ?? null,
        turnId: item.turnId ?? null,
        payload: { json: item.payload },
      })),
    );
  });

  it('updates, settings in force and follow-ups', () => {
    expect(view().updates.totalCount).toBe(pi().updateTotal);
    expect(nodes(view().updates)).toEqual(
      pi().updates.map((update) => ({
        seq: update.seq,
        updateId: update.updateId,
        at: update.at,
        type: update.type,
        key: update.key,
        nodeId: update.nodeId,
        attemptId: update.attemptId,
        data: { json: update.data },
      })),
    );
    expect(view().settings.totalCount).toBe(pi().settingsTotal);
    expect(nodes(view().settings)).toEqual(
      pi().settingsScopes.map((scope) => ({
        scopeId: scope.scopeId,
        mountPath: scope.mountPath,
        invocation: scope.invocation,
        changeNumber: scope.changeNumber,
        settings: { json: scope.settings },
        createdAt: scope.createdAt,
        updatedAt: scope.updatedAt,
      })),
    );
    expect(view().followUps.totalCount).toBe(pi().followUpTotal);
    expect(nodes(view().followUps)).toEqual(
      (pi().followUpQueue?.items ?? []).map((item) => ({
        order: item.order,
        followUpId: item.followUpId,
        state: item.state,
        prompt: { text: item.prompt },
        reason: item.reason === undefined ? null : { text: item.reason },
        targetSessionId: item.targetSessionId,
        createdAt: item.createdAt,
        updatedAt: item.updatedAt,
      })),
    );
  });
});
