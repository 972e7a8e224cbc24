import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect } from 'vitest';
import { eventsOf, leaseOf, reserve, type TestStore } from '../helpers/store-fixtures.js';
import { storeTest } from '../helpers/store-test.js';

const WORKER = fileURLToPath(new URL('../children/claim-race.ts', import.meta.url));
const RUNS = 200;
/** File-backed: the worker processes open the same database. */
const it = storeTest.extend('storeOptions', { file: true });
it.beforeEach(({ t }) => {
  for (let index = 0; index < RUNS; index += 1) {
    // Distinct sessions: each origin session may hold only one active queue entry.
    reserve(t.store, `run-${String(index).padStart(3, '0')}`, { executionMode: 'headless', originSessionId: `session-${index}` });
    t.clock.advance(1);
  }
});

interface WorkerResult {
  runnerId: string;
  claimed: string[];
}

/** Starts a worker and resolves once it printed `ready`; `result` resolves with its final line. */
function startWorker(t: TestStore, runnerId: string, mode: 'next' | 'byId'): Promise<{ child: ChildProcessWithoutNullStreams; result: Promise<WorkerResult> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER, t.path, t.dir, runnerId, mode, t.clock.iso(1000)], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let onReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    onReady = resolve;
  });
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    if (stdout.startsWith('ready\n')) onReady();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const result = new Promise<WorkerResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) {
        reject(new Error(`worker ${runnerId} exited with ${String(code)}: ${stderr}`));
        return;
      }
      const last = stdout.trim().split('\n').at(-1) ?? '';
      resolve(JSON.parse(last) as WorkerResult);
    });
  });
  return Promise.race([ready.then(() => ({ child, result })), result.then(() => Promise.reject(new Error(`worker ${runnerId} ended early: ${stderr}`)))]);
}

/** Runs the workers together: all start, all say ready, then all get `go` at once. */
async function race(t: TestStore, mode: 'next' | 'byId', runners: string[]): Promise<WorkerResult[]> {
  const workers = await Promise.all(runners.map((runner) => startWorker(t, runner, mode)));
  for (const worker of workers) worker.child.stdin.write('go\n');
  return Promise.all(workers.map((worker) => worker.result));
}

function expectEachRunClaimedOnce(t: TestStore, results: WorkerResult[]): void {
  const all = results.flatMap((result) => result.claimed);
  expect(new Set(all).size).toBe(all.length); // nobody claimed a run twice, no run was won by two
  expect([...all].sort()).toEqual(Array.from({ length: RUNS }, (_, index) => `run-${String(index).padStart(3, '0')}`));
  const owners = new Map(results.flatMap((result) => result.claimed.map((runId) => [runId, result.runnerId] as const)));
  for (const [runId, runnerId] of owners) {
    const lease = leaseOf(t.store, runId);
    expect(lease.generation, runId).toBe(1);
    expect(lease.owner_id, runId).toBe(runnerId);
    expect(
      eventsOf(t.store, runId).filter((event) => event.type === 'lease.claimed'),
      runId,
    ).toHaveLength(1);
  }
}

describe('two connections to the same database file race to claim (docs/STORE-RULES.md §1, §6.3, §6.4)', () => {
  it('claimNextWorkflowRun in two processes: every run claimed exactly once, generation 1', async ({ t }) => {
    const results = await race(t, 'next', ['runner-a', 'runner-b']);
    expectEachRunClaimedOnce(t, results);
    expect(t.store.claimNextWorkflowRun({ runnerId: 'runner-c', claimToken: 'c', leaseMs: 1000, now: t.clock.iso(1000) })).toBeUndefined();
  });

  it('claimWorkflowRun on the same runs in two processes: exactly one wins each run', async ({ t }) => {
    const results = await race(t, 'byId', ['runner-a', 'runner-b']);
    expectEachRunClaimedOnce(t, results);
  });
});
