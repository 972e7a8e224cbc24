/**
 * A process that takes SQLite's write lock on a database file and holds it ("another process holds the write lock"): `hold` runs `BEGIN IMMEDIATE` on its own
 * better-sqlite3 connection, answers once the lock is held, and commits (nothing written)
 * `ms` later from a timer, emitting `released`.
 */
import Database from 'better-sqlite3';
import { emit, serveRequests } from './ipc.js';

let db: Database.Database | undefined;

serveRequests({
  /** Takes the write lock on `dbPath` for `ms`; answers `{lockedAt}` (epoch ms) once it is held. */
  hold(message) {
    db ??= new Database(String(message.dbPath));
    db.pragma('busy_timeout = 10000');
    db.exec('BEGIN IMMEDIATE');
    const lockedAt = Date.now();
    setTimeout(() => {
      db?.exec('COMMIT');
      emit('released', { at: Date.now() });
    }, Number(message.ms));
    return { lockedAt };
  },

  stop() {
    if (db?.inTransaction === true) db.exec('ROLLBACK');
    db?.close();
    db = undefined;
    setImmediate(() => process.exit(0));
    return null;
  },
});

emit('child-ready');
