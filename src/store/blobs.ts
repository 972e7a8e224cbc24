import { canonicalJson, normalizeJson, type JsonValue } from './canonical-json.js';
import type { StateDatabase } from './database.js';
import { StoreError } from './errors.js';
import { sha256 } from './values.js';

const JSON_MEDIA = 'application/json';
const TEXT_MEDIA = 'text/plain';

interface BlobRow {
  media_type: string;
  byte_length: number;
  content: Buffer;
}

/**
 * Content-addressed blobs (STORE.md §2.2): key = SHA-256 of the bytes, stored once.
 * Writes join the caller's transaction.
 */
export class BlobStore {
  constructor(private readonly database: StateDatabase) {}

  /**
   * Stores the canonical JSON of `value` as `application/json`.
   *
   * @param now epoch ms for `created_at`
   * @returns the 32-byte blob hash
   * @throws StoreError(validation) for values canonical JSON refuses (§2.1);
   *   StoreError(integrity) `Content-addressed blob conflict`
   */
  putJson(value: unknown, now: number): Buffer {
    return this.put(Buffer.from(canonicalJson(value), 'utf8'), JSON_MEDIA, now);
  }

  /**
   * Stores the UTF-8 bytes of `text` as `text/plain`.
   *
   * @returns the 32-byte blob hash
   * @throws StoreError(integrity) `Content-addressed blob conflict`
   */
  putText(text: string, now: number): Buffer {
    return this.put(Buffer.from(text, 'utf8'), TEXT_MEDIA, now);
  }

  private put(bytes: Buffer, mediaType: string, now: number): Buffer {
    const hash = sha256(bytes);
    this.database.run(
      'INSERT OR IGNORE INTO blobs(blob_hash, media_type, byte_length, content, created_at) VALUES (?, ?, ?, ?, ?)',
      hash,
      mediaType,
      bytes.length,
      bytes,
      now,
    );
    const row = this.database.get<BlobRow>(
      'SELECT media_type, byte_length, content FROM blobs WHERE blob_hash = ?',
      hash,
    );
    if (row === undefined || row.media_type !== mediaType || row.byte_length !== bytes.length || !row.content.equals(bytes)) {
      throw new StoreError('integrity', 'Content-addressed blob conflict');
    }
    return hash;
  }

  /**
   * Reads a JSON blob and normalises it (STORE.md §2.1).
   *
   * @throws StoreError(integrity) `JSON blob is missing or has the wrong media type`
   */
  readJson(hash: Buffer): JsonValue {
    const row = this.database.get<BlobRow>('SELECT media_type, byte_length, content FROM blobs WHERE blob_hash = ?', hash);
    if (row === undefined || row.media_type !== JSON_MEDIA) {
      throw new StoreError('integrity', 'JSON blob is missing or has the wrong media type');
    }
    return normalizeJson(JSON.parse(row.content.toString('utf8')));
  }

  /** Reads a blob's bytes as UTF-8 text (any media type); undefined when missing. */
  readText(hash: Buffer): string | undefined {
    const row = this.database.get<BlobRow>('SELECT media_type, byte_length, content FROM blobs WHERE blob_hash = ?', hash);
    return row?.content.toString('utf8');
  }

  /**
   * Deletes blobs no foreign key references (done at read-write open, STORE.md §1).
   *
   * The referenced hashes are collected once, in one pass over each referencing column, and
   * every blob outside that set is deleted. None of these columns is indexed, so a per-blob
   * `NOT EXISTS` would scan every referencing table once per blob (minutes on a store of
   * 100,000 runs); this stays linear in the size of the store.
   *
   * @returns the number of blobs deleted
   */
  pruneUnreferenced(): number {
    return this.database.run(`DELETE FROM blobs WHERE blob_hash NOT IN (
      SELECT payload_hash FROM events WHERE payload_hash IS NOT NULL
      UNION ALL SELECT definition_hash FROM workflow_definitions
      UNION ALL SELECT launch_options_hash FROM runs
      UNION ALL SELECT input_hash FROM runs
      UNION ALL SELECT final_output_hash FROM runs WHERE final_output_hash IS NOT NULL
      UNION ALL SELECT error_hash FROM runs WHERE error_hash IS NOT NULL
      UNION ALL SELECT presentation_prompt_hash FROM runs WHERE presentation_prompt_hash IS NOT NULL
      UNION ALL SELECT error_hash FROM run_queue WHERE error_hash IS NOT NULL
      UNION ALL SELECT patch_hash FROM viewer_deltas
      UNION ALL SELECT error_hash FROM node_attempts WHERE error_hash IS NOT NULL
      UNION ALL SELECT contract_hash FROM interactive_requests
      UNION ALL SELECT payload_hash FROM interactive_submissions
      UNION ALL SELECT receipt_hash FROM interactive_submissions WHERE receipt_hash IS NOT NULL
      UNION ALL SELECT content_hash FROM workflow_messages)`).changes;
  }
}
