import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { BlobStore } from './blobs.js';
import { StateDatabase } from './database.js';
import { StoreError } from './errors.js';
import { fileLayoutOf, servesReplicas } from './layout/index.js';
import { headerApplicationId, PI_WORKFLOWS_APPLICATION_ID } from './layout/state-file.js';
import { fileIdentityOf, ReplicaFile, replicaRefusalMessage } from './replica-file.js';
import type { StoreContext } from './store-context.js';
import { sha256Hex, systemClock, type Clock } from './values.js';
import { ViewerDeltaLog } from './viewer-deltas.js';
import { WorkflowMessageStore } from './workflow-messages.js';

/**
 * The open policy of a store (docs/STORE-RULES.md §1 Open, docs/PI-WORKFLOWS-FILES.md §2–§3):
 * which file may be opened how, what is done to it at open (migrations, the blob prune, the
 * project row), and the context every operation then works with.
 */

/** Options of `WorkflowStore.open`. */
export interface WorkflowStoreOptions {
  /** SQLite file path, or `:memory:`. */
  path: string;
  /** Open read-only: every write fails with `Controller store is read-only`. */
  readOnly?: boolean;
  /**
   * The project runs are reserved under (docs/STORE-RULES.md §3.1, §13.5): a directory path, registered
   * when missing (read-write); `null` for a global store. Default: the working directory.
   */
  projectPath?: string | null;
  /** Clock in epoch ms (default `Date.now`); tests inject their own. */
  clock?: Clock;
  /** Busy timeout in ms (default 5000). */
  busyTimeoutMs?: number;
  /**
   * Replica mode (docs/DEPLOYMENT.md "Read replicas"): a read-only copy of this server's own
   * file kept up to date by another tool; implies `readOnly`, refuses a pi-workflows state file,
   * and allows `WorkflowStore.reopenIfReplaced`.
   */
  replica?: boolean;
}

/** What {@link openStoreContext} opened. */
export interface OpenedStore {
  context: StoreContext;
  /** The replica's file (replica mode only). */
  replica: ReplicaFile | undefined;
}

/**
 * Opens a store's file and builds its context: migrations (read-write, our own file), the blob
 * prune (read-write, our own file: `FileLayout.tidyAtOpen`), project registration, the file's
 * layout (a pi-workflows file's run order index is built now). A pi-workflows state file is
 * opened read-write when this server writes its layout, else read-only (see
 * `StateDatabase.open`); never a migration nor a prune there, and the project row exactly as
 * pi-workflows' own open writes it (docs/PI-WORKFLOWS-FILES.md §2, §3). Replica mode opens our
 * own file read-only and refuses a pi-workflows file before opening it.
 *
 * @throws StoreError(validation) `Replica mode needs a database file, not :memory:`;
 *   StoreError(integrity) for a file that is not a database, a file of neither kind, a newer
 *   schema, a pi-workflows file this server cannot read, or one in replica mode
 *   ({@link replicaRefusalMessage})
 */
export function openStoreContext(options: WorkflowStoreOptions): OpenedStore {
  const replica = options.replica === true;
  if (replica && (options.path === ':memory:' || options.path === '')) throw new StoreError('validation', 'Replica mode needs a database file, not :memory:');
  if (replica && headerApplicationId(options.path) === PI_WORKFLOWS_APPLICATION_ID) throw new StoreError('integrity', replicaRefusalMessage(options.path));
  // Taken before the open: a replacement in between only makes the first check reopen once more.
  const identity = replica ? fileIdentityOf(options.path) : undefined;
  const database = StateDatabase.open({
    path: options.path,
    ...(replica ? { readOnly: true } : options.readOnly === undefined ? {} : { readOnly: options.readOnly }),
    ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
  });
  try {
    if (replica && !servesReplicas(database.file)) throw new StoreError('integrity', replicaRefusalMessage(options.path));
    const clock = options.clock ?? systemClock;
    const blobs = new BlobStore(database);
    const layout = fileLayoutOf(database);
    layout.tidyAtOpen(blobs);
    const projectId = registerProject(database, options.projectPath === undefined ? process.cwd() : options.projectPath, clock);
    const viewer = new ViewerDeltaLog(database, blobs);
    const messages = new WorkflowMessageStore(database, blobs);
    return {
      context: { database, blobs, viewer, messages, clock, projectId, layout },
      replica: replica ? new ReplicaFile(database, identity) : undefined,
    };
  } catch (error) {
    database.close();
    throw error;
  }
}

/** `project-` + first 40 hex of SHA-256 of the canonical path (docs/STORE-RULES.md §3.1). */
export function projectIdFor(canonicalPath: string): string {
  return `project-${sha256Hex(canonicalPath).slice(0, 40)}`;
}

/** The real path of `path` (symbolic links resolved), or its absolute form when it does not exist. */
function canonicalProjectPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/**
 * The project the store reserves under (docs/STORE-RULES.md §3.1): read-only, looked up by canonical path
 * (null when missing); read-write, its row inserted when missing. On a pi-workflows file this is
 * the very statement pi-workflows' own read-write open runs (`INSERT … ON CONFLICT(project_id) DO
 * NOTHING`, the same id, path and clock), so serving a file adds at most the row pi-workflows
 * itself would add for that directory (docs/PI-WORKFLOWS-FILES.md §3).
 *
 * @returns the project id, or null for a global store (or a read-only one without the row)
 */
function registerProject(database: StateDatabase, projectPath: string | null, clock: Clock): string | null {
  if (projectPath === null) return null;
  const canonicalPath = canonicalProjectPath(projectPath);
  const projectId = projectIdFor(canonicalPath);
  if (database.readOnly) {
    const row = database.get<{ project_id: string }>('SELECT project_id FROM projects WHERE canonical_path = ?', canonicalPath);
    return row?.project_id ?? null;
  }
  database.transaction(() => {
    database.run(
      'INSERT INTO projects(project_id, canonical_path, created_at) VALUES (?, ?, ?) ON CONFLICT(project_id) DO NOTHING',
      projectId,
      canonicalPath,
      clock(),
    );
  });
  return projectId;
}
