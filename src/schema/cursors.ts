import { DEFAULT_RUN_ORDER, type LineageKey, type RunKey, type RunOrder, type ViewPositions } from '../store/index.js';
import type { CursorCodec } from './connections.js';
import { badUserInput, quotedPrefix } from './bad-user-input.js';

/**
 * Opaque connection cursors: base64url of a small JSON array tagged by the list they belong
 * to. `workflowRuns` cursors carry their order and the keyset key in it (order field, direction,
 * epoch ms of that field, run id), so paging is stable under concurrent writes and a cursor is
 * never read in another order; lineage cursors carry the chain position.
 */
export function encodeRunCursor(key: RunKey, order: RunOrder = DEFAULT_RUN_ORDER): string {
  return Buffer.from(JSON.stringify(['run', order.field, order.direction, key.at, key.runId])).toString('base64url');
}

/** How an order reads in messages: its GraphQL names, e.g. `CREATED_AT DESC`. */
export function orderName(order: RunOrder): string {
  return `${order.field.toUpperCase()} ${order.direction.toUpperCase()}`;
}

/**
 * Decodes a `workflowRuns` cursor issued for `order`. Cursors of the form used before orders
 * existed (`["run", createdAt, runId]`) are CREATED_AT DESC cursors.
 *
 * @throws GraphQLError(BAD_USER_INPUT) `Invalid cursor: <first 16 characters of the cursor>`;
 *   `This cursor belongs to orderBy <FIELD DIRECTION>, not <FIELD DIRECTION>: page with the
 *   orderBy it came from, or start again without after/before`
 */
export function decodeRunCursor(cursor: string, order: RunOrder = DEFAULT_RUN_ORDER): RunKey {
  const value = parse(cursor);
  let issued: RunOrder | undefined;
  let key: RunKey | undefined;
  if (value.length === 3 && value[0] === 'run' && Number.isSafeInteger(value[1]) && typeof value[2] === 'string') {
    issued = DEFAULT_RUN_ORDER;
    key = { at: value[1] as number, runId: value[2] };
  } else if (
    value.length === 5 &&
    value[0] === 'run' &&
    (value[1] === 'created_at' || value[1] === 'updated_at') &&
    (value[2] === 'asc' || value[2] === 'desc') &&
    Number.isSafeInteger(value[3]) &&
    typeof value[4] === 'string'
  ) {
    issued = { field: value[1], direction: value[2] };
    key = { at: value[3] as number, runId: value[4] };
  }
  if (issued === undefined || key === undefined) throw badUserInput(`Invalid cursor: ${quotedPrefix(cursor)}`);
  if (issued.field !== order.field || issued.direction !== order.direction) {
    throw badUserInput(
      `This cursor belongs to orderBy ${orderName(issued)}, not ${orderName(order)}: page with the orderBy it came from, or start again without after/before`,
    );
  }
  return key;
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

/**
 * Encodes the cursor of an item of a run view's list (`WorkflowRunView.steps`, `.trace`, …): the
 * list's name and the item's position in it (docs/GRAPHQL-CONTRACT.md "The run view").
 */
export function encodeViewCursor(list: string, position: number): string {
  return Buffer.from(JSON.stringify(['view', list, position])).toString('base64url');
}

/**
 * Decodes a cursor of a run view's list.
 *
 * @returns the item's position in the list
 * @throws GraphQLError(BAD_USER_INPUT) `Invalid cursor: <first 16 characters of the cursor>`;
 *   `This cursor belongs to <list>, not <list>: page with cursors of the same list`
 */
export function decodeViewCursor(cursor: string, list: string): number {
  const value = parse(cursor);
  if (value.length !== 3 || value[0] !== 'view' || typeof value[1] !== 'string' || !Number.isSafeInteger(value[2])) {
    throw badUserInput(`Invalid cursor: ${quotedPrefix(cursor)}`);
  }
  if (value[1] !== list) throw badUserInput(`This cursor belongs to ${quotedPrefix(value[1])}, not ${list}: page with cursors of the same list`);
  return value[2] as number;
}

/**
 * Encodes where a client's copy of a run's view stands (`WorkflowRunView.cursor`, each
 * `workflowRunView` event's `cursor`): the run, its revision and the last position of each
 * growing list (docs/PROTOCOL.md "Following a run's view").
 */
export function encodeViewFollowCursor(runId: string, positions: ViewPositions): string {
  const { revision, steps, trace, entries, events, updates } = positions;
  return Buffer.from(JSON.stringify(['view-at', runId, revision, steps, trace, entries, events, updates])).toString('base64url');
}

/** The text of a view cursor of another run. */
export const FOREIGN_VIEW_CURSOR = 'This cursor belongs to another run: follow a run with a cursor of its own view, or with after: null';

/**
 * Decodes a view cursor of `runId`.
 *
 * @throws GraphQLError(BAD_USER_INPUT) `Invalid cursor: <first 16 characters>`; {@link FOREIGN_VIEW_CURSOR}
 */
export function decodeViewFollowCursor(cursor: string, runId: string): ViewPositions {
  const value = parse(cursor);
  const numbers = value.slice(2);
  if (value.length !== 8 || value[0] !== 'view-at' || typeof value[1] !== 'string' || !numbers.every((n) => Number.isSafeInteger(n) && (n as number) >= 0)) {
    throw badUserInput(`Invalid cursor: ${quotedPrefix(cursor)}`);
  }
  if (value[1] !== runId) throw badUserInput(FOREIGN_VIEW_CURSOR);
  const [revision, steps, trace, entries, events, updates] = numbers as number[];
  return { revision, steps, trace, entries, events, updates } as ViewPositions;
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

/** Cursors of `workflowRuns` in one order. */
export function runCursors(order: RunOrder): CursorCodec<RunKey> {
  return { encode: (key) => encodeRunCursor(key, order), decode: (cursor) => decodeRunCursor(cursor, order) };
}

/** Cursors of `WorkflowRun.lineage`. */
export const LINEAGE_CURSORS: CursorCodec<LineageKey> = { encode: encodeLineageCursor, decode: decodeLineageCursor };
