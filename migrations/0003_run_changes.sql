-- 0003: the durable order of the run-list change feed (docs/PROTOCOL.md
-- "workflowRunChanges"). One row per run: the position of its latest change. A change takes
-- the next number from run_change_head, so a run that changed again moves to the end and
-- earlier positions of it vanish: replay after any position reads each run that changed since
-- once, in its latest state, and the table never holds more rows than there are runs.
--
-- Written by triggers, inside the very transaction that changes the run, so it also covers
-- writers that are not this server (another process or implementation writing docs/STORE-RULES.md's
-- tables). What counts as a change: a viewer revision (the one thing docs/STORE-RULES.md §8 makes every
-- run write record: creation, reserve, claim, renew, park, settle, restart, transitions,
-- reported states, a host's own revisions), and any write of runs.status or run_queue.status.
--
-- statuses / queue_statuses: every runs.status and run_queue.status the run has held since
-- this migration (or its backfill), as ',a,b,' sets. The feed uses them to tell a filtered
-- subscriber about a run that left its filter (docs/PROTOCOL.md "Leaving a filter").

-- The head of the order and the database's identity, which every cursor carries: a cursor
-- minted by another database file (another random id) is recognised and answered with a reset.
CREATE TABLE run_change_head (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  database_id TEXT NOT NULL,
  change_seq INTEGER NOT NULL CHECK (change_seq >= 0)
) STRICT;

CREATE TABLE run_changes (
  change_seq INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL UNIQUE REFERENCES runs(run_id) ON DELETE CASCADE,
  statuses TEXT NOT NULL,
  queue_statuses TEXT NOT NULL
) STRICT;

-- Backfill: every existing run once, oldest change first.
INSERT INTO run_changes(change_seq, run_id, statuses, queue_statuses)
SELECT row_number() OVER (ORDER BY v.updated_at, v.run_id), v.run_id,
  ',' || r.status || ',', ',' || coalesce(q.status || ',', '')
FROM viewer_runs v
JOIN runs r ON r.run_id = v.run_id
LEFT JOIN run_queue q ON q.run_id = v.run_id;

INSERT INTO run_change_head(id, database_id, change_seq)
VALUES (1, lower(hex(randomblob(16))), (SELECT count(*) FROM run_changes));

-- The one body every trigger below runs ("record a change of run NEW.run_id"): SQLite has no
-- procedures, so it is an INSTEAD OF trigger on a view that is never read.
CREATE VIEW run_change_marks AS SELECT run_id FROM run_changes WHERE 0;

CREATE TRIGGER run_change_mark INSTEAD OF INSERT ON run_change_marks
BEGIN
  UPDATE run_change_head SET change_seq = change_seq + 1 WHERE id = 1;
  INSERT INTO run_changes(change_seq, run_id, statuses, queue_statuses)
  VALUES ((SELECT change_seq FROM run_change_head WHERE id = 1), NEW.run_id, ',', ',')
  ON CONFLICT(run_id) DO UPDATE SET change_seq = excluded.change_seq;
  UPDATE run_changes SET
    statuses = statuses || coalesce((
      SELECT r.status || ',' FROM runs r
      WHERE r.run_id = NEW.run_id AND instr(run_changes.statuses, ',' || r.status || ',') = 0), ''),
    queue_statuses = queue_statuses || coalesce((
      SELECT q.status || ',' FROM run_queue q
      WHERE q.run_id = NEW.run_id AND instr(run_changes.queue_statuses, ',' || q.status || ',') = 0), '')
  WHERE run_id = NEW.run_id;
END;

CREATE TRIGGER run_changes_viewer_insert AFTER INSERT ON viewer_runs
BEGIN
  INSERT INTO run_change_marks(run_id) VALUES (NEW.run_id);
END;

CREATE TRIGGER run_changes_viewer_revision AFTER UPDATE OF presentation_revision ON viewer_runs
BEGIN
  INSERT INTO run_change_marks(run_id) VALUES (NEW.run_id);
END;

CREATE TRIGGER run_changes_run_status AFTER UPDATE OF status ON runs
BEGIN
  INSERT INTO run_change_marks(run_id) VALUES (NEW.run_id);
END;

CREATE TRIGGER run_changes_queue_insert AFTER INSERT ON run_queue
BEGIN
  INSERT INTO run_change_marks(run_id) VALUES (NEW.run_id);
END;

CREATE TRIGGER run_changes_queue_status AFTER UPDATE OF status ON run_queue
BEGIN
  INSERT INTO run_change_marks(run_id) VALUES (NEW.run_id);
END;
