import type { BlobStore } from './blobs.js';
import type { StateDatabase } from './database.js';
import { StoreError } from './errors.js';
import type { RunOrderIndex } from './run-order-index.js';
import type { Clock } from './values.js';
import type { ViewerDeltaLog } from './viewer-deltas.js';
import type { WorkflowMessageStore } from './workflow-messages.js';

/**
 * What every store module works with: the connection, the blob store, the delta log, the
 * message store, the clock and the registered project. Built once by `WorkflowStore.open`.
 */
export interface StoreContext {
  readonly database: StateDatabase;
  readonly blobs: BlobStore;
  readonly viewer: ViewerDeltaLog;
  readonly messages: WorkflowMessageStore;
  readonly clock: Clock;
  /** The project runs are reserved under; null for a global store (docs/STORE-RULES.md §3.1). */
  readonly projectId: string | null;
  /**
   * The in-process run order index of a file without this server's lineage indexes (a
   * pi-workflows state file); undefined for our own files, whose queries use
   * the indexes of migration 0002.
   */
  readonly runIndex?: RunOrderIndex;
}

/**
 * Refuses writes on a read-only store (docs/STORE-RULES.md §1).
 *
 * @throws StoreError(forbidden) `Controller store is read-only`
 */
export function assertWritable(context: StoreContext): void {
  if (context.database.readOnly) throw new StoreError('forbidden', 'Controller store is read-only');
}

/**
 * The project id for project-bound writes (docs/STORE-RULES.md §3.1).
 *
 * @throws StoreError(integrity) `Controller project is not registered in the state database`
 */
export function requireProjectId(context: StoreContext): string {
  if (context.projectId === null) {
    throw new StoreError('integrity', 'Controller project is not registered in the state database');
  }
  return context.projectId;
}
