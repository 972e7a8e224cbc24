/**
 * The layout of a pi-workflows state file as data, written for these tests
 * from the published facts of osolmaz/pi-workflows (`src/state/schema.ts` at 0.14.0; the 0.16
 * line has the same columns: it keeps a message's `triggerTurn` inside the content JSON and has
 * no `workflow_messages.trigger_turn` column; `src/state/database.ts` for what it sets at open):
 * 47 tables, their columns with types, keys and foreign keys, and the indexes the real schema has, so a file built from it has the same tables, columns, foreign keys and indexes.
 * Most CHECK constraints are left out: nothing here depends on them. The DDL text is our own, so
 * its `schema_digest` differs from any release's, as the digests of the releases differ too.
 *
 * `schemaModel()` returns the layout of one variant (a release line, columns dropped, only what
 * the read side needs); `schemaSql()` turns it into DDL.
 */
import { READ_SIDE_COLUMNS, WRITE_SIDE_COLUMNS } from '../../src/store/index.js';

/** One table: its column definitions (`name TYPE …`) and table constraints. */
export interface TableModel {
  name: string;
  columns: string[];
  constraints: string[];
}

/** The tables and indexes of one file. */
export interface SchemaModel {
  tables: TableModel[];
  /** Full `CREATE [UNIQUE] INDEX` statements. */
  indexes: string[];
}

/** A release line of pi-workflows: `0.14` (0.14.0) or `0.16` (the same tables and columns; another `app_version`). */
export type ReleaseLine = '0.14' | '0.16';

const ACTOR = "TEXT NOT NULL CHECK (actor_type IN ('session', 'host', 'controller', 'channel', 'human', 'policy', 'control', 'system'))";
const HASH = 'BLOB REFERENCES blobs(blob_hash)';
const HASH_NN = 'BLOB NOT NULL REFERENCES blobs(blob_hash)';
const RUN_FK = 'TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE';

function table(name: string, columns: string[], constraints: string[] = []): TableModel {
  return { name, columns, constraints };
}

function baseTables(): TableModel[] {
  return [
    table('schema_meta', [
      'id INTEGER PRIMARY KEY CHECK (id = 1)',
      'schema_name TEXT NOT NULL',
      'schema_version INTEGER NOT NULL',
      'schema_digest BLOB NOT NULL',
      'app_version TEXT NOT NULL',
      'created_at INTEGER NOT NULL',
      'updated_at INTEGER NOT NULL',
    ]),
    table('projects', ['project_id TEXT PRIMARY KEY', 'canonical_path TEXT NOT NULL UNIQUE', 'created_at INTEGER NOT NULL']),
    table('workflow_host_state', [
      'id INTEGER PRIMARY KEY CHECK (id = 1)',
      'epoch INTEGER NOT NULL DEFAULT 0',
      'host_id TEXT',
      'token_hash BLOB',
      'pid INTEGER',
      'process_start_identity TEXT',
      'started_at INTEGER',
      'heartbeat_at INTEGER',
      'expires_at INTEGER',
    ]),
    table('blobs', [
      'blob_hash BLOB PRIMARY KEY',
      'media_type TEXT NOT NULL',
      'byte_length INTEGER NOT NULL',
      'content BLOB NOT NULL',
      'created_at INTEGER NOT NULL',
    ]),
    table(
      'resources',
      [
        'resource_id TEXT PRIMARY KEY',
        'resource_type TEXT NOT NULL',
        'aggregate_key TEXT NOT NULL',
        'revision INTEGER NOT NULL DEFAULT 0',
        'created_at INTEGER NOT NULL',
        'updated_at INTEGER NOT NULL',
      ],
      ['UNIQUE (resource_type, aggregate_key)'],
    ),
    table('leases', [
      'resource_id TEXT PRIMARY KEY REFERENCES resources(resource_id) ON DELETE CASCADE',
      'generation INTEGER NOT NULL DEFAULT 0',
      'owner_type TEXT',
      'owner_id TEXT',
      'token_hash BLOB',
      'acquired_at INTEGER',
      'heartbeat_at INTEGER',
      'expires_at INTEGER',
    ]),
    table(
      'events',
      [
        'event_seq INTEGER PRIMARY KEY AUTOINCREMENT',
        'event_id TEXT NOT NULL UNIQUE',
        'resource_id TEXT NOT NULL REFERENCES resources(resource_id)',
        'resource_revision INTEGER NOT NULL',
        'event_type TEXT NOT NULL',
        `actor_type ${ACTOR}`,
        'actor_id TEXT',
        'lease_generation INTEGER',
        `payload_hash ${HASH}`,
        'recorded_at INTEGER NOT NULL',
      ],
      ['UNIQUE (resource_id, resource_revision)'],
    ),
    table('workflow_definitions', [
      'definition_digest BLOB PRIMARY KEY',
      'workflow_name TEXT NOT NULL',
      `definition_hash ${HASH_NN}`,
      'created_at INTEGER NOT NULL',
    ]),
    table('runs', [
      'run_id TEXT PRIMARY KEY',
      'resource_id TEXT NOT NULL UNIQUE REFERENCES resources(resource_id) ON DELETE CASCADE',
      'project_id TEXT REFERENCES projects(project_id)',
      'parent_run_id TEXT REFERENCES runs(run_id)',
      'root_run_id TEXT NOT NULL REFERENCES runs(run_id)',
      'lineage_kind TEXT',
      'restart_number INTEGER NOT NULL DEFAULT 0',
      'parent_terminal_fingerprint BLOB',
      'definition_digest BLOB NOT NULL REFERENCES workflow_definitions(definition_digest)',
      'workflow_ref TEXT NOT NULL',
      `launch_options_hash ${HASH_NN}`,
      'title TEXT',
      'status TEXT NOT NULL',
      'paused INTEGER NOT NULL DEFAULT 0',
      'status_detail TEXT',
      `input_hash ${HASH_NN}`,
      `final_output_hash ${HASH}`,
      `error_hash ${HASH}`,
      `presentation_prompt_hash ${HASH}`,
      'created_at INTEGER NOT NULL',
      'updated_at INTEGER NOT NULL',
      'finished_at INTEGER',
    ]),
    table(
      'run_view_content',
      [
        `run_id ${RUN_FK}`,
        'content_hash BLOB NOT NULL',
        'media_type TEXT NOT NULL',
        'byte_length INTEGER NOT NULL',
        'content BLOB NOT NULL',
        'created_at INTEGER NOT NULL',
      ],
      ['PRIMARY KEY (run_id, content_hash, media_type)'],
    ),
    table('viewer_runs', [
      'run_id TEXT PRIMARY KEY REFERENCES runs(run_id) ON DELETE CASCADE',
      'presentation_revision INTEGER NOT NULL',
      'retained_from_revision INTEGER NOT NULL',
      'updated_at INTEGER NOT NULL',
    ]),
    table(
      'viewer_deltas',
      [
        'run_id TEXT NOT NULL REFERENCES viewer_runs(run_id) ON DELETE CASCADE',
        'presentation_revision INTEGER NOT NULL',
        'delta_index INTEGER NOT NULL',
        'target_type TEXT NOT NULL',
        'target_key TEXT NOT NULL',
        `patch_hash ${HASH_NN}`,
        'recorded_at INTEGER NOT NULL',
      ],
      ['PRIMARY KEY (run_id, presentation_revision, delta_index)'],
    ),
    table(
      'viewer_session_checkpoints',
      [
        'run_id TEXT NOT NULL REFERENCES viewer_runs(run_id) ON DELETE CASCADE',
        'event_seq INTEGER NOT NULL',
        `state_hash ${HASH_NN}`,
        'recorded_at INTEGER NOT NULL',
      ],
      ['PRIMARY KEY (run_id, event_seq)'],
    ),
    table(
      'run_sources',
      [`run_id ${RUN_FK}`, 'mount_path TEXT NOT NULL', 'source_type TEXT NOT NULL', 'source_ref TEXT NOT NULL', 'source_revision TEXT NOT NULL'],
      ['PRIMARY KEY (run_id, mount_path)'],
    ),
    table('run_bindings', [
      'run_id TEXT PRIMARY KEY REFERENCES runs(run_id) ON DELETE CASCADE',
      'origin_session_id TEXT NOT NULL',
      'execution_mode TEXT NOT NULL',
      'created_at INTEGER NOT NULL',
    ]),
    table(
      'workflow_settings',
      [
        'scope_id TEXT PRIMARY KEY',
        'resource_id TEXT NOT NULL UNIQUE REFERENCES resources(resource_id) ON DELETE CASCADE',
        `origin_run_id ${RUN_FK}`,
        `active_run_id ${RUN_FK}`,
        'mount_path TEXT NOT NULL',
        'invocation INTEGER NOT NULL',
        `initial_hash ${HASH_NN}`,
        `current_hash ${HASH_NN}`,
        'created_at INTEGER NOT NULL',
        'updated_at INTEGER NOT NULL',
      ],
      ['UNIQUE (origin_run_id, mount_path, invocation)'],
    ),
    table(
      'workflow_setting_changes',
      [
        'change_id TEXT PRIMARY KEY',
        'scope_id TEXT NOT NULL REFERENCES workflow_settings(scope_id) ON DELETE CASCADE',
        'request_id TEXT NOT NULL',
        'change_number INTEGER NOT NULL',
        `actor_type ${ACTOR}`,
        'actor_id TEXT',
        'source_type TEXT NOT NULL',
        `patch_hash ${HASH_NN}`,
        `before_hash ${HASH_NN}`,
        `after_hash ${HASH_NN}`,
        'accepted_at INTEGER NOT NULL',
      ],
      ['UNIQUE (scope_id, request_id)', 'UNIQUE (scope_id, change_number)'],
    ),
    table(
      'workflow_follow_ups',
      [
        'follow_up_id TEXT PRIMARY KEY',
        'resource_id TEXT NOT NULL UNIQUE REFERENCES resources(resource_id) ON DELETE CASCADE',
        `run_id ${RUN_FK}`,
        'request_id TEXT NOT NULL',
        'order_number INTEGER NOT NULL',
        'target_session_id TEXT NOT NULL',
        `actor_type ${ACTOR}`,
        'actor_id TEXT',
        'source_type TEXT NOT NULL',
        `prompt_hash ${HASH_NN}`,
        'status TEXT NOT NULL',
        `reason_hash ${HASH}`,
        'created_at INTEGER NOT NULL',
        'updated_at INTEGER NOT NULL',
      ],
      ['UNIQUE (run_id, request_id)', 'UNIQUE (run_id, order_number)'],
    ),
    table('run_queue', [
      'run_id TEXT PRIMARY KEY REFERENCES runs(run_id) ON DELETE CASCADE',
      'status TEXT NOT NULL',
      'available_at INTEGER NOT NULL',
      'affinity_runner_id TEXT',
      'origin_session_id TEXT NOT NULL',
      'consecutive_errors INTEGER NOT NULL DEFAULT 0',
      'error_code TEXT',
      `error_hash ${HASH}`,
      'created_at INTEGER NOT NULL',
      'updated_at INTEGER NOT NULL',
      'started_at INTEGER',
      'finished_at INTEGER',
    ]),
    table(
      'host_commands',
      [
        'request_id TEXT PRIMARY KEY',
        'client_id TEXT NOT NULL',
        'operation TEXT NOT NULL',
        'idempotency_key TEXT NOT NULL',
        'request_fingerprint BLOB NOT NULL',
        'run_id TEXT REFERENCES runs(run_id) ON DELETE SET NULL',
        'accepted_revision INTEGER',
        'outcome TEXT NOT NULL',
        `receipt_hash ${HASH}`,
        `error_hash ${HASH}`,
        'host_epoch INTEGER NOT NULL',
        'created_at INTEGER NOT NULL',
        'completed_at INTEGER NOT NULL',
      ],
      ['UNIQUE (client_id, idempotency_key)'],
    ),
    table('run_workers', [
      'worker_epoch TEXT PRIMARY KEY',
      `run_id ${RUN_FK}`,
      'generation INTEGER NOT NULL',
      'host_epoch INTEGER NOT NULL',
      `launch_envelope_hash ${HASH_NN}`,
      'pid INTEGER',
      'process_start_identity TEXT',
      'status TEXT NOT NULL',
      'started_at INTEGER NOT NULL',
      'ready_at INTEGER',
      'finished_at INTEGER',
      'exit_code INTEGER',
      'signal TEXT',
      `diagnostic_hash ${HASH}`,
    ]),
    table(
      'worker_messages',
      [
        'worker_epoch TEXT NOT NULL REFERENCES run_workers(worker_epoch) ON DELETE CASCADE',
        'message_id TEXT NOT NULL',
        'request_fingerprint BLOB NOT NULL',
        'outcome TEXT NOT NULL',
        'accepted_revision INTEGER',
        `result_hash ${HASH}`,
        `error_hash ${HASH}`,
        'completed_at INTEGER NOT NULL',
      ],
      ['PRIMARY KEY (worker_epoch, message_id)'],
    ),
    table(
      'node_attempts',
      [
        'attempt_id TEXT PRIMARY KEY',
        `run_id ${RUN_FK}`,
        'node_id TEXT NOT NULL',
        'attempt_number INTEGER NOT NULL',
        'node_type TEXT NOT NULL',
        'status TEXT NOT NULL',
        `prompt_hash ${HASH}`,
        `output_hash ${HASH}`,
        `receipt_hash ${HASH}`,
        `error_hash ${HASH}`,
        'settings_scope_id TEXT REFERENCES workflow_settings(scope_id)',
        'settings_change_number INTEGER',
        `settings_hash ${HASH}`,
        'started_at INTEGER',
        'deadline_at INTEGER',
        'finished_at INTEGER',
        'created_at INTEGER NOT NULL',
        'updated_at INTEGER NOT NULL',
      ],
      ['UNIQUE (run_id, node_id, attempt_number)'],
    ),
    table(
      'run_steps',
      [`run_id ${RUN_FK}`, 'step_index INTEGER NOT NULL', 'attempt_id TEXT NOT NULL REFERENCES node_attempts(attempt_id)', `output_override_hash ${HASH}`],
      ['PRIMARY KEY (run_id, step_index)', 'UNIQUE (run_id, attempt_id)'],
    ),
    table(
      'workflow_updates',
      [
        'update_id TEXT PRIMARY KEY',
        'attempt_id TEXT NOT NULL REFERENCES node_attempts(attempt_id) ON DELETE CASCADE',
        'update_seq INTEGER NOT NULL',
        'run_revision INTEGER NOT NULL',
        'update_type TEXT NOT NULL',
        'update_key TEXT NOT NULL',
        `data_hash ${HASH_NN}`,
        'recorded_at INTEGER NOT NULL',
      ],
      ['UNIQUE (attempt_id, update_seq)'],
    ),
    table('session_segments', [
      'segment_id TEXT PRIMARY KEY',
      `run_id ${RUN_FK}`,
      'attempt_id TEXT REFERENCES node_attempts(attempt_id)',
      'capture_key TEXT',
      'session_id TEXT NOT NULL',
      'resource_id TEXT NOT NULL UNIQUE REFERENCES resources(resource_id)',
      `binding_hash ${HASH}`,
      'status TEXT NOT NULL',
      'entry_count INTEGER NOT NULL DEFAULT 0',
      'event_count INTEGER NOT NULL DEFAULT 0',
      `failure_hash ${HASH}`,
      'created_at INTEGER NOT NULL',
      'finished_at INTEGER',
    ]),
    table(
      'session_entries',
      [
        'segment_id TEXT NOT NULL REFERENCES session_segments(segment_id) ON DELETE CASCADE',
        `run_id ${RUN_FK}`,
        'entry_seq INTEGER NOT NULL',
        'run_seq INTEGER NOT NULL',
        'entry_id TEXT NOT NULL',
        `entry_hash ${HASH_NN}`,
        'recorded_at INTEGER NOT NULL',
      ],
      ['PRIMARY KEY (segment_id, entry_seq)', 'UNIQUE (segment_id, entry_id)', 'UNIQUE (run_id, run_seq)'],
    ),
    table(
      'attempt_entries',
      [
        'attempt_id TEXT NOT NULL REFERENCES node_attempts(attempt_id) ON DELETE CASCADE',
        'role TEXT NOT NULL',
        'segment_id TEXT NOT NULL',
        'entry_id TEXT NOT NULL',
      ],
      ['PRIMARY KEY (attempt_id, role)', 'FOREIGN KEY (segment_id, entry_id) REFERENCES session_entries(segment_id, entry_id) ON DELETE CASCADE'],
    ),
    table(
      'session_events',
      [
        'segment_id TEXT NOT NULL REFERENCES session_segments(segment_id) ON DELETE CASCADE',
        `run_id ${RUN_FK}`,
        'event_seq INTEGER NOT NULL',
        'run_seq INTEGER NOT NULL',
        'event_type TEXT NOT NULL',
        'node_id TEXT',
        'attempt_id TEXT',
        'turn_id TEXT',
        'message_id TEXT',
        'tool_call_id TEXT',
        `payload_hash ${HASH_NN}`,
        'recorded_at INTEGER NOT NULL',
      ],
      ['PRIMARY KEY (segment_id, event_seq)', 'UNIQUE (run_id, run_seq)'],
    ),
    table('human_decisions', [
      'decision_id TEXT PRIMARY KEY',
      'resource_id TEXT NOT NULL UNIQUE REFERENCES resources(resource_id)',
      `run_id ${RUN_FK}`,
      'attempt_id TEXT NOT NULL REFERENCES node_attempts(attempt_id)',
      'audience TEXT NOT NULL',
      'title TEXT NOT NULL',
      `subject_hash ${HASH_NN}`,
      `presentation_hash ${HASH_NN}`,
      `choices_hash ${HASH_NN}`,
      'request_digest BLOB NOT NULL UNIQUE',
      'presentation_revision INTEGER NOT NULL',
      'deadline_at INTEGER',
      `default_response_hash ${HASH}`,
      `request_hash ${HASH_NN}`,
      'created_at INTEGER NOT NULL',
    ]),
    table('interactive_requests', [
      'request_id TEXT PRIMARY KEY',
      `run_id ${RUN_FK}`,
      'attempt_id TEXT NOT NULL UNIQUE REFERENCES node_attempts(attempt_id) ON DELETE CASCADE',
      'target_session_id TEXT NOT NULL',
      'kind TEXT NOT NULL',
      `contract_hash ${HASH_NN}`,
      'revision INTEGER NOT NULL DEFAULT 1',
      'status TEXT NOT NULL',
      'unproductive_turn_ends INTEGER NOT NULL DEFAULT 0',
      'accepted_submission_id TEXT',
      'created_at INTEGER NOT NULL',
      'updated_at INTEGER NOT NULL',
      'settled_at INTEGER',
      'consumed_at INTEGER',
    ]),
    table(
      'workflow_messages',
      [
        'workflow_message_id TEXT PRIMARY KEY',
        `run_id ${RUN_FK}`,
        'target_session_id TEXT NOT NULL',
        'kind TEXT NOT NULL',
        'source_id TEXT NOT NULL',
        `content_hash ${HASH_NN}`,
        'order_number INTEGER NOT NULL',
        'status TEXT NOT NULL',
        'pi_session_entry_id TEXT',
        'created_at INTEGER NOT NULL',
        'updated_at INTEGER NOT NULL',
      ],
      ['UNIQUE (target_session_id, order_number)'],
    ),
    table('workflow_turns', [
      'workflow_turn_id TEXT PRIMARY KEY',
      'workflow_message_id TEXT NOT NULL REFERENCES workflow_messages(workflow_message_id) ON DELETE CASCADE',
      `run_id ${RUN_FK}`,
      'target_session_id TEXT NOT NULL',
      'state TEXT NOT NULL',
      'stop_reason TEXT',
      'response_session_entry_id TEXT',
      'started_at INTEGER NOT NULL',
      'ended_at INTEGER',
    ]),
    table('session_terminal_views', [
      'target_session_id TEXT PRIMARY KEY',
      'cleared_run_id TEXT REFERENCES runs(run_id) ON DELETE SET NULL',
      'cleared_at INTEGER NOT NULL',
    ]),
    table(
      'interactive_submissions',
      [
        'submission_id TEXT PRIMARY KEY',
        'request_id TEXT NOT NULL REFERENCES interactive_requests(request_id) ON DELETE CASCADE',
        'idempotency_key TEXT NOT NULL',
        'request_revision INTEGER NOT NULL',
        `payload_hash ${HASH_NN}`,
        'outcome TEXT NOT NULL',
        `receipt_hash ${HASH}`,
        'submitted_at INTEGER NOT NULL',
      ],
      ['UNIQUE (request_id, idempotency_key)'],
    ),
    table('human_decision_resolutions', [
      'decision_id TEXT PRIMARY KEY REFERENCES human_decisions(decision_id) ON DELETE CASCADE',
      'outcome TEXT NOT NULL',
      'provenance TEXT NOT NULL',
      `response_hash ${HASH}`,
      'reason TEXT',
      'channel TEXT',
      'actor_id TEXT',
      'request_digest BLOB NOT NULL',
      'resolved_at INTEGER NOT NULL',
    ]),
    table(
      'human_decision_submissions',
      [
        'decision_id TEXT NOT NULL REFERENCES human_decisions(decision_id) ON DELETE CASCADE',
        'attempt_id TEXT NOT NULL',
        'source TEXT NOT NULL',
        'actor_id TEXT',
        'channel TEXT',
        `candidate_hash ${HASH_NN}`,
        'outcome TEXT NOT NULL',
        `result_hash ${HASH}`,
        'submitted_at INTEGER NOT NULL',
      ],
      ['PRIMARY KEY (decision_id, attempt_id)'],
    ),
    table('continuations', [
      'decision_id TEXT PRIMARY KEY REFERENCES human_decisions(decision_id) ON DELETE CASCADE',
      'parent_run_id TEXT NOT NULL UNIQUE REFERENCES runs(run_id)',
      'continuation_run_id TEXT NOT NULL UNIQUE REFERENCES runs(run_id)',
      'created_at INTEGER NOT NULL',
    ]),
    table(
      'controller_resources',
      [
        'controller_resource_id TEXT PRIMARY KEY',
        'resource_id TEXT NOT NULL UNIQUE REFERENCES resources(resource_id) ON DELETE CASCADE',
        'project_id TEXT REFERENCES projects(project_id)',
        'controller_name TEXT NOT NULL',
        'resource_key TEXT NOT NULL',
        'uid TEXT NOT NULL UNIQUE',
        'generation INTEGER NOT NULL',
        `spec_hash ${HASH_NN}`,
        `status_hash ${HASH_NN}`,
        'deletion_requested_at INTEGER',
        'created_at INTEGER NOT NULL',
        'updated_at INTEGER NOT NULL',
      ],
      ['UNIQUE (project_id, controller_name, resource_key)'],
    ),
    table(
      'controller_finalizers',
      [
        'controller_resource_id TEXT NOT NULL REFERENCES controller_resources(controller_resource_id) ON DELETE CASCADE',
        'finalizer TEXT NOT NULL',
        'position INTEGER NOT NULL',
      ],
      ['PRIMARY KEY (controller_resource_id, finalizer)', 'UNIQUE (controller_resource_id, position)'],
    ),
    table('controller_queue', [
      'controller_resource_id TEXT PRIMARY KEY REFERENCES controller_resources(controller_resource_id) ON DELETE CASCADE',
      'available_at INTEGER NOT NULL',
      'queue_version INTEGER NOT NULL DEFAULT 1',
      'consecutive_errors INTEGER NOT NULL DEFAULT 0',
      `last_error_hash ${HASH}`,
      'created_at INTEGER NOT NULL',
      'updated_at INTEGER NOT NULL',
    ]),
    table(
      'controller_workflows',
      [
        'request_id TEXT PRIMARY KEY',
        'controller_resource_id TEXT NOT NULL REFERENCES controller_resources(controller_resource_id) ON DELETE CASCADE',
        'request_key TEXT NOT NULL',
        'workflow_name TEXT NOT NULL',
        'input_fingerprint BLOB NOT NULL',
        'reserved_run_id TEXT',
        'run_id TEXT REFERENCES runs(run_id)',
        'status TEXT NOT NULL',
        'attempt_count INTEGER NOT NULL DEFAULT 0',
        `error_hash ${HASH}`,
        'created_at INTEGER NOT NULL',
        'updated_at INTEGER NOT NULL',
      ],
      ['UNIQUE (controller_resource_id, request_key)'],
    ),
    table(
      'effects',
      [
        'effect_id TEXT PRIMARY KEY',
        'resource_id TEXT NOT NULL UNIQUE REFERENCES resources(resource_id)',
        'source_resource_id TEXT NOT NULL REFERENCES resources(resource_id)',
        'source_revision INTEGER NOT NULL',
        'effect_type TEXT NOT NULL',
        'idempotency_key TEXT NOT NULL',
        `payload_hash ${HASH_NN}`,
        'owner_scope TEXT NOT NULL',
        'status TEXT NOT NULL',
        'attempt_count INTEGER NOT NULL DEFAULT 0',
        'next_attempt_at INTEGER',
        `result_hash ${HASH}`,
        'external_ref TEXT',
        `error_hash ${HASH}`,
        'created_at INTEGER NOT NULL',
        'updated_at INTEGER NOT NULL',
        'settled_at INTEGER',
      ],
      ['UNIQUE (source_resource_id, effect_type, idempotency_key)'],
    ),
    table(
      'effect_attempts',
      [
        'effect_id TEXT NOT NULL REFERENCES effects(effect_id) ON DELETE CASCADE',
        'attempt_number INTEGER NOT NULL',
        'owner_id TEXT NOT NULL',
        'lease_generation INTEGER NOT NULL',
        'started_at INTEGER NOT NULL',
        'finished_at INTEGER',
        'outcome TEXT',
        `result_hash ${HASH}`,
        `error_hash ${HASH}`,
      ],
      ['PRIMARY KEY (effect_id, attempt_number)'],
    ),
    table(
      'channels',
      [
        'channel_id TEXT PRIMARY KEY',
        'resource_id TEXT NOT NULL UNIQUE REFERENCES resources(resource_id)',
        'adapter_type TEXT NOT NULL',
        'profile_key TEXT NOT NULL',
        'created_at INTEGER NOT NULL',
      ],
      ['UNIQUE (adapter_type, profile_key)'],
    ),
    table(
      'channel_cursors',
      [
        'channel_id TEXT NOT NULL REFERENCES channels(channel_id) ON DELETE CASCADE',
        'cursor_key TEXT NOT NULL',
        'cursor_value TEXT NOT NULL',
        'updated_at INTEGER NOT NULL',
      ],
      ['PRIMARY KEY (channel_id, cursor_key)'],
    ),
    table('channel_messages', [
      'message_id TEXT PRIMARY KEY',
      'channel_id TEXT NOT NULL REFERENCES channels(channel_id) ON DELETE CASCADE',
      'decision_id TEXT REFERENCES human_decisions(decision_id)',
      'purpose TEXT NOT NULL',
      `content_hash ${HASH_NN}`,
      'status TEXT NOT NULL',
      'created_at INTEGER NOT NULL',
      'updated_at INTEGER NOT NULL',
    ]),
  ];
}

/** The indexes of the real schema (names and columns); none on `runs.root_run_id` or `runs.created_at` alone. */
const INDEXES = [
  'CREATE INDEX leases_expires_idx ON leases(expires_at) WHERE expires_at IS NOT NULL',
  'CREATE INDEX leases_owner_idx ON leases(owner_type, owner_id) WHERE owner_type IS NOT NULL',
  'CREATE INDEX events_resource_idx ON events(resource_id, event_seq)',
  'CREATE INDEX runs_project_idx ON runs(project_id, created_at DESC)',
  'CREATE INDEX runs_status_idx ON runs(status, updated_at DESC)',
  'CREATE INDEX runs_parent_idx ON runs(parent_run_id)',
  "CREATE UNIQUE INDEX runs_restart_parent_idx ON runs(parent_run_id) WHERE lineage_kind = 'restart'",
  'CREATE INDEX viewer_deltas_resume_idx ON viewer_deltas(run_id, presentation_revision, delta_index)',
  'CREATE INDEX run_bindings_session_idx ON run_bindings(origin_session_id, created_at DESC)',
  'CREATE INDEX workflow_settings_active_run_idx ON workflow_settings(active_run_id, mount_path, invocation)',
  'CREATE INDEX workflow_follow_ups_order_idx ON workflow_follow_ups(target_session_id, run_id, order_number)',
  'CREATE INDEX run_queue_claim_idx ON run_queue(status, available_at, created_at)',
  "CREATE UNIQUE INDEX run_queue_active_session_idx ON run_queue(origin_session_id) WHERE status IN ('queued', 'starting', 'running')",
  'CREATE INDEX host_commands_run_idx ON host_commands(run_id, created_at)',
  "CREATE UNIQUE INDEX run_workers_active_idx ON run_workers(run_id) WHERE status IN ('starting', 'ready', 'running')",
  'CREATE INDEX run_workers_generation_idx ON run_workers(run_id, generation, started_at)',
  "CREATE UNIQUE INDEX node_attempts_active_idx ON node_attempts(run_id) WHERE status IN ('pending', 'running', 'waiting')",
  'CREATE INDEX node_attempts_run_idx ON node_attempts(run_id, created_at)',
  'CREATE INDEX node_attempts_deadline_idx ON node_attempts(deadline_at) WHERE deadline_at IS NOT NULL',
  'CREATE INDEX run_steps_attempt_idx ON run_steps(attempt_id)',
  'CREATE INDEX workflow_updates_key_idx ON workflow_updates(attempt_id, update_type, update_key, update_seq DESC)',
  'CREATE INDEX session_segments_run_idx ON session_segments(run_id, created_at)',
  'CREATE INDEX session_entries_run_idx ON session_entries(run_id, run_seq)',
  'CREATE INDEX attempt_entries_entry_idx ON attempt_entries(segment_id, entry_id)',
  'CREATE INDEX session_events_run_idx ON session_events(run_id, run_seq)',
  'CREATE INDEX human_decisions_run_idx ON human_decisions(run_id, created_at)',
  'CREATE INDEX human_decisions_deadline_idx ON human_decisions(deadline_at) WHERE deadline_at IS NOT NULL',
  'CREATE INDEX interactive_requests_session_idx ON interactive_requests(target_session_id, status, created_at)',
  'CREATE INDEX workflow_messages_session_idx ON workflow_messages(target_session_id, status, order_number)',
  'CREATE INDEX workflow_messages_run_idx ON workflow_messages(run_id, order_number)',
  'CREATE INDEX workflow_messages_source_idx ON workflow_messages(kind, source_id, order_number)',
  "CREATE UNIQUE INDEX workflow_messages_pending_step_source_idx ON workflow_messages(source_id) WHERE kind = 'step' AND status = 'pending'",
  "CREATE UNIQUE INDEX workflow_turns_open_message_idx ON workflow_turns(workflow_message_id) WHERE state = 'started'",
  'CREATE INDEX workflow_turns_session_idx ON workflow_turns(target_session_id, state, started_at)',
  'CREATE INDEX controller_resources_name_idx ON controller_resources(controller_name, resource_key)',
  'CREATE INDEX controller_queue_claim_idx ON controller_queue(available_at, created_at)',
  'CREATE INDEX effects_pending_idx ON effects(status, next_attempt_at, created_at)',
  'CREATE INDEX channel_messages_decision_idx ON channel_messages(decision_id, purpose, created_at)',
];

/** How a variant differs from the full layout of its release line. */
export interface SchemaVariant {
  /** Default `0.16`. Both lines have the same layout; the line decides only the file's `app_version`. */
  line?: ReleaseLine;
  /** `table.column` to leave out, or `table` to leave the whole table out (with its indexes). */
  drop?: readonly string[];
  /**
   * Keep only `schema_meta` and the tables and columns the read side uses
   * (`READ_SIDE_COLUMNS`): proves that list is complete.
   */
  readSideOnly?: boolean;
  /**
   * Keep only `schema_meta` and the tables and columns the read side and the write side use
   * (`READ_SIDE_COLUMNS` and `WRITE_SIDE_COLUMNS`): proves the write list is complete.
   */
  writeSideOnly?: boolean;
}

/** The union of column lists by table. */
function unionColumns(...lists: Array<Readonly<Record<string, readonly string[]>>>): Record<string, Set<string>> {
  const union: Record<string, Set<string>> = {};
  for (const list of lists) for (const [name, columns] of Object.entries(list)) for (const column of columns) (union[name] ??= new Set()).add(column);
  return union;
}

function columnName(definition: string): string {
  return definition.split(/\s+/)[0] as string;
}

/** The layout of one variant. */
export function schemaModel(variant: SchemaVariant = {}): SchemaModel {
  const drop = new Set(variant.drop ?? []);
  let tables = baseTables();
  if (variant.readSideOnly === true || variant.writeSideOnly === true) {
    const used = variant.writeSideOnly === true ? unionColumns(READ_SIDE_COLUMNS, WRITE_SIDE_COLUMNS) : unionColumns(READ_SIDE_COLUMNS);
    tables = tables
      .filter((entry) => entry.name === 'schema_meta' || entry.name in used)
      .map((entry) => {
        if (entry.name === 'schema_meta') return entry;
        const keep = used[entry.name] as Set<string>;
        const columns = entry.columns
          .filter((column) => keep.has(columnName(column)))
          .map((column) => column.replace(/ REFERENCES (\w+)\(.*$/, (match, target: string) => (target in used ? match : '')));
        return { ...entry, columns };
      });
  }
  tables = tables
    .filter((entry) => !drop.has(entry.name))
    .map((entry) => {
      const columns = entry.columns.filter((column) => !drop.has(`${entry.name}.${columnName(column)}`));
      const kept = new Set(columns.map(columnName));
      // A table constraint stays only while every column it names is still there.
      const constraints = entry.constraints.filter((constraint) =>
        (/\(([^)]*)\)/.exec(constraint)?.[1] ?? '').split(',').every((part) => kept.has(part.trim())),
      );
      return { ...entry, columns, constraints };
    });
  const names = new Set(tables.map((entry) => entry.name));
  const indexes = INDEXES.filter((statement) => {
    const match = /ON (\w+)\(([^)]*)\)/.exec(statement) as RegExpExecArray;
    const target = tables.find((entry) => entry.name === match[1]);
    if (target === undefined || !names.has(target.name)) return false;
    const columns = new Set(target.columns.map(columnName));
    const used = (match[2] as string).split(',').map((part) => part.trim().split(/\s+/)[0] as string);
    const where = /WHERE (\w+)/.exec(statement)?.[1];
    return used.every((column) => columns.has(column)) && (where === undefined || columns.has(where));
  });
  return { tables, indexes };
}

/** The DDL of a layout: STRICT tables, then the indexes, then the host-state row. */
export function schemaSql(model: SchemaModel): string {
  const tables = model.tables.map((entry) => `CREATE TABLE ${entry.name} (\n  ${[...entry.columns, ...entry.constraints].join(',\n  ')}\n) STRICT;`);
  const hostRow = model.tables.some((entry) => entry.name === 'workflow_host_state') ? ['INSERT INTO workflow_host_state(id, epoch) VALUES (1, 0);'] : [];
  return `${[...tables, ...model.indexes.map((statement) => `${statement};`), ...hostRow].join('\n\n')}\n`;
}

/** The column names of a table in a layout (empty when the table is not there). */
export function columnsOf(model: SchemaModel, tableName: string): Set<string> {
  const entry = model.tables.find((candidate) => candidate.name === tableName);
  return new Set((entry?.columns ?? []).map(columnName));
}
