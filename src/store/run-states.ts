/**
 * The words of a run's state (docs/STORE-RULES.md §4): its statuses, lineage kind and execution mode.
 * Types only, imported by modules that must not depend on the run records (`run-order-index.ts`);
 * `run-records.ts` re-exports them.
 */

/** Durable run states (runs.status, docs/STORE-RULES.md §4). */
export type RunStatus = 'queued' | 'running' | 'waiting' | 'completed' | 'failed' | 'timed_out' | 'cancelled';
/** Scheduling states (run_queue.status, docs/STORE-RULES.md §4). */
export type QueueStatus = 'queued' | 'starting' | 'running' | 'parked' | 'done' | 'failed' | 'cancelled';
/** Lineage of a child run. */
export type LineageKind = 'continuation' | 'restart';
/** How a run is executed. */
export type ExecutionMode = 'interactive' | 'headless';
