/**
 * Test-only access to what the store facade keeps private: its connection and the
 * aggregates behind it. Store unit tests exercise those aggregates directly, and assertions
 * read raw rows through the connection. Nothing outside test/ may do this; production code
 * goes through `WorkflowStore`'s operations (the type check refuses anything else).
 */
import type { Database as SqliteDatabase } from 'better-sqlite3';
import { blobReferences } from '../../src/store/blobs.js';
import type { StateDatabase } from '../../src/store/database.js';
import type { InteractionStore } from '../../src/store/interactions.js';
import { PiWorkflowsFileLayout } from '../../src/store/layout/pi-workflows-file.js';
import type { RunOrderIndex } from '../../src/store/layout/run-order-index.js';
import type { StoreContext } from '../../src/store/store-context.js';
import type { ViewerDeltaLog } from '../../src/store/viewer-deltas.js';
import type { WorkflowMessageStore } from '../../src/store/workflow-messages.js';
import type { WorkflowStore } from '../../src/store/index.js';

/** The private parts of a store. */
export interface StoreInternals {
  /** The store's connection wrapper (statement counter, transactions, BEGIN retries). */
  database: StateDatabase;
  /** The viewer-delta log (docs/STORE-RULES.md §8). */
  viewer: ViewerDeltaLog;
  /** Workflow messages and turns (docs/STORE-RULES.md §9). */
  messages: WorkflowMessageStore;
  /** Node attempts and interactive requests (docs/STORE-RULES.md §3.13–3.15). */
  interactions: InteractionStore;
  /** The in-process run order index (pi-workflows state files only). */
  runIndex: RunOrderIndex | undefined;
}

/** The private parts of `store` (TypeScript's `private` allows element access). */
export function storeInternals(store: WorkflowStore): StoreInternals {
  return {
    database: store['database'],
    viewer: store['viewer'],
    messages: store['messages'],
    interactions: store['interactions'],
    runIndex: runIndexOf(store['context'].layout),
  };
}

/** The run order index of a pi-workflows file's layout; undefined for our own file. */
function runIndexOf(layout: StoreContext['layout']): RunOrderIndex | undefined {
  return layout instanceof PiWorkflowsFileLayout ? layout.runIndex : undefined;
}

/** The store's raw better-sqlite3 connection (its statements are not counted). */
export function connectionOf(store: WorkflowStore): SqliteDatabase {
  return store['database'].connection;
}

/**
 * The blobs of `store` no foreign key refers to (the ones a read-write open would prune,
 * docs/STORE-RULES.md §1 Open), as lowercase hex hashes, sorted. An operation must not leave any.
 */
export function unreferencedBlobs(store: WorkflowStore): string[] {
  const referenced = blobReferences(storeInternals(store).database)
    .map(({ table, column }) => `SELECT "${column}" FROM "${table}" WHERE "${column}" IS NOT NULL`)
    .join(' UNION ALL ');
  return (
    connectionOf(store).prepare(`SELECT blob_hash FROM blobs WHERE blob_hash NOT IN (${referenced}) ORDER BY blob_hash`).all() as Array<{ blob_hash: Buffer }>
  ).map((row) => row.blob_hash.toString('hex'));
}

/** The store's private context, for the store-module functions tests call directly (`run-reservation.ts`'s skip-policy entry). */
export function storeContextOf(store: WorkflowStore): StoreContext {
  return store['context'];
}
