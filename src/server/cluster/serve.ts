/**
 * `/health` and `/metrics` of a worker answer for the whole server (docs/OPERATIONS.md
 * "Workers"): the worker that got the request asks the primary, which collects from every worker.
 */
import type { ServerResponse } from 'node:http';
import { healthReport, type HealthSource } from '../database/health.js';
import type { WorkerLink } from './worker-link.js';

/**
 * Answers `GET /health` for every worker: the body of this worker's own check (its database
 * section), plus `worker` (`{id, pid}` of the worker that answered) and `workers` (each one's
 * `{id, pid, status}`). `status` is this worker's own when every worker reports `ok` or is still
 * `starting`, else `degraded` (a worker degraded, unavailable or silent past the deadline); 503 only
 * when this worker's own database is unavailable. A caller without the token sees only `{status}`.
 *
 * @param authorized whether the caller sent an accepted token (or none is set)
 */
export async function serveClusterHealth(response: ServerResponse, authorized: boolean, source: HealthSource, link: WorkerLink): Promise<void> {
  const own = healthReport(source);
  const workers = await link.workers();
  let status = own.body.status;
  // A worker still starting (at start, or replacing one that exited) is not a fault: the others serve.
  if (status === 'ok' && (workers === null || workers.some((worker) => worker.status !== 'ok' && worker.status !== 'starting'))) status = 'degraded';
  const body = {
    ...own.body,
    status,
    worker: { id: link.id, pid: link.pid },
    workers: workers ?? [{ id: link.id, pid: link.pid, status: own.body.status }],
    ...(workers === null ? { workersError: 'the primary did not answer in time' } : {}),
  };
  response.writeHead(own.httpStatus, { 'content-type': 'application/json' });
  response.end(JSON.stringify(authorized ? body : { status }));
}

/** Answers `GET /metrics` with every worker's metrics aggregated by the primary; 503 naming why when that failed. */
export async function serveClusterMetrics(response: ServerResponse, link: WorkerLink): Promise<void> {
  try {
    const { body, contentType } = await link.metrics();
    response.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
    response.end(body);
  } catch (error) {
    response.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
    response.end(`metrics unavailable: ${(error as Error).message}\n`);
  }
}
