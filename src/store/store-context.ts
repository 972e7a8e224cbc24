import type { BlobStore } from './blobs.js';
import type { StateDatabase } from './database.js';
import { StoreError } from './errors.js';
import type { FileLayout } from './layout/file-layout.js';
import type { Clock } from './values.js';
import type { ViewerDeltaLog } from './viewer-deltas.js';
import type { WorkflowMessageStore } from './workflow-messages.js';

/**
 * What every store module works with: the connection, the blob store, the delta log, the
 * message store, the clock, the registered project and the file's layout. Built once by
 * `openStoreContext` (`store-open.ts`).
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
   * What differs between the kinds of database file (its indexes, trigger tables and tables
   * one kind lacks): every operation goes through it, none asks which kind it runs on.
   */
  readonly layout: FileLayout;
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
