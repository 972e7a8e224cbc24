-- 0002: indexes for the read side (docs/GRAPHQL-CONTRACT.md): lineage by root, newest-first keyset listing,
-- the delta log by run. No recursion over a chain is ever needed with these.
CREATE INDEX runs_root_created_idx ON runs(root_run_id, created_at, run_id);
CREATE INDEX runs_created_idx ON runs(created_at DESC, run_id DESC);
CREATE INDEX runs_parent_kind_idx ON runs(parent_run_id, lineage_kind, created_at, run_id);
