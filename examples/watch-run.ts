/**
 * An IDE-plugin style watcher: prints a run's lineage, then follows its viewer deltas from a
 * revision over graphql-ws, reconnecting by itself with the last cursor (docs/PROTOCOL.md).
 * Uses the codegen-typed operations of schema/operations/ (`npm run codegen`).
 *
 *   npx tsx examples/watch-run.ts <runId> [--after N] [--follow-restarts] [--url http://127.0.0.1:4000/graphql] [--token T]
 *
 * Without --after it starts at the run's current revision (live only, nothing replayed).
 * When the server is down it says so (and, while following, keeps retrying with the cursor).
 * When the watched run fails it says why and offers its restart (the command to follow it, or
 * with --follow-restarts it switches to the restart by itself). Ctrl-C stops it.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import {
  RunChainDocument,
  WorkflowRunDeltasDocument,
  WorkflowRunDocument,
  WorkflowRunLineageDocument,
  WorkflowRunLineageUpdatedDocument,
  type RunChainQuery,
  type RunChainQueryVariables,
  type TypedDocumentString,
  type WorkflowRunDeltasSubscription,
  type WorkflowRunDeltasSubscriptionVariables,
  type WorkflowRunLineageUpdatedSubscription,
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
  .addOption(new Option('--follow-restarts', 'when the watched run fails and is restarted, follow the restart by itself'))
  .addOption(new Option('--url <url>', 'GraphQL endpoint (http or ws); the demo serves http://127.0.0.1:4100/graphql').default('http://127.0.0.1:4000/graphql'))
  .addOption(new Option('--token <token>', 'bearer token of a server started with --token').env('PI_WORKFLOWS_TOKEN'));
program.parse(process.argv);
const [firstRunId] = program.processedArgs as [string];
const options = program.opts<{ after?: number; url: string; token?: string; followRestarts?: boolean }>();
/** The run being followed: the one asked for, then its restarts with --follow-restarts. */
let runId = firstRunId;

const httpUrl = options.url.replace(/^ws/, 'http');
const wsUrl = options.url.replace(/^http/, 'ws');
const authorization = options.token === undefined ? undefined : `Bearer ${options.token}`;

/** Why a fetch failed, in words: `connection refused` for ECONNREFUSED, and so on. */
function networkCause(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  const words: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset',
    ENOTFOUND: 'host not found',
    EAI_AGAIN: 'host name lookup failed',
    ETIMEDOUT: 'timed out',
    EHOSTUNREACH: 'host unreachable',
  };
  if (code !== undefined) return words[code] ?? code;
  return typeof cause?.message === 'string' ? cause.message : (error as Error).message;
}

/** What to do when the server cannot be reached (the one-line hint of every such message). */
const START_HINT = 'is it running? Start it with "npm start" (port 4000) or "npm run demo" (port 4100), or pass --url';

/** One typed request over GraphQL over HTTP; a network failure says which server and why. */
async function request<TResult, TVariables>(document: TypedDocumentString<TResult, TVariables>, variables: TVariables): Promise<TResult> {
  let response: Response;
  try {
    response = await fetch(httpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        ...(authorization === undefined ? {} : { authorization }),
      },
      body: JSON.stringify({ query: document.toString(), variables }),
    });
  } catch (error) {
    throw new Error(`cannot reach the server at ${httpUrl} (${networkCause(error)}): ${START_HINT}`);
  }
  if (response.status === 401) throw new Error(`the server at ${httpUrl} needs a token (401): pass --token or set PI_WORKFLOWS_TOKEN`);
  const text = await response.text();
  let body: { data?: TResult; errors?: Array<{ message: string }> };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new Error(`HTTP ${response.status} from ${httpUrl} is not a GraphQL answer: is --url the server's /graphql endpoint?`);
  }
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

/** What {@link printLineage} learnt: the watched run's revision, its chain and any restart of it. */
interface Chain {
  current: number;
  rootRunId: string;
  watched: LineageRun | undefined;
  /** The restart of the watched run, when one exists. */
  restart: LineageRun | undefined;
}

/** Prints the chain as a tree, marking the watched run. */
async function printLineage(): Promise<Chain> {
  const runs: LineageRun[] = [];
  let after: string | null = null;
  let current = 0;
  let root = '';
  let rootRunId = '';
  for (;;) {
    const variables: RunChainQueryVariables = { runId, first: 100, after };
    const data = await request(RunChainDocument, variables);
    if (data.workflowRun === null || data.workflowRun === undefined) throw new Error(`Workflow run not found: ${runId}`);
    current = data.workflowRun.presentationRevision;
    root = `${data.workflowRun.rootRun.workflowName} (root ${data.workflowRun.rootRunId})`;
    rootRunId = data.workflowRun.rootRunId;
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
  return {
    current,
    rootRunId,
    watched: runs.find((run) => run.runId === runId),
    restart: runs.find((run) => run.parentRunId === runId && run.lineageKind === 'RESTART'),
  };
}

type DeltaEvent = WorkflowRunDeltasSubscription['workflowRunDeltas'];

function describe(event: Extract<DeltaEvent, { __typename: 'ViewerDeltaBatch' }>): string {
  const parts = event.deltas.map((delta) => {
    const ops = delta.patch
      .filter((op) => op.path !== '/presentationRevision')
      .map((op) =>
        op.op === 'APPEND' ? `append ${op.path} ${JSON.stringify(op.value)}` : `${op.op.toLowerCase()} ${op.path} ${JSON.stringify(op.value ?? null)}`,
      );
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
/** The chain of the watched run (its lineage updates tell failures and restarts). */
let rootRunId = '';
/** The restart to switch to (--follow-restarts), set by the lineage stream; ends the current follow. */
let switchTo: { runId: string; restartNumber: number } | undefined;
/** Failures already reported (each run once). */
const reportedFailures = new Set<string>();
/** Restarts already offered (each once). */
const offeredRestarts = new Set<string>();
/** The last WebSocket error (e.g. `connect ECONNREFUSED …`), to say why a connection closed. */
let lastSocketError: string | undefined;

const FAILED = new Set(['FAILED', 'TIMED_OUT']);

/**
 * Looks whether the run failed; if so says why and offers its restart, or says one is awaited
 * (once per run). Called for every revision of the watched run and for its lineage updates:
 * the lineage stream only reports changes after the server registered it, the revisions
 * (replayed from the cursor) cover the moment before.
 */
async function checkFailure(failedRunId: string): Promise<void> {
  if (reportedFailures.has(failedRunId)) return;
  const { workflowRun } = await request(WorkflowRunLineageDocument, { runId: failedRunId, first: 1 });
  if (workflowRun === null || !FAILED.has(workflowRun.status) || reportedFailures.has(failedRunId)) return;
  reportedFailures.add(failedRunId);
  const why = workflowRun.errorMessage ?? workflowRun.statusDetail ?? 'no error message';
  console.log(`run ${failedRunId} ${workflowRun.status === 'TIMED_OUT' ? 'timed out' : 'failed'}: ${why}`);
  if (workflowRun.restart !== null) await offerRestart(failedRunId, workflowRun.restart.runId);
  else console.log(`  no restart of ${failedRunId} yet; watching its chain for one (Ctrl-C stops)`);
}

/**
 * Offers the restart of the watched run: the command that follows it, or with
 * --follow-restarts switches to it (the current follow ends, the next starts at revision 0).
 */
async function offerRestart(failedRunId: string, restartRunId: string): Promise<void> {
  if (offeredRestarts.has(restartRunId) || failedRunId !== runId) return;
  offeredRestarts.add(restartRunId);
  const { workflowRun } = await request(WorkflowRunDocument, { runId: restartRunId });
  const restartNumber = workflowRun?.restartNumber ?? 0;
  if (options.followRestarts === true) {
    console.log(`run ${failedRunId} was restarted as ${restartRunId} (restart #${restartNumber}): following it`);
    switchTo = { runId: restartRunId, restartNumber };
    await activeClient?.dispose();
    return;
  }
  const url = options.url === 'http://127.0.0.1:4000/graphql' ? '' : ` --url ${options.url}`;
  console.log(
    `run ${failedRunId} was restarted as ${restartRunId} (restart #${restartNumber}). Follow it with:\n` +
      `  npx tsx examples/watch-run.ts ${restartRunId} --after 0${url}\n` +
      `  (or start with --follow-restarts to switch to restarts by itself)`,
  );
}

/** Failure and restart handling, one at a time and in arrival order (a failure is told before its restart). */
let lineageQueue: Promise<void> = Promise.resolve();
function enqueue(task: () => Promise<void>): void {
  lineageQueue = lineageQueue.then(task).catch((error: unknown) => console.error(`watch-run: ${(error as Error).message}`));
}

/** A lineage update of the chain: the watched run failing, or a restart of it appearing. */
function onLineageUpdate(run: WorkflowRunLineageUpdatedSubscription['workflowRunLineageUpdated']): void {
  if (run.runId === runId && FAILED.has(run.status)) enqueue(() => checkFailure(run.runId));
  else if (run.parentRunId === runId && run.lineageKind === 'RESTART') enqueue(() => offerRestart(run.parentRunId as string, run.runId));
}

/**
 * Follows the deltas after {@link cursor}, and the chain's lineage updates, until the connection
 * drops, the stream ends, or --follow-restarts switches to a restart.
 *
 * @returns `'completed'` when the server ended the stream, `'switch'` for a restart to follow
 * @throws the close event or error of a dropped connection; a GraphQL error list for a refusal
 */
async function follow(): Promise<'completed' | 'switch'> {
  const client = createClient({
    url: wsUrl,
    webSocketImpl: WebSocket,
    connectionParams: authorization === undefined ? {} : { authorization },
    retryAttempts: 0, // this loop reconnects, with the cursor it holds
    lazy: true,
    keepAlive: 10_000,
    on: {
      connected: () => {
        if (backoffMs > 250) console.log(`reconnected to ${wsUrl}; resuming after revision ${cursor}`);
        backoffMs = 250;
        lastSocketError = undefined;
      },
      error: (error) => {
        lastSocketError = (error as { message?: string } | null)?.message;
      },
    },
  });
  activeClient = client;
  const stopLineage = client.subscribe<WorkflowRunLineageUpdatedSubscription>(
    { query: WorkflowRunLineageUpdatedDocument.toString(), variables: { rootRunId } },
    {
      next: (result) => {
        if (result.data?.workflowRunLineageUpdated !== undefined) onLineageUpdate(result.data.workflowRunLineageUpdated);
      },
      error: () => undefined, // the deltas stream reports the connection
      complete: () => undefined,
    },
  );
  const variables: WorkflowRunDeltasSubscriptionVariables = { runId, afterRevision: cursor };
  try {
    const events = client.iterate<WorkflowRunDeltasSubscription>({ query: WorkflowRunDeltasDocument.toString(), variables });
    for await (const result of events) {
      if (result.errors !== undefined) throw new Error(result.errors.map((error) => error.message).join('; '));
      const event = result.data?.workflowRunDeltas;
      if (event === undefined) continue;
      if (event.__typename === 'ViewerSnapshotRequired') {
        // Reload what the view needs (here: the lineage), continue after currentRevision.
        console.log(
          `snapshot required: revision ${event.currentRevision} (retained from ${event.retainedFromRevision}); status ${event.run.status}/${event.run.queueStatus}`,
        );
        cursor = event.currentRevision;
        continue;
      }
      if (event.presentationRevision !== cursor + 1) console.log(`! expected revision ${cursor + 1}, got ${event.presentationRevision}`);
      cursor = event.presentationRevision;
      console.log(describe(event));
      const watched = runId;
      enqueue(() => checkFailure(watched));
    }
  } catch (error) {
    if (switchTo === undefined) throw error;
  } finally {
    stopLineage();
    await client.dispose();
  }
  return switchTo === undefined ? 'completed' : 'switch';
}

/** Why a connection closed, in words. */
function describeClose(error: unknown): string {
  const close = error as { code?: number; reason?: string; message?: string };
  if (close.code === 1001) return 'the server is shutting down (1001 Going away)';
  if (close.code === 1006 || close.code === undefined) {
    const cause = lastSocketError ?? close.message;
    if (cause !== undefined && /ECONNREFUSED/.test(cause)) return `the server is down (connection refused at ${wsUrl})`;
    return `the connection was lost${cause === undefined || cause === '' ? '' : ` (${cause})`}`;
  }
  return `connection closed (code ${close.code}${close.reason ? `, ${close.reason}` : ''})`;
}

process.on('SIGINT', () => {
  stopped = true;
  void activeClient?.dispose();
  console.log('\nstopped');
  process.exit(0);
});

let chain: Chain;
try {
  chain = await printLineage();
} catch (error) {
  console.error(`watch-run: ${(error as Error).message}`);
  process.exit(1);
}
cursor = options.after ?? chain.current;
rootRunId = chain.rootRunId;
console.log(`following ${runId} after revision ${cursor} via ${wsUrl}`);
if (chain.watched !== undefined && FAILED.has(chain.watched.status)) {
  enqueue(() => checkFailure(runId));
  await lineageQueue;
}
while (!stopped) {
  if (switchTo !== undefined) {
    runId = switchTo.runId;
    switchTo = undefined;
    cursor = 0;
    console.log(`following ${runId} after revision ${cursor} via ${wsUrl}`);
  }
  try {
    const outcome = await follow();
    if (outcome === 'switch') continue;
    console.log(`stream completed at revision ${cursor}`);
    break;
  } catch (error) {
    if (Array.isArray(error)) {
      // The server refused the subscription (unknown run, bad cursor): retrying cannot help.
      console.error(`watch-run: ${error.map((item: { message?: string }) => item.message).join('; ')}`);
      process.exit(1);
    }
    if ((error as { code?: number }).code === 4403) {
      console.error('watch-run: forbidden (4403): pass --token');
      process.exit(1);
    }
    console.log(`disconnected: ${describeClose(error)}; reconnecting in ${backoffMs} ms, then resuming after revision ${cursor}`);
    await new Promise((resolve) => setTimeout(resolve, backoffMs));
    backoffMs = Math.min(backoffMs * 2, 8_000);
  }
}
