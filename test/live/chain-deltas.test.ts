/**
 * `workflowRunChainDeltas` over real graphql-ws (docs/PROTOCOL.md "Following a chain"): a snapshot
 * of the latest run first, its revisions, `WorkflowRunChainMoved` when a continuation and then a
 * restart are reserved, then the new run's revisions; a resume from any event's cursor gives the
 * rest of the run it names, then a move straight to the latest run (nothing lost, nothing
 * doubled); an unknown run and a malformed or foreign cursor are clear errors.
 */
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MALFORMED_CHAIN_CURSOR } from '../../src/delivery/index.js';
import { closeAfterSse, subscribeWs, wsClient, type EventCollector, type StreamResult } from '../helpers/live-fixtures.js';
import { sharedSubscribers } from '../helpers/server-signals.js';
import { claim, park, reserve, reserveInput, restart, settle, startTestServer, type TestServer } from '../helpers/server-fixture.js';

const CHAIN = /* GraphQL */ `
  subscription Chain($runId: String!, $after: String) {
    workflowRunChainDeltas(runId: $runId, after: $after) {
      __typename
      ... on WorkflowRunChainBatch {
        cursor
        batch { runId presentationRevision deltas { targetType } }
      }
      ... on WorkflowRunChainSnapshotRequired {
        cursor
        runId
        currentRevision
        retainedFromRevision
        run { runId status }
      }
      ... on WorkflowRunChainMoved {
        cursor
        fromRunId
        runId
        lineageKind
        currentRevision
        run { runId lineageKind parentRunId }
      }
    }
  }
`;

interface ChainEvent {
  __typename: 'WorkflowRunChainBatch' | 'WorkflowRunChainSnapshotRequired' | 'WorkflowRunChainMoved';
  cursor: string;
  batch?: { runId: string; presentationRevision: number; deltas: Array<{ targetType: string }> };
  runId?: string;
  fromRunId?: string;
  lineageKind?: string;
  currentRevision?: number;
  run?: { runId: string; status?: string; lineageKind?: string; parentRunId?: string | null };
}
interface ChainData {
  workflowRunChainDeltas: ChainEvent;
}

/** `batch <run> r<n>` / `snapshot <run> r<n>` / `moved <from> -> <to> <kind> r<n>`. */
function label(result: StreamResult<ChainData>): string {
  const event = result.data?.workflowRunChainDeltas;
  if (event === undefined) return `errors ${JSON.stringify(result.errors)}`;
  if (event.__typename === 'WorkflowRunChainBatch') return `batch ${event.batch?.runId} r${event.batch?.presentationRevision}`;
  if (event.__typename === 'WorkflowRunChainSnapshotRequired') return `snapshot ${event.runId} r${event.currentRevision} (run ${event.run?.runId})`;
  return `moved ${event.fromRunId} -> ${event.runId} ${event.lineageKind} r${event.currentRevision} (run ${event.run?.runId} ${event.run?.lineageKind} of ${event.run?.parentRunId})`;
}
const labels = (collector: EventCollector<StreamResult<ChainData>>): string[] => collector.events.map(label);
const cursorOf = (result: StreamResult<ChainData> | undefined): string => result?.data?.workflowRunChainDeltas.cursor ?? '';

describe('workflowRunChainDeltas', () => {
  let fx: TestServer;
  let client: Client;

  beforeAll(async () => {
    fx = await startTestServer();
    client = wsClient(fx.url);
  });

  afterAll(async () => {
    await client.dispose();
    await closeAfterSse(fx);
  });

  async function subscribed(
    variables: Record<string, unknown>,
    name: string,
  ): Promise<{ collector: EventCollector<StreamResult<ChainData>>; close(): Promise<void> }> {
    const before = fx.server.sharedExecution.subscribers;
    const { collector, unsubscribe } = subscribeWs<ChainData>(client, CHAIN, variables, name);
    await sharedSubscribers(fx.server, before + 1, `${name} is registered`);
    return {
      collector,
      close: async () => {
        const now = fx.server.sharedExecution.subscribers;
        unsubscribe();
        await sharedSubscribers(fx.server, now - 1, `${name} ended`);
      },
    };
  }

  it('follows the latest run, moves to a continuation and then a restart; a resume from any cursor misses and repeats nothing', async () => {
    const session = 'session-chain';
    await reserve(fx, reserveInput('chain-1', { originSessionId: session }));
    const follow = await subscribed({ runId: 'chain-1' }, 'follow');
    await follow.collector.take(1);
    await claim(fx, 'chain-1', 'token-1');
    await park(fx, 'chain-1', 'token-1');
    await follow.collector.take(4);
    // A continuation: the parent's bump revision, then the move.
    await reserve(fx, reserveInput('chain-2', { originSessionId: session, parentRunId: 'chain-1', lineageKind: 'CONTINUATION' }));
    await follow.collector.take(6);
    await claim(fx, 'chain-2', 'token-2');
    await settle(fx, 'chain-2', 'token-2', 'FAILED', { error: 'boom' });
    await follow.collector.take(9);
    // A restart of the failed continuation: no revision on the parent, the move only.
    const { run: restarted } = await restart(fx, { runId: 'chain-2', originSessionId: session });
    await follow.collector.take(10);
    await claim(fx, restarted.runId, 'token-3');
    await follow.collector.take(11);
    expect(labels(follow.collector)).toEqual([
      'snapshot chain-1 r1 (run chain-1)',
      'batch chain-1 r2',
      'batch chain-1 r3',
      'batch chain-1 r4',
      'batch chain-1 r5',
      'moved chain-1 -> chain-2 CONTINUATION r1 (run chain-2 CONTINUATION of chain-1)',
      'batch chain-2 r2',
      'batch chain-2 r3',
      'batch chain-2 r4',
      `moved chain-2 -> ${restarted.runId} RESTART r1 (run ${restarted.runId} RESTART of chain-2)`,
      `batch ${restarted.runId} r2`,
    ]);
    const all = labels(follow.collector);
    // Resume from every event's cursor (the chain named by any of its runs): the rest of the run
    // the cursor names, then straight to the latest run (as of its revision now: the claim r2).
    const movedToRestart = (from: string): string => `moved ${from} -> ${restarted.runId} RESTART r2 (run ${restarted.runId} RESTART of chain-2)`;
    for (let index = 0; index < all.length - 1; index += 1) {
      const rest =
        index < 5
          ? [...all.slice(index + 1, 5), movedToRestart('chain-1')]
          : index < 9
            ? [...all.slice(index + 1, 9), movedToRestart('chain-2')]
            : all.slice(index + 1);
      const resumed = await subscribed(
        { runId: index % 2 === 0 ? 'chain-1' : restarted.runId, after: cursorOf(follow.collector.events[index]) },
        `resume-${index}`,
      );
      await resumed.collector.take(rest.length);
      expect(labels(resumed.collector)).toEqual(rest);
      await resumed.close();
    }
    // From the last cursor: nothing replayed; the next revision comes next.
    const last = await subscribed({ runId: 'chain-1', after: cursorOf(follow.collector.events.at(-1)) }, 'from-last');
    await park(fx, restarted.runId, 'token-3');
    await last.collector.take(2);
    expect(labels(last.collector)).toEqual([`batch ${restarted.runId} r3`, `batch ${restarted.runId} r4`]);
    await last.close();
    await follow.close();
  });

  it('an unknown run, a malformed cursor and a cursor of another chain are clear errors', async () => {
    await reserve(fx, reserveInput('other-1', { originSessionId: 'session-other' }));
    await reserve(fx, reserveInput('other-2', { originSessionId: 'session-other-2' }));
    const first = await subscribed({ runId: 'other-2' }, 'cursor-source');
    const [snapshot] = await first.collector.take(1);
    await first.close();
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ runId: 'no-such-run' }, 'Workflow run not found: no-such-run', 'NOT_FOUND'],
      [{ runId: 'other-1', after: 'bm90IGEgY3Vyc29y' }, MALFORMED_CHAIN_CURSOR, 'BAD_USER_INPUT'],
      [{ runId: 'other-1', after: cursorOf(snapshot) }, 'Chain cursor names a run of another chain: other-2', 'BAD_USER_INPUT'],
    ];
    for (const [variables, message, code] of cases) {
      const { collector } = subscribeWs<ChainData>(client, CHAIN, variables, 'refused');
      await collector.ended();
      expect(collector.error).toBeUndefined();
      expect(collector.events.map((event) => [event.data ?? null, event.errors?.map((error) => [error.message, error.extensions?.code])])).toEqual([
        [null, [[message, code]]],
      ]);
    }
    expect(MALFORMED_CHAIN_CURSOR).toBe(
      'Malformed chain cursor: pass the cursor of a workflowRunChainDeltas event, or null to start from a snapshot of the latest run',
    );
  });
});
