/**
 * `workflowRunView` (docs/PROTOCOL.md "Following a run's view") on a pi-workflows state file: a
 * step, trace events and session entries that another connection adds in pi-workflows' engine's
 * way (the engine-row writer, its own connection to the file: noticed as another process's
 * commit is) reach graphql-ws and SSE subscribers once, typed, with the step's output; a client
 * that resumes with its last cursor misses and repeats nothing; a cursor from a query's view
 * works the same; `@live` on the view's query is pushed again; a bad or foreign cursor is refused.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from 'graphql-ws';
import { createPiWorkflowsFile } from '../../fixtures/pi-workflows-file.js';
import { EngineRowWriter } from '../../src/store/engine-rows/index.js';
import type { JsonValue } from '../../src/store/index.js';
import { FOREIGN_VIEW_CURSOR } from '../../src/schema/cursors.js';
import { subscribeSse, subscribeWs, wsClient, type StreamResult } from '../helpers/live-fixtures.js';
import { reserve, reserveInput, startTestServer, type TestServer } from '../helpers/server-fixture.js';
import { tempDir } from '../helpers/store-fixtures.js';

/** A definition snapshot in pi-workflows' form (values invented for this test). */
const DEFINITION = {
  schema: 'pi-workflows.definition-snapshot.v1',
  name: 'follow-demo',
  startAt: 'plan',
  nodes: { plan: { nodeType: 'agent' }, build: { nodeType: 'agent' } },
  edges: [{ from: 'plan', to: 'build' }],
};

const FOLLOW = /* GraphQL */ `
  subscription Follow($runId: String!, $after: String) {
    workflowRunView(runId: $runId, after: $after) {
      __typename
      ... on WorkflowRunViewReset {
        revision
        cursor
        view { title status steps { totalCount } trace { totalCount } }
      }
      ... on WorkflowRunViewChanged {
        fromRevision
        revision
        cursor
        view { title status currentNode }
        steps { stepIndex nodeId outcome prompt { text } output { json } }
        traceEvents { seq type nodeId }
        sessionEntries { seq role text toolCalls { name } }
        updates { type key }
      }
    }
  }
`;

interface FollowEvent {
  __typename: 'WorkflowRunViewReset' | 'WorkflowRunViewChanged';
  revision: number;
  fromRevision?: number;
  cursor: string;
  view: Record<string, unknown>;
  steps?: Array<{ stepIndex: number; nodeId: string; outcome: string; prompt: { text: string } | null; output: { json: unknown } | null }>;
  traceEvents?: Array<{ seq: number; type: string; nodeId: string | null }>;
  sessionEntries?: Array<{ seq: number; role: string | null; text: string | null; toolCalls: Array<{ name: string }> }>;
}
type Data = { workflowRunView: FollowEvent };

let dir: string;
let fx: TestServer;
let engine: EngineRowWriter;
let client: Client;
const RUN = 'follow-1';

beforeAll(async () => {
  dir = tempDir('run-view-follow-');
  const path = join(dir, 'state.sqlite');
  createPiWorkflowsFile(path).close();
  fx = await startTestServer({ dbPath: path });
  await reserve(fx, reserveInput(RUN, { definition: DEFINITION, workflowName: 'follow-demo' }));
  engine = EngineRowWriter.open({ path });
  engine.startRun({ runId: RUN, title: 'Follow the view' });
  engine.bindSession({ runId: RUN, piSessionId: 'pi-follow', cwd: '/work' });
  client = wsClient(fx.url);
});
afterAll(async () => {
  await client.dispose();
  engine.close();
  await fx.close();
  rmSync(dir, { recursive: true, force: true });
});

const events = (results: Array<StreamResult<Data>>): FollowEvent[] =>
  results.map((result) => {
    expect(result.errors).toBeUndefined();
    return (result.data as Data).workflowRunView;
  });

/** One step of the engine: started, prompt sent, a session entry with a tool call, finished with an output. */
function engineStep(nodeId: string, output: JsonValue): void {
  const { attemptId } = engine.startStep({ runId: RUN, nodeId, nodeType: 'agent' });
  engine.sendPrompt({ runId: RUN, attemptId, prompt: `Do ${nodeId}.` });
  engine.appendSessionEntry({
    runId: RUN,
    entry: {
      type: 'message',
      id: `${nodeId}-a`,
      parentId: null,
      message: {
        role: 'assistant',
        content: [
          { type: 'text', text: `${nodeId} done` },
          { type: 'toolCall', id: `c-${nodeId}`, name: 'read', arguments: { path: 'x' } },
        ],
      },
    },
  });
  engine.finishStep({ runId: RUN, attemptId, outcome: 'ok', output });
}

describe('following a run’s view', () => {
  it('the whole view first, then what another connection’s engine writes: once, typed, with the output, over graphql-ws and SSE', async () => {
    const ws = subscribeWs<Data>(client, FOLLOW, { runId: RUN }, 'ws view');
    const sse = subscribeSse<Data>(fx.url, FOLLOW, { runId: RUN }, {}, 'sse view');
    const wsReset = events(await ws.collector.take(1))[0] as FollowEvent;
    const sseReset = events(await sse.collector.take(1))[0] as FollowEvent;
    expect(wsReset).toMatchObject({ __typename: 'WorkflowRunViewReset', view: { title: 'Follow the view', status: 'RUNNING', steps: { totalCount: 0 } } });
    expect(sseReset).toEqual(wsReset);

    engineStep('plan', { plan: 'two steps' });
    const wanted = (list: FollowEvent[]): boolean => list.some((event) => (event.steps ?? []).some((step) => step.nodeId === 'plan'));
    await ws.collector.until((results) => wanted(events(results)), 'the plan step over graphql-ws');
    await sse.collector.until((results) => wanted(events(results)), 'the plan step over SSE');
    for (const collector of [ws.collector, sse.collector]) {
      const changed = events(collector.events).slice(1);
      // Every revision once, in order: each event starts where the previous one ended.
      let at = wsReset.revision;
      for (const event of changed) {
        expect(event).toMatchObject({ __typename: 'WorkflowRunViewChanged', fromRevision: at });
        expect(event.revision).toBeGreaterThan(at);
        at = event.revision;
      }
      const steps = changed.flatMap((event) => event.steps ?? []);
      expect(steps).toEqual([{ stepIndex: 0, nodeId: 'plan', outcome: 'OK', prompt: { text: 'Do plan.' }, output: { json: { plan: 'two steps' } } }]);
      const entries = changed.flatMap((event) => event.sessionEntries ?? []);
      expect(entries.map((entry) => [entry.role, entry.text, entry.toolCalls.map((call) => call.name)])).toEqual([['assistant', 'plan done', ['read']]]);
      const trace = changed.flatMap((event) => event.traceEvents ?? []);
      expect(trace.map((event) => event.seq)).toEqual([...new Set(trace.map((event) => event.seq))].sort((a, b) => a - b));
      expect(trace.map((event) => event.type)).toEqual(expect.arrayContaining(['node_started', 'node_finished']));
    }
    expect(events(sse.collector.events).map((event) => event.revision)).toEqual(events(ws.collector.events).map((event) => event.revision));
    ws.unsubscribe();
    sse.close();
  });

  it('resuming with the last cursor (after more commits while away) misses and repeats nothing; a query’s view cursor works the same', async () => {
    const first = subscribeWs<Data>(client, FOLLOW, { runId: RUN }, 'first');
    const reset = events(await first.collector.take(1))[0] as FollowEvent;
    first.unsubscribe();
    const stepsBefore = (reset.view.steps as { totalCount: number }).totalCount;

    engineStep('build', 'built');
    const resumed = subscribeWs<Data>(client, FOLLOW, { runId: RUN, after: reset.cursor }, 'resumed');
    await resumed.collector.until((results) => events(results).some((event) => (event.steps ?? []).some((step) => step.nodeId === 'build')), 'the build step');
    const caught = events(resumed.collector.events);
    expect(caught[0]).toMatchObject({ __typename: 'WorkflowRunViewChanged', fromRevision: reset.revision });
    expect(caught.flatMap((event) => event.steps ?? []).map((step) => [step.stepIndex, step.nodeId, step.output])).toEqual([
      [stepsBefore, 'build', { json: 'built' }],
    ]);
    resumed.unsubscribe();

    const query = (await fx.data(`query { workflowRun(runId: "${RUN}") { view { revision cursor steps { totalCount } } } }` as never)) as {
      workflowRun: { view: { revision: number; cursor: string; steps: { totalCount: number } } };
    };
    const fromQuery = subscribeWs<Data>(client, FOLLOW, { runId: RUN, after: query.workflowRun.view.cursor }, 'from a query');
    engine.trace({ runId: RUN, scope: 'node', type: 'node_heartbeat', nodeId: 'build', payload: { beat: 1 } });
    const next = events(await fromQuery.collector.take(1))[0] as FollowEvent;
    expect(next).toMatchObject({ __typename: 'WorkflowRunViewChanged', fromRevision: query.workflowRun.view.revision, steps: [] });
    expect(next.traceEvents?.map((event) => event.type)).toEqual(['node_heartbeat']);
    fromQuery.unsubscribe();
  });

  it('30 followers (the direct route hands one shared event to each): identical sequences, every revision once, in order', async () => {
    const followers = Array.from({ length: 30 }, (_, index) => subscribeWs<Data>(client, FOLLOW, { runId: RUN }, `follower ${index}`));
    for (const follower of followers) await follower.collector.take(1);
    for (const nodeId of ['fan-1', 'fan-2', 'fan-3']) engineStep(nodeId, nodeId);
    const hasAll = (results: Array<StreamResult<Data>>): boolean =>
      ['fan-1', 'fan-2', 'fan-3'].every((nodeId) => events(results).some((event) => (event.steps ?? []).some((step) => step.nodeId === nodeId)));
    for (const follower of followers) await follower.collector.until(hasAll, 'the three steps');
    const sequences = followers.map((follower) => {
      const list = events(follower.collector.events);
      let at = list[0]?.revision as number;
      for (const event of list.slice(1)) {
        expect(event.fromRevision).toBe(at);
        at = event.revision;
      }
      return list.slice(1).flatMap((event) => (event.steps ?? []).map((step) => step.nodeId));
    });
    for (const sequence of sequences) expect(sequence).toEqual(['fan-1', 'fan-2', 'fan-3']);
    for (const follower of followers) follower.unsubscribe();
  });

  it('@live on the view’s query: pushed again after the engine adds a step', async () => {
    type LiveView = { workflowRun: { view: { revision: number; steps: { edges: Array<{ node: { nodeId: string; output: { json: unknown } | null } }> } } } };
    const live = subscribeWs<LiveView>(
      client,
      'query LiveView($runId: String!) @live { workflowRun(runId: $runId) { view { revision steps { edges { node { nodeId output { json } } } } } } }',
      { runId: RUN },
      'live view',
    );
    const [initial] = await live.collector.take(1);
    const before = (initial?.data as LiveView).workflowRun.view;
    engineStep('deploy', { deployed: true });
    await live.collector.until(
      (results) => (results.at(-1)?.data as LiveView | undefined)?.workflowRun.view.steps.edges.some((edge) => edge.node.nodeId === 'deploy') === true,
      'the deploy step pushed',
    );
    const after = (live.collector.events.at(-1)?.data as LiveView).workflowRun.view;
    expect(after.revision).toBeGreaterThan(before.revision);
    expect(after.steps.edges.at(-1)?.node).toEqual({ nodeId: 'deploy', output: { json: { deployed: true } } });
    live.unsubscribe();
  });

  it('a malformed cursor, a cursor of another run and an unknown run are refused', async () => {
    const other = (await fx.data(`query { workflowRun(runId: "${RUN}") { view { cursor } } }` as never)) as { workflowRun: { view: { cursor: string } } };
    await reserve(fx, reserveInput('follow-2', { definition: DEFINITION, workflowName: 'follow-demo', originSessionId: 'session-2' }));
    for (const [variables, message, code] of [
      [{ runId: RUN, after: 'garbage' }, 'Invalid cursor: garbage', 'BAD_USER_INPUT'],
      [{ runId: 'follow-2', after: other.workflowRun.view.cursor }, FOREIGN_VIEW_CURSOR, 'BAD_USER_INPUT'],
      [{ runId: 'nope' }, 'Workflow run not found: nope', 'NOT_FOUND'],
    ] as const) {
      const sub = subscribeWs<Data>(client, FOLLOW, variables, 'refused');
      await sub.collector.ended();
      expect(sub.collector.events).toEqual([{ errors: [expect.objectContaining({ message, extensions: { code }, path: ['workflowRunView'] })] }]);
    }
  });
});
