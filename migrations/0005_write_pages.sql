-- 0005: fewer pages per store write. Same rows, same constraints, same
-- query results; only the b-trees a write dirties (each one a 4 KB WAL frame at commit).
--
-- runs_parent_idx(parent_run_id) is a prefix of runs_parent_kind_idx (0002): every lookup by
-- parent (lineage reads, the foreign key of runs.parent_run_id) walks that one instead.
DROP INDEX IF EXISTS runs_parent_idx;

-- Newest-first indexes stored oldest-first. SQLite walks an index in either direction, so the
-- DESC orders of the run list still read them with no sort; but a new row is now the largest
-- key, appended at the right edge (one leaf page), where a DESC index put it at the left edge,
-- where SQLite rebalances the first leaves again and again (≈ 1.6–2 pages per insert).
DROP INDEX IF EXISTS runs_created_idx;
CREATE INDEX runs_created_idx ON runs(created_at, run_id);
DROP INDEX IF EXISTS run_queue_updated_idx;
CREATE INDEX run_queue_updated_idx ON run_queue(updated_at, run_id);
DROP INDEX IF EXISTS runs_project_created_idx;
CREATE INDEX runs_project_created_idx ON runs(project_id, created_at);
DROP INDEX IF EXISTS runs_status_updated_idx;
CREATE INDEX runs_status_updated_idx ON runs(status, updated_at);

-- The run-change mark of 0003 in two statements instead of three: the counter, then one upsert
-- that takes the next position and adds the run's current runs.status / run_queue.status to
-- its sets when they are not in them yet (the same rows as before, docs/PROTOCOL.md).
DROP TRIGGER run_change_mark;
CREATE TRIGGER run_change_mark INSTEAD OF INSERT ON run_change_marks
BEGIN
  UPDATE run_change_head SET change_seq = change_seq + 1 WHERE id = 1;
  INSERT INTO run_changes(change_seq, run_id, statuses, queue_statuses)
  SELECT h.change_seq, NEW.run_id,
    ',' || coalesce((SELECT r.status || ',' FROM runs r WHERE r.run_id = NEW.run_id), ''),
    ',' || coalesce((SELECT q.status || ',' FROM run_queue q WHERE q.run_id = NEW.run_id), '')
  FROM run_change_head h WHERE h.id = 1
  ON CONFLICT(run_id) DO UPDATE SET
    change_seq = excluded.change_seq,
    statuses = CASE WHEN instr(statuses, excluded.statuses) = 0
      THEN statuses || substr(excluded.statuses, 2) ELSE statuses END,
    queue_statuses = CASE WHEN instr(queue_statuses, excluded.queue_statuses) = 0
      THEN queue_statuses || substr(excluded.queue_statuses, 2) ELSE queue_statuses END;
END;
