import { encodeRunChangeCursor, type RunChangeHead, type RunChangeRow, type WorkflowRunRecord } from '../store/index.js';

/** A run created or changed, as every follower of the run-list change feed gets it. */
export interface RunChangeRecord {
  kind: 'change';
  /** Opaque cursor of this position (`run-change-cursor.ts`). */
  cursor: string;
  run: WorkflowRunRecord;
}

/** One page of the run change log, with the event objects of its changes. */
export interface RunChangePage {
  head: RunChangeHead;
  /** Each change with its event object (the same object for every reader of this page). */
  changes: Array<{ row: RunChangeRow & { run: WorkflowRunRecord }; event: RunChangeRecord }>;
  /** The last position read (the cursor to continue after). */
  scannedTo: number;
  /** True when the page is full: more may follow at once. */
  full: boolean;
}

/** Most pages kept per wake-up (distinct cursors read in one wake-up). */
const MAX_PAGES = 256;

/**
 * Shares reads of the run change log between followers at the same cursor within one wake-up
 * of the change feed (like `DeltaReadCache` for the delta log): subscribers that
 * wait at the head all read "after the head" when a commit wakes them, so one SQL read serves
 * them all, and they all get the same event objects, whose GraphQL results the server's shared
 * event execution then computes once per sharing key.
 *
 * Sound because a page is a consistent snapshot read during the current wake-up, and a follower
 * takes the wake-up count before it reads: a commit after the cached read wakes it again, and it
 * then reads after the page's last position. Never backwards: a cached page was read after the
 * reader's cursor existed, so each run in it is at least as new as any state the reader saw
 * before. Everything is dropped at the next wake-up; at most {@link MAX_PAGES} pages are kept.
 */
export class RunChangeReadCache {
  private tick = -1;
  private readonly pages = new Map<string, RunChangePage>();

  /**
   * @param readLog reads the log like `WorkflowStore.readRunChanges` (a miss goes there)
   * @param currentTick the change feed's wake-up count now
   */
  constructor(
    private readonly readLog: (
      afterSeq: number,
      limit: number,
    ) => {
      head: RunChangeHead;
      changes: Array<RunChangeRow & { run: WorkflowRunRecord }>;
      scannedTo: number;
      full: boolean;
    },
    private readonly currentTick: () => number,
  ) {}

  /**
   * The page after `afterSeq`: from the cache when read after the same position with the same
   * limit during the current wake-up, else from the log.
   */
  read(afterSeq: number, limit: number): RunChangePage {
    const tick = this.currentTick();
    if (tick !== this.tick) {
      this.pages.clear();
      this.tick = tick;
    }
    const key = `${afterSeq}:${limit}`;
    const cached = this.pages.get(key);
    if (cached !== undefined) return cached;
    const read = this.readLog(afterSeq, limit);
    const databaseId = read.head.databaseId;
    const page: RunChangePage = {
      head: read.head,
      changes: read.changes.map((row) => ({
        row,
        event: { kind: 'change', cursor: encodeRunChangeCursor({ databaseId, seq: row.seq }), run: row.run },
      })),
      scannedTo: read.scannedTo,
      full: read.full,
    };
    if (this.pages.size >= MAX_PAGES) this.pages.clear();
    this.pages.set(key, page);
    return page;
  }
}
