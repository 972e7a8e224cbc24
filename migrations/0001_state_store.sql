-- 0001: the workflow state store (docs/STORE-RULES.md §3). STRICT tables; names and constraints follow
-- pi-workflows 0.14 DDL plus the 0.16 lineage columns, so the file is familiar to its tooling.

CREATE TABLE projects (
  project_id TEXT PRIMARY KEY,
  canonical_path TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE blobs (
  blob_hash BLOB PRIMARY KEY CHECK (length(blob_hash) = 32),
  media_type TEXT NOT NULL,
  byte_length INTEGER NOT NULL CHECK (byte_length >= 0 AND byte_length = length(content)),
  content BLOB NOT NULL,
  created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE resources (
  resource_id TEXT PRIMARY KEY,
  resource_type TEXT NOT NULL CHECK (resource_type IN
    ('run', 'session', 'decision', 'controller', 'effect', 'channel', 'settings', 'follow_up')),
  aggregate_key TEXT NOT NULL,
  revision INTEGER NOT NULL DEFAULT 0 CHECK (revision >= 0),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (resource_type, aggregate_key)
) STRICT;

CREATE TABLE leases (
  resource_id TEXT PRIMARY KEY REFERENCES resources(resource_id) ON DELETE CASCADE,
  generation INTEGER NOT NULL DEFAULT 0 CHECK (generation >= 0),
  owner_type TEXT CHECK (owner_type IS NULL OR owner_type IN
    ('session', 'host', 'controller', 'channel', 'system')),
  owner_id TEXT,
  token_hash BLOB CHECK (token_hash IS NULL OR length(token_hash) = 32),
  acquired_at INTEGER,
  heartbeat_at INTEGER,
  expires_at INTEGER,
  CHECK (
    (owner_type IS NULL AND owner_id IS NULL AND token_hash IS NULL AND acquired_at IS NULL
      AND heartbeat_at IS NULL AND expires_at IS NULL)
    OR
    (owner_type IS NOT NULL AND owner_id IS NOT NULL AND token_hash IS NOT NULL
      AND acquired_at IS NOT NULL AND heartbeat_at IS NOT NULL AND expires_at IS NOT NULL)
  )
) STRICT;

CREATE TABLE events (
  event_seq INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id TEXT NOT NULL UNIQUE,
  resource_id TEXT NOT NULL REFERENCES resources(resource_id),
  resource_revision INTEGER NOT NULL CHECK (resource_revision > 0),
  event_type TEXT NOT NULL,
  actor_type TEXT NOT NULL CHECK (actor_type IN
    ('session', 'host', 'controller', 'channel', 'human', 'policy', 'control', 'system')),
  actor_id TEXT,
  lease_generation INTEGER CHECK (lease_generation IS NULL OR lease_generation > 0),
  payload_hash BLOB REFERENCES blobs(blob_hash),
  recorded_at INTEGER NOT NULL,
  UNIQUE (resource_id, resource_revision)
) STRICT;

CREATE TABLE workflow_definitions (
  definition_digest BLOB PRIMARY KEY CHECK (length(definition_digest) = 32),
  workflow_name TEXT NOT NULL,
  definition_hash BLOB NOT NULL REFERENCES blobs(blob_hash),
  created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE runs (
  run_id TEXT PRIMARY KEY,
  resource_id TEXT NOT NULL UNIQUE REFERENCES resources(resource_id) ON DELETE CASCADE,
  project_id TEXT REFERENCES projects(project_id),
  parent_run_id TEXT REFERENCES runs(run_id),
  root_run_id TEXT NOT NULL REFERENCES runs(run_id),
  lineage_kind TEXT CHECK (lineage_kind IS NULL OR lineage_kind IN ('continuation', 'restart')),
  restart_number INTEGER NOT NULL DEFAULT 0 CHECK (restart_number >= 0),
  parent_terminal_fingerprint BLOB CHECK (
    parent_terminal_fingerprint IS NULL OR length(parent_terminal_fingerprint) = 32),
  definition_digest BLOB NOT NULL REFERENCES workflow_definitions(definition_digest),
  workflow_ref TEXT NOT NULL,
  launch_options_hash BLOB NOT NULL REFERENCES blobs(blob_hash),
  title TEXT,
  status TEXT NOT NULL CHECK (status IN
    ('queued', 'running', 'waiting', 'completed', 'failed', 'timed_out', 'cancelled')),
  paused INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1)),
  status_detail TEXT,
  input_hash BLOB NOT NULL REFERENCES blobs(blob_hash),
  final_output_hash BLOB REFERENCES blobs(blob_hash),
  error_hash BLOB REFERENCES blobs(blob_hash),
  presentation_prompt_hash BLOB REFERENCES blobs(blob_hash),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  finished_at INTEGER,
  CHECK ((finished_at IS NOT NULL) =
    (status IN ('waiting', 'completed', 'failed', 'timed_out', 'cancelled'))),
  CHECK ((parent_run_id IS NULL) = (lineage_kind IS NULL)),
  CHECK ((lineage_kind IS NOT NULL AND lineage_kind = 'restart') =
    (parent_terminal_fingerprint IS NOT NULL)),
  CHECK (parent_run_id IS NOT NULL OR restart_number = 0)
) STRICT;

CREATE INDEX runs_project_created_idx ON runs(project_id, created_at DESC);
CREATE INDEX runs_status_updated_idx ON runs(status, updated_at DESC);
CREATE INDEX runs_parent_idx ON runs(parent_run_id);
CREATE UNIQUE INDEX runs_restart_parent_idx ON runs(parent_run_id) WHERE lineage_kind = 'restart';

CREATE TABLE run_queue (
  run_id TEXT PRIMARY KEY REFERENCES runs(run_id) ON DELETE CASCADE,
  status TEXT NOT NULL CHECK (status IN
    ('queued', 'starting', 'running', 'parked', 'done', 'failed', 'cancelled')),
  available_at INTEGER NOT NULL,
  affinity_runner_id TEXT,
  origin_session_id TEXT NOT NULL,
  consecutive_errors INTEGER NOT NULL DEFAULT 0 CHECK (consecutive_errors >= 0),
  error_code TEXT,
  error_hash BLOB REFERENCES blobs(blob_hash),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  started_at INTEGER,
  finished_at INTEGER
) STRICT;

CREATE INDEX run_queue_status_available_idx ON run_queue(status, available_at, created_at);
CREATE UNIQUE INDEX run_queue_active_session_idx ON run_queue(origin_session_id)
  WHERE status IN ('queued', 'starting', 'running');

CREATE TABLE run_bindings (
  run_id TEXT PRIMARY KEY REFERENCES runs(run_id) ON DELETE CASCADE,
  origin_session_id TEXT NOT NULL,
  execution_mode TEXT NOT NULL CHECK (execution_mode IN ('interactive', 'headless')),
  created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE run_sources (
  run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  mount_path TEXT NOT NULL,
  source_type TEXT NOT NULL CHECK (source_type IN ('builtin', 'file')),
  source_ref TEXT NOT NULL,
  source_revision TEXT NOT NULL,
  PRIMARY KEY (run_id, mount_path)
) STRICT;

CREATE TABLE viewer_runs (
  run_id TEXT PRIMARY KEY REFERENCES runs(run_id) ON DELETE CASCADE,
  presentation_revision INTEGER NOT NULL CHECK (presentation_revision >= 1),
  retained_from_revision INTEGER NOT NULL CHECK (
    retained_from_revision >= 1 AND retained_from_revision <= presentation_revision),
  updated_at INTEGER NOT NULL
) STRICT;

CREATE TABLE viewer_deltas (
  run_id TEXT NOT NULL REFERENCES viewer_runs(run_id) ON DELETE CASCADE,
  presentation_revision INTEGER NOT NULL CHECK (presentation_revision >= 1),
  delta_index INTEGER NOT NULL CHECK (delta_index >= 0),
  target_type TEXT NOT NULL CHECK (target_type IN
    ('summary', 'graph', 'replay', 'timeline', 'conversation', 'inspector')),
  target_key TEXT NOT NULL DEFAULT '',
  patch_hash BLOB NOT NULL REFERENCES blobs(blob_hash),
  recorded_at INTEGER NOT NULL,
  PRIMARY KEY (run_id, presentation_revision, delta_index)
) STRICT;

CREATE TABLE node_attempts (
  attempt_id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  node_id TEXT NOT NULL,
  attempt_number INTEGER NOT NULL CHECK (attempt_number > 0),
  node_type TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN
    ('pending', 'running', 'waiting', 'interrupted', 'completed', 'failed', 'timed_out', 'cancelled')),
  error_hash BLOB REFERENCES blobs(blob_hash),
  started_at INTEGER,
  deadline_at INTEGER,
  finished_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (run_id, node_id, attempt_number)
) STRICT;

CREATE UNIQUE INDEX node_attempts_one_open_idx ON node_attempts(run_id)
  WHERE status IN ('pending', 'running', 'waiting');

CREATE TABLE interactive_requests (
  request_id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  attempt_id TEXT NOT NULL UNIQUE REFERENCES node_attempts(attempt_id) ON DELETE CASCADE,
  target_session_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('agent', 'assistant', 'decision')),
  contract_hash BLOB NOT NULL REFERENCES blobs(blob_hash),
  revision INTEGER NOT NULL DEFAULT 1 CHECK (revision > 0),
  status TEXT NOT NULL CHECK (status IN ('pending', 'settled', 'cancelled')),
  unproductive_turn_ends INTEGER NOT NULL DEFAULT 0 CHECK (unproductive_turn_ends >= 0),
  accepted_submission_id TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  settled_at INTEGER,
  consumed_at INTEGER,
  CHECK ((status = 'settled') = (accepted_submission_id IS NOT NULL AND settled_at IS NOT NULL)),
  CHECK (consumed_at IS NULL OR status = 'settled')
) STRICT;

CREATE INDEX interactive_requests_run_status_idx ON interactive_requests(run_id, status);

CREATE TABLE interactive_submissions (
  submission_id TEXT PRIMARY KEY,
  request_id TEXT NOT NULL REFERENCES interactive_requests(request_id) ON DELETE CASCADE,
  idempotency_key TEXT NOT NULL,
  request_revision INTEGER NOT NULL CHECK (request_revision > 0),
  payload_hash BLOB NOT NULL REFERENCES blobs(blob_hash),
  outcome TEXT NOT NULL CHECK (outcome IN ('validating', 'accepted', 'rejected', 'adopted')),
  receipt_hash BLOB REFERENCES blobs(blob_hash),
  submitted_at INTEGER NOT NULL,
  UNIQUE (request_id, idempotency_key)
) STRICT;

CREATE TABLE workflow_messages (
  workflow_message_id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  target_session_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('step', 'decision', 'notification', 'terminal', 'followUp')),
  source_id TEXT NOT NULL,
  content_hash BLOB NOT NULL REFERENCES blobs(blob_hash),
  order_number INTEGER NOT NULL CHECK (order_number > 0),
  status TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'cancelled')),
  pi_session_entry_id TEXT,
  trigger_turn INTEGER NOT NULL DEFAULT 0 CHECK (trigger_turn IN (0, 1)),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (target_session_id, order_number),
  CHECK ((status = 'sent') = (pi_session_entry_id IS NOT NULL))
) STRICT;

CREATE INDEX workflow_messages_session_status_idx
  ON workflow_messages(target_session_id, status, order_number);
CREATE INDEX workflow_messages_run_idx ON workflow_messages(run_id, order_number);
CREATE INDEX workflow_messages_source_idx ON workflow_messages(kind, source_id, order_number);
CREATE UNIQUE INDEX workflow_messages_pending_step_idx ON workflow_messages(source_id)
  WHERE kind = 'step' AND status = 'pending';

CREATE TABLE workflow_turns (
  workflow_turn_id TEXT PRIMARY KEY,
  workflow_message_id TEXT NOT NULL REFERENCES workflow_messages(workflow_message_id) ON DELETE CASCADE,
  run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  target_session_id TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('started', 'ended')),
  stop_reason TEXT CHECK (stop_reason IS NULL OR stop_reason IN ('completed', 'aborted', 'error', 'lost')),
  response_session_entry_id TEXT,
  started_at INTEGER NOT NULL,
  ended_at INTEGER,
  CHECK ((state = 'started') = (stop_reason IS NULL AND ended_at IS NULL)),
  CHECK ((state = 'ended') = (stop_reason IS NOT NULL AND ended_at IS NOT NULL))
) STRICT;

CREATE UNIQUE INDEX workflow_turns_one_started_idx ON workflow_turns(workflow_message_id)
  WHERE state = 'started';
CREATE INDEX workflow_turns_session_state_idx ON workflow_turns(target_session_id, state, started_at);
CREATE INDEX workflow_turns_run_state_idx ON workflow_turns(run_id, state);
