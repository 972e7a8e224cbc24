import { StoreError } from '../store/index.js';

/**
 * The opaque cursor of `workflowRunChainDeltas` (docs/PROTOCOL.md "Following a chain"):
 * base64url of `chain1:<revision>:<runId>`, the last presentation revision the follower applied
 * of the run it was following.
 */

/** A decoded chain cursor. */
export interface ChainCursor {
  /** The run followed. */
  runId: string;
  /** Its last revision applied, ≥ 1. */
  revision: number;
}

/** The error text of a chain cursor this server does not mint (code `BAD_USER_INPUT`). */
export const MALFORMED_CHAIN_CURSOR =
  'Malformed chain cursor: pass the cursor of a workflowRunChainDeltas event, or null to start from a snapshot of the latest run';

const DECODED = /^chain1:([1-9][0-9]{0,15}):([A-Za-z0-9][A-Za-z0-9._-]{0,199})$/;

/** Encodes a chain cursor (base64url, no padding). */
export function encodeChainCursor(cursor: ChainCursor): string {
  return Buffer.from(`chain1:${cursor.revision}:${cursor.runId}`, 'utf8').toString('base64url');
}

/**
 * Decodes a cursor of {@link encodeChainCursor}.
 *
 * @throws StoreError(validation, field `after`) {@link MALFORMED_CHAIN_CURSOR} for anything else
 */
export function decodeChainCursor(text: string): ChainCursor {
  const malformed = (): StoreError => new StoreError('validation', MALFORMED_CHAIN_CURSOR, 'after');
  if (text.length === 0 || text.length > 400 || !/^[A-Za-z0-9_-]+$/.test(text)) throw malformed();
  const match = DECODED.exec(Buffer.from(text, 'base64url').toString('utf8'));
  if (match === null) throw malformed();
  const cursor = { runId: match[2] as string, revision: Number(match[1]) };
  if (!Number.isSafeInteger(cursor.revision) || encodeChainCursor(cursor) !== text) throw malformed();
  return cursor;
}
