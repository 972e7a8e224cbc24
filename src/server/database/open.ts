import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { ReplicaFollower, WorkflowStore, type Clock } from '../../store/index.js';
import type { ServerConfig } from '../config.js';
import { createReplicaStatus, DEFAULT_REPLICA_POLL_MS, replicaReadOnlyMessage, type ReplicaStatus } from './replica.js';

/**
 * Opens the store on `config.dbPath` (its kind decided at open: docs/ARCHITECTURE.md "Three
 * kinds of database file"). Called once the port is bound.
 *
 * @param release the listening HTTP server, closed before the error is rethrown: a start that
 *   failed leaves nothing open (the caller may go on, e.g. with another port)
 * @throws StoreError(integrity) and the other errors of `WorkflowStore.open`
 */
export async function openStore(
  config: Pick<ServerConfig, 'dbPath' | 'readOnly' | 'replica' | 'projectPath'>,
  clock: Clock | undefined,
  release: Server,
): Promise<WorkflowStore> {
  try {
    return WorkflowStore.open({
      path: config.dbPath,
      readOnly: config.readOnly,
      replica: config.replica != null,
      projectPath: config.projectPath,
      ...(clock === undefined ? {} : { clock }),
    });
  } catch (error) {
    await new Promise<void>((resolve) => release.close(() => resolve()));
    throw error;
  }
}

/** Replica mode's parts (docs/DEPLOYMENT.md "Read replicas"). */
export interface ReplicaMode {
  /** Follows the file: commits applied in place, a copy renamed over the path reopened. */
  follower: ReplicaFollower;
  /** How far behind the primary the copy is (`/health`, `/metrics`). */
  status: ReplicaStatus;
  /** The `ForbiddenError` text of every mutation. */
  readOnlyText: string;
  /** Stops measuring and following. */
  close(): void;
}

/**
 * Starts replica mode when `config.replica` names a primary: the store follows the file, the
 * status measures the lag against the primary's `/health`; reopens, refused copies and changes
 * of standing are logged.
 *
 * @returns undefined when the server is not a replica
 */
export function startReplicaMode(
  config: Pick<ServerConfig, 'replica' | 'primaryToken' | 'replicaPollMs' | 'pollIntervalMs' | 'dbPath'>,
  store: WorkflowStore,
  logger: Logger,
): ReplicaMode | undefined {
  if (config.replica == null) return undefined;
  const follower = new ReplicaFollower(store, {
    intervalMs: config.pollIntervalMs,
    onReopen: (ms) => logger.info({ database: config.dbPath, ms: Math.round(ms * 10) / 10 }, 'replica file replaced: reopened'),
    onError: (error) => logger.warn({ database: config.dbPath, reason: error.message }, 'replica file replaced but not reopened'),
  });
  const status = createReplicaStatus(follower, {
    primaryUrl: config.replica,
    primaryToken: config.primaryToken ?? null,
    pollMs: config.replicaPollMs ?? DEFAULT_REPLICA_POLL_MS,
    now: () => store.now(),
    onStanding: (standing, health) => {
      const fields = { position: health.position, primaryPosition: health.primaryPosition, primaryError: health.primaryError };
      if (standing === 'unknown') logger.warn(fields, 'replica: primary position unknown');
      else logger.info(fields, standing === 'caught-up' ? 'replica caught up with the primary' : 'replica behind the primary');
    },
  });
  return {
    follower,
    status,
    readOnlyText: replicaReadOnlyMessage(config.replica),
    close() {
      status.close();
      follower.close();
    },
  };
}
