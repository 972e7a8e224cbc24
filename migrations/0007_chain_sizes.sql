-- 0007: the number of runs of each chain, kept by the database instead of counted on every
-- `lineage { totalCount }` read (counting a chain of 10,000 runs through
-- runs_root_created_idx took ≈ 320 µs per read, 3.5 µs for a chain of 10).
--
-- One row per chain (root run id) that has runs: how many rows of `runs` carry that
-- root_run_id. Written by triggers, inside the very transaction that inserts, deletes or
-- re-roots a run, so it also covers writers that are not this server (another process or
-- implementation writing docs/STORE-RULES.md's tables, raw SQL), as 0003 does for run_changes. A chain's
-- row goes when its last run goes. WITHOUT ROWID: one b-tree, so a write touches one page.
--
-- Every statement may run again on a file that already holds its objects (a file taken back to
-- an older migration by dropping only what those added): it then changes nothing.
CREATE TABLE IF NOT EXISTS run_chain_sizes (
  root_run_id TEXT PRIMARY KEY,
  run_count INTEGER NOT NULL CHECK (run_count > 0)
) WITHOUT ROWID, STRICT;

-- Backfill: every chain once, counted through runs_root_created_idx.
INSERT OR REPLACE INTO run_chain_sizes(root_run_id, run_count)
SELECT root_run_id, count(*) FROM runs GROUP BY root_run_id;

CREATE TRIGGER IF NOT EXISTS run_chain_size_inserted AFTER INSERT ON runs
BEGIN
  INSERT INTO run_chain_sizes(root_run_id, run_count) VALUES (NEW.root_run_id, 1)
  ON CONFLICT(root_run_id) DO UPDATE SET run_count = run_count + 1;
END;

-- The chain's last run leaves: its row goes (run_count stays > 0); otherwise one less.
CREATE TRIGGER IF NOT EXISTS run_chain_size_deleted AFTER DELETE ON runs
BEGIN
  DELETE FROM run_chain_sizes WHERE root_run_id = OLD.root_run_id AND run_count = 1;
  UPDATE run_chain_sizes SET run_count = run_count - 1 WHERE root_run_id = OLD.root_run_id;
END;

-- The store never changes a run's root (docs/STORE-RULES.md §6.1); another writer might.
CREATE TRIGGER IF NOT EXISTS run_chain_size_rerooted AFTER UPDATE OF root_run_id ON runs
WHEN OLD.root_run_id IS NOT NEW.root_run_id
BEGIN
  DELETE FROM run_chain_sizes WHERE root_run_id = OLD.root_run_id AND run_count = 1;
  UPDATE run_chain_sizes SET run_count = run_count - 1 WHERE root_run_id = OLD.root_run_id;
  INSERT INTO run_chain_sizes(root_run_id, run_count) VALUES (NEW.root_run_id, 1)
  ON CONFLICT(root_run_id) DO UPDATE SET run_count = run_count + 1;
END;
