/**
 * An IDE-plugin style watcher: prints a run's lineage, then follows its viewer deltas from a
 * revision over graphql-ws, reconnecting by itself with the last cursor (docs/PROTOCOL.md).
 * Uses the codegen-typed operations of schema/operations/ (`npm run codegen`).
 *
 *   npx tsx examples/watch-run.ts <runId> [--after N] [--url http://127.0.0.1:4000/graphql] [--token T]
 *
 * Without --after it starts at the run's current revision (live only, nothing replayed).
 * Ctrl-C stops it.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import {
  RunChainDocument,
  WorkflowRunDeltasDocument,
  type RunChainQuery,
  type RunChainQueryVariables,
  type TypedDocumentString,
  type WorkflowRunDeltasSubscription,
  type WorkflowRunDeltasSubscriptionVariables,
} from '../schema/generated/graphql.js';

const program = new Command()
  .name('watch-run')
  .description("Prints a run's lineage and follows its viewer deltas, resuming from the last revision after a disconnect.")
  .argument('<runId>', 'the run to watch')
  .addOption(
    new Option('--after <revision>', 'replay revisions after this one first (default: the current revision, live only)').argParser((value) => {
      const parsed = Number(value);
      if (!Number.isInteger(parsed) || parsed < 0) throw new InvalidArgumentError('must be a non-negative integer');
      return parsed;
    }),
  )
  .addOption(new Option('--url <url>', 'GraphQL endpoint (http or ws)').default('http://127.0.0.1:4000/graphql'))
  .addOption(new Option('--token <token>', 'bearer token of a server started with --token').env('PI_WORKFLOWS_TOKEN'));
program.parse(process.argv);
const [runId] = program.processedArgs as [string];
const options = program.opts<{ after?: number; url: string; token?: string }>();

const httpUrl = options.url.replace(/^ws/, 'http');
const wsUrl = options.url.replace(/^http/, 'ws');
const authorization = options.token === undefined ? undefined : `Bearer ${options.token}`;

/** One typed request over GraphQL over HTTP. */
async function request<TResult, TVariables>(document: TypedDocumentString<TResult, TVariables>, variables: TVariables): Promise<TResult> {
  const response = await fetch(httpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json',
      ...(authorization === undefined ? {} : { authorization }),
    },
    body: JSON.stringify({ query: document.toString(), variables }),
  });
  const body = (await response.json()) as { data?: TResult; errors?: Array<{ message: string }> };
  if (body.errors !== undefined) throw new Error(body.errors.map((error) => error.message).join('; '));
  if (!response.ok || body.data === undefined) throw new Error(`HTTP ${response.status}`);
  return body.data;
}

type Lineage = NonNullable<NonNullable<RunChainQuery['workflowRun']>['rootRun']>['lineage'];
type LineageRun = Lineage['edges'][number]['node'];

function kindOf(run: LineageRun): string {
  if (run.lineageKind === 'RESTART') return `restart #${run.restartNumber}`;
  if (run.lineageKind === 'CONTINUATION') return 'continuation';
  return 'root';
}

/** Prints the chain as a tree, marking the watched run. */
async function printLineage(): Promise<number> {
  const runs: LineageRun[] = [];
  let after: string | null = null;
  let current = 0;
  let root = '';
  for (;;) {
    const variables: RunChainQueryVariables = { runId, first: 100, after };
    const data = await request(RunChainDocument, variables);
    if (data.workflowRun === null || data.workflowRun === undefined) throw new Error(`Workflow run not found: ${runId}`);
    current = data.workflowRun.presentationRevision;
    root = `${data.workflowRun.rootRun.workflowName} (root ${data.workflowRun.rootRunId})`;
    const lineage = data.workflowRun.rootRun.lineage;
    runs.push(...lineage.edges.map((edge) => edge.node));
    if (!lineage.pageInfo.hasNextPage) break;
    after = lineage.pageInfo.endCursor ?? null;
  }
  const children = new Map<string, LineageRun[]>();
  for (const run of runs) {
    const key = run.parentRunId ?? '';
    children.set(key, [...(children.get(key) ?? []), run]);
  }
  console.log(`lineage of ${root}: ${runs.length} run(s)`);
  const walk = (parent: string, depth: number): void => {
    for (const run of children.get(parent) ?? []) {
      const marker = run.runId === runId ? '  ◀ watching' : '';
      const detail = run.errorMessage ?? run.statusDetail;
      console.log(
        `${'  '.repeat(depth)}${depth === 0 ? '' : '└ '}${run.runId}  ${kindOf(run)}  ${run.status}/${run.queueStatus}${run.paused ? ' paused' : ''}` +
          `${detail === null || detail === undefined ? '' : `  — ${detail}`}${marker}`,
      );
      walk(run.runId, depth + 1);
    }
  };
  walk('', 0);
  return current;
}

type DeltaEvent = WorkflowRunDeltasSubscription['workflowRunDeltas'];

function describe(event: Extract<DeltaEvent, { __typename: 'ViewerDeltaBatch' }>): string {
  const parts = event.deltas.map((delta) => {
    const ops = delta.patch
      .filter((op) => op.path !== '/presentationRevision' && op.path !== '/graphRevision')
      .map((op) => (op.op === 'APPEND' ? `append ${op.path} ${JSON.stringify(op.value)}` : `${op.op.toLowerCase()} ${op.path} ${JSON.stringify(op.value ?? null)}`));
    const target = delta.targetKey === '' ? delta.targetType.toLowerCase() : `${delta.targetType.toLowerCase()}/${delta.targetKey}`;
    return ops.length === 0 ? target : `${target}: ${ops.join(', ')}`;
  });
  return `rev ${event.presentationRevision}  ${event.deltas[0]?.recordedAt ?? ''}  ${parts.join(' | ')}`;
}

let stopped = false;
let activeClient: Client | undefined;
let backoffMs = 250;

/** The last revision applied: every (re)subscription resumes after it. */
let cursor = 0;

/** Follows the deltas after {@link cursor} until the connection drops or the stream ends. */
async function follow(): Promise<void> {
  const client = createClient({
    url: wsUrl,
    webSocketImpl: WebSocket,
    connectionParams: authorization === undefined ? {} : { authorization },
    retryAttempts: 0, // this loop reconnects, with the cursor it holds
    lazy: true,
    keepAlive: 10_000,
    on: { connected: () => (backoffMs = 250) },
  });
  activeClient = client;
  const variables: WorkflowRunDeltasSubscriptionVariables = { runId, afterRevision: cursor };
  try {
    const events = client.iterate<WorkflowRunDeltasSubscription>({ query: WorkflowRunDeltasDocument.toString(), variables });
    for await (const result of events) {
      if (result.errors !== undefined) throw new Error(result.errors.map((error) => error.message).join('; '));
      const event = result.data?.workflowRunDeltas;
      if (event === undefined) continue;
      if (event.__typename === 'ViewerSnapshotRequired') {
        // Reload what the view needs (here: the lineage), continue after currentRevision.
        console.log(`snapshot required: revision ${event.currentRevision} (retained from ${event.retainedFromRevision}); status ${event.run.status}/${event.run.queueStatus}`);
        cursor = event.currentRevision;
        continue;
      }
      if (event.presentationRevision !== cursor + 1) console.log(`! expected revision ${cursor + 1}, got ${event.presentationRevision}`);
      cursor = event.presentationRevision;
      console.log(describe(event));
    }
  } finally {
    await client.dispose();
  }
}

process.on('SIGINT', () => {
  stopped = true;
  void activeClient?.dispose();
  console.log('\nstopped');
  process.exit(0);
});

const current = await printLineage().catch((error: unknown) => {
  console.error(`watch-run: ${(error as Error).message}`);
  process.exit(1);
});
cursor = options.after ?? current;
console.log(`following ${runId} after revision ${cursor} via ${wsUrl}`);
while (!stopped) {
  try {
    await follow();
    console.log(`stream completed at revision ${cursor}`);
    break;
  } catch (error) {
    if (Array.isArray(error)) {
      // The server refused the subscription (unknown run, bad cursor): retrying cannot help.
      console.error(`watch-run: ${error.map((item: { message?: string }) => item.message).join('; ')}`);
      process.exit(1);
    }
    const close = error as { code?: number; reason?: string; message?: string };
    const reason =
      typeof close.code === 'number'
        ? `connection closed (code ${close.code}${close.reason ? `, ${close.reason}` : ''})`
        : (close.message ?? String(error));
    if (close.code === 4403) {
      console.error('watch-run: forbidden (4403): pass --token');
      process.exit(1);
    }
    console.log(`disconnected: ${reason}; reconnecting in ${backoffMs} ms after revision ${cursor}`);
    await new Promise((resolve) => setTimeout(resolve, backoffMs));
    backoffMs = Math.min(backoffMs * 2, 8_000);
  }
}
