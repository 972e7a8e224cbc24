-- 0008: a workflow message's turn flag lives only in its content, as pi-workflows 0.16 keeps it
-- (docs/PI-WORKFLOWS-FILES.md §8): the content JSON (schema
-- `pi-workflows.workflow-message-content.v1`) carries `triggerTurn`, and pi-workflows' table has
-- no `workflow_messages.trigger_turn` column. 0001 mirrored the flag in that column of its own;
-- nothing read it. This drops it.
--
-- Every row keeps its flag: the store has refused, since 0001, message content without a boolean
-- `triggerTurn`, and wrote the column from that same value, so each row's content blob already
-- says what its column said. A row where that is not so (content without the flag, or saying
-- otherwise: only by writing the file behind the store's back) would lose information, so the
-- guard below refuses the whole migration instead (`CHECK constraint failed:
-- message_content_carries_trigger_turn`; nothing applied, the file unchanged) rather than
-- guessing: fix that row's content, or drop the column by hand, and open the file again.
--
-- Unlike 0005-0007 this cannot run twice (SQLite has no DROP COLUMN IF EXISTS): a file taken
-- back to an older migration must get its column back as well.
CREATE TEMP TABLE migration_0008_guard (
  content_flag INTEGER NOT NULL CONSTRAINT message_content_carries_trigger_turn CHECK (content_flag = 1)
);
INSERT INTO temp.migration_0008_guard(content_flag)
SELECT coalesce(
    json_type(CAST(b.content AS TEXT), '$.triggerTurn') IN ('true', 'false')
      AND json_extract(CAST(b.content AS TEXT), '$.triggerTurn') = m.trigger_turn,
    0)
FROM workflow_messages m LEFT JOIN blobs b ON b.blob_hash = m.content_hash;
DROP TABLE temp.migration_0008_guard;

ALTER TABLE workflow_messages DROP COLUMN trigger_turn;
