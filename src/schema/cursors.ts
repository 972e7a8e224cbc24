import type { LineageKey, RunKey } from '../store/index.js';
import type { CursorCodec } from './connections.js';
import { badUserInput, quotedPrefix } from './bad-user-input.js';

/**
 * Opaque connection cursors: base64url of a small JSON array tagged by the list they belong
 * to. `workflowRuns` cursors carry the keyset key (created_at epoch ms, run id), so paging is
 * stable under concurrent inserts; lineage cursors carry the chain position.
 */
export function encodeRunCursor(key: RunKey): string {
  return Buffer.from(JSON.stringify(['run', key.createdAt, key.runId])).toString('base64url');
}

/**
 * Decodes a `workflowRuns` cursor.
 *
 * @throws GraphQLError(BAD_USER_INPUT) `Invalid cursor: <first 16 characters of the cursor>`
 */
export function decodeRunCursor(cursor: string): RunKey {
  const value = parse(cursor);
  if (value.length === 3 && value[0] === 'run' && Number.isSafeInteger(value[1]) && typeof value[2] === 'string') {
    return { createdAt: value[1] as number, runId: value[2] };
  }
  throw badUserInput(`Invalid cursor: ${quotedPrefix(cursor)}`);
}

/** Encodes a lineage cursor. */
export function encodeLineageCursor(key: LineageKey): string {
  const value = key.root ? ['lineage-root'] : ['lineage', key.createdAt, key.runId];
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/**
 * Decodes a lineage cursor.
 *
 * @throws GraphQLError(BAD_USER_INPUT) `Invalid cursor: <first 16 characters of the cursor>`
 */
export function decodeLineageCursor(cursor: string): LineageKey {
  const value = parse(cursor);
  if (value.length === 1 && value[0] === 'lineage-root') return { root: true };
  if (value.length === 3 && value[0] === 'lineage' && Number.isSafeInteger(value[1]) && typeof value[2] === 'string') {
    return { root: false, createdAt: value[1] as number, runId: value[2] };
  }
  throw badUserInput(`Invalid cursor: ${quotedPrefix(cursor)}`);
}

function parse(cursor: string): unknown[] {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value)) return value;
  } catch {
    // fall through
  }
  throw badUserInput(`Invalid cursor: ${quotedPrefix(cursor)}`);
}

/** Cursors of `workflowRuns`. */
export const RUN_CURSORS: CursorCodec<RunKey> = { encode: encodeRunCursor, decode: decodeRunCursor };

/** Cursors of `WorkflowRun.lineage`. */
export const LINEAGE_CURSORS: CursorCodec<LineageKey> = { encode: encodeLineageCursor, decode: decodeLineageCursor };
