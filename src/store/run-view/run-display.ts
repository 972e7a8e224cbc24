import type { Database as SqliteDatabase } from 'better-sqlite3';
import { getRow, hasTables } from './connection.js';
import type { BlobRef } from './run-blobs.js';
import type { RunState } from './run-state.js';

/** What a person sees a run doing. */
export type DisplayStatus = 'running' | 'waiting' | 'paused' | 'queued' | 'completed' | 'failed' | 'timed_out' | 'cancelled' | 'ambiguous';

/** What a person may do now. */
export type DisplayControl = 'pause' | 'resume' | 'cancel' | 'answer' | 'review';

/** The facts the display is computed from (pi's `WorkflowDisplayFacts`). */
export interface DisplayFacts {
  /** `run_queue.status`, null without a queue row. */
  queueStatus: string | null;
  /** `runs.status`. */
  durableStatus: string;
  paused: boolean;
  /** An effect of the run is `ambiguous`. */
  ambiguous: boolean;
  /** A supervised worker process of the run is alive (process-local in pi's host: given by the caller). */
  workerActive: boolean;
  /** A `started` workflow turn of a `step` or `terminal` message of the run. */
  originTurnActive: boolean;
  /** A `pending` interactive request of the run. */
  pendingInteraction: boolean;
  /** The run's error text, else the queue's. */
  errorMessage: string | null;
}

/** pi's `display` of a run. */
export interface RunDisplay {
  status: DisplayStatus;
  activity: 'supervised_worker' | 'origin_turn' | null;
  /** Why, in words; a reason over 16 KiB is replaced by `Complete workflow failure details are available.` with {@link reasonContent} set. */
  reason: string | null;
  /** The full reason when it was too long to show inline (pi's `reasonContent`). */
  reasonContent: BlobRef | null;
  controls: DisplayControl[];
  facts: DisplayFacts;
}

/** Options of {@link readRunDisplay}. */
export interface DisplayOptions {
  /**
   * Whether a supervised worker of the run is alive. pi's host asks its own process
   * supervisor; the file cannot tell a live worker from a dead one's row. Default false.
   */
  workerActive?: boolean;
}

const INLINE_REASON_BYTES = 16 * 1024;
const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'timed_out', 'cancelled']);

/**
 * The display of a run, as pi's host view computes it (`reduceWorkflowDisplay` in pi's
 * `src/host/view.ts`), the first rule that holds deciding:
 *
 * 1. an `ambiguous` effect of the run → `ambiguous`, reason `An external effect needs explicit recovery.`;
 * 2. a live supervised worker or a started origin turn → `running`, activity `supervised_worker` (the worker first) or `origin_turn`;
 * 3. `runs.status` terminal (`completed`, `failed`, `timed_out`, `cancelled`) → that status, reason the error text;
 * 4. `runs.paused` → `paused`, reason `The workflow is durably paused.`;
 * 5. a pending interactive request, or `runs.status` `waiting` → `waiting`, reason `The workflow is waiting for origin-session input.`;
 * 6. queue `parked` or `queued` → `queued`, reason `The workflow is ready to resume.` when parked, else none;
 * 7. queue `done` → `completed`;
 * 8. queue `failed` or `cancelled` → that status, reason the error text;
 * 9. otherwise `running`.
 *
 * Controls: `running`/`waiting` → `pause`, `cancel`; `paused` → `resume`, `cancel`; `queued`
 * → `resume` (when parked), `cancel`; then `answer` when `waiting`, `review` when `ambiguous`.
 * The error text is the run's (`runs.error_hash`), else the queue's (`run_queue.error_hash`).
 */
export function reduceDisplay(facts: DisplayFacts): Pick<RunDisplay, 'status' | 'activity' | 'reason' | 'controls'> {
  let status: DisplayStatus;
  let activity: RunDisplay['activity'] = null;
  let reason: string | null = null;
  if (facts.ambiguous) {
    status = 'ambiguous';
    reason = 'An external effect needs explicit recovery.';
  } else if (facts.workerActive || facts.originTurnActive) {
    status = 'running';
    activity = facts.workerActive ? 'supervised_worker' : 'origin_turn';
  } else if (TERMINAL.has(facts.durableStatus)) {
    status = facts.durableStatus as DisplayStatus;
    reason = facts.errorMessage;
  } else if (facts.paused) {
    status = 'paused';
    reason = 'The workflow is durably paused.';
  } else if (facts.pendingInteraction || facts.durableStatus === 'waiting') {
    status = 'waiting';
    reason = 'The workflow is waiting for origin-session input.';
  } else if (facts.queueStatus === 'parked' || facts.queueStatus === 'queued') {
    status = 'queued';
    reason = facts.queueStatus === 'parked' ? 'The workflow is ready to resume.' : null;
  } else if (facts.queueStatus === 'done') {
    status = 'completed';
  } else if (facts.queueStatus === 'failed' || facts.queueStatus === 'cancelled') {
    status = facts.queueStatus;
    reason = facts.errorMessage;
  } else {
    status = 'running';
  }
  const controls: DisplayControl[] = [];
  if (status === 'running' || status === 'waiting') controls.push('pause', 'cancel');
  else if (status === 'paused') controls.push('resume', 'cancel');
  else if (status === 'queued') {
    if (facts.queueStatus === 'parked') controls.push('resume');
    controls.push('cancel');
  }
  if (status === 'waiting') controls.push('answer');
  if (status === 'ambiguous') controls.push('review');
  return { status, activity, reason, controls };
}

function exists(connection: SqliteDatabase, tables: string[], sql: string, runId: string): boolean {
  return hasTables(connection, ...tables) && getRow(connection, sql, [runId]) !== undefined;
}

function text(connection: SqliteDatabase, ref: BlobRef | null): string | null {
  if (ref === null) return null;
  return (
    getRow<{ content: Buffer }>(connection, 'SELECT content FROM blobs WHERE blob_hash = ?', [Buffer.from(ref.hash, 'hex')])?.content.toString('utf8') ?? null
  );
}

/** The facts of a run's display (see {@link DisplayFacts}), read from its rows. */
export function readDisplayFacts(connection: SqliteDatabase, state: RunState, options: DisplayOptions = {}): DisplayFacts {
  const runId = state.runId;
  return {
    queueStatus: state.queue?.status ?? null,
    durableStatus: state.status,
    paused: state.paused,
    ambiguous: exists(
      connection,
      ['effects', 'runs'],
      "SELECT 1 FROM effects e JOIN runs r ON r.resource_id = e.source_resource_id WHERE r.run_id = ? AND e.status = 'ambiguous' LIMIT 1",
      runId,
    ),
    workerActive: options.workerActive === true,
    originTurnActive: exists(
      connection,
      ['workflow_turns', 'workflow_messages'],
      `SELECT 1 FROM workflow_turns t JOIN workflow_messages m ON m.workflow_message_id = t.workflow_message_id
       WHERE t.run_id = ? AND t.state = 'started' AND m.kind IN ('step', 'terminal') LIMIT 1`,
      runId,
    ),
    pendingInteraction: exists(
      connection,
      ['interactive_requests'],
      "SELECT 1 FROM interactive_requests WHERE run_id = ? AND status = 'pending' LIMIT 1",
      runId,
    ),
    errorMessage: text(connection, state.error) ?? text(connection, state.queue?.error ?? null),
  };
}

/**
 * A run's display (see {@link reduceDisplay}) from its state and rows.
 *
 * @param state the run's state, read in the same snapshot ({@link readRunState})
 */
export function readRunDisplay(connection: SqliteDatabase, state: RunState, options: DisplayOptions = {}): RunDisplay {
  const facts = readDisplayFacts(connection, state, options);
  const display = reduceDisplay(facts);
  if (display.reason !== null && Buffer.byteLength(display.reason, 'utf8') > INLINE_REASON_BYTES) {
    // A long reason is an error text: the run's when it has one, else the queue's.
    const source = text(connection, state.error) !== null ? state.error : (state.queue?.error ?? null);
    return { ...display, reason: 'Complete workflow failure details are available.', reasonContent: source, facts };
  }
  return { ...display, reasonContent: null, facts };
}
