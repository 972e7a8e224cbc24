import { StoreError } from './errors.js';

/**
 * The opaque cursor of the run-list change feed (docs/PROTOCOL.md
 * "workflowRunChanges"): base64url of `v1:<databaseId>:<position>`, where the position is one of
 * the durable order of `run-change-log.ts` and the database id names the file that minted it
 * (so a cursor of another file is recognised, not misread as a position of this one).
 */

/** A decoded cursor. */
export interface RunChangeCursor {
  databaseId: string;
  /** A position of the log, ≥ 0. */
  seq: number;
}

/**
 * The error text of a cursor that is not one this server mints (the GraphQL error of
 * `workflowRunChanges(after:)`, code `BAD_USER_INPUT`).
 */
export const MALFORMED_RUN_CHANGE_CURSOR =
  'Malformed run change cursor: pass the cursor of a WorkflowRunChange or WorkflowRunChangesResetRequired event, or null for live only';

/** Longest cursor accepted, in characters (a database id of 64 characters and a 16-digit position fit well). */
const MAX_CURSOR_LENGTH = 160;

const DECODED = /^v1:([A-Za-z0-9-]{1,80}):(0|[1-9][0-9]{0,15})$/;

/** Encodes a cursor (base64url, no padding). */
export function encodeRunChangeCursor(cursor: RunChangeCursor): string {
  return Buffer.from(`v1:${cursor.databaseId}:${cursor.seq}`, 'utf8').toString('base64url');
}

/**
 * Decodes a cursor of {@link encodeRunChangeCursor}.
 *
 * @throws StoreError(validation, field `after`) {@link MALFORMED_RUN_CHANGE_CURSOR} for anything
 *   else (not base64url, another shape, a position beyond 2^53)
 */
export function decodeRunChangeCursor(text: string): RunChangeCursor {
  const malformed = (): StoreError => new StoreError('validation', MALFORMED_RUN_CHANGE_CURSOR, 'after');
  if (text.length === 0 || text.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(text)) throw malformed();
  const match = DECODED.exec(Buffer.from(text, 'base64url').toString('utf8'));
  if (match === null) throw malformed();
  const seq = Number(match[2]);
  const cursor = { databaseId: match[1] as string, seq };
  // base64url decoding is lenient: only the one spelling this server mints is a cursor.
  if (!Number.isSafeInteger(seq) || encodeRunChangeCursor(cursor) !== text) throw malformed();
  return cursor;
}
