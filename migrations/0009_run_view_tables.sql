-- 0009: pi-workflows' engine tables, with pi's names, columns, keys, foreign keys and indexes
-- (fixtures/pi-workflows-schema.ts follows pi's src/state/schema.ts): every table the run-view
-- reader (src/store/run-view/) reads that this file lacked, and the columns node_attempts lacked.
-- After it one read path serves the run view on both kinds of file (docs/ARCHITECTURE.md
-- "Three kinds of database file", docs/PI-WORKFLOWS-FILES.md §9). Additive: no existing row is
-- touched. Written by the engine-row writer (src/store/engine-rows/).

CREATE TABLE workflow_settings (
  scope_id TEXT PRIMARY KEY,
  resource_id TEXT NOT NULL UNIQUE REFERENCES resources(resource_id) ON DELETE CASCADE,
  origin_run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  active_run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  mount_path TEXT NOT NULL,
  invocation INTEGER NOT NULL,
  initial_hash BLOB NOT NULL REFERENCES blobs(blob_hash),
  current_hash BLOB NOT NULL REFERENCES blobs(blob_hash),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (origin_run_id, mount_path, invocation)
) STRICT;

CREATE TABLE workflow_setting_changes (
  change_id TEXT PRIMARY KEY,
  scope_id TEXT NOT NULL REFERENCES workflow_settings(scope_id) ON DELETE CASCADE,
  request_id TEXT NOT NULL,
  change_number INTEGER NOT NULL,
  actor_type TEXT NOT NULL CHECK (actor_type IN
    ('session', 'host', 'controller', 'channel', 'human', 'policy', 'control', 'system')),
  actor_id TEXT,
  source_type TEXT NOT NULL,
  patch_hash BLOB NOT NULL REFERENCES blobs(blob_hash),
  before_hash BLOB NOT NULL REFERENCES blobs(blob_hash),
  after_hash BLOB NOT NULL REFERENCES blobs(blob_hash),
  accepted_at INTEGER NOT NULL,
  UNIQUE (scope_id, request_id),
  UNIQUE (scope_id, change_number)
) STRICT;

CREATE TABLE workflow_follow_ups (
  follow_up_id TEXT PRIMARY KEY,
  resource_id TEXT NOT NULL UNIQUE REFERENCES resources(resource_id) ON DELETE CASCADE,
  run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  request_id TEXT NOT NULL,
  order_number INTEGER NOT NULL,
  target_session_id TEXT NOT NULL,
  actor_type TEXT NOT NULL CHECK (actor_type IN
    ('session', 'host', 'controller', 'channel', 'human', 'policy', 'control', 'system')),
  actor_id TEXT,
  source_type TEXT NOT NULL,
  prompt_hash BLOB NOT NULL REFERENCES blobs(blob_hash),
  status TEXT NOT NULL,
  reason_hash BLOB REFERENCES blobs(blob_hash),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (run_id, request_id),
  UNIQUE (run_id, order_number)
) STRICT;

-- node_attempts as pi has it: the prompt, output and receipt of an attempt and its settings binding.
ALTER TABLE node_attempts ADD COLUMN prompt_hash BLOB REFERENCES blobs(blob_hash);
ALTER TABLE node_attempts ADD COLUMN output_hash BLOB REFERENCES blobs(blob_hash);
ALTER TABLE node_attempts ADD COLUMN receipt_hash BLOB REFERENCES blobs(blob_hash);
ALTER TABLE node_attempts ADD COLUMN settings_scope_id TEXT REFERENCES workflow_settings(scope_id);
ALTER TABLE node_attempts ADD COLUMN settings_change_number INTEGER;
ALTER TABLE node_attempts ADD COLUMN settings_hash BLOB REFERENCES blobs(blob_hash);

CREATE TABLE run_steps (
  run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  step_index INTEGER NOT NULL,
  attempt_id TEXT NOT NULL REFERENCES node_attempts(attempt_id),
  output_override_hash BLOB REFERENCES blobs(blob_hash),
  PRIMARY KEY (run_id, step_index),
  UNIQUE (run_id, attempt_id)
) STRICT;

CREATE TABLE workflow_updates (
  update_id TEXT PRIMARY KEY,
  attempt_id TEXT NOT NULL REFERENCES node_attempts(attempt_id) ON DELETE CASCADE,
  update_seq INTEGER NOT NULL,
  run_revision INTEGER NOT NULL,
  update_type TEXT NOT NULL,
  update_key TEXT NOT NULL,
  data_hash BLOB NOT NULL REFERENCES blobs(blob_hash),
  recorded_at INTEGER NOT NULL,
  UNIQUE (attempt_id, update_seq)
) STRICT;

CREATE TABLE session_segments (
  segment_id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  attempt_id TEXT REFERENCES node_attempts(attempt_id),
  capture_key TEXT,
  session_id TEXT NOT NULL,
  resource_id TEXT NOT NULL UNIQUE REFERENCES resources(resource_id),
  binding_hash BLOB REFERENCES blobs(blob_hash),
  status TEXT NOT NULL,
  entry_count INTEGER NOT NULL DEFAULT 0,
  event_count INTEGER NOT NULL DEFAULT 0,
  failure_hash BLOB REFERENCES blobs(blob_hash),
  created_at INTEGER NOT NULL,
  finished_at INTEGER
) STRICT;

CREATE TABLE session_entries (
  segment_id TEXT NOT NULL REFERENCES session_segments(segment_id) ON DELETE CASCADE,
  run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  entry_seq INTEGER NOT NULL,
  run_seq INTEGER NOT NULL,
  entry_id TEXT NOT NULL,
  entry_hash BLOB NOT NULL REFERENCES blobs(blob_hash),
  recorded_at INTEGER NOT NULL,
  PRIMARY KEY (segment_id, entry_seq),
  UNIQUE (segment_id, entry_id),
  UNIQUE (run_id, run_seq)
) STRICT;

CREATE TABLE attempt_entries (
  attempt_id TEXT NOT NULL REFERENCES node_attempts(attempt_id) ON DELETE CASCADE,
  role TEXT NOT NULL,
  segment_id TEXT NOT NULL,
  entry_id TEXT NOT NULL,
  PRIMARY KEY (attempt_id, role),
  FOREIGN KEY (segment_id, entry_id) REFERENCES session_entries(segment_id, entry_id) ON DELETE CASCADE
) STRICT;

CREATE TABLE session_events (
  segment_id TEXT NOT NULL REFERENCES session_segments(segment_id) ON DELETE CASCADE,
  run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  event_seq INTEGER NOT NULL,
  run_seq INTEGER NOT NULL,
  event_type TEXT NOT NULL,
  node_id TEXT,
  attempt_id TEXT,
  turn_id TEXT,
  message_id TEXT,
  tool_call_id TEXT,
  payload_hash BLOB NOT NULL REFERENCES blobs(blob_hash),
  recorded_at INTEGER NOT NULL,
  PRIMARY KEY (segment_id, event_seq),
  UNIQUE (run_id, run_seq)
) STRICT;

CREATE TABLE human_decisions (
  decision_id TEXT PRIMARY KEY,
  resource_id TEXT NOT NULL UNIQUE REFERENCES resources(resource_id),
  run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  attempt_id TEXT NOT NULL REFERENCES node_attempts(attempt_id),
  audience TEXT NOT NULL,
  title TEXT NOT NULL,
  subject_hash BLOB NOT NULL REFERENCES blobs(blob_hash),
  presentation_hash BLOB NOT NULL REFERENCES blobs(blob_hash),
  choices_hash BLOB NOT NULL REFERENCES blobs(blob_hash),
  request_digest BLOB NOT NULL UNIQUE,
  presentation_revision INTEGER NOT NULL,
  deadline_at INTEGER,
  default_response_hash BLOB REFERENCES blobs(blob_hash),
  request_hash BLOB NOT NULL REFERENCES blobs(blob_hash),
  created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE human_decision_resolutions (
  decision_id TEXT PRIMARY KEY REFERENCES human_decisions(decision_id) ON DELETE CASCADE,
  outcome TEXT NOT NULL,
  provenance TEXT NOT NULL,
  response_hash BLOB REFERENCES blobs(blob_hash),
  reason TEXT,
  channel TEXT,
  actor_id TEXT,
  request_digest BLOB NOT NULL,
  resolved_at INTEGER NOT NULL
) STRICT;

CREATE TABLE human_decision_submissions (
  decision_id TEXT NOT NULL REFERENCES human_decisions(decision_id) ON DELETE CASCADE,
  attempt_id TEXT NOT NULL,
  source TEXT NOT NULL,
  actor_id TEXT,
  channel TEXT,
  candidate_hash BLOB NOT NULL REFERENCES blobs(blob_hash),
  outcome TEXT NOT NULL,
  result_hash BLOB REFERENCES blobs(blob_hash),
  submitted_at INTEGER NOT NULL,
  PRIMARY KEY (decision_id, attempt_id)
) STRICT;

CREATE TABLE continuations (
  decision_id TEXT PRIMARY KEY REFERENCES human_decisions(decision_id) ON DELETE CASCADE,
  parent_run_id TEXT NOT NULL UNIQUE REFERENCES runs(run_id),
  continuation_run_id TEXT NOT NULL UNIQUE REFERENCES runs(run_id),
  created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE effects (
  effect_id TEXT PRIMARY KEY,
  resource_id TEXT NOT NULL UNIQUE REFERENCES resources(resource_id),
  source_resource_id TEXT NOT NULL REFERENCES resources(resource_id),
  source_revision INTEGER NOT NULL,
  effect_type TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  payload_hash BLOB NOT NULL REFERENCES blobs(blob_hash),
  owner_scope TEXT NOT NULL,
  status TEXT NOT NULL,
  attempt_count INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER,
  result_hash BLOB REFERENCES blobs(blob_hash),
  external_ref TEXT,
  error_hash BLOB REFERENCES blobs(blob_hash),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  settled_at INTEGER,
  UNIQUE (source_resource_id, effect_type, idempotency_key)
) STRICT;

CREATE INDEX node_attempts_run_idx ON node_attempts(run_id, created_at);
CREATE INDEX node_attempts_deadline_idx ON node_attempts(deadline_at) WHERE deadline_at IS NOT NULL;
CREATE INDEX workflow_settings_active_run_idx ON workflow_settings(active_run_id, mount_path, invocation);
CREATE INDEX workflow_follow_ups_order_idx ON workflow_follow_ups(target_session_id, run_id, order_number);
CREATE INDEX run_steps_attempt_idx ON run_steps(attempt_id);
CREATE INDEX workflow_updates_key_idx ON workflow_updates(attempt_id, update_type, update_key, update_seq DESC);
CREATE INDEX session_segments_run_idx ON session_segments(run_id, created_at);
CREATE INDEX session_entries_run_idx ON session_entries(run_id, run_seq);
CREATE INDEX attempt_entries_entry_idx ON attempt_entries(segment_id, entry_id);
CREATE INDEX session_events_run_idx ON session_events(run_id, run_seq);
CREATE INDEX human_decisions_run_idx ON human_decisions(run_id, created_at);
CREATE INDEX human_decisions_deadline_idx ON human_decisions(deadline_at) WHERE deadline_at IS NOT NULL;
CREATE INDEX effects_pending_idx ON effects(status, next_attempt_at, created_at);
