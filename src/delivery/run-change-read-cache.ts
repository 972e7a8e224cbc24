import {
  encodeRunChangeCursor,
  type LeaseExpiryRequest,
  type LeaseExpiryRow,
  type RunChangeHead,
  type RunChangeRow,
  type WorkflowRunRecord,
} from '../store/index.js';

/**
 * A run created or changed, or whose lease expired (docs/PROTOCOL.md "Lease expiry"), as every
 * follower of the run-list change feed gets it.
 */
export interface RunChangeRecord {
  kind: 'change';
  /** Opaque cursor of this position (`run-change-cursor.ts`). */
  cursor: string;
  run: WorkflowRunRecord;
}

/** One page of the run change log, with the event objects of its changes. */
export interface RunChangePage {
  head: RunChangeHead;
  /** The lease clock the records were read at (epoch ms): a `claim` expired by then is null. */
  at: number;
  /** Each change with its event object (the same object for every reader of this page). */
  changes: Array<{ row: RunChangeRow & { run: WorkflowRunRecord }; event: RunChangeRecord }>;
  /** The last position read (the cursor to continue after). */
  scannedTo: number;
  /** True when the page is full: more may follow at once. */
  full: boolean;
}

/** The lease expiries of a window, with their event objects. */
export interface LeaseExpiryPage {
  /** Each expiry with its event object (the same object for every reader of this page). */
  expiries: Array<{ row: LeaseExpiryRow & { run: WorkflowRunRecord }; event: RunChangeRecord }>;
  /** True when the page is full: more may follow at once. */
  full: boolean;
}

/** A read of the run change log (`WorkflowStore.readRunChanges`). */
type ReadLog = (
  afterSeq: number,
  limit: number,
  at: number,
) => {
  head: RunChangeHead;
  changes: Array<RunChangeRow & { run: WorkflowRunRecord }>;
  scannedTo: number;
  full: boolean;
};

/** A read of lease expiries (`WorkflowStore.readLeaseExpiries`). */
type ReadExpiries = (request: LeaseExpiryRequest) => Array<LeaseExpiryRow & { run: WorkflowRunRecord }>;

/** Most pages kept per wake-up (distinct cursors read in one wake-up). */
const MAX_PAGES = 256;

/**
 * Shares reads of the run change log between followers at the same cursor within one wake-up
 * of the change feed (like `DeltaReadCache` for the delta log): subscribers that
 * wait at the head all read "after the head" when a commit wakes them, so one SQL read serves
 * them all, and they all get the same event objects, whose GraphQL results the server's shared
 * event execution then computes once per sharing key. Lease expiry reads are shared the same way.
 *
 * Sound because a page is a consistent snapshot read during the current wake-up, and a follower
 * takes the wake-up count before it reads: a commit after the cached read wakes it again, and it
 * then reads after the page's last position. Never backwards: a cached page was read after the
 * reader's cursor existed, so each run in it is at least as new as any state the reader saw
 * before. A page is read at a lease clock (part of its key): its records and cursors hold for
 * that time. Everything is dropped at the next wake-up; at most {@link MAX_PAGES} pages are kept.
 */
export class RunChangeReadCache {
  private tick = -1;
  private readonly pages = new Map<string, RunChangePage>();
  private readonly expiryPages = new Map<string, LeaseExpiryPage>();

  /**
   * @param readLog reads the log like `WorkflowStore.readRunChanges` (a miss goes there)
   * @param readExpiries reads lease expiries like `WorkflowStore.readLeaseExpiries`
   * @param currentTick the change feed's wake-up count now
   */
  constructor(
    private readonly readLog: ReadLog,
    private readonly readExpiries: ReadExpiries,
    private readonly currentTick: () => number,
  ) {}

  private turn(): void {
    const tick = this.currentTick();
    if (tick !== this.tick) {
      this.pages.clear();
      this.expiryPages.clear();
      this.tick = tick;
    }
  }

  /**
   * The page after `afterSeq` read at lease clock `at`: from the cache when read with the same
   * arguments during the current wake-up, else from the log. Each event's cursor carries the
   * expiry mark `{at, runId: null}`.
   */
  read(afterSeq: number, limit: number, at: number): RunChangePage {
    this.turn();
    const key = `${afterSeq}:${limit}:${at}`;
    const cached = this.pages.get(key);
    if (cached !== undefined) return cached;
    const read = this.readLog(afterSeq, limit, at);
    const databaseId = read.head.databaseId;
    const expiry = { at, runId: null };
    const page: RunChangePage = {
      head: read.head,
      at,
      changes: read.changes.map((row) => ({
        row,
        event: { kind: 'change', cursor: encodeRunChangeCursor({ databaseId, seq: row.seq, expiry }), run: row.run },
      })),
      scannedTo: read.scannedTo,
      full: read.full,
    };
    if (this.pages.size >= MAX_PAGES) this.pages.clear();
    this.pages.set(key, page);
    return page;
  }

  /**
   * The lease expiries of `request` (shared like {@link read}); each event's cursor is the
   * position `request.throughSeq` with the expiry's own mark.
   *
   * @param databaseId the database identity the cursors carry
   */
  readLeaseExpiries(request: LeaseExpiryRequest, databaseId: string): LeaseExpiryPage {
    this.turn();
    const { throughSeq, after, through, limit } = request;
    const key = `${databaseId}:${throughSeq}:${after.at}:${after.runId ?? ''}:${through}:${limit}`;
    const cached = this.expiryPages.get(key);
    if (cached !== undefined) return cached;
    const rows = this.readExpiries(request);
    const page: LeaseExpiryPage = {
      expiries: rows.map((row) => ({
        row,
        event: {
          kind: 'change',
          cursor: encodeRunChangeCursor({ databaseId, seq: throughSeq, expiry: { at: row.expiresAt, runId: row.runId } }),
          run: row.run,
        },
      })),
      full: rows.length === limit,
    };
    if (this.expiryPages.size >= MAX_PAGES) this.expiryPages.clear();
    this.expiryPages.set(key, page);
    return page;
  }
}
