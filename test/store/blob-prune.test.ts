/**
 * The blob prune (docs/STORE-RULES.md §1) at a read-write open of our own file works from the foreign
 * keys the file declares (`PRAGMA foreign_key_list`), not from a fixed column list, so a blob
 * that something else still references — a table another tool or a later release added — is
 * never deleted (with a fixed list, the delete broke that foreign key and the open failed with
 * `FOREIGN KEY constraint failed`). Blobs nothing references are still deleted.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { blobReferences } from '../../src/store/blobs.js';
import { WorkflowStore } from '../../src/store/index.js';
import { reserve, sha256Hex, tempDir } from '../helpers/store-fixtures.js';
import { storeInternals } from '../helpers/store-internals.js';

let dir: string;
let path: string;
beforeEach(() => {
  dir = tempDir('blob-prune-');
  path = join(dir, 'state.db');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const open = (): WorkflowStore => WorkflowStore.open({ path, projectPath: dir });

function putBlob(connection: Database.Database, text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const hash = Buffer.from(sha256Hex(bytes), 'hex');
  connection
    .prepare("INSERT INTO blobs(blob_hash, media_type, byte_length, content, created_at) VALUES (?, 'text/plain', ?, ?, 0)")
    .run(hash, bytes.length, bytes);
  return hash;
}

function blobHashes(): string[] {
  const connection = new Database(path, { readonly: true });
  try {
    return (connection.prepare('SELECT blob_hash FROM blobs').all() as Array<{ blob_hash: Buffer }>).map((row) => row.blob_hash.toString('hex')).sort();
  } finally {
    connection.close();
  }
}

describe('blob prune at a read-write open', () => {
  it('finds the blob columns of our own schema from its foreign keys', () => {
    const store = open();
    try {
      expect(blobReferences(storeInternals(store).database).map(({ table, column }) => `${table}.${column}`)).toEqual([
        'effects.error_hash',
        'effects.payload_hash',
        'effects.result_hash',
        'events.payload_hash',
        'human_decision_resolutions.response_hash',
        'human_decision_submissions.candidate_hash',
        'human_decision_submissions.result_hash',
        'human_decisions.choices_hash',
        'human_decisions.default_response_hash',
        'human_decisions.presentation_hash',
        'human_decisions.request_hash',
        'human_decisions.subject_hash',
        'interactive_requests.contract_hash',
        'interactive_submissions.payload_hash',
        'interactive_submissions.receipt_hash',
        'node_attempts.error_hash',
        'node_attempts.output_hash',
        'node_attempts.prompt_hash',
        'node_attempts.receipt_hash',
        'node_attempts.settings_hash',
        'run_queue.error_hash',
        'run_steps.output_override_hash',
        'runs.error_hash',
        'runs.final_output_hash',
        'runs.input_hash',
        'runs.launch_options_hash',
        'runs.presentation_prompt_hash',
        'session_entries.entry_hash',
        'session_events.payload_hash',
        'session_segments.binding_hash',
        'session_segments.failure_hash',
        'viewer_deltas.patch_hash',
        'workflow_definitions.definition_hash',
        'workflow_follow_ups.prompt_hash',
        'workflow_follow_ups.reason_hash',
        'workflow_messages.content_hash',
        'workflow_setting_changes.after_hash',
        'workflow_setting_changes.before_hash',
        'workflow_setting_changes.patch_hash',
        'workflow_settings.current_hash',
        'workflow_settings.initial_hash',
        'workflow_updates.data_hash',
      ]);
    } finally {
      store.close();
    }
  });

  it('keeps a blob only a table of another tool references, and deletes the orphan', () => {
    const store = open();
    reserve(store, 'run-1');
    store.close();
    const connection = new Database(path);
    connection.pragma('foreign_keys = ON');
    connection.exec(`CREATE TABLE review_notes (
      note_id TEXT PRIMARY KEY,
      run_id TEXT NOT NULL REFERENCES runs(run_id),
      body_hash BLOB NOT NULL REFERENCES blobs(blob_hash),
      attachment_hash BLOB REFERENCES blobs
    ) STRICT`);
    const body = putBlob(connection, 'only review_notes.body_hash references this');
    const attachment = putBlob(connection, 'only review_notes.attachment_hash references this (the primary key, no column named)');
    const orphan = putBlob(connection, 'nothing references this');
    connection.prepare('INSERT INTO review_notes(note_id, run_id, body_hash, attachment_hash) VALUES (?, ?, ?, ?)').run('note-1', 'run-1', body, attachment);
    connection.close();
    const before = blobHashes();

    const reopened = open();
    try {
      expect(reopened.getWorkflowRun('run-1')?.input).toEqual({ topic: 'tests' });
    } finally {
      reopened.close();
    }
    const after = blobHashes();
    expect(after).toEqual(before.filter((hash) => hash !== orphan.toString('hex')));
    expect(after).toContain(body.toString('hex'));
    expect(after).toContain(attachment.toString('hex'));
  });
});

/**
 * The prune deletes with SQLite's foreign-key enforcement off (it proves by
 * itself that no column references a deleted blob; with enforcement on, SQLite scanned every
 * unindexed referencing column once per deleted blob: minutes at an open of a 1,000,000-run
 * file with a few hundred orphans). Enforcement is on again after the open, and after a failure.
 */
describe('foreign-key enforcement around the prune', () => {
  it('is on again after a read-write open that pruned', () => {
    const first = open();
    reserve(first, 'run-1');
    putBlob(storeInternals(first).database.connection, 'orphan');
    first.close();
    const store = open();
    try {
      expect(blobHashes()).not.toContain(sha256Hex(Buffer.from('orphan', 'utf8')));
      const connection = storeInternals(store).database.connection;
      expect(connection.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(() => connection.prepare("UPDATE runs SET input_hash = zeroblob(32) WHERE run_id = 'run-1'").run()).toThrow('FOREIGN KEY constraint failed');
    } finally {
      store.close();
    }
  });

  it('is refused inside a transaction, and turned back on when the function throws', () => {
    const store = open();
    try {
      const database = storeInternals(store).database;
      expect(() => database.transaction(() => database.withoutForeignKeyEnforcement(() => 1))).toThrow(
        'withoutForeignKeyEnforcement needs no open transaction',
      );
      expect(() =>
        database.withoutForeignKeyEnforcement(() => {
          expect(database.connection.pragma('foreign_keys', { simple: true })).toBe(0);
          throw new Error('boom');
        }),
      ).toThrow('boom');
      expect(database.connection.pragma('foreign_keys', { simple: true })).toBe(1);
    } finally {
      store.close();
    }
  });
});
