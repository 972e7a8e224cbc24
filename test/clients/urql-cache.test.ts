/**
 * urql with the schema-aware Graphcache against the real server, set up as
 * docs/CLIENTS.md shows (`examples/client-caches.ts`: generated introspection, `keys` for every value type,
 * relay pagination of the two connections); HTTP for queries and mutations, graphql-ws for
 * subscriptions. Every operation of `schema/operations/` runs; queries page both ways, a mutation
 * and a subscription update the cached run that watching queries show, and urql prints no
 * warning (console captured; urql warns whenever NODE_ENV is not production). A control shows the
 * capture sees Graphcache's warnings without the set-up.
 */
import { Client, fetchExchange, subscriptionExchange, type AnyVariables, type OperationResult, type OperationResultSource } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { Client as WsClient } from 'graphql-ws';
import { describe, expect } from 'vitest';
import { createUrqlCacheExchange, VALUE_TYPES } from '../../examples/client-caches.js';
import {
  ClaimWorkflowRunDocument,
  NodeDocument,
  ParkWorkflowRunDocument,
  RunChainDocument,
  ViewerDeltasDocument,
  WorkflowRunDeltasDocument,
  WorkflowRunDocument,
  WorkflowRunLineageDocument,
  WorkflowRunLineageUpdatedDocument,
  WorkflowRunsDocument,
  WorkflowRunsLineageOverviewDocument,
  WorkflowRunUpdatedDocument,
  type WorkflowRunsQuery,
} from '../../schema/generated/graphql.js';
import { commitMarker, EventCollector } from '../helpers/live-fixtures.js';
import { feedWaiters } from '../helpers/server-signals.js';
import { claim, settle, type TestServer } from '../helpers/server-fixture.js';
import { captureConsole, clientCacheTest, documentNode, LIST_RUN_IDS, watching, withoutTypename } from './client-fixtures.js';

function urqlClient(fx: TestServer, ws: WsClient, cache = createUrqlCacheExchange()): Client {
  return new Client({
    url: fx.url,
    exchanges: [
      cache,
      fetchExchange,
      subscriptionExchange({
        forwardSubscription: (request) => ({
          subscribe: (sink) => ({ unsubscribe: ws.subscribe({ ...request, query: request.query ?? '' }, sink) }),
        }),
      }),
    ],
  });
}

/** Every result of a query or subscription source, until the test ends. */
function watch<TData, TVariables extends AnyVariables>(
  source: OperationResultSource<OperationResult<TData, TVariables>>,
  label: string,
): EventCollector<OperationResult<TData, TVariables>> {
  const collector = new EventCollector<OperationResult<TData, TVariables>>(label);
  const { unsubscribe } = source.subscribe((result) => {
    if (result.error !== undefined) collector.fail(result.error);
    else collector.push(result);
  });
  watching.push(unsubscribe);
  return collector;
}

/** The latest result's data. */
function latest<TData>(collector: EventCollector<OperationResult<TData, AnyVariables>>): TData {
  return collector.events.at(-1)?.data as TData;
}

function runIdsOf(data: WorkflowRunsQuery | undefined): string[] | undefined {
  return data?.workflowRuns.edges.map((edge) => edge.node.runId);
}

/** Typed document for urql (urql accepts graphql-js DocumentNodes). */
const doc = documentNode as <TResult, TVariables>(
  document: Parameters<typeof documentNode<TResult, TVariables>>[0],
) => TypedDocumentNode<TResult, TVariables & AnyVariables>;

/** A urql Client with docs/CLIENTS.md's Graphcache (per file), HTTP + the file's graphql-ws client. */
const it = clientCacheTest.extend('urql', { scope: 'file' }, ({ fx, chain, client }) => {
  void chain; // seeded before the client reads
  return urqlClient(fx, client);
});

describe('urql with the docs/CLIENTS.md Graphcache set-up', () => {
  it('value types are every object type without an id', () => {
    expect(VALUE_TYPES).toContain('RunClaim');
    expect(VALUE_TYPES).toContain('PageInfo');
    expect(VALUE_TYPES).toContain('WorkflowRunEdge');
    expect(VALUE_TYPES).toContain('ViewerSnapshotRequired');
    expect(VALUE_TYPES).not.toContain('WorkflowRun');
    expect(VALUE_TYPES).not.toContain('Query');
  });

  it('pages workflowRuns forward and backward; the pages merge into the first page’s result', async ({ chain, urql: client }) => {
    const all = [chain.restartRunId, chain.rootRunId, ...LIST_RUN_IDS];
    const forward = watch(client.query(doc(WorkflowRunsDocument), { first: 3 }), 'forward');
    await forward.take(1);
    expect(runIdsOf(latest(forward))).toEqual(all.slice(0, 3));
    let endCursor = latest(forward).workflowRuns.pageInfo.endCursor;
    await client.query(doc(WorkflowRunsDocument), { first: 3, after: endCursor }).toPromise();
    await forward.until((events) => events.at(-1)?.data?.workflowRuns.edges.length === 6, 'page 2 merged');
    endCursor = latest(forward).workflowRuns.pageInfo.endCursor;
    await client.query(doc(WorkflowRunsDocument), { first: 3, after: endCursor }).toPromise();
    await forward.until((events) => events.at(-1)?.data?.workflowRuns.edges.length === 7, 'page 3 merged');
    expect(runIdsOf(latest(forward))).toEqual(all);
    expect(latest(forward).workflowRuns.pageInfo).toMatchObject({ hasNextPage: false });
    expect(latest(forward).workflowRuns.totalCount).toBe(7);

    const filter = { workflowName: 'demo' };
    const backward = watch(client.query(doc(WorkflowRunsDocument), { last: 3, filter }), 'backward');
    await backward.take(1);
    expect(runIdsOf(latest(backward))).toEqual(all.slice(4));
    let startCursor = latest(backward).workflowRuns.pageInfo.startCursor;
    await client.query(doc(WorkflowRunsDocument), { last: 3, before: startCursor, filter }).toPromise();
    await backward.until((events) => events.at(-1)?.data?.workflowRuns.edges.length === 6, 'previous page merged');
    startCursor = latest(backward).workflowRuns.pageInfo.startCursor;
    await client.query(doc(WorkflowRunsDocument), { last: 3, before: startCursor, filter }).toPromise();
    await backward.until((events) => events.at(-1)?.data?.workflowRuns.edges.length === 7, 'first page merged');
    expect(runIdsOf(latest(backward))).toEqual(all);
    expect(latest(backward).workflowRuns.pageInfo).toMatchObject({ hasPreviousPage: false });
  });

  it('reads a run, node(id), lineage pages, the chain and viewer deltas', async ({ fx, chain, urql: client, client: ws }) => {
    const one = await client.query(doc(WorkflowRunDocument), { runId: 'list-1' }).toPromise();
    const id = one.data?.workflowRun?.id as string;
    const node = await client.query(doc(NodeDocument), { id }).toPromise();
    expect(node.data?.node).toEqual({ __typename: 'WorkflowRun', id, runId: 'list-1', workflowName: 'demo', status: 'QUEUED' });

    const lineage = watch(client.query(doc(WorkflowRunLineageDocument), { runId: chain.rootRunId, first: 1 }), 'lineage');
    await lineage.take(1);
    const first = latest(lineage).workflowRun;
    expect(first?.lineage.edges.map((edge) => edge.node.runId)).toEqual([chain.rootRunId]);
    expect(first?.restarts.map((run) => run.runId)).toEqual([chain.restartRunId]);
    await client.query(doc(WorkflowRunLineageDocument), { runId: chain.rootRunId, first: 1, after: first?.lineage.pageInfo.endCursor }).toPromise();
    await lineage.until((events) => events.at(-1)?.data?.workflowRun?.lineage.edges.length === 2, 'lineage page 2 merged');
    expect(latest(lineage).workflowRun?.lineage.edges.map((edge) => edge.node.runId)).toEqual([chain.rootRunId, chain.restartRunId]);

    // relayPagination merges every cached page of a list into each read (docs/CLIENTS.md): the overview
    // shows the run list with other node fields (parent, children, lineage) than the pages above
    // hold, so it uses a cache of its own.
    const overview = await urqlClient(fx, ws).query(doc(WorkflowRunsLineageOverviewDocument), { first: 2 }).toPromise();
    expect(overview.data?.workflowRuns.edges.map((edge) => edge.node.rootRun.runId)).toEqual([chain.rootRunId, chain.rootRunId]);
    const runChain = await client.query(doc(RunChainDocument), { runId: chain.restartRunId }).toPromise();
    expect(runChain.data?.workflowRun?.rootRun.lineage.edges.map((edge) => edge.node.runId)).toEqual([chain.rootRunId, chain.restartRunId]);

    commitMarker(fx.store, 'list-1', 1);
    const deltas = await client.query(doc(ViewerDeltasDocument), { runId: 'list-1', afterRevision: 1 }).toPromise();
    expect(deltas.data?.workflowRun?.viewerDeltas).toMatchObject({ kind: 'DELTAS', currentRevision: 2 });
    const snapshot = await client.query(doc(ViewerDeltasDocument), { runId: 'list-1', afterRevision: 0 }).toPromise();
    expect(snapshot.data?.workflowRun?.viewerDeltas).toMatchObject({ kind: 'SNAPSHOT_REQUIRED', batches: [] });
  });

  it('a mutation updates the cached run in every query watching it; typed errors keep code and message', async ({ urql: client }) => {
    const runs = watch(client.query(doc(WorkflowRunDocument), { runId: 'list-3' }), 'list-3');
    await runs.take(1);
    expect(latest(runs).workflowRun).toMatchObject({ runId: 'list-3', queueStatus: 'QUEUED', claim: null });
    const list = watch(client.query(doc(WorkflowRunsDocument), { first: 7 }, { requestPolicy: 'network-only' }), 'list');
    await list.until((events) => events.at(-1)?.data?.workflowRuns.edges.length === 7, 'the list');
    const listed = (): unknown => latest(list).workflowRuns.edges.find((edge) => edge.node.runId === 'list-3')?.node;

    const result = await client
      .mutation(doc(ClaimWorkflowRunDocument), { input: { runId: 'list-3', runnerId: 'runner-urql', claimToken: 'token-urql', leaseMs: 60_000 } })
      .toPromise();
    const claimed = result.data?.claimWorkflowRun.__typename === 'ClaimWorkflowRunSuccess' ? result.data.claimWorkflowRun.run : undefined;
    expect(claimed?.claim?.ownerId).toBe('runner-urql');
    await runs.until((events) => events.at(-1)?.data?.workflowRun?.claim?.ownerId === 'runner-urql', 'the claim in the watched run');
    expect(latest(runs).workflowRun).toEqual(claimed);
    await list.until(() => (listed() as { claim: unknown } | undefined)?.claim != null, 'the claim in the watched list');
    expect(listed()).toEqual(claimed);

    const lost = await client.mutation(doc(ParkWorkflowRunDocument), { input: { runId: 'list-3', claimToken: 'not-the-token' } }).toPromise();
    expect(lost.data?.parkWorkflowRun).toEqual({
      __typename: 'ClaimLostError',
      code: 'CLAIM_LOST',
      message: 'Claim token is not the live claim of workflow run: list-3',
    });
    expect(latest(runs).workflowRun).toEqual(claimed);
  });

  it('subscriptions update the cached run: workflowRunUpdated, workflowRunLineageUpdated, workflowRunDeltas', async ({ fx, chain, urql: client }) => {
    const runs = watch(client.query(doc(WorkflowRunDocument), { runId: 'list-4' }), 'list-4');
    await runs.take(1);
    expect(latest(runs).workflowRun).toMatchObject({ queueStatus: 'QUEUED', claim: null });
    const chainRuns = watch(client.query(doc(WorkflowRunDocument), { runId: chain.restartRunId }), 'restart');
    await chainRuns.take(1);

    const updated = watch(client.subscription(doc(WorkflowRunUpdatedDocument), { runId: 'list-4' }), 'workflowRunUpdated');
    const lineageUpdated = watch(client.subscription(doc(WorkflowRunLineageUpdatedDocument), { rootRunId: chain.rootRunId }), 'workflowRunLineageUpdated');
    const deltas = watch(client.subscription(doc(WorkflowRunDeltasDocument), { runId: 'list-4', afterRevision: 0 }), 'workflowRunDeltas');
    await deltas.take(1);
    expect(latest(deltas).workflowRunDeltas).toMatchObject({ __typename: 'ViewerSnapshotRequired', run: { runId: 'list-4' } });
    await feedWaiters(fx.server, (count) => count >= 3, 'the three subscriptions wait on the feed');

    const claimedRun = await claim(fx, 'list-4', 'token-list-4', { runnerId: 'runner-other' });
    await updated.take(1);
    await runs.until((events) => events.at(-1)?.data?.workflowRun?.claim?.ownerId === 'runner-other', 'the claim in the watched run');
    expect(withoutTypename(latest(runs).workflowRun)).toEqual(claimedRun);
    await deltas.until((events) => events.length >= 2, 'the claim revision');
    expect(latest(deltas).workflowRunDeltas.__typename).toBe('ViewerDeltaBatch');

    await claim(fx, chain.restartRunId, 'token-restart');
    fx.clock.advance(1_000);
    const settled = await settle(fx, chain.restartRunId, 'token-restart', 'COMPLETED', { output: { ok: true } });
    await lineageUpdated.until((events) => events.some((event) => event.data?.workflowRunLineageUpdated.status === 'COMPLETED'), 'the settled restart');
    await chainRuns.until((events) => events.at(-1)?.data?.workflowRun?.status === 'COMPLETED', 'the settled restart in the watched run');
    expect(latest(chainRuns).workflowRun).toMatchObject({
      status: 'COMPLETED',
      queueStatus: settled.queueStatus,
      presentationRevision: settled.presentationRevision,
    });
  });

  it('control: Graphcache without schema and keys warns; the capture sees urql warnings', async ({ fx, client: ws }) => {
    const bare = urqlClient(fx, ws, cacheExchange());
    const control = captureConsole();
    try {
      const result = await bare.mutation(doc(ParkWorkflowRunDocument), { input: { runId: 'list-5', claimToken: 'not-the-token' } }).toPromise();
      // Without the schema, `... on Error` is matched by guessing, and the guess drops code and message.
      expect(result.data?.parkWorkflowRun).toEqual({ __typename: 'ClaimLostError' });
    } finally {
      control.restore();
    }
    expect(control.calls.map((call) => `${call.level}: ${call.text.split('\n')[0]}`)).toEqual([
      'warn: Heuristic Fragment Matching: A fragment is trying to match against the `ClaimLostError` type, but the type condition is `ParkWorkflowRunSuccess`. Since GraphQL allows for interfaces `ParkWorkflowRunSuccess` may be an interface.',
      'warn: Invalid undefined: The field at `run` is `undefined`, but the GraphQL query expects a selection set for this field.',
      'warn: Heuristic Fragment Matching: A fragment is trying to match against the `ClaimLostError` type, but the type condition is `Error`. Since GraphQL allows for interfaces `Error` may be an interface.',
      'warn: Heuristic Fragment Matching: A fragment is trying to match against the `ClaimLostError` type, but the type condition is `ValidationError`. Since GraphQL allows for interfaces `ValidationError` may be an interface.',
      'warn: Invalid undefined: The field at `field` is `undefined`, but the GraphQL query expects a scalar (number, boolean, etc) for this field.',
    ]);
  });
});
