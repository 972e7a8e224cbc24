import { StoreError } from './errors.js';
import type { LeaseExpiryMark } from './lease-expiries.js';

/**
 * The opaque cursor of the run-list change feed (docs/PROTOCOL.md
 * "workflowRunChanges"): base64url of `v2:<databaseId>:<position>:<expiryAt>[:<expiryRunId>]`,
 * where the position is one of the durable order of `run-change-log.ts`, the database id names
 * the file that minted it (so a cursor of another file is recognised, not misread as a position
 * of this one), and the expiry mark (`lease-expiries.ts`) says up to which lease expiry the
 * subscriber has been told (docs/PROTOCOL.md "Lease expiry"). Cursors minted before expiries
 * were delivered, `v1:<databaseId>:<position>`, still decode, without a mark.
 */

/** A decoded cursor. */
export interface RunChangeCursor {
  databaseId: string;
  /** A position of the log, ≥ 0. */
  seq: number;
  /**
   * Every lease expiry up to this mark of a run at a position ≤ `seq` has been delivered;
   * undefined for a `v1` cursor.
   */
  expiry?: LeaseExpiryMark;
}

/**
 * The error text of a cursor that is not one this server mints (the GraphQL error of
 * `workflowRunChanges(after:)`, code `BAD_USER_INPUT`).
 */
export const MALFORMED_RUN_CHANGE_CURSOR =
  'Malformed run change cursor: pass the cursor of a WorkflowRunChange or WorkflowRunChangesResetRequired event, or null for live only';

/**
 * Longest cursor accepted, in characters (a database id of 80 characters, two 16-digit numbers
 * and a run id of 200 characters fit).
 */
const MAX_CURSOR_LENGTH = 480;

const DECODED_V1 = /^v1:([A-Za-z0-9-]{1,80}):(0|[1-9][0-9]{0,15})$/;
const DECODED_V2 = /^v2:([A-Za-z0-9-]{1,80}):(0|[1-9][0-9]{0,15}):(0|[1-9][0-9]{0,15})(?::([A-Za-z0-9][A-Za-z0-9._-]{0,199}))?$/;

/** Encodes a cursor (base64url, no padding): `v2` with an expiry mark, else `v1`. */
export function encodeRunChangeCursor(cursor: RunChangeCursor): string {
  const { expiry } = cursor;
  const text =
    expiry === undefined
      ? `v1:${cursor.databaseId}:${cursor.seq}`
      : `v2:${cursor.databaseId}:${cursor.seq}:${expiry.at}${expiry.runId === null ? '' : `:${expiry.runId}`}`;
  return Buffer.from(text, 'utf8').toString('base64url');
}

/**
 * Decodes a cursor of {@link encodeRunChangeCursor}.
 *
 * @throws StoreError(validation, field `after`) {@link MALFORMED_RUN_CHANGE_CURSOR} for anything
 *   else (not base64url, another shape, a number beyond 2^53)
 */
export function decodeRunChangeCursor(text: string): RunChangeCursor {
  const malformed = (): StoreError => new StoreError('validation', MALFORMED_RUN_CHANGE_CURSOR, 'after');
  if (text.length === 0 || text.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(text)) throw malformed();
  const decoded = Buffer.from(text, 'base64url').toString('utf8');
  let cursor: RunChangeCursor;
  const v2 = DECODED_V2.exec(decoded);
  if (v2 !== null) {
    cursor = { databaseId: v2[1] as string, seq: Number(v2[2]), expiry: { at: Number(v2[3]), runId: v2[4] ?? null } };
  } else {
    const v1 = DECODED_V1.exec(decoded);
    if (v1 === null) throw malformed();
    cursor = { databaseId: v1[1] as string, seq: Number(v1[2]) };
  }
  // base64url decoding is lenient: only the one spelling this server mints is a cursor.
  if (!Number.isSafeInteger(cursor.seq) || (cursor.expiry !== undefined && !Number.isSafeInteger(cursor.expiry.at)) || encodeRunChangeCursor(cursor) !== text) {
    throw malformed();
  }
  return cursor;
}
