import { statSync } from 'node:fs';
import { StateDatabase } from './database.js';
import { StoreError } from './errors.js';
import { describeStateFile, servesReplicas } from './layout/index.js';

/**
 * Replica mode (docs/DEPLOYMENT.md "Read replicas"): a read-only copy of this server's own file
 * kept up to date by another tool. Commits applied in place need nothing here (the change feed
 * sees them); a copy renamed over the path (a restore) is a new file, which the connection
 * does not see: this module notices it by the file's identity on disk and swaps the new file in.
 */

/** A file's identity on disk: a rename over the path gives another. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

/** An identity no file has: the next {@link ReplicaFile.reopenIfReplaced} reopens. */
const UNKNOWN_FILE: FileIdentity = { dev: -1, ino: -1 };

/** The identity of the file at `path` now, or undefined when there is none. */
export function fileIdentityOf(path: string): FileIdentity | undefined {
  try {
    const stats = statSync(path);
    return { dev: stats.dev, ino: stats.ino };
  } catch {
    return undefined;
  }
}

/** The refusal of a pi-workflows state file in replica mode (docs/DEPLOYMENT.md "Read replicas"). */
export function replicaRefusalMessage(path: string): string {
  return (
    `Replica mode serves a copy of this server's own database file only: ${path} is a pi-workflows state file ` +
    '(a replication tool such as Litestream adds its own tables to the file it replicates, which pi-workflows refuses)'
  );
}

/** The file a replica store reads, and its reopen when a copy is renamed over its path. */
export class ReplicaFile {
  /**
   * @param database the replica's read-only connection to our own file
   * @param identity the file's identity taken before the open (undefined: none then, so the
   *   first check reopens)
   */
  constructor(
    private readonly database: StateDatabase,
    private identity: FileIdentity | undefined,
  ) {}

  /**
   * When the file at the path is no longer the one the connection reads (its device or inode
   * changed), opens the new one read-only (our own, fully migrated file only) and swaps it in
   * (`StateDatabase.adoptReplacement`: the reopen listeners run). A missing path (a tool that
   * deletes before it renames) is not a replacement yet.
   *
   * @returns true when the file was reopened, false when it is the same (or missing)
   * @throws StoreError(integrity) when the new file is not a database, not our own file
   *   (`Workflow state database <path> was replaced by a file of another kind (<kind>)`), or
   *   not migrated to this code's migrations; the store stays on the old file and a later call
   *   tries again
   */
  reopenIfReplaced(): boolean {
    const path = this.database.path;
    const now = fileIdentityOf(path);
    const current = this.identity ?? UNKNOWN_FILE;
    if (now === undefined || (now.dev === current.dev && now.ino === current.ino)) return false;
    const fresh = StateDatabase.open({ path, readOnly: true, busyTimeoutMs: this.database.busyTimeoutMs });
    if (!servesReplicas(fresh.file)) {
      fresh.close();
      throw new StoreError('integrity', `Workflow state database ${path} was replaced by a file of another kind (${describeStateFile(fresh.file).kind})`);
    }
    try {
      this.database.adoptReplacement(fresh);
    } catch (error) {
      fresh.close();
      throw error;
    }
    // A copy renamed over the path while it was being opened may be the one now read: when the
    // path changed again meanwhile, the next call reopens whatever is there.
    const after = fileIdentityOf(path);
    this.identity = after !== undefined && after.dev === now.dev && after.ino === now.ino ? now : UNKNOWN_FILE;
    return true;
  }
}
