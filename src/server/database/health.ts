import type { ServerResponse } from 'node:http';
import type { WorkflowStore } from '../../store/index.js';
import type { ReplicaStatus } from './replica.js';
import { databaseKindHealth } from './state-file.js';

/** What `GET /health` reports on. */
export interface HealthSource {
  store: WorkflowStore;
  /** The database path, as configured. */
  dbPath: string;
  /** Replica mode's status, when on. */
  replica?: ReplicaStatus | undefined;
}

/** The `/health` answer of this process: its HTTP status and the full body (for token holders). */
export interface HealthReport {
  httpStatus: number;
  body: { status: string; database: Record<string, unknown>; replica?: unknown };
}

/**
 * This process's `/health`: 200 `{status: 'ok' | 'degraded', database}` or 503 `{status:
 * 'unavailable', database}`; `database.runChanges` is the run change log's `{databaseId, head}`
 * (what a replica compares itself with), and a replica adds `replica` (see `ReplicaHealth`).
 */
export function healthReport(source: HealthSource): HealthReport {
  const { store, dbPath, replica } = source;
  try {
    const quickCheck = store.quickCheck();
    const { databaseId, head } = store.runChangeHead();
    return {
      httpStatus: 200,
      body: {
        status: quickCheck === 'ok' ? 'ok' : 'degraded',
        database: { path: dbPath, ...databaseKindHealth(store), quickCheck, runChanges: { databaseId, head } },
        ...(replica === undefined ? {} : { replica: replica.health() }),
      },
    };
  } catch (error) {
    return { httpStatus: 503, body: { status: 'unavailable', database: { path: dbPath, error: (error as Error).message } } };
  }
}

/**
 * Answers `GET /health` with {@link healthReport}. When a token is set, a caller without one
 * (full or read) sees only `{status}`: the database path and checks are for token holders
 * (docs/OPERATIONS.md).
 *
 * @param authorized whether the caller sent an accepted token (or none is set)
 */
export function serveHealth(response: ServerResponse, authorized: boolean, source: HealthSource): void {
  const { httpStatus, body } = healthReport(source);
  response.writeHead(httpStatus, { 'content-type': 'application/json' });
  response.end(JSON.stringify(authorized ? body : { status: body.status }));
}
