/**
 * An IDE-plugin style watcher: prints a run's lineage, then follows its viewer deltas from a
 * revision, reconnecting by itself with the last cursor (docs/PROTOCOL.md). Built on the typed
 * client `pi-workflows-graphql/client` (src/client/, docs/IDE.md "The typed client"): its run
 * watch for the deltas, its run-list watch on the chain for failures and restarts, one socket.
 *
 *   npx tsx examples/watch-run.ts <runId> [--after N] [--follow-restarts] [--url http://127.0.0.1:4000/graphql] [--token T]
 *
 * Without --after it starts at the run's current revision (live only, nothing replayed).
 * When the server is down it says so (and, while following, keeps retrying with the cursor).
 * When the watched run fails it says why and offers its restart (the command to follow it, or
 * with --follow-restarts it switches to the restart by itself). Ctrl-C stops it.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import WebSocket from 'ws';
import {
  createWorkflowClient,
  describeDisconnect,
  RunChainDocument,
  WorkflowClientError,
  WorkflowRunDocument,
  WorkflowRunLineageDocument,
  type Run,
  type RunChainQuery,
  type RunChainQueryVariables,
  type RunDeltaEvent,
  type RunListWatch,
  type RunWatch,
  type TypedDocumentString,
  type WatchEnd,
} from '../src/client/index.js';

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

const client = createWorkflowClient({
  url: options.url,
  webSocketImpl: WebSocket,
  ...(options.token === undefined ? {} : { token: options.token }),
});
const wsUrl = client.wsUrl;

/** What to do when the server cannot be reached (the one-line hint of every such message). */
const START_HINT = 'is it running? Start it with "npm start" (port 4000) or "npm run demo" (port 4100), or pass --url';

/** One typed request over GraphQL over HTTP; a failure says which server and why, and what to do. */
async function request<TResult, TVariables>(document: TypedDocumentString<TResult, TVariables>, variables: TVariables): Promise<TResult> {
  try {
    return await client.query(document, variables);
  } catch (error) {
    if (!(error instanceof WorkflowClientError)) throw error;
    if (error.kind === 'network') throw new Error(`${error.message}: ${START_HINT}`);
    if (error.kind === 'unauthorized') throw new Error(`the server at ${client.url} needs a token (401): pass --token or set PI_WORKFLOWS_TOKEN`);
    if (error.kind === 'http') throw new Error(`${error.message.replace(/: is the URL .*$/, '')}: is --url the server's /graphql endpoint?`);
    throw error;
  }
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

function describe(event: Extract<RunDeltaEvent, { __typename: 'ViewerDeltaBatch' }>): string {
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

/** The watch of the followed run's deltas (replaced when --follow-restarts switches to a restart). */
let deltas: RunWatch | undefined;
/** The last revision applied before the current watch started (the watch keeps it after that). */
let startRevision = 0;
/** Failures already reported (each run once). */
const reportedFailures = new Set<string>();
/** Restarts already offered (each once). */
const offeredRestarts = new Set<string>();

const FAILED = new Set(['FAILED', 'TIMED_OUT']);

/** The last revision applied: every resume of the watch asks for the revisions after it. */
function cursor(): number {
  return deltas?.revision ?? startRevision;
}

/**
 * Looks whether the run failed; if so says why and offers its restart, or says one is awaited
 * (once per run). Called for every revision of the watched run and for its chain's changes:
 * the chain's changes only report what changed after the watch started, the revisions
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
 * --follow-restarts switches to it (the current watch ends, the next starts at revision 0).
 */
async function offerRestart(failedRunId: string, restartRunId: string): Promise<void> {
  if (offeredRestarts.has(restartRunId) || failedRunId !== runId) return;
  offeredRestarts.add(restartRunId);
  const { workflowRun } = await request(WorkflowRunDocument, { runId: restartRunId });
  const restartNumber = workflowRun?.restartNumber ?? 0;
  if (options.followRestarts === true) {
    console.log(`run ${failedRunId} was restarted as ${restartRunId} (restart #${restartNumber}): following it`);
    runId = restartRunId;
    startRevision = 0;
    follow();
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

/** A change of a run of the chain: the watched run failing, or a restart of it appearing. */
function onChainChange(run: Run): void {
  if (run.runId === runId && FAILED.has(run.status)) enqueue(() => checkFailure(run.runId));
  else if (run.parentRunId === runId && run.lineageKind === 'RESTART') enqueue(() => offerRestart(run.parentRunId as string, run.runId));
}

/** How a watch ended: the server completed the stream (done), or refused it (exit 1). */
function onEnd(end: WatchEnd, watch: RunWatch | RunListWatch): void {
  if (end.reason === 'closed') return;
  if (end.reason === 'completed') {
    if (watch !== deltas) return;
    console.log(`stream completed at revision ${cursor()}`);
    void client.close().then(() => process.exit(0));
    return;
  }
  const { error } = end;
  // The server refused the subscription (unknown run, bad cursor) or the token: retrying cannot help.
  console.error(`watch-run: ${error.kind === 'unauthorized' ? 'forbidden (4403): pass --token' : error.message}`);
  process.exit(1);
}

/** Follows {@link runId}'s deltas after the cursor (replacing the watch of a previous run). */
function follow(): void {
  deltas?.close();
  console.log(`following ${runId} after revision ${startRevision} via ${wsUrl}`);
  const watched = runId;
  const watch: RunWatch = client.watchRun(watched, {
    afterRevision: startRevision,
    onEvent: (event) => {
      if (event.__typename === 'ViewerSnapshotRequired') {
        // Reload what the view needs (here: the lineage), continue after currentRevision.
        console.log(
          `snapshot required: revision ${event.currentRevision} (retained from ${event.retainedFromRevision}); status ${event.run.status}/${event.run.queueStatus}`,
        );
        return;
      }
      console.log(describe(event));
      enqueue(() => checkFailure(watched));
    },
    onEnd: (end) => onEnd(end, watch),
  });
  deltas = watch;
}

client.onStatus((status) => {
  if (status.state === 'reconnecting') {
    console.log(`disconnected: ${describeDisconnect(status.reason, wsUrl)}; reconnecting in ${status.delayMs} ms, then resuming after revision ${cursor()}`);
  } else if (status.state === 'connected' && status.reconnected) {
    console.log(`reconnected to ${wsUrl}; resuming after revision ${cursor()}`);
  }
});

process.on('SIGINT', () => {
  void client.close();
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
startRevision = options.after ?? chain.current;
if (chain.watched !== undefined && FAILED.has(chain.watched.status)) {
  enqueue(() => checkFailure(runId));
  await lineageQueue;
}
if (deltas === undefined) follow(); // (--follow-restarts may have switched to a restart already)
const watchedChain = client.watchRunList({
  filter: { rootRunId: chain.rootRunId },
  onEvent: (event) => {
    if (event.__typename === 'WorkflowRunChange') onChainChange(event.run);
  },
  onEnd: (end) => onEnd(end, watchedChain),
});
