import { VIEWER_RETENTION, type ViewerDeltaBatch, type ViewerDeltaRead } from '../store/index.js';

/** Most runs kept (least recently read dropped first). */
const MAX_CACHED_RUNS = 1_000;

interface RunCache {
  currentRevision: number;
  retainedFromRevision: number;
  batches: Map<number, ViewerDeltaBatch>;
}

/**
 * Shares reads of the durable delta log between subscribers of the same run: a committed
 * revision never changes, so a batch read once from the database serves every subscriber at
 * that cursor (fan-out without one SQL read per subscriber), and every reader of a revision
 * gets the same batch object, whatever its cursor, for as long as it is cached. Holds at most
 * {@link VIEWER_RETENTION} batches per run and the 1,000 runs read last; a miss always goes
 * to the database, so nothing is delivered that was not read from the log.
 */
export class DeltaReadCache {
  private readonly runs = new Map<string, RunCache>();
  /**
   * The last answer served from cache: the next reader at the same cursor (every follower of a
   * fan-out) gets the same object, without building it again. Valid while the
   * run's cached head is the one it was built at (answers are never mutated by their readers).
   */
  private lastHit: { runId: string; afterRevision: number; upTo: number; answer: ViewerDeltaRead & { kind: 'deltas' } } | undefined;

  /**
   * @param readLog reads the durable log like `WorkflowStore.readViewerDeltas` (a miss goes there)
   */
  constructor(private readonly readLog: (runId: string, afterRevision: number, limit: number) => ViewerDeltaRead | undefined) {}

  /**
   * Same answer as `WorkflowStore.readViewerDeltas`, served from cache when every revision
   * `afterRevision + 1 … min(afterRevision + limit, knownHead)` is cached.
   *
   * @param knownHead a revision the caller knows to be committed (from a wake-up), or undefined
   * @param limit most revisions returned
   */
  read(runId: string, afterRevision: number, limit: number, knownHead?: number): ViewerDeltaRead | undefined {
    const cached = this.runs.get(runId);
    if (cached !== undefined && afterRevision >= 1 && afterRevision >= cached.retainedFromRevision - 1) {
      const head = Math.max(cached.currentRevision, knownHead ?? 0);
      if (head === cached.currentRevision && afterRevision <= head) {
        const upTo = Math.min(head, afterRevision + limit);
        const last = this.lastHit;
        if (
          last !== undefined &&
          last.runId === runId &&
          last.afterRevision === afterRevision &&
          last.upTo === upTo &&
          last.answer.currentRevision === cached.currentRevision &&
          last.answer.retainedFromRevision === cached.retainedFromRevision
        ) {
          return last.answer;
        }
        const batches: ViewerDeltaBatch[] = [];
        for (let revision = afterRevision + 1; revision <= upTo; revision += 1) {
          const batch = cached.batches.get(revision);
          if (batch === undefined) break;
          batches.push(batch);
        }
        if (batches.length === upTo - afterRevision) {
          const answer = {
            kind: 'deltas' as const,
            runId,
            currentRevision: cached.currentRevision,
            retainedFromRevision: cached.retainedFromRevision,
            batches,
          };
          this.lastHit = { runId, afterRevision, upTo, answer };
          return answer;
        }
      }
    }
    const read = this.readLog(runId, afterRevision, limit);
    if (read !== undefined) this.remember(read);
    return read;
  }

  private remember(read: ViewerDeltaRead): void {
    let cached = this.runs.get(read.runId);
    if (cached === undefined) {
      cached = { currentRevision: 0, retainedFromRevision: 1, batches: new Map() };
    } else {
      this.runs.delete(read.runId); // re-inserted below: most recently read last
    }
    this.runs.set(read.runId, cached);
    if (this.runs.size > MAX_CACHED_RUNS) {
      const oldest = this.runs.keys().next().value;
      if (oldest !== undefined) this.runs.delete(oldest);
    }
    if (read.currentRevision >= cached.currentRevision) {
      cached.currentRevision = read.currentRevision;
      cached.retainedFromRevision = read.retainedFromRevision;
    }
    if (read.kind === 'deltas') {
      // A committed revision never changes: the batch object read first stays the one every
      // reader gets, whatever its cursor (subscription results are shared per event object).
      const runCache = cached;
      read.batches = read.batches.map((batch) => {
        const known = runCache.batches.get(batch.presentationRevision);
        if (known !== undefined) return known;
        runCache.batches.set(batch.presentationRevision, batch);
        return batch;
      });
    }
    const oldest = cached.currentRevision - VIEWER_RETENTION + 1;
    for (const revision of cached.batches.keys()) if (revision < oldest) cached.batches.delete(revision);
  }
}
