-- 0004: the run list's UPDATED_AT order (docs/GRAPHQL-CONTRACT.md "Run-list search and order"):
-- keyset pages walk (updated_at, run_id) in either direction with no sort. The CREATED_AT
-- order walks runs_created_idx (0002); time ranges are ranges of these two indexes.
CREATE INDEX run_queue_updated_idx ON run_queue(updated_at DESC, run_id DESC);
