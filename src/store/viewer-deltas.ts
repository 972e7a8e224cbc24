import type { JsonValue } from './canonical-json.js';
import type { BlobStore } from './blobs.js';
import type { StateDatabase } from './database.js';
import { StoreError } from './errors.js';
import { iso } from './values.js';

/** Viewer target types (docs/STORE-RULES.md §3.12). */
export const VIEWER_TARGET_TYPES = ['summary', 'graph', 'replay', 'timeline', 'conversation', 'inspector'] as const;
/** A viewer target type. */
export type ViewerTargetType = (typeof VIEWER_TARGET_TYPES)[number];

/** One patch operation of a delta (docs/STORE-RULES.md §8). */
export type ViewerPatchOperation =
  { op: 'add' | 'replace'; path: string; value: JsonValue } | { op: 'remove'; path: string } | { op: 'append'; path: string; value: JsonValue[] };

/** A draft delta passed to {@link ViewerDeltaLog.record}. */
export interface ViewerDeltaDraft {
  targetType: ViewerTargetType;
  /** Target key; `''` when absent. */
  targetKey?: string;
  /** The draft's own operations, after the automatic `/presentationRevision` replace. */
  ops?: ViewerPatchOperation[];
}

/** A stored delta as read back. */
export interface ViewerDelta {
  deltaIndex: number;
  targetType: ViewerTargetType;
  targetKey: string;
  patch: ViewerPatchOperation[];
  /** ISO-8601 UTC. */
  recordedAt: string;
}

/** All deltas of one presentation revision, in delta index order. */
export interface ViewerDeltaBatch {
  runId: string;
  presentationRevision: number;
  deltas: ViewerDelta[];
}

/** Answer of {@link ViewerDeltaLog.read} (docs/STORE-RULES.md §8 "Resume"). */
export type ViewerDeltaRead =
  | { kind: 'deltas'; runId: string; currentRevision: number; retainedFromRevision: number; batches: ViewerDeltaBatch[] }
  | { kind: 'snapshot_required'; runId: string; currentRevision: number; retainedFromRevision: number };

/** Revisions kept per run (docs/STORE-RULES.md §8). */
export const VIEWER_RETENTION = 256;

/** The four targets of a run bump (docs/STORE-RULES.md §5): summary, graph, replay, inspector/run. */
export const BUMP_TARGETS: readonly ViewerDeltaDraft[] = [
  { targetType: 'summary' },
  { targetType: 'graph' },
  { targetType: 'replay' },
  { targetType: 'inspector', targetKey: 'run' },
];

interface ViewerRunRow {
  presentation_revision: number;
  retained_from_revision: number;
}

interface DeltaRow {
  presentation_revision: number;
  delta_index: number;
  target_type: ViewerTargetType;
  target_key: string;
  content: Buffer;
  recorded_at: number;
}

const OPS = new Set(['add', 'replace', 'remove', 'append']);

/**
 * The durable viewer-delta log (docs/STORE-RULES.md §8): one presentation revision per recorded change,
 * retention of {@link VIEWER_RETENTION} revisions, resumable reads by cursor.
 */
export class ViewerDeltaLog {
  constructor(
    private readonly database: StateDatabase,
    private readonly blobs: BlobStore,
  ) {}

  /**
   * Creates the viewer row of a new run at revision 1 (insert-if-missing); no delta row.
   *
   * @param now epoch ms
   * @throws StoreError(integrity) `Viewer projection could not be initialized for workflow run: <runId>`
   */
  initialize(runId: string, now: number): void {
    const inserted = this.database.run(
      `INSERT INTO viewer_runs(run_id, presentation_revision, retained_from_revision, updated_at)
       VALUES (?, 1, 1, ?) ON CONFLICT(run_id) DO NOTHING`,
      runId,
      now,
    );
    if (inserted.changes !== 1 && this.database.get('SELECT 1 FROM viewer_runs WHERE run_id = ?', runId) === undefined) {
      throw new StoreError('integrity', `Viewer projection could not be initialized for workflow run: ${runId}`);
    }
  }

  /**
   * Records one new presentation revision R = current + 1 with one delta per draft
   * (docs/STORE-RULES.md §8 "Record"). Must run inside the open write transaction.
   *
   * @param drafts at least one target; each patch is `[replace /presentationRevision R]` then the
   *   draft's own ops, on every target (no other automatic op; docs/PI-WORKFLOWS-FILES.md §8)
   * @param now epoch ms
   * @param missing the error thrown when the run has no viewer row (default the integrity error below)
   * @returns the new revision R
   * @throws StoreError(integrity) `Viewer changes must be recorded inside the durable state transaction`,
   *   `Viewer change must name at least one bounded target`,
   *   `Viewer projection does not exist for workflow run: <runId>`,
   *   `Viewer projection revision conflict for workflow run: <runId>`
   */
  record(runId: string, drafts: readonly ViewerDeltaDraft[], now: number, missing?: () => StoreError): number {
    if (!this.database.inTransaction) {
      throw new StoreError('integrity', 'Viewer changes must be recorded inside the durable state transaction');
    }
    const current = this.database.get<ViewerRunRow>('SELECT presentation_revision, retained_from_revision FROM viewer_runs WHERE run_id = ?', runId);
    if (current === undefined) {
      throw missing?.() ?? new StoreError('integrity', `Viewer projection does not exist for workflow run: ${runId}`);
    }
    if (drafts.length === 0) throw new StoreError('validation', 'Viewer change must name at least one bounded target');
    const revision = current.presentation_revision + 1;
    drafts.forEach((draft, index) => {
      const patch: ViewerPatchOperation[] = [{ op: 'replace', path: '/presentationRevision', value: revision }, ...(draft.ops ?? [])];
      const patchHash = this.blobs.putJson(patch, now);
      this.database.run(
        `INSERT INTO viewer_deltas(run_id, presentation_revision, delta_index, target_type, target_key, patch_hash, recorded_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
        runId,
        revision,
        index,
        draft.targetType,
        draft.targetKey ?? '',
        patchHash,
        now,
      );
    });
    const retainedFrom = Math.max(1, revision - VIEWER_RETENTION + 1);
    const updated = this.database.run(
      `UPDATE viewer_runs SET presentation_revision = ?, retained_from_revision = ?, updated_at = ?
       WHERE run_id = ? AND presentation_revision = ?`,
      revision,
      retainedFrom,
      now,
      runId,
      current.presentation_revision,
    );
    if (updated.changes !== 1) {
      throw new StoreError('conflict', `Viewer projection revision conflict for workflow run: ${runId}`);
    }
    // Nothing can be older than revision 1 (CHECK presentation_revision >= 1): the prune runs
    // once the window starts later, from the run's 257th revision on.
    if (retainedFrom > 1) this.database.run('DELETE FROM viewer_deltas WHERE run_id = ? AND presentation_revision < ?', runId, retainedFrom);
    return revision;
  }

  /**
   * Reads the log after a cursor (docs/STORE-RULES.md §8 "Resume"): `snapshot_required` when the cursor
   * is 0, ahead of the run, or older than the retained window (or the retained revisions are
   * not contiguous); else every delta after the cursor, grouped by revision.
   *
   * @param afterRevision the last revision the reader has seen
   * @param limit at most this many revisions (oldest first); default all retained
   * @returns the read, or undefined when the run has no viewer row
   * @throws StoreError(validation) `Viewer cursor must be a non-negative integer`;
   *   StoreError(integrity) for a stored patch that is not an op array
   */
  read(runId: string, afterRevision: number, limit?: number): ViewerDeltaRead | undefined {
    if (!Number.isSafeInteger(afterRevision) || afterRevision < 0) {
      throw new StoreError('validation', 'Viewer cursor must be a non-negative integer', 'afterRevision');
    }
    const run = this.head(runId);
    if (run === undefined) return undefined;
    const { currentRevision, retainedFromRevision } = run;
    const snapshot = { kind: 'snapshot_required' as const, runId, currentRevision, retainedFromRevision };
    if (afterRevision === 0 || afterRevision > currentRevision || afterRevision < retainedFromRevision - 1) {
      return snapshot;
    }
    const upTo = limit === undefined ? currentRevision : Math.min(currentRevision, afterRevision + limit);
    const rows = this.database.all<DeltaRow>(
      `SELECT d.presentation_revision, d.delta_index, d.target_type, d.target_key, b.content, d.recorded_at
       FROM viewer_deltas d JOIN blobs b ON b.blob_hash = d.patch_hash
       WHERE d.run_id = ? AND d.presentation_revision > ? AND d.presentation_revision <= ?
       ORDER BY d.presentation_revision, d.delta_index`,
      runId,
      afterRevision,
      upTo,
    );
    const batches: ViewerDeltaBatch[] = [];
    for (const row of rows) {
      let batch = batches.at(-1);
      if (batch === undefined || batch.presentationRevision !== row.presentation_revision) {
        batch = { runId, presentationRevision: row.presentation_revision, deltas: [] };
        batches.push(batch);
      }
      batch.deltas.push({
        deltaIndex: row.delta_index,
        targetType: row.target_type,
        targetKey: row.target_key,
        patch: parsePatch(row.content),
        recordedAt: iso(row.recorded_at),
      });
    }
    const contiguous = batches.every((batch, index) => batch.presentationRevision === afterRevision + index + 1) && batches.length === upTo - afterRevision;
    if (!contiguous) return snapshot;
    return { kind: 'deltas', runId, currentRevision, retainedFromRevision, batches };
  }

  /**
   * Current revisions of many runs in one statement.
   *
   * @returns run id → presentation revision, for the runs that exist
   */
  heads(runIds: readonly string[]): Map<string, number> {
    if (runIds.length === 0) return new Map();
    const rows = this.database.all<{ run_id: string; presentation_revision: number }>(
      'SELECT run_id, presentation_revision FROM viewer_runs WHERE run_id IN (SELECT value FROM json_each(?))',
      JSON.stringify(runIds),
    );
    return new Map(rows.map((row) => [row.run_id, row.presentation_revision]));
  }

  /** The run's current and retained-from revisions; undefined without a viewer row. */
  head(runId: string): { currentRevision: number; retainedFromRevision: number } | undefined {
    const row = this.database.get<ViewerRunRow>('SELECT presentation_revision, retained_from_revision FROM viewer_runs WHERE run_id = ?', runId);
    return row === undefined ? undefined : { currentRevision: row.presentation_revision, retainedFromRevision: row.retained_from_revision };
  }
}

function parsePatch(content: Buffer): ViewerPatchOperation[] {
  const value = JSON.parse(content.toString('utf8')) as unknown;
  if (!Array.isArray(value)) throw new StoreError('integrity', 'Stored viewer patch is not an operation array');
  for (const op of value) {
    if (typeof op !== 'object' || op === null || !OPS.has((op as { op?: unknown }).op as string)) {
      throw new StoreError('integrity', 'Stored viewer patch holds an unknown operation');
    }
  }
  return value as ViewerPatchOperation[];
}
