/**
 * The demo workflow host: drives realistic run lifecycles through the store's public API, one
 * step at a time, on behalf of N chains (one origin session each, because the store allows
 * only one active queue entry per origin session, docs/STORE-RULES.md §3.8).
 *
 * What a chain does (every choice comes from the seeded PRNG, so a seed replays the same
 * sequence of steps):
 *
 *   reserve root (prepare-or-adopt with a claim) → mark running → work steps (timeline items,
 *   graph node states, summary progress, a step message sent with a model turn started and
 *   ended) → one outcome:
 *     - complete (settle COMPLETED), the chain ends and the slot starts a new chain;
 *     - fail (settle FAILED) → restart with the run's terminal fingerprint (up to 3; the 4th
 *       attempt is refused by the store and the chain ends failed);
 *     - wait for input (run `waiting`, park) → continuation reserved on the parked parent;
 *     - worker no progress (parkWorkflowRunForWorkerNoProgress) → claimed again by id;
 *     - interaction timeout: a pending request with a deadline, its step message sent and a
 *       turn started, run `waiting` and parked (sometimes paused and resumed), then after the
 *       deadline a control claim and beginWorkflowRunInteractionTimeout.
 *
 * The engine reporting the run's durable status (`running`, or `waiting` when it waits for
 * input, docs/STORE-RULES.md §4) goes through `store.reportWorkflowRunState`: runs.status, a run event
 * and the viewer deltas, in one transaction.
 *
 * With an engine-row writer (`options.engine`, src/store/engine-rows/), each run also gets what
 * pi-workflows' engine writes, in transactions of its own beside the controller's (before an
 * outcome's settle, after the other steps' writes): its engine state and title, a bound Pi
 * session, one step per workflow node with a prompt, session entries (the step prompt, the
 * assistant's text and tool call, the tool result, the assistant's answer) and events, an output
 * or an error, progress updates, and the run's final output or error — so the run view
 * (src/store/run-view/) shows what a real pi-workflows run shows. The engine content comes from
 * the run id and the step, never from the PRNG: the same seed prints the same lines either way.
 */
import { createHash } from 'node:crypto';
import {
  canonicalJson,
  isStoreError,
  MAX_RESTARTS,
  type JsonValue,
  type ReserveWorkflowRunInput,
  type ViewerDeltaDraft,
  type WorkflowMessageContent,
  type WorkflowRunRecord,
  type WorkflowStore,
} from '../src/store/index.js';
import type { EngineRowWriter } from '../src/store/engine-rows/index.js';
import type { Prng } from './prng.js';

/** Runner id of the demo host (`host-` prefix: lease owner type `host`). */
export const HOST_RUNNER_ID = 'host-demo';
/** Lease length of every demo claim. */
const LEASE_MS = 5 * 60_000;
/** A chain never grows beyond this many runs; its run then completes. */
const MAX_CHAIN_RUNS = 9;

interface WorkflowKind {
  name: string;
  ref: string;
  steps: readonly string[];
  /** What the timeline says while a step works. */
  notes: readonly string[];
}

const WORKFLOWS: readonly WorkflowKind[] = [
  {
    name: 'triage-issue',
    ref: 'workflows/triage-issue.ts',
    steps: ['read', 'reproduce', 'label', 'reply'],
    notes: ['Reading the issue thread', 'Reproducing on main', 'Bisecting the regression', 'Drafting a reply'],
  },
  {
    name: 'release-notes',
    ref: 'workflows/release-notes.ts',
    steps: ['collect', 'group', 'write', 'review'],
    notes: ['Collecting merged pull requests', 'Grouping changes by area', 'Writing the highlights', 'Checking links'],
  },
  {
    name: 'refactor-module',
    ref: 'workflows/refactor-module.ts',
    steps: ['plan', 'edit', 'test', 'review'],
    notes: ['Planning the refactor', 'Editing src/store', 'Running the test suite', 'Summarising the diff'],
  },
  {
    name: 'write-tests',
    ref: 'workflows/write-tests.ts',
    steps: ['survey', 'draft', 'run', 'polish'],
    notes: ['Surveying untested paths', 'Drafting test cases', 'Running vitest', 'Naming the tests'],
  },
];

type Phase = 'start' | 'claimed' | 'working' | 'failed' | 'parked-for-continuation' | 'no-progress' | 'interaction' | 'interaction-paused';

interface OpenTurn {
  turnId: string;
  messageId: string;
  /** How the host will end it: `aborted` after an interaction deadline expired. */
  stopReason: 'completed' | 'aborted';
}

interface ActiveRun {
  runId: string;
  token: string;
  restartNumber: number;
  /** Index into the workflow's steps. */
  stepIndex: number;
  /** Work steps left before an outcome. */
  workLeft: number;
  messages: number;
  openTurn: OpenTurn | undefined;
  /** The run already had a no-progress park / an interaction (each at most once). */
  hadNoProgress: boolean;
  hadInteraction: boolean;
  interaction: { requestId: string; deadlineAt: number; paused: boolean } | undefined;
  /** The outcome drawn before the step that settles it (so the engine can write first). */
  planned: { choice: Outcome; error?: string } | undefined;
  /** Engine state: started, the open attempt, attempts per node, session entries written. */
  engine: { started: boolean; attemptId: string | undefined; promptEntryId: string | undefined; attempts: Record<string, number>; entries: number };
}

type Outcome = 'complete' | 'fail' | 'wait' | 'noProgress' | 'interaction';

interface Slot {
  /** 1-based slot number. */
  index: number;
  /** Origin session of every run of this slot (one active queue entry per session). */
  session: string;
  /** Chain number (grows as the slot starts new chains). */
  chain: number;
  /** Runs reserved in the current chain. */
  runs: number;
  workflow: WorkflowKind;
  rootInput: JsonValue;
  phase: Phase;
  run: ActiveRun | undefined;
}

/** Options of {@link DemoHost}. */
export interface DemoHostOptions {
  /** Number of chains driven side by side. */
  chains: number;
  /** Run id prefix, e.g. `d1` (ids look like `d1-c3-2`). */
  prefix: string;
  /** Interval between steps; interaction deadlines are a few steps long. */
  intervalMs: number;
  /** Prints one line. */
  log: (line: string) => void;
  /** Writes what pi-workflows' engine writes for each run (steps, prompts, outputs, trace, session, updates); none: controller writes only. */
  engine?: EngineRowWriter;
  /** The working directory the demo's Pi sessions are bound to (default `/workspace/demo`). */
  cwd?: string;
}

/**
 * The first unused demo prefix of a database: `d1` on a fresh file, `d<n+1>` when runs of
 * `d<n>` exist, so repeated demos on one file never collide on run ids or sessions.
 */
export function nextDemoPrefix(store: WorkflowStore): string {
  for (let n = 1; ; n += 1) {
    if (store.countWorkflowRuns({ originSessionId: `demo-d${n}-s1` }) === 0) return `d${n}`;
  }
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The workflow's definition snapshot as pi-workflows records it (`pi-workflows.definition-snapshot.v1`). */
function definitionOf(workflow: WorkflowKind): JsonValue {
  return {
    schema: 'pi-workflows.definition-snapshot.v1',
    name: workflow.name,
    startAt: workflow.steps[0] as string,
    nodes: Object.fromEntries(workflow.steps.map((id) => [id, { nodeType: 'agent' }])),
    edges: workflow.steps.slice(1).map((id, index) => ({ from: workflow.steps[index] as string, to: id })),
  };
}

/** The tool an agent step calls (a read of the module, or a test run). */
function toolCallOf(workflow: WorkflowKind, stepIndex: number, callId: string): { type: string; id: string; name: string; arguments: JsonValue } {
  const step = workflow.steps[stepIndex] as string;
  return stepIndex % 2 === 0
    ? { type: 'toolCall', id: callId, name: 'read', arguments: { path: `src/${workflow.name}/${step}.ts` } }
    : { type: 'toolCall', id: callId, name: 'bash', arguments: { command: `npm test -- ${step}` } };
}

/** The demo workflow host. Call {@link step} once per tick. */
export class DemoHost {
  private readonly slots: Slot[];
  private chainCounter = 0;
  /** Engine writes of the current step that follow the controller's transaction. */
  private readonly engineAfter: Array<() => void> = [];
  /** Steps taken so far. */
  steps = 0;

  constructor(
    private readonly store: WorkflowStore,
    private readonly rng: Prng,
    private readonly options: DemoHostOptions,
  ) {
    this.slots = Array.from({ length: options.chains }, (_, index) => ({
      index: index + 1,
      session: `demo-${options.prefix}-s${index + 1}`,
      chain: 0,
      runs: 0,
      workflow: WORKFLOWS[0] as WorkflowKind,
      rootInput: null,
      phase: 'start' as Phase,
      run: undefined,
    }));
  }

  /**
   * Advances one randomly chosen chain by one step (prints one line). A step's writes are one
   * transaction taken with `store.writeAsync`: while another process holds
   * the write lock, the host waits without stopping its event loop (signals, timers). A step
   * that fails leaves nothing behind.
   */
  async step(): Promise<void> {
    const slot = this.rng.pick(this.slots);
    this.steps += 1;
    this.engineAfter.length = 0;
    try {
      if (slot.phase === 'interaction') await this.interactionStep(slot);
      else {
        this.planOutcome(slot);
        await this.store.writeAsync(() => this.advance(slot));
        for (const write of this.engineAfter.splice(0)) write();
      }
    } catch (error) {
      // A host keeps going: report, abandon this chain, start a fresh one in the slot.
      this.say(slot, `error: ${(error as Error).message} (abandoning chain ${slot.chain})`);
      slot.phase = 'start';
      slot.run = undefined;
    }
  }

  private say(slot: Slot, text: string): void {
    this.options.log(`[chain ${slot.chain}] ${text}`);
  }

  private advance(slot: Slot): void {
    switch (slot.phase) {
      case 'start':
        return this.startChain(slot);
      case 'claimed':
        return this.markRunning(slot);
      case 'working':
        return this.work(slot);
      case 'failed':
        return this.restart(slot);
      case 'parked-for-continuation':
        return this.continueChain(slot);
      case 'no-progress':
        return this.reclaim(slot);
      case 'interaction':
        throw new Error('an interaction step waits between its writes: see interactionStep');
      case 'interaction-paused':
        return this.resumeInteraction(slot);
    }
  }

  // ---- reservation -------------------------------------------------------------------------

  private reserveInput(slot: Slot, runId: string, extra: Partial<ReserveWorkflowRunInput> = {}): ReserveWorkflowRunInput {
    const definition = definitionOf(slot.workflow);
    const digest = sha256Hex(canonicalJson(definition));
    return {
      runId,
      workflowName: slot.workflow.name,
      workflowSourceRef: slot.workflow.ref,
      workflowSource: { kind: 'file', path: slot.workflow.ref, hash: digest },
      definitionDigest: `sha256:${digest}`,
      definitionSnapshot: definition,
      input: slot.rootInput,
      launchOptions: { demo: true },
      runnerId: HOST_RUNNER_ID,
      originSessionId: slot.session,
      executionMode: 'interactive',
      ...extra,
    };
  }

  private newToken(runId: string): string {
    return `${runId}.${this.rng.hex(16)}`;
  }

  private nextRunId(slot: Slot): string {
    slot.runs += 1;
    return `${this.options.prefix}-c${slot.chain}-${slot.runs}`;
  }

  private adoptRun(slot: Slot, record: WorkflowRunRecord, token: string): void {
    slot.run = {
      runId: record.runId,
      token,
      restartNumber: record.restartNumber,
      stepIndex: 0,
      workLeft: this.rng.int(3, 7),
      messages: 0,
      openTurn: undefined,
      hadNoProgress: false,
      hadInteraction: false,
      interaction: undefined,
      planned: undefined,
      engine: { started: false, attemptId: undefined, promptEntryId: undefined, attempts: {}, entries: 0 },
    };
    slot.phase = 'claimed';
  }

  private startChain(slot: Slot): void {
    this.chainCounter += 1;
    slot.chain = this.chainCounter;
    slot.runs = 0;
    slot.workflow = this.rng.pick(WORKFLOWS);
    slot.rootInput = { ticket: `PWG-${this.rng.int(100, 999)}`, priority: this.rng.pick(['low', 'normal', 'high']) };
    const runId = this.nextRunId(slot);
    const token = this.newToken(runId);
    const prepared = this.store.reserveWorkflowRun(this.reserveInput(slot, runId), {
      runnerId: HOST_RUNNER_ID,
      claimToken: token,
      leaseMs: LEASE_MS,
    });
    this.adoptRun(slot, prepared.run, token);
    this.say(slot, `${runId} reserved root ${slot.workflow.name} (session ${slot.session}) and ${prepared.state} it: queue ${prepared.run.status}`);
  }

  private continueChain(slot: Slot): void {
    const parent = slot.run as ActiveRun;
    const runId = this.nextRunId(slot);
    const token = this.newToken(runId);
    const prepared = this.store.reserveWorkflowRun(
      this.reserveInput(slot, runId, {
        parentRunId: parent.runId,
        lineageKind: 'continuation',
        input: { ...(slot.rootInput as Record<string, JsonValue>), continues: parent.runId, answer: this.rng.pick(['yes', 'ship it', 'use plan B']) },
      }),
      { runnerId: HOST_RUNNER_ID, claimToken: token, leaseMs: LEASE_MS },
    );
    this.adoptRun(slot, prepared.run, token);
    this.say(slot, `${runId} continuation of ${parent.runId} (restart number ${prepared.run.restartNumber}); parent queue done`);
  }

  private restart(slot: Slot): void {
    const failed = slot.run as ActiveRun;
    const record = this.store.getWorkflowRun(failed.runId);
    const fingerprint = record?.terminalFingerprint;
    if (record === undefined || fingerprint == null) throw new Error(`${failed.runId} has no terminal fingerprint`);
    if (record.restartNumber >= MAX_RESTARTS) {
      // Ask anyway, as a host would: the store refuses with its own text.
      try {
        this.store.restartWorkflowRun({ runId: failed.runId, originSessionId: slot.session, parentTerminalFingerprint: fingerprint });
        this.say(slot, `${failed.runId} restart unexpectedly accepted`);
      } catch (error) {
        if (!isStoreError(error)) throw error;
        this.say(slot, `${failed.runId} restart refused: ${error.message}; chain ${slot.chain} ends failed`);
      }
      slot.phase = 'start';
      slot.run = undefined;
      return;
    }
    const runId = this.nextRunId(slot);
    const token = this.newToken(runId);
    const result = this.store.restartWorkflowRun({
      runId: failed.runId,
      originSessionId: slot.session,
      parentTerminalFingerprint: fingerprint,
      restartRunId: runId,
      claim: { runnerId: HOST_RUNNER_ID, claimToken: token, leaseMs: LEASE_MS },
    });
    this.adoptRun(slot, result.run, token);
    this.say(slot, `${runId} restart #${result.run.restartNumber} of ${failed.runId} (fingerprint ${fingerprint.slice(0, 8)}…)`);
  }

  // ---- running -----------------------------------------------------------------------------

  /**
   * The engine reports the run's durable status (docs/STORE-RULES.md §4) through the store: runs.status,
   * a run event and the viewer deltas, in one transaction.
   */
  private reportRunStatus(run: ActiveRun, status: 'running' | 'waiting', detail: string | null, drafts: ViewerDeltaDraft[]): number {
    return this.store.reportWorkflowRunState({ runId: run.runId, claimToken: run.token, status, detail, drafts });
  }

  private timelineItem(kind: string, text: string): ViewerDeltaDraft {
    return {
      targetType: 'timeline',
      ops: [{ op: 'append', path: '/timeline', value: [{ at: new Date(this.store.now()).toISOString(), kind, text }] }],
    };
  }

  private markRunning(slot: Slot): void {
    const run = slot.run as ActiveRun;
    if (!this.store.markWorkflowRunRunning({ runId: run.runId, claimToken: run.token })) {
      throw new Error(`${run.runId}: claim no longer verifies`);
    }
    const step = slot.workflow.steps[run.stepIndex] as string;
    const revision = this.reportRunStatus(run, 'running', null, [
      {
        targetType: 'summary',
        ops: [
          { op: 'replace', path: '/status', value: 'running' },
          { op: 'replace', path: '/step', value: step },
        ],
      },
      { targetType: 'graph', targetKey: step, ops: [{ op: 'replace', path: `/nodes/${step}/state`, value: 'running' }] },
      this.timelineItem('started', `Run started at step ${step}`),
    ]);
    slot.phase = 'working';
    this.engineLater(() => {
      if (!run.engine.started) this.engineStartRun(slot, run);
      if (run.engine.attemptId === undefined) this.engineStartStep(slot, run);
    });
    this.say(slot, `${run.runId} running: step ${step} (rev ${revision})`);
  }

  private work(slot: Slot): void {
    const run = slot.run as ActiveRun;
    if (run.openTurn !== undefined) return this.endTurn(slot, run, run.openTurn);
    if (run.workLeft <= 0) return this.outcome(slot, run);
    run.workLeft -= 1;
    const action = this.rng.weighted({ note: 3, message: 2, advance: 2 });
    if (action === 'message') return this.sendStepMessage(slot, run);
    if (action === 'advance' && run.stepIndex < slot.workflow.steps.length - 1) return this.advanceStep(slot, run);
    const note = this.rng.pick(slot.workflow.notes);
    const progress = Math.min(99, Math.round(((run.stepIndex + this.rng.next()) / slot.workflow.steps.length) * 100));
    const revision = this.store.recordViewerDeltas(run.runId, [
      this.timelineItem('note', note),
      { targetType: 'summary', ops: [{ op: 'replace', path: '/progress', value: progress }] },
    ]);
    this.engineLater(() => {
      const attemptId = run.engine.attemptId;
      if (attemptId === undefined) return;
      const data = { schema: 'pi-workflows.progress.v1', label: note, status: 'running', completed: progress, total: 100, unit: 'percent' };
      this.engine().publishUpdate({ runId: run.runId, attemptId, type: 'progress', key: 'run', data });
    });
    this.say(slot, `${run.runId} timeline: "${note}", progress ${progress}% (rev ${revision})`);
  }

  private advanceStep(slot: Slot, run: ActiveRun): void {
    const done = slot.workflow.steps[run.stepIndex] as string;
    run.stepIndex += 1;
    const next = slot.workflow.steps[run.stepIndex] as string;
    const revision = this.store.recordViewerDeltas(run.runId, [
      {
        targetType: 'graph',
        targetKey: done,
        ops: [
          { op: 'replace', path: `/nodes/${done}/state`, value: 'completed' },
          { op: 'replace', path: `/nodes/${next}/state`, value: 'running' },
        ],
      },
      { targetType: 'summary', ops: [{ op: 'replace', path: '/step', value: next }] },
      this.timelineItem('step', `Step ${done} done, ${next} started`),
    ]);
    this.engineLater(() => {
      this.engineFinishStep(slot, run, run.stepIndex - 1);
      this.engineStartStep(slot, run);
    });
    this.say(slot, `${run.runId} graph: ${done} → ${next} (rev ${revision})`);
  }

  private messageContent(text: string, details: JsonValue): WorkflowMessageContent {
    return {
      schema: 'pi-workflows.workflow-message-content.v1',
      customType: 'pi-workflows.step',
      content: text,
      display: true,
      details,
      triggerTurn: true,
    };
  }

  /** A step message created, marked sent (Pi session entry) and a model turn started on it. */
  private startMessageTurn(slot: Slot, run: ActiveRun, requestId: string, text: string): OpenTurn {
    const message = this.store.createWorkflowMessage({
      idempotencyKey: requestId,
      runId: run.runId,
      targetSessionId: slot.session,
      kind: 'step',
      sourceId: requestId,
      content: this.messageContent(text, { requestId, step: slot.workflow.steps[run.stepIndex] ?? null }),
    });
    this.store.markWorkflowMessageSent({
      workflowMessageId: message.workflowMessageId,
      targetSessionId: slot.session,
      piSessionEntryId: `entry-${this.rng.hex(12)}`,
    });
    const turn = this.store.startWorkflowTurn({
      workflowTurnId: `turn-${run.runId}-${run.messages}`,
      workflowMessageId: message.workflowMessageId,
      runId: run.runId,
      targetSessionId: slot.session,
    });
    return { turnId: turn.workflowTurnId, messageId: message.workflowMessageId, stopReason: 'completed' };
  }

  private sendStepMessage(slot: Slot, run: ActiveRun): void {
    run.messages += 1;
    const requestId = `request-${run.runId}-${run.messages}`;
    const text = `Step ${slot.workflow.steps[run.stepIndex] ?? ''}: ${this.rng.pick(slot.workflow.notes).toLowerCase()}`;
    const revision = this.store.transaction(() => {
      run.openTurn = this.startMessageTurn(slot, run, requestId, text);
      return this.store.recordViewerDeltas(run.runId, [
        { targetType: 'conversation', ops: [{ op: 'append', path: '/messages', value: [{ role: 'workflow', text }] }] },
      ]);
    });
    this.say(slot, `${run.runId} step message #${run.messages} sent, turn started (rev ${revision})`);
  }

  private endTurn(slot: Slot, run: ActiveRun, turn: OpenTurn): void {
    const stopReason = turn.stopReason;
    const reply =
      stopReason === 'completed' ? this.rng.pick(['Done.', 'Looks good.', 'Fixed and pushed.', 'Two tests added.']) : 'Turn aborted: deadline expired.';
    const revision = this.store.transaction(() => {
      this.store.endWorkflowTurn({
        workflowTurnId: turn.turnId,
        stopReason,
        responseSessionEntryId: stopReason === 'completed' ? `entry-${this.rng.hex(12)}` : null,
      });
      return this.store.recordViewerDeltas(run.runId, [
        { targetType: 'conversation', ops: [{ op: 'append', path: '/messages', value: [{ role: 'assistant', text: reply }] }] },
      ]);
    });
    run.openTurn = undefined;
    this.say(slot, `${run.runId} turn ${stopReason} (rev ${revision})`);
  }

  // ---- outcomes ----------------------------------------------------------------------------

  /**
   * Draws the outcome of a working run whose work is done, before the step that settles it (the
   * same draws in the same order as drawing it in that step), and has the engine write the
   * run's end first, as pi-workflows' engine does before its host settles the queue.
   */
  private planOutcome(slot: Slot): void {
    const run = slot.run;
    if (slot.phase !== 'working' || run === undefined || run.openTurn !== undefined || run.workLeft > 0) return;
    const longChain = slot.runs >= MAX_CHAIN_RUNS;
    const choice: Outcome = longChain
      ? 'complete'
      : this.rng.weighted({
          complete: 2,
          fail: 3,
          wait: 3,
          noProgress: run.hadNoProgress ? 0 : 1,
          interaction: run.hadInteraction ? 0 : 1.5,
        });
    const step = slot.workflow.steps[run.stepIndex] as string;
    const error = choice === 'fail' ? `step ${step} failed in ${run.runId}: exit code ${this.rng.int(1, 127)}` : undefined;
    run.planned = { choice, ...(error === undefined ? {} : { error }) };
    if (this.options.engine === undefined || !run.engine.started) return;
    if (error !== undefined) {
      this.engineFinishStep(slot, run, run.stepIndex, error);
      this.engine().finishSessionCapture({ runId: run.runId, status: 'complete' });
      this.engine().finishRun({ runId: run.runId, status: 'failed', error });
      return;
    }
    this.engineFinishStep(slot, run, run.stepIndex);
    if (choice === 'complete' || choice === 'wait') this.engine().finishSessionCapture({ runId: run.runId, status: 'complete' });
    if (choice === 'complete') this.engine().finishRun({ runId: run.runId, status: 'completed', finalOutput: this.finalOutput(slot) });
  }

  private finalOutput(slot: Slot): JsonValue {
    return { summary: `${slot.workflow.name} finished`, steps: slot.workflow.steps.length };
  }

  private outcome(slot: Slot, run: ActiveRun): void {
    const planned = run.planned;
    if (planned === undefined) throw new Error(`${run.runId}: no outcome drawn`);
    run.planned = undefined;
    switch (planned.choice) {
      case 'complete':
        return this.complete(slot, run);
      case 'fail':
        return this.fail(slot, run, planned.error as string);
      case 'wait':
        return this.parkForInput(slot, run);
      case 'noProgress':
        return this.parkNoProgress(slot, run);
      case 'interaction':
        return this.openInteraction(slot, run);
    }
  }

  private complete(slot: Slot, run: ActiveRun): void {
    const record = this.store.settleWorkflowRun({
      runId: run.runId,
      claimToken: run.token,
      status: 'completed',
      output: this.finalOutput(slot),
    });
    this.store.recordViewerDeltas(run.runId, [
      {
        targetType: 'summary',
        ops: [
          { op: 'replace', path: '/status', value: 'completed' },
          { op: 'replace', path: '/progress', value: 100 },
        ],
      },
      this.timelineItem('completed', 'Run completed'),
    ]);
    this.say(slot, `${run.runId} completed (queue ${record.status}); chain ${slot.chain} done after ${slot.runs} run(s)`);
    slot.phase = 'start';
    slot.run = undefined;
  }

  private fail(slot: Slot, run: ActiveRun, error: string): void {
    const step = slot.workflow.steps[run.stepIndex] as string;
    const record = this.store.settleWorkflowRun({ runId: run.runId, claimToken: run.token, status: 'failed', error });
    this.store.recordViewerDeltas(run.runId, [
      {
        targetType: 'summary',
        ops: [
          { op: 'replace', path: '/status', value: 'failed' },
          { op: 'replace', path: '/error', value: error },
        ],
      },
      { targetType: 'graph', targetKey: step, ops: [{ op: 'replace', path: `/nodes/${step}/state`, value: 'failed' }] },
      this.timelineItem('failed', error),
    ]);
    slot.phase = 'failed';
    this.say(slot, `${run.runId} failed: ${error} (fingerprint ${(record.terminalFingerprint ?? '').slice(0, 8)}…)`);
  }

  private parkForInput(slot: Slot, run: ActiveRun): void {
    this.reportRunStatus(run, 'waiting', 'waiting for origin-session input', [
      { targetType: 'summary', ops: [{ op: 'replace', path: '/status', value: 'waiting' }] },
      this.timelineItem('waiting', 'Waiting for input from the origin session'),
    ]);
    if (!this.store.parkWorkflowRun({ runId: run.runId, claimToken: run.token })) throw new Error(`${run.runId}: park refused`);
    slot.phase = 'parked-for-continuation';
    this.say(slot, `${run.runId} waiting for input: parked, lease released`);
  }

  private parkNoProgress(slot: Slot, run: ActiveRun): void {
    run.hadNoProgress = true;
    const detail = `worker made no progress for ${this.rng.int(3, 9)} turns`;
    if (!this.store.parkWorkflowRunForWorkerNoProgress({ runId: run.runId, claimToken: run.token, detail })) {
      throw new Error(`${run.runId}: no-progress park refused`);
    }
    this.store.recordViewerDeltas(run.runId, [this.timelineItem('no-progress', detail)]);
    slot.phase = 'no-progress';
    this.say(slot, `${run.runId} parked for worker no progress: ${detail}`);
  }

  private reclaim(slot: Slot): void {
    const run = slot.run as ActiveRun;
    const token = this.newToken(run.runId);
    const record = this.store.claimWorkflowRun({ runId: run.runId, runnerId: HOST_RUNNER_ID, claimToken: token, leaseMs: LEASE_MS });
    if (record === undefined) throw new Error(`${run.runId}: claim after no progress refused`);
    run.token = token;
    run.workLeft = this.rng.int(2, 4);
    slot.phase = 'claimed';
    this.say(slot, `${run.runId} claimed again by id after no progress (lease generation ${record.claimGeneration ?? '?'})`);
  }

  // ---- interaction timeout -----------------------------------------------------------------

  private openInteraction(slot: Slot, run: ActiveRun): void {
    run.hadInteraction = true;
    run.messages += 1;
    const requestId = `request-${run.runId}-${run.messages}`;
    const deadlineAt = this.store.now() + Math.max(50, this.options.intervalMs * 2);
    const text = `Please confirm the ${slot.workflow.steps[run.stepIndex] ?? ''} result`;
    this.store.transaction(() => {
      this.store.openInteraction({
        runId: run.runId,
        nodeId: slot.workflow.steps[run.stepIndex] as string,
        attemptNumber: (run.engine.attempts[slot.workflow.steps[run.stepIndex] as string] ?? 0) + 1,
        attemptId: `attempt-${run.runId}-${run.messages}`,
        requestId,
        targetSessionId: slot.session,
        kind: 'agent',
        contract: { answer: 'text' },
        deadlineAt,
      });
      run.openTurn = this.startMessageTurn(slot, run, requestId, text);
      this.store.recordViewerDeltas(run.runId, [
        { targetType: 'conversation', ops: [{ op: 'append', path: '/messages', value: [{ role: 'workflow', text }] }] },
      ]);
    });
    this.reportRunStatus(run, 'waiting', 'waiting for origin-session input', [
      { targetType: 'summary', ops: [{ op: 'replace', path: '/status', value: 'waiting' }] },
      this.timelineItem('interaction', `Asked the session; deadline ${new Date(deadlineAt).toISOString()}`),
    ]);
    if (!this.store.parkWorkflowRun({ runId: run.runId, claimToken: run.token })) throw new Error(`${run.runId}: park refused`);
    run.interaction = { requestId, deadlineAt, paused: false };
    // The interaction's attempt stays open (waiting) through its timeout: the engine finishes it later.
    const node = slot.workflow.steps[run.stepIndex] as string;
    run.engine.attempts[node] = (run.engine.attempts[node] ?? 0) + 1;
    run.engine.attemptId = `attempt-${run.runId}-${run.messages}`;
    run.engine.promptEntryId = undefined;
    slot.phase = 'interaction';
    this.say(slot, `${run.runId} asked ${requestId} (deadline in ${deadlineAt - this.store.now()} ms): waiting, parked, turn started`);
  }

  private async interactionStep(slot: Slot): Promise<void> {
    const run = slot.run as ActiveRun;
    const interaction = run.interaction as NonNullable<ActiveRun['interaction']>;
    if (!interaction.paused && this.rng.next() < 0.35) {
      if (!(await this.store.writeAsync(() => this.store.pauseParkedWorkflowRun({ runId: run.runId })))) throw new Error(`${run.runId}: pause refused`);
      interaction.paused = true;
      slot.phase = 'interaction-paused';
      this.say(slot, `${run.runId} paused while ${interaction.requestId} is pending`);
      return;
    }
    const wait = interaction.deadlineAt - this.store.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait + 1));
    const token = this.newToken(run.runId);
    await this.store.writeAsync(() => {
      const claimed = this.store.claimWorkflowRunForControl({ runId: run.runId, runnerId: HOST_RUNNER_ID, claimToken: token, leaseMs: LEASE_MS });
      if (claimed === undefined) throw new Error(`${run.runId}: control claim refused`);
      const started = this.store.beginWorkflowRunInteractionTimeout({ runId: run.runId, claimToken: token, targetSessionId: slot.session });
      if (!started) throw new Error(`${run.runId}: interaction timeout did not apply`);
    });
    run.token = token;
    run.interaction = undefined;
    if (run.openTurn !== undefined) run.openTurn.stopReason = 'aborted';
    run.workLeft = this.rng.int(1, 3);
    slot.phase = 'claimed';
    // The started turn on the step message ends when the host finishes the expired deadline.
    this.say(slot, `${run.runId} ${interaction.requestId} timed out: request cancelled, run running, queue starting`);
  }

  private resumeInteraction(slot: Slot): void {
    const run = slot.run as ActiveRun;
    if (!this.store.resumePausedInteraction({ runId: run.runId })) throw new Error(`${run.runId}: resume refused`);
    slot.phase = 'interaction';
    this.say(slot, `${run.runId} resumed: waiting for origin-session input again`);
  }
  // ---- engine rows (what pi-workflows' engine writes) -------------------------------------

  private engine(): EngineRowWriter {
    return this.options.engine as EngineRowWriter;
  }

  /** Queues an engine write for after this step's controller transaction (none without an engine). */
  private engineLater(write: () => void): void {
    if (this.options.engine !== undefined) this.engineAfter.push(write);
  }

  private nextEntryId(run: ActiveRun): string {
    run.engine.entries += 1;
    return `${run.runId}-e${run.engine.entries}`;
  }

  private entry(run: ActiveRun, fields: { [key: string]: JsonValue }): string {
    const id = this.nextEntryId(run);
    const parentId = run.engine.entries > 1 ? `${run.runId}-e${run.engine.entries - 1}` : null;
    this.engine().appendSessionEntry({
      runId: run.runId,
      entry: { type: 'message', id, parentId, timestamp: new Date(this.store.now()).toISOString(), ...fields },
    });
    return id;
  }

  /** The run's engine state: running with its title, bound to the chain's Pi session. */
  private engineStartRun(slot: Slot, run: ActiveRun): void {
    const ticket = (slot.rootInput as { ticket?: string } | null)?.ticket ?? run.runId;
    this.engine().startRun({ runId: run.runId, title: `${slot.workflow.name} ${ticket}` });
    this.engine().bindSession({ runId: run.runId, piSessionId: slot.session, cwd: this.options.cwd ?? '/workspace/demo' });
    run.engine.started = true;
  }

  /** A step: its attempt, prompt, the prompt and the assistant's first reply (text and a tool call) in the session. */
  private engineStartStep(slot: Slot, run: ActiveRun): void {
    const node = slot.workflow.steps[run.stepIndex] as string;
    const note = slot.workflow.notes[run.stepIndex] ?? node;
    const started = this.engine().startStep({ runId: run.runId, nodeId: node, statusDetail: note.toLowerCase() });
    run.engine.attemptId = started.attemptId;
    run.engine.attempts[node] = started.attemptNumber;
    const prompt = `Step ${node} of ${slot.workflow.name} (${run.runId}): ${note.toLowerCase()}.`;
    this.engine().sendPrompt({ runId: run.runId, attemptId: started.attemptId, prompt });
    const contract = { runId: run.runId, nodeId: node, attemptId: started.attemptId };
    const promptId = this.nextEntryId(run);
    const parentId = run.engine.entries > 1 ? `${run.runId}-e${run.engine.entries - 1}` : null;
    const timestamp = new Date(this.store.now()).toISOString();
    this.engine().appendSessionEntry({
      runId: run.runId,
      entry: {
        type: 'custom_message',
        id: promptId,
        parentId,
        timestamp,
        customType: 'pi-workflows-step',
        content: prompt,
        display: true,
        details: { contract },
      },
    });
    run.engine.promptEntryId = promptId;
    const call = toolCallOf(slot.workflow, run.stepIndex, `call-${started.attemptId.slice(0, 8)}`);
    this.entry(run, { message: { role: 'assistant', content: [{ type: 'text', text: `${note}.` }, call], stopReason: 'toolUse' } });
    const ids = { nodeId: node, attemptId: started.attemptId, turnId: `turn-${started.attemptId.slice(0, 8)}` };
    this.engine().appendSessionEvents({
      runId: run.runId,
      events: [
        { type: 'turn_started', ...ids, payload: {} },
        { type: 'message_started', ...ids, messageId: `m-${promptId}`, payload: { role: 'assistant' } },
        { type: 'tool_execution_started', ...ids, messageId: `m-${promptId}`, toolCallId: call.id, payload: { toolName: call.name, args: call.arguments } },
      ],
    });
  }

  /** The open step ends: the tool result and the assistant's answer in the session, then its output (or `error`). */
  private engineFinishStep(slot: Slot, run: ActiveRun, stepIndex: number, error?: string): void {
    const attemptId = run.engine.attemptId;
    if (attemptId === undefined) return;
    const node = slot.workflow.steps[stepIndex] as string;
    const promptEntryId = run.engine.promptEntryId;
    let conversation: { promptEntryId: string; firstEntryId: string; lastEntryId: string } | undefined;
    if (promptEntryId !== undefined) {
      const call = toolCallOf(slot.workflow, stepIndex, `call-${attemptId.slice(0, 8)}`);
      const failed = error !== undefined;
      const resultText = call.name === 'read' ? `// src/${slot.workflow.name}/${node}.ts: 120 lines` : failed ? error : `${4 + stepIndex} tests passed`;
      this.entry(run, {
        message: { role: 'toolResult', toolCallId: call.id, toolName: call.name, isError: failed, content: [{ type: 'text', text: resultText }] },
      });
      const answer = failed ? `The ${node} step failed: ${error}` : `${node}: done.`;
      const lastEntryId = this.entry(run, { message: { role: 'assistant', content: [{ type: 'text', text: answer }], stopReason: 'stop' } });
      const ids = { nodeId: node, attemptId, turnId: `turn-${attemptId.slice(0, 8)}` };
      this.engine().appendSessionEvents({
        runId: run.runId,
        events: [
          {
            type: 'tool_execution_finished',
            ...ids,
            messageId: `m-${promptEntryId}`,
            toolCallId: call.id,
            payload: { isError: failed, result: { text: resultText } },
          },
          { type: 'message_finished', ...ids, messageId: `m-${promptEntryId}`, payload: { entryId: lastEntryId, settled: true } },
          { type: 'turn_finished', ...ids, payload: {} },
        ],
      });
      conversation = { promptEntryId, firstEntryId: promptEntryId, lastEntryId };
    }
    if (error === undefined) {
      const output = { step: node, summary: `${node} done`, attempt: run.engine.attempts[node] ?? 1 };
      this.engine().finishStep({ runId: run.runId, attemptId, outcome: 'ok', output, ...(conversation === undefined ? {} : { conversation }) });
    } else this.engine().finishStep({ runId: run.runId, attemptId, outcome: 'failed', error, ...(conversation === undefined ? {} : { conversation }) });
    run.engine.attemptId = undefined;
    run.engine.promptEntryId = undefined;
  }
}
