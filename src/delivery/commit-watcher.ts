/**
 * The change feed's commit watcher: notices the commits of other processes (and other
 * connections) to the database file while someone waits on the feed, the wake-up step's second
 * source (src/delivery/index.ts; the first is the store's commit hook, wake-ups.ts).
 *
 * A change event of the `-wal` file (fs.watch, inotify on Linux) starts a short burst of
 * `PRAGMA data_version` checks on a dedicated read connection (the store's
 * `openDataVersionProbe`, src/store/data-version.ts); a slow safety poll catches a lost event,
 * and where the file cannot be watched `data_version` is polled at the poll interval. A moved
 * `data_version` is reported as one `changed()` call: the feed then reads what changed itself.
 */
import { watch, type FSWatcher } from 'node:fs';
import { openDataVersionProbe, type DataVersionProbe } from '../store/index.js';

/** Interval of the safety poll while the `-wal` file is watched, ms (catches a lost file event). */
const SAFETY_POLL_MS = 1_000;
/** A burst of checks after a `-wal` change event lasts this many poll intervals after the last event. */
const BURST_POLLS = 10;

/**
 * Watches one database file for commits made through other connections, while {@link start}ed.
 * `:memory:`, or a file whose probe cannot be opened, is never watched (the feed then relies on
 * the commit hook alone).
 */
export class CommitWatcher {
  /** The database whose file is watched (its `path` is read at each start: a reopened replica keeps it). */
  private readonly database: { readonly path: string };
  /** Ms between `data_version` checks at most (the feed's `pollIntervalMs`). */
  private readonly pollIntervalMs: number;
  /** Told when `data_version` moved: another connection committed. */
  private readonly changed: () => void;
  /** The store's `data_version` reader, open from the first start until {@link close} or {@link reopen}. */
  private probe: DataVersionProbe | undefined;
  private dataVersion: number | undefined;
  /** Poll timer: the safety poll while the `-wal` file is watched, else the regular poll. */
  private timer: NodeJS.Timeout | undefined;
  /** True while commits of other connections are looked for (someone waits). */
  private watching = false;
  /** True while the `-wal` file watch is the signal (the timer is then only the safety poll). */
  private fileMode = false;
  /** File-system watch of the `-wal` file (see {@link watchWalFile}). */
  private walWatcher: FSWatcher | undefined;
  private burstTimer: NodeJS.Timeout | undefined;
  /** `performance.now()` of the latest `-wal` change event. */
  private lastWalEventAt = 0;
  private closed = false;

  /**
   * @param database the store whose file is watched (`path`: a file path, or `:memory:`)
   * @param pollIntervalMs ms between `data_version` checks at most: the burst's longest gap, and
   *   the poll interval where the file cannot be watched (the safety poll is at least 1 s)
   * @param changed called (synchronously, from a check) each time `data_version` moved
   */
  constructor(database: { readonly path: string }, pollIntervalMs: number, changed: () => void) {
    this.database = database;
    this.pollIntervalMs = pollIntervalMs;
    this.changed = changed;
  }

  /**
   * Looks for other connections' commits from now on (no-op while watching or once closed).
   * The caller read the state before it got here: a commit made since the last version seen
   * (maybe after that read) would vanish into a fresh baseline, so the first check compares
   * with the last version seen and reports a move.
   */
  start(): void {
    if (this.watching || this.closed) return;
    // Undefined for `:memory:` or a file that cannot be opened: in-process notifications still work.
    this.probe ??= openDataVersionProbe(this.database.path);
    if (this.probe === undefined) return;
    this.watching = true;
    this.poll();
    this.fileMode = this.watchWalFile();
    if (this.fileMode) {
      // Notified by the file system: only a slow safety poll (a lost event, a replaced file).
      this.timer = setInterval(() => this.poll(), Math.max(SAFETY_POLL_MS, this.pollIntervalMs));
    } else {
      this.timer = setInterval(() => this.poll(), this.pollIntervalMs);
    }
    this.timer.unref();
  }

  /**
   * Stops polling (nobody waits). The `-wal` watch and the probe stay open: no work while
   * nobody writes, and the next {@link start} compares with the last version seen.
   */
  stop(): void {
    this.watching = false;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    if (this.burstTimer !== undefined) clearTimeout(this.burstTimer);
    this.burstTimer = undefined;
  }

  /** Stops for good and closes the `-wal` watch and the probe. Idempotent. */
  close(): void {
    this.closed = true;
    this.stop();
    this.unwatchWalFile();
    this.probe?.close();
    this.probe = undefined;
  }

  /**
   * After this process's own commit (the commit hook, which wakes everyone anyway): takes the
   * probe's `data_version` as the new baseline, so neither the file event of that very commit
   * nor the check when watching starts again wakes everyone a second time. Also while nobody
   * waits (the probe stays open): a stale baseline made the next waiter's first check (see
   * {@link start}) count this commit again, a wake-up with no new commit that dropped the run
   * change pages shared in the commit's own wake-up, so a follower reading late got a fresh
   * event object and the server executed its GraphQL result twice. A foreign commit folded into
   * this baseline is not lost: the wake-up scheduled by the same commit reads the state after it.
   */
  ownCommit(): void {
    if (this.probe !== undefined) {
      const version = this.probe.read();
      if (version !== undefined) this.dataVersion = version;
    }
  }

  /**
   * A replica's file was replaced and the store reopened it (docs/DEPLOYMENT.md "Read
   * replicas"): the probe still reads the old file, so it is reopened on the new one (and the
   * `-wal` watch re-armed) when watching, with no baseline (the first check reports a move).
   */
  reopen(): void {
    this.unwatchWalFile();
    this.probe?.close();
    this.probe = undefined;
    this.dataVersion = undefined;
    if (this.watching) {
      this.stop();
      this.start();
    }
  }

  /**
   * Watches the `-wal` file (inotify on Linux): another process's commit appends frames to it,
   * so its change event is the cheap signal; nothing wakes this process while nobody writes.
   * The handle stays open for the life of the feed (no wake-up work when nobody waits). SQLite
   * makes a commit visible (wal-index header) only after its last frame is written and synced,
   * so an event starts a burst of `data_version` checks, 1 ms apart at first and at most the
   * poll interval apart, until {@link BURST_POLLS} × the poll interval passed without another
   * event.
   *
   * @returns false when the file cannot be watched (no `-wal` file, unsupported file system):
   *   the caller polls at the poll interval instead
   */
  private watchWalFile(): boolean {
    if (this.walWatcher !== undefined) return true;
    try {
      const watcher = watch(`${this.database.path}-wal`, { persistent: false }, (eventType) => {
        if (eventType === 'rename') this.unwatchWalFile(); // replaced or removed: the safety poll re-arms
        this.walChanged();
      });
      watcher.on('error', () => this.unwatchWalFile());
      this.walWatcher = watcher;
      return true;
    } catch {
      return false;
    }
  }

  private unwatchWalFile(): void {
    this.walWatcher?.close();
    this.walWatcher = undefined;
  }

  /** A write to the `-wal` file: check now, then keep checking for a while (see {@link watchWalFile}). */
  private walChanged(): void {
    this.lastWalEventAt = performance.now();
    if (!this.watching) return;
    this.poll();
    if (this.burstTimer === undefined) this.scheduleBurstPoll();
  }

  private scheduleBurstPoll(): void {
    const sinceEvent = performance.now() - this.lastWalEventAt;
    if (!this.watching || sinceEvent > BURST_POLLS * this.pollIntervalMs) {
      this.burstTimer = undefined;
      return;
    }
    const delay = Math.min(this.pollIntervalMs, Math.max(1, sinceEvent / 2));
    this.burstTimer = setTimeout(() => {
      this.burstTimer = undefined;
      this.poll();
      this.scheduleBurstPoll();
    }, delay);
    this.burstTimer.unref();
  }

  /** One `data_version` check: reports a move; re-arms a lost `-wal` watch, or falls back to polling. */
  private poll(): void {
    if (this.fileMode && this.walWatcher === undefined && this.watching && !this.watchWalFile()) {
      // The watch was lost (file replaced or removed) and cannot be re-armed: poll as before.
      this.fileMode = false;
      if (this.timer !== undefined) clearInterval(this.timer);
      this.timer = setInterval(() => this.poll(), this.pollIntervalMs);
      this.timer.unref();
    }
    const version = this.probe?.read();
    if (version !== undefined && version !== this.dataVersion) {
      this.dataVersion = version;
      this.changed();
    }
  }
}
