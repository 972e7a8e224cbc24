/**
 * Child process of test/faults/contention.test.ts: `RUNNERS` worker threads, each with its own
 * WorkflowStore connection (default busy timeout) on the shared database file. The main thread
 * prints `ready` once every worker opened its store, waits for `go` on stdin, then lets the
 * workers race: claim the next run (claimNextWorkflowRun), check the claim, settle it
 * COMPLETED, until no queued run is left. Prints one JSON line: the claims and every error.
 *
 * argv: <database path> <project path> <process name> <runners>
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { WorkflowStore } from '../../src/store/index.js';
import { storeInternals } from '../helpers/store-internals.js';

/** One claim won by a runner. */
export interface ContentionClaim {
  runId: string;
  runnerId: string;
  generation: number | null;
}

/** What a runner reports. */
export interface RunnerReport {
  runnerId: string;
  claims: ContentionClaim[];
  /** Every error a store call threw: its code (e.g. SQLITE_BUSY) and message. */
  errors: Array<{ code: string | null; message: string; call?: string; waitedMs?: number }>;
  /** claimNext calls that found nothing eligible while queued runs were left. */
  emptyClaims: number;
  /** Rounds of BEGIN IMMEDIATE the store tried again after SQLITE_BUSY (StateDatabase.beginRetries). */
  beginRetries: number;
}

const LEASE_MS = 3_600_000;

function describe(error: unknown): { code: string | null; message: string } {
  const code = (error as { code?: unknown }).code;
  return { code: typeof code === 'string' ? code : null, message: (error as Error).message };
}

if (isMainThread) {
  const [path, projectPath, name, runners] = process.argv.slice(2) as [string, string, string, string];
  const workers = Array.from({ length: Number(runners) }, (_, index) => {
    const source = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => { register(); return import(${JSON.stringify(import.meta.url)}); });`;
    return new Worker(source, { eval: true, workerData: { path, projectPath, runnerId: `${name}-runner-${index}` } });
  });
  const reports: RunnerReport[] = [];
  let ready = 0;
  let finished = 0;
  const failures: string[] = [];
  for (const worker of workers) {
    worker.on('error', (error) => {
      failures.push(String(error));
      finished += 1;
      if (finished === workers.length) done();
    });
    worker.on('message', (message: { type: string; report?: RunnerReport }) => {
      if (message.type === 'ready') {
        ready += 1;
        if (ready === workers.length) process.stdout.write('ready\n');
      } else if (message.type === 'report') {
        reports.push(message.report as RunnerReport);
        finished += 1;
        if (finished === workers.length) done();
      }
    });
  }
  const done = (): void => {
    // Exit only once the (large) line is flushed: stdout is asynchronous on a pipe.
    process.stdout.write(`${JSON.stringify({ reports, failures })}\n`, () => process.exit(0));
  };
  let input = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    input += chunk;
    if (input.includes('go\n')) for (const worker of workers) worker.postMessage('go');
  });
} else {
  const { path, projectPath, runnerId } = workerData as { path: string; projectPath: string; runnerId: string };
  const report: RunnerReport = { runnerId, claims: [], errors: [], emptyClaims: 0, beginRetries: 0 };
  let store: WorkflowStore | undefined;
  try {
    store = WorkflowStore.open({ path, projectPath });
  } catch (error) {
    report.errors.push(describe(error));
  }
  parentPort?.postMessage({ type: 'ready' });
  parentPort?.once('message', () => {
    if (store !== undefined) race(store);
    report.beginRetries = store === undefined ? 0 : storeInternals(store).database.beginRetries;
    store?.close();
    parentPort?.postMessage({ type: 'report', report });
  });

  function race(store: WorkflowStore): void {
    let call = '';
    let callStarted = 0;
    /** Runs one store call, noting its name and start for the error report. */
    const timed = <T>(name: string, fn: () => T): T => {
      call = name;
      callStarted = performance.now();
      return fn();
    };
    for (let attempt = 0; ; attempt += 1) {
      const claimToken = `${runnerId}-secret-${attempt}`;
      try {
        const run = timed('claimNextWorkflowRun', () => store.claimNextWorkflowRun({ runnerId, claimToken, leaseMs: LEASE_MS }));
        if (run === undefined) {
          const left = timed('count queued', () =>
            storeInternals(store).database.get<{ n: number }>("SELECT count(*) AS n FROM run_queue WHERE status = 'queued'"),
          );
          if (left?.n === 0) return;
          report.emptyClaims += 1;
          continue;
        }
        report.claims.push({ runId: run.runId, runnerId, generation: run.claimGeneration });
        if (!timed('verifyWorkflowRunClaim', () => store.verifyWorkflowRunClaim({ runId: run.runId, claimToken }))) {
          report.errors.push({ code: null, message: `claim of ${run.runId} did not verify right after it was taken` });
        }
        timed('settleWorkflowRun', () => store.settleWorkflowRun({ runId: run.runId, claimToken, status: 'completed', output: { runnerId } }));
      } catch (error) {
        report.errors.push({ ...describe(error), call, waitedMs: Math.round(performance.now() - callStarted) });
        if (report.errors.length > 20) return;
      }
    }
  }
}
