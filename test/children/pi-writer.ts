/**
 * Child process standing in for a live pi-workflows host beside the server
 * (docs/PI-WORKFLOWS-FILES.md §6): opens the state file as pi-workflows does (WAL,
 * `synchronous=FULL`, busy timeout 5 s) and writes it with {@link PiWorkflowsWriter}, each call
 * one `BEGIN IMMEDIATE` transaction with one clock reading. Driven by
 * {@link startPiWriterProcess} (test/helpers/pi-writer-process.ts).
 *
 * argv: <state file path> (a file made by `createPiWorkflowsFile` with default options)
 * stdin: one JSON request a line, `{"id":n,"op":…,…}` (ops: {@link PiWriterOps})
 * stdout: `{"ready":true}`, then `{"id":n,"result":…}` or `{"id":n,"error":"…"}` per request
 */
import { createInterface } from 'node:readline';
import type { JsonValue } from '../../src/store/index.js';
import { attachPiWorkflowsWriter, type PiClaimed, type PiClaimInput, type PiClaimNextInput, type RunSpec } from '../../fixtures/pi-workflows-file.js';

const [path] = process.argv.slice(2);
if (path === undefined) throw new Error('usage: pi-writer.ts <path>');
const writer = attachPiWorkflowsWriter(path);

/** A run a race claimed: its id and the lease generation the claim wrote. */
export interface RaceClaim {
  runId: string;
  generation: number;
}

/** Every request the child answers, by `op`, with its arguments and result. */
export interface PiWriterOps {
  /** Reserves runs (each its own transaction; `at` default now). */
  reserve: { args: { runs: Array<Omit<RunSpec, 'at'> & { at?: number }> }; result: string[] };
  claim: { args: { runId: string } & PiClaimInput; result: PiClaimed | null };
  claimNext: { args: PiClaimNextInput; result: PiClaimed | null };
  renew: { args: { runId: string; runnerId: string; claimToken: string; generation: number; leaseMs: number; now?: number }; result: number | null };
  park: { args: { runId: string; claimToken: string; now?: number }; result: boolean };
  complete: { args: { runId: string; claimToken: string; output?: JsonValue; now?: number }; result: boolean };
  fail: { args: { runId: string; claimToken: string; error: string; errorCode?: string; now?: number }; result: boolean };
  /** One timeline revision of the run (an own op appending `{k}`); returns its revision. */
  delta: { args: { runId: string; k: number }; result: number };
  /**
   * Claims as fast as it can: `next` claims the next eligible run (excluding what it already
   * holds) until none is left; `byId` tries `runIds` in order. Token `<runnerId>-token`.
   */
  race: { args: { mode: 'next' | 'byId'; runnerId: string; leaseMs: number; runIds?: string[] }; result: RaceClaim[] };
  /** Closes the file and exits. */
  exit: { args: Record<string, never>; result: null };
}

function race(args: PiWriterOps['race']['args']): RaceClaim[] {
  const claimToken = `${args.runnerId}-token`;
  const claimed: RaceClaim[] = [];
  const claim = { runnerId: args.runnerId, claimToken, leaseMs: args.leaseMs };
  if (args.mode === 'next') {
    for (;;) {
      const taken = writer.claimNextRun({ ...claim, excludeRunIds: claimed.map((entry) => entry.runId) });
      if (taken === undefined) return claimed;
      claimed.push({ runId: taken.runId, generation: taken.generation });
    }
  }
  for (const runId of args.runIds ?? []) {
    const taken = writer.claimRun(runId, claim);
    if (taken !== undefined) claimed.push({ runId, generation: taken.generation });
  }
  return claimed;
}

type Handlers = { [Op in keyof PiWriterOps]: (args: PiWriterOps[Op]['args']) => PiWriterOps[Op]['result'] };

const handlers: Handlers = {
  reserve: ({ runs }) =>
    runs.map((spec) => {
      writer.transaction(() => writer.reserveRun({ ...spec, at: spec.at ?? Date.now() }));
      return spec.runId;
    }),
  claim: ({ runId, ...input }) => writer.claimRun(runId, input) ?? null,
  claimNext: (input) => writer.claimNextRun(input) ?? null,
  renew: (input) => writer.renewClaim(input) ?? null,
  park: (input) => writer.parkRun(input),
  complete: (input) => writer.completeRun(input),
  fail: (input) => writer.failRun(input),
  delta: ({ runId, k }) =>
    writer.transaction(() =>
      writer.recordViewerRevision(runId, [{ targetType: 'timeline', targetKey: 'items', ops: [{ op: 'append', path: '/items', value: [{ k }] }] }], Date.now()),
    ),
  race,
  exit: () => null,
};

const input = createInterface({ input: process.stdin });
input.on('line', (line) => {
  const request = JSON.parse(line) as { id: number; op: keyof PiWriterOps } & Record<string, unknown>;
  const { id, op, ...args } = request;
  let answer: Record<string, unknown>;
  try {
    const handler = handlers[op] as ((args: unknown) => unknown) | undefined;
    if (handler === undefined) throw new Error(`unknown op ${String(op)}`);
    answer = { id, result: handler(args) ?? null };
  } catch (error) {
    answer = { id, error: `${(error as Error).message}` };
  }
  process.stdout.write(`${JSON.stringify(answer)}\n`);
  if (op === 'exit') input.close();
});
input.on('close', () => {
  writer.close();
  process.exit(0);
});
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
