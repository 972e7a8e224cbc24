/**
 * Benchmark `write-rate`, store write rate: viewer revisions recorded per second in-process
 * (`store.recordViewerDeltas` with one timeline draft per call, each its own transaction) against
 * the raw SQLite limit of this machine: plain INSERTs of one row into a table of the same shape as
 * `viewer_deltas`, in a separate file with the store's pragmas (WAL, synchronous=FULL, foreign
 * keys, busy timeout), one transaction (autocommit) per insert.
 *
 * Both loops alternate in rounds so background load hits them alike; each rate is the median
 * of its rounds. Ratio = store rate ÷ raw rate.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { WorkflowStore, type ViewerDeltaDraft } from '../src/store/index.js';
import type { BenchContext } from './harness/bench-context.js';
import { median, type Figure } from './harness/stats.js';
import { meets } from './targets.js';
import { reservation, tempDir } from './harness/store-inputs.js';

const BENCH = 'write-rate';

function timelineDraft(index: number): ViewerDeltaDraft[] {
  return [
    {
      targetType: 'timeline',
      targetKey: 'items',
      ops: [{ op: 'append', path: '/items', value: [{ kind: 'message', index, text: `step ${index} finished` }] }],
    },
  ];
}

/** Runs `step(i)` for `durationMs`; returns operations per second. */
function loopFor(durationMs: number, step: (index: number) => void): { rate: number; count: number } {
  let count = 0;
  const started = performance.now();
  const deadline = started + durationMs;
  while (performance.now() < deadline) {
    step(count);
    count += 1;
  }
  return { rate: (count * 1000) / (performance.now() - started), count };
}

export async function measureWriteRate(context: BenchContext): Promise<Figure[]> {
  const rounds = context.quick ? 2 : 4;
  const durationMs = context.quick ? 1_000 : 2_500;
  const temp = tempDir('bench-writerate-');
  const store = WorkflowStore.open({ path: join(temp.dir, 'state.db'), projectPath: temp.dir });
  const raw = new Database(join(temp.dir, 'raw.db'));
  try {
    store.reserveWorkflowRun(reservation('write-run', 'write-session'));
    raw.pragma('journal_mode = WAL');
    raw.pragma('synchronous = FULL');
    raw.pragma('foreign_keys = ON');
    raw.pragma('busy_timeout = 5000');
    raw.exec(`CREATE TABLE viewer_deltas (
      run_id TEXT NOT NULL,
      presentation_revision INTEGER NOT NULL CHECK (presentation_revision >= 1),
      delta_index INTEGER NOT NULL CHECK (delta_index >= 0),
      target_type TEXT NOT NULL CHECK (target_type IN
        ('summary', 'graph', 'replay', 'timeline', 'conversation', 'inspector')),
      target_key TEXT NOT NULL DEFAULT '',
      patch_hash BLOB NOT NULL,
      recorded_at INTEGER NOT NULL,
      PRIMARY KEY (run_id, presentation_revision, delta_index)
    ) STRICT`);
    const insert = raw.prepare(
      `INSERT INTO viewer_deltas(run_id, presentation_revision, delta_index, target_type, target_key, patch_hash, recorded_at)
       VALUES (?, ?, 0, 'timeline', 'items', ?, ?)`,
    );
    const patchHash = createHash('sha256').update('patch').digest();
    let rawRevision = 0;
    let storeIndex = 0;

    const storeRates: number[] = [];
    const rawRates: number[] = [];
    let storeCount = 0;
    let rawCount = 0;
    for (let round = 1; round <= rounds; round += 1) {
      context.progress(`${BENCH}: round ${round}/${rounds}: store.recordViewerDeltas (one timeline draft, own transaction), ${durationMs} ms`);
      const storeResult = loopFor(durationMs, () => {
        store.recordViewerDeltas('write-run', timelineDraft(storeIndex));
        storeIndex += 1;
      });
      storeRates.push(storeResult.rate);
      storeCount += storeResult.count;
      context.progress(`${BENCH}: round ${round}/${rounds}: raw INSERT into a viewer_deltas-shaped table (WAL, synchronous=FULL), ${durationMs} ms`);
      const rawResult = loopFor(durationMs, () => {
        rawRevision += 1;
        insert.run('write-run', rawRevision, patchHash, Date.now());
      });
      rawRates.push(rawResult.rate);
      rawCount += rawResult.count;
    }
    const storeRate = median(storeRates);
    const rawRate = median(rawRates);
    return [
      {
        bench: BENCH,
        name: 'raw SQLite INSERT, 1 transaction each',
        unit: 'ops/s',
        rate: rawRate,
        n: rawCount,
        note: `the fsync-bound limit of this machine: ${(1e6 / rawRate).toFixed(0)} µs per commit`,
      },
      meets(
        {
          bench: BENCH,
          name: 'store.recordViewerDeltas, 1 draft each',
          unit: 'ops/s',
          rate: storeRate,
          n: storeCount,
          baseline: 'raw INSERT',
          ratio: storeRate / rawRate,
          note: `${(1e6 / storeRate).toFixed(0)} µs per revision (read head, blob put, insert, update, prune, commit)`,
        },
        'viewer revision write rate',
        { baselineValue: rawRate },
      ),
    ];
  } finally {
    raw.close();
    store.close();
    temp.remove();
  }
}
