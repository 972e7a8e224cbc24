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
 * Content-addressed blobs (docs/STORE-RULES.md §2.2): key = SHA-256 of the bytes, stored once.
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
    const inserted = this.database.run(
      'INSERT OR IGNORE INTO blobs(blob_hash, media_type, byte_length, content, created_at) VALUES (?, ?, ?, ?, ?)',
      hash,
      mediaType,
      bytes.length,
      bytes,
      now,
    );
    // A row this statement inserted holds exactly these bytes: only an existing row is re-read
    // and compared (docs/STORE-RULES.md §2.2), so a new blob costs one statement.
    if (inserted.changes === 1) return hash;
    const row = this.database.get<BlobRow>('SELECT media_type, byte_length, content FROM blobs WHERE blob_hash = ?', hash);
    if (row === undefined || row.media_type !== mediaType || row.byte_length !== bytes.length || !row.content.equals(bytes)) {
      throw new StoreError('integrity', 'Content-addressed blob conflict');
    }
    return hash;
  }

  /**
   * Reads a JSON blob and normalises it (docs/STORE-RULES.md §2.1).
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
   * Deletes blobs no foreign key references (done at read-write open, docs/STORE-RULES.md §1).
   *
   * The referencing columns are the ones the file itself declares: every foreign key into
   * `blobs` that `PRAGMA foreign_key_list` reports, in every table, so a blob
   * that a table this code does not know (added by another tool or a later release) still
   * references is never deleted. The referenced hashes are collected once, in one pass over
   * each referencing column, and every blob outside that set is deleted: none of these columns
   * is indexed, so a per-blob `NOT EXISTS` would scan every referencing table once per blob
   * (minutes on a store of 100,000 runs); this stays linear in the size of the store.
   *
   * @returns the number of blobs deleted
   */
  pruneUnreferenced(): number {
    const references = blobReferences(this.database);
    if (references.length === 0) return this.database.run('DELETE FROM blobs').changes;
    const referenced = references
      .map(({ table, column }) => `SELECT ${quoteIdentifier(column)} FROM ${quoteIdentifier(table)} WHERE ${quoteIdentifier(column)} IS NOT NULL`)
      .join('\n      UNION ALL ');
    return this.database.run(`DELETE FROM blobs WHERE blob_hash NOT IN (\n      ${referenced})`).changes;
  }
}

/** A column holding a foreign key into `blobs`. */
export interface BlobReference {
  table: string;
  column: string;
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * Every column of the file with a foreign key into `blobs(blob_hash)` (or into `blobs`
 * without a column: its primary key), as `PRAGMA foreign_key_list` reports them, ordered by
 * table and column.
 */
export function blobReferences(database: StateDatabase): BlobReference[] {
  return database.all<BlobReference>(
    `SELECT m.name AS "table", f."from" AS "column"
     FROM sqlite_master m, pragma_foreign_key_list(m.name) f
     WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND m.name <> 'blobs'
       AND lower(f."table") = 'blobs' AND (f."to" IS NULL OR lower(f."to") = 'blob_hash')
     ORDER BY m.name, f."from"`,
  );
}
