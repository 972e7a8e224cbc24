/**
 * Apollo Client against the real server: `InMemoryCache` set up as docs/CLIENTS.md
 * shows (`examples/client-caches.ts`: generated possible types, value-type policies, the two
 * paginated connections), HTTP for queries and mutations, graphql-ws for subscriptions. Every
 * operation of `schema/operations/` runs; queries page both ways, a mutation and a subscription
 * update the cached run that watching queries show, and Apollo prints no warning at all
 * (console captured in development mode). A control shows the capture sees Apollo's warnings and
 * what goes wrong without the set-up.
 */
import './apollo-dev-mode.js';
import { ApolloClient, ApolloLink, HttpLink, InMemoryCache, type ObservableQuery, type OperationVariables } from '@apollo/client';
import { loadDevMessages, loadErrorMessages } from '@apollo/client/dev';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { OperationTypeNode, parse } from 'graphql';
import type { Client as WsClient } from 'graphql-ws';
import { describe, expect } from 'vitest';
import { createApolloCache } from '../../examples/client-caches.js';
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
  type WorkflowRunQuery,
  type WorkflowRunsQuery,
} from '../../schema/generated/graphql.js';
import { commitMarker, EventCollector } from '../helpers/live-fixtures.js';
import { feedWaiters } from '../helpers/server-signals.js';
import { claim, settle, type TestServer } from '../helpers/server-fixture.js';
import { captureConsole, clientCacheTest, documentNode, LIST_RUN_IDS, watching, withoutTypename } from './client-fixtures.js';

loadDevMessages();
loadErrorMessages();

/** Every result an ObservableQuery emits. */
function watch<TData, TVariables extends OperationVariables>(
  query: ObservableQuery<TData, TVariables>,
  label: string,
): EventCollector<ObservableQuery.Result<TData>> {
  const collector = new EventCollector<ObservableQuery.Result<TData>>(label);
  const subscription = query.subscribe({
    next: (result) => collector.push(result as ObservableQuery.Result<TData>),
    error: (error: unknown) => collector.fail(error),
    complete: () => collector.complete(),
  });
  watching.push(() => subscription.unsubscribe());
  return collector;
}

/** The latest complete result of a watched query. */
function latest<TData>(collector: EventCollector<ObservableQuery.Result<TData>>): TData {
  const result = collector.events.at(-1);
  expect(result?.dataState).toBe('complete');
  return result?.data as TData;
}

function runIdsOf(data: WorkflowRunsQuery): string[] {
  return data.workflowRuns.edges.map((edge) => edge.node.runId);
}

function apolloClient(fx: TestServer, ws: WsClient, cache: InMemoryCache): ApolloClient {
  const http = new HttpLink({ uri: fx.url });
  const link = ApolloLink.split((operation) => operation.operationType === OperationTypeNode.SUBSCRIPTION, new GraphQLWsLink(ws), http);
  return new ApolloClient({ link, cache });
}

/** docs/CLIENTS.md's `InMemoryCache` (per file) and an Apollo Client over it, HTTP + the file's graphql-ws client. */
const it = clientCacheTest
  .extend('cache', { scope: 'file' }, () => createApolloCache())
  .extend('apollo', { scope: 'file' }, ({ fx, chain, client, cache }, { onCleanup }) => {
    void chain; // seeded before the client reads
    const apollo = apolloClient(fx, client, cache);
    onCleanup(() => apollo.stop());
    return apollo;
  });

describe('Apollo Client with the docs/CLIENTS.md cache set-up', () => {
  it('pages workflowRuns forward and backward, each direction into one list of normalised runs', async ({ chain, apollo: client, cache }) => {
    const all = [chain.restartRunId, chain.rootRunId, ...LIST_RUN_IDS];
    const forward = client.watchQuery({ query: documentNode(WorkflowRunsDocument), variables: { first: 3 } });
    const pages = watch(forward, 'forward');
    await pages.until((events) => events.at(-1)?.dataState === 'complete', 'page 1');
    expect(runIdsOf(latest(pages))).toEqual(all.slice(0, 3));
    expect(latest(pages).workflowRuns.pageInfo).toMatchObject({ hasNextPage: true });
    await forward.fetchMore({ variables: { after: latest(pages).workflowRuns.pageInfo.endCursor } });
    await pages.until((events) => events.at(-1)?.data?.workflowRuns?.edges?.length === 6, 'page 2 merged');
    await forward.fetchMore({ variables: { after: latest(pages).workflowRuns.pageInfo.endCursor } });
    await pages.until((events) => events.at(-1)?.data?.workflowRuns?.edges?.length === 7, 'page 3 merged');
    expect(runIdsOf(latest(pages))).toEqual(all);
    expect(latest(pages).workflowRuns.pageInfo).toMatchObject({ hasNextPage: false });
    expect(latest(pages).workflowRuns.totalCount).toBe(7);

    // Another filter is another list: paged from the end, pages prepend.
    const filter = { workflowName: 'demo' };
    const backward = client.watchQuery({ query: documentNode(WorkflowRunsDocument), variables: { last: 3, filter } });
    const back = watch(backward, 'backward');
    await back.until((events) => events.at(-1)?.dataState === 'complete', 'last page');
    expect(runIdsOf(latest(back))).toEqual(all.slice(4));
    expect(latest(back).workflowRuns.pageInfo).toMatchObject({ hasPreviousPage: true });
    await backward.fetchMore({ variables: { before: latest(back).workflowRuns.pageInfo.startCursor } });
    await back.until((events) => events.at(-1)?.data?.workflowRuns?.edges?.length === 6, 'previous page merged');
    await backward.fetchMore({ variables: { before: latest(back).workflowRuns.pageInfo.startCursor } });
    await back.until((events) => events.at(-1)?.data?.workflowRuns?.edges?.length === 7, 'first page merged');
    expect(runIdsOf(latest(back))).toEqual(all);
    expect(latest(back).workflowRuns.pageInfo).toMatchObject({ hasPreviousPage: false });

    // Both lists point at the same seven entities.
    const entities = Object.keys(cache.extract()).filter((key) => key.startsWith('WorkflowRun:'));
    expect(entities).toHaveLength(7);
  });

  it('reads a run, node(id), lineage pages, the chain and viewer deltas from normalised runs', async ({ fx, chain, apollo: client }) => {
    const { data: one } = await client.query({ query: documentNode(WorkflowRunDocument), variables: { runId: 'list-1' } });
    const id = one?.workflowRun?.id as string;
    expect(client.cache.identify({ __typename: 'WorkflowRun', id })).toBe(`WorkflowRun:${id}`);
    const { data: node } = await client.query({ query: documentNode(NodeDocument), variables: { id } });
    expect(node?.node).toEqual({ __typename: 'WorkflowRun', id, runId: 'list-1', workflowName: 'demo', status: 'QUEUED' });

    const lineage = client.watchQuery({ query: documentNode(WorkflowRunLineageDocument), variables: { runId: chain.rootRunId, first: 1 } });
    const pages = watch(lineage, 'lineage');
    await pages.until((events) => events.at(-1)?.dataState === 'complete', 'lineage page 1');
    const first = latest(pages).workflowRun;
    expect(first?.lineage.edges.map((edge) => edge.node.runId)).toEqual([chain.rootRunId]);
    expect(first?.restarts.map((run) => run.runId)).toEqual([chain.restartRunId]);
    expect(first?.latestRun.runId).toBe(chain.restartRunId);
    await lineage.fetchMore({ variables: { after: first?.lineage.pageInfo.endCursor } });
    await pages.until((events) => events.at(-1)?.data?.workflowRun?.lineage?.edges?.length === 2, 'lineage page 2 merged');
    expect(latest(pages).workflowRun?.lineage.edges.map((edge) => edge.node.runId)).toEqual([chain.rootRunId, chain.restartRunId]);
    expect(latest(pages).workflowRun?.lineage.pageInfo.hasNextPage).toBe(false);

    const { data: overview } = await client.query({ query: documentNode(WorkflowRunsLineageOverviewDocument), variables: { first: 2 } });
    expect(overview?.workflowRuns.edges.map((edge) => edge.node.rootRun.runId)).toEqual([chain.rootRunId, chain.rootRunId]);
    const { data: runChain } = await client.query({ query: documentNode(RunChainDocument), variables: { runId: chain.restartRunId } });
    expect(runChain?.workflowRun?.rootRun.lineage.edges.map((edge) => edge.node.runId)).toEqual([chain.rootRunId, chain.restartRunId]);

    commitMarker(fx.store, 'list-1', 1);
    const { data: deltas } = await client.query({ query: documentNode(ViewerDeltasDocument), variables: { runId: 'list-1', afterRevision: 1 } });
    expect(deltas?.workflowRun?.viewerDeltas).toMatchObject({ kind: 'DELTAS', currentRevision: 2 });
    expect(deltas?.workflowRun?.viewerDeltas.batches.map((batch) => batch.presentationRevision)).toEqual([2]);
    const { data: snapshot } = await client.query({ query: documentNode(ViewerDeltasDocument), variables: { runId: 'list-1', afterRevision: 0 } });
    expect(snapshot?.workflowRun?.viewerDeltas).toMatchObject({ kind: 'SNAPSHOT_REQUIRED', batches: [] });
  });

  it('a mutation updates the cached run in every query watching it; typed errors keep code and message', async ({ apollo: client }) => {
    const one = client.watchQuery({ query: documentNode(WorkflowRunDocument), variables: { runId: 'list-3' } });
    const runs = watch(one, 'list-3');
    await runs.until((events) => events.at(-1)?.dataState === 'complete', 'the run');
    expect(latest(runs).workflowRun).toMatchObject({ runId: 'list-3', queueStatus: 'QUEUED', claim: null });
    const listQuery = client.watchQuery({ query: documentNode(WorkflowRunsDocument), variables: { first: 7 }, fetchPolicy: 'network-only' });
    const list = watch(listQuery, 'list');
    await list.until((events) => events.at(-1)?.data?.workflowRuns?.edges?.length === 7, 'the list');
    const listed = (): unknown => latest(list).workflowRuns.edges.find((edge) => edge.node.runId === 'list-3')?.node;
    expect(listed()).toEqual(latest(runs).workflowRun);

    const { data } = await client.mutate({
      mutation: documentNode(ClaimWorkflowRunDocument),
      variables: { input: { runId: 'list-3', runnerId: 'runner-apollo', claimToken: 'token-apollo', leaseMs: 60_000 } },
    });
    const claimed = data?.claimWorkflowRun.__typename === 'ClaimWorkflowRunSuccess' ? data.claimWorkflowRun.run : undefined;
    expect(claimed?.claim?.ownerId).toBe('runner-apollo');
    await runs.until((events) => events.at(-1)?.data?.workflowRun?.claim?.ownerId === 'runner-apollo', 'the claim in the watched run');
    expect(latest(runs).workflowRun).toEqual(claimed);

    // The list shows the same run, without a request of its own.
    await list.until(() => (listed() as { claim: unknown } | undefined)?.claim !== null, 'the claim in the watched list');
    expect(listed()).toEqual(claimed);

    const { data: lost } = await client.mutate({
      mutation: documentNode(ParkWorkflowRunDocument),
      variables: { input: { runId: 'list-3', claimToken: 'not-the-token' } },
    });
    expect(lost?.parkWorkflowRun).toEqual({
      __typename: 'ClaimLostError',
      code: 'CLAIM_LOST',
      message: 'Claim token is not the live claim of workflow run: list-3',
    });
    expect(latest(runs).workflowRun).toEqual(claimed);
  });

  it('subscriptions update the cached run: workflowRunUpdated, workflowRunLineageUpdated, workflowRunDeltas', async ({ fx, chain, apollo: client, cache }) => {
    const one = client.watchQuery({ query: documentNode(WorkflowRunDocument), variables: { runId: 'list-4' } });
    const runs = watch(one, 'list-4');
    await runs.until((events) => events.at(-1)?.dataState === 'complete', 'the run');
    expect(latest(runs).workflowRun).toMatchObject({ queueStatus: 'QUEUED', claim: null });

    const updated = new EventCollector<unknown>('workflowRunUpdated');
    const lineageUpdated = new EventCollector<unknown>('workflowRunLineageUpdated');
    const deltas = new EventCollector<unknown>('workflowRunDeltas');
    const subscriptions = [
      client.subscribe({ query: documentNode(WorkflowRunUpdatedDocument), variables: { runId: 'list-4' } }).subscribe({
        next: (result) => updated.push(result.data),
        error: (error: unknown) => updated.fail(error),
      }),
      client.subscribe({ query: documentNode(WorkflowRunLineageUpdatedDocument), variables: { rootRunId: chain.rootRunId } }).subscribe({
        next: (result) => lineageUpdated.push(result.data),
        error: (error: unknown) => lineageUpdated.fail(error),
      }),
      client.subscribe({ query: documentNode(WorkflowRunDeltasDocument), variables: { runId: 'list-4', afterRevision: 0 } }).subscribe({
        next: (result) => deltas.push(result.data),
        error: (error: unknown) => deltas.fail(error),
      }),
    ];
    try {
      await deltas.take(1); // the snapshot-required event comes first
      expect(deltas.events[0]).toMatchObject({ workflowRunDeltas: { __typename: 'ViewerSnapshotRequired', run: { runId: 'list-4' } } });
      await feedWaiters(fx.server, (count) => count >= 3, 'the three subscriptions wait on the feed');

      // Changed by another client: only the subscription tells this cache.
      const claimedRun = await claim(fx, 'list-4', 'token-list-4', { runnerId: 'runner-other' });
      await updated.until((events) => events.length >= 1, 'the claim event');
      await runs.until((events) => events.at(-1)?.data?.workflowRun?.claim?.ownerId === 'runner-other', 'the claim in the watched run');
      expect(withoutTypename(latest(runs).workflowRun)).toEqual(claimedRun);
      await deltas.until((events) => events.length >= 2, 'the claim revision');

      await claim(fx, chain.restartRunId, 'token-restart');
      fx.clock.advance(1_000);
      const settled = await settle(fx, chain.restartRunId, 'token-restart', 'COMPLETED', { output: { ok: true } });
      await lineageUpdated.until(
        (events) => events.some((event) => (event as { workflowRunLineageUpdated: { status: string } }).workflowRunLineageUpdated.status === 'COMPLETED'),
        'the settled restart',
      );
      // The fields the lineage event selects are updated in the one cached entity of that run.
      const entity = cache.extract()[`WorkflowRun:${settled.id}`] as Record<string, unknown> | undefined;
      expect(entity).toMatchObject({
        runId: chain.restartRunId,
        status: 'COMPLETED',
        queueStatus: settled.queueStatus,
        presentationRevision: settled.presentationRevision,
      });
    } finally {
      for (const subscription of subscriptions) subscription.unsubscribe();
    }
  });

  it('control: a bare InMemoryCache warns and loses typed error fields; the capture sees Apollo warnings', async ({ fx, client: ws }) => {
    const bare = apolloClient(fx, ws, new InMemoryCache());
    const control = captureConsole();
    try {
      const { data } = await bare.mutate({
        mutation: documentNode(ParkWorkflowRunDocument),
        variables: { input: { runId: 'list-5', claimToken: 'not-the-token' } },
      });
      // Without possibleTypes the `... on Error` spread does not match ClaimLostError.
      expect(data?.parkWorkflowRun).toEqual({ __typename: 'ClaimLostError' });
      // A run selected without `id` is not normalised: a second selection replaces the first.
      await bare.query({ query: parse('query A { workflowRun(runId: "list-5") { runId status } }') });
      await bare.query({ query: parse('query B { workflowRun(runId: "list-5") { runId workflowName } }') });
    } finally {
      control.restore();
      bare.stop();
    }
    const texts = control.calls.map((call) => `${call.level}: ${call.text}`);
    expect(texts.map((text) => text.split('\n')[0])).toEqual([
      'warn: Cannot match inline fragment on `ParkWorkflowRunSuccess` against `ClaimLostError`. This indicates a missing `possibleTypes` entry for the supertype of ClaimLostError. Data might be lost. ',
      'warn: Cannot match fragment `ErrorFields` on `Error` against `ClaimLostError`. This indicates a missing `possibleTypes` entry for the supertype of ClaimLostError. Data might be lost. ',
      'warn: Cache data may be lost when replacing the workflowRun field of a Query object.',
    ]);
  });
});

export type { WorkflowRunQuery };
