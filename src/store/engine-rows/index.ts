/**
 * The engine-row writer: what pi-workflows' ENGINE (its `WorkflowRunStore`) writes into the state
 * file while it runs a workflow — a run's engine state, steps with prompts, outputs and errors,
 * trace events, the captured Pi session, progress updates, the final output or error — with the
 * viewer deltas pi's engine records for them (targets `graph`, `timeline` `trace:tail` /
 * `session:tail`, `conversation` `entries:tail` / `capture`, `replay` `steps:reload`, `inspector`;
 * docs/PI-WORKFLOWS-FILES.md §9). It is not a controller operation: the GraphQL server never
 * calls it. The demo host and the tests do, on both kinds of file (our own file has these
 * tables since migration 0009).
 *
 * Every call is one write transaction (`BEGIN IMMEDIATE`) on the writer's own connection; times
 * are epoch ms from the writer's clock. It does not check the run's lease: the caller is the
 * engine holding the claim (the controller's writes check it).
 */
import { StateDatabase } from '../database.js';
import { systemClock, type Clock } from '../values.js';
import { engineContext, type EngineContext, type EngineTraceDraft } from './engine-context.js';
import { finishEngineRun, startEngineRun, type EngineWriteResult, type FinishEngineRunInput, type StartEngineRunInput } from './run-lifecycle.js';
import { appendEngineSessionEntry, appendEngineSessionEvents, bindEngineSession, finishEngineSessionCapture, type EngineSessionEvent } from './session.js';
import { finishEngineStep, sendEnginePrompt, startEngineStep, type EngineStepStarted, type FinishEngineStepInput, type StartEngineStepInput } from './steps.js';
import { recordEngineTrace } from './trace.js';
import { publishEngineUpdate, type PublishEngineUpdateInput } from './updates.js';
import type { JsonValue } from '../canonical-json.js';

export type { EngineContext, EngineTraceDraft, EngineTraceEvent, EngineTraceScope } from './engine-context.js';
export type { EngineWriteResult, FinishEngineRunInput, StartEngineRunInput } from './run-lifecycle.js';
export type { EngineSessionEvent } from './session.js';
export { SESSION_BINDING_SCHEMA, SESSION_CAPTURE_SCHEMA, SESSION_EVENT_SCHEMA } from './session.js';
export type { EngineStepConversation, EngineStepStarted, FinishEngineStepInput, StartEngineStepInput } from './steps.js';
export type { PublishEngineUpdateInput } from './updates.js';

/** Options of {@link EngineRowWriter.open}. */
export interface EngineRowWriterOptions {
  /** The state file: our own (migrated at open, as the store opens it) or a pi-workflows file of a layout this server writes. */
  path: string;
  /** Epoch ms; default `Date.now`. */
  clock?: Clock;
  /** SQLite busy timeout, ms (default 5000). */
  busyTimeoutMs?: number;
}

/** pi-workflows' engine writes over one connection; see the module docstring. */
export class EngineRowWriter {
  private readonly context: EngineContext;

  /** A writer over an open database (read-write); `clock` in epoch ms. */
  constructor(
    private readonly database: StateDatabase,
    clock: Clock = systemClock,
  ) {
    this.context = engineContext(database, clock);
  }

  /**
   * Opens its own connection to a state file (`StateDatabase.open`, read-write).
   *
   * @throws StoreError(integrity) for a file of neither kind (see `StateDatabase.open`)
   */
  static open(options: EngineRowWriterOptions): EngineRowWriter {
    return new EngineRowWriter(StateDatabase.open({ path: options.path, busyTimeoutMs: options.busyTimeoutMs }), options.clock ?? systemClock);
  }

  /** Closes the connection (only one this writer opened with {@link open} or was given). */
  close(): void {
    this.database.close();
  }

  /** Starts the run's engine state: `running`, `run_initialized`, `run_started` (see `startEngineRun`). */
  startRun(input: StartEngineRunInput): EngineWriteResult {
    return startEngineRun(this.context, input);
  }

  /** Ends the run's engine state: `completed` with its final output or `failed` with its error (see `finishEngineRun`). */
  finishRun(input: FinishEngineRunInput): EngineWriteResult {
    return finishEngineRun(this.context, input);
  }

  /** Opens a step's attempt and records `node_started` (see `startEngineStep`). */
  startStep(input: StartEngineStepInput): EngineStepStarted {
    return startEngineStep(this.context, input);
  }

  /** Stores the prompt of an open attempt and records `agent_prompt_sent` (see `sendEnginePrompt`). */
  sendPrompt(input: { runId: string; attemptId: string; prompt: string }): EngineWriteResult {
    return sendEnginePrompt(this.context, input);
  }

  /** Finishes an open attempt `ok` (output) or `failed` (error): its `run_steps` row and `node_finished` / `node_failed` (see `finishEngineStep`). */
  finishStep(input: FinishEngineStepInput): EngineWriteResult & { stepIndex: number } {
    return finishEngineStep(this.context, input);
  }

  /** Records an engine trace event of the workflow's own (see `recordEngineTrace`). */
  trace(input: { runId: string } & EngineTraceDraft): EngineWriteResult {
    return recordEngineTrace(this.context, input);
  }

  /** Publishes a progress or metric update of an attempt (see `publishEngineUpdate`). */
  publishUpdate(input: PublishEngineUpdateInput): EngineWriteResult & { updateId: string } {
    return publishEngineUpdate(this.context, input);
  }

  /** Binds the run to its Pi session (see `bindEngineSession`). */
  bindSession(input: { runId: string; piSessionId: string; cwd: string }): { segmentId: string } {
    return bindEngineSession(this.context, input);
  }

  /** Appends a captured Pi session entry (see `appendEngineSessionEntry`). */
  appendSessionEntry(input: { runId: string; entry: { [key: string]: JsonValue } }): { entrySeq: number; entryId: string; revision: number } {
    return appendEngineSessionEntry(this.context, input);
  }

  /** Appends captured Pi session events (see `appendEngineSessionEvents`). */
  appendSessionEvents(input: { runId: string; events: EngineSessionEvent[] }): EngineWriteResult {
    return appendEngineSessionEvents(this.context, input);
  }

  /** Ends the session capture, `complete` or `failed` (see `finishEngineSessionCapture`). */
  finishSessionCapture(input: { runId: string; status: 'complete' } | { runId: string; status: 'failed'; code: string; message: string }): {
    revision: number;
  } {
    return finishEngineSessionCapture(this.context, input);
  }
}
