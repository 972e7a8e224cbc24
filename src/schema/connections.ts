import { parseCursorConnectionArgs } from '@pothos/core';
import { MAX_PAGE_SIZE, type KeyedRun, type WorkflowRunRecord } from '../store/index.js';
import { badUserInput } from './bad-user-input.js';

/** Page size when neither `first` nor `last` is given. */
export const DEFAULT_PAGE_SIZE = 20;

/** The Relay connection arguments of `workflowRuns` and `WorkflowRun.lineage`. */
export interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/** A store read of one keyset slice (see `RunSliceRequest`, `LineageSliceRequest`). */
export interface KeysetRequest<Key> {
  after?: Key;
  before?: Key;
  /** Rows to read: the page size + 1, so the page can tell whether more exist. */
  limit: number;
  /** Read from the end of the list (`last`, or `before` without `first`). */
  inverted: boolean;
}

/** `edges` and `pageInfo` of a connection of runs (Relay cursor connections spec). */
export interface RunPage {
  edges: Array<{ cursor: string; node: WorkflowRunRecord }>;
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}

/** How a list's keys become opaque cursors and back. */
export interface CursorCodec<Key> {
  encode(key: Key): string;
  /** @throws GraphQLError(BAD_USER_INPUT) for a cursor that is not one of this list's */
  decode(cursor: string): Key;
}

/**
 * Checks `first`/`last` (docs/GRAPHQL-CONTRACT.md: above 100 is refused, and so is `first` together with `last`,
 * which the Relay spec discourages).
 *
 * @throws GraphQLError(BAD_USER_INPUT) `first must be between 0 and 100` (likewise `last`),
 *   `first and last cannot be used together: page forward with first/after or backward with last/before`
 */
export function assertPageArgs(args: ConnectionArgs, max = MAX_PAGE_SIZE): void {
  for (const name of ['first', 'last'] as const) {
    const value = args[name];
    if (value != null && (value < 0 || value > max)) throw badUserInput(`${name} must be between 0 and ${max}`);
  }
  if (args.first != null && args.last != null) {
    throw badUserInput('first and last cannot be used together: page forward with first/after or backward with last/before');
  }
}

/**
 * Plans one page of a keyset connection: checks the arguments and decodes the cursors now (so
 * a bad argument is refused even when the page itself is never read), and returns the store
 * request and the function turning the store's rows into `edges` and `pageInfo`. Page
 * semantics are Pothos's `resolveCursorConnection`; cursors of an empty page are null.
 *
 * @throws GraphQLError(BAD_USER_INPUT) from {@link assertPageArgs} and `codec.decode`
 */
export function planKeysetPage<Key>(
  args: ConnectionArgs,
  codec: CursorCodec<Key>,
): { request: KeysetRequest<Key>; page(rows: ReadonlyArray<KeyedRun<Key>>): RunPage } {
  assertPageArgs(args);
  const plan = parseCursorConnectionArgs({ args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE });
  const request: KeysetRequest<Key> = {
    ...(plan.after === undefined ? {} : { after: codec.decode(plan.after) }),
    ...(plan.before === undefined ? {} : { before: codec.decode(plan.before) }),
    limit: plan.limit,
    inverted: plan.inverted,
  };
  return {
    request,
    page(rows) {
      const kept = rows.slice(0, plan.expectedSize);
      if (plan.inverted) kept.reverse();
      const edges = kept.map(({ run, key }) => ({ cursor: codec.encode(key), node: run }));
      return {
        edges,
        pageInfo: {
          hasNextPage: plan.hasNextPage(rows.length),
          hasPreviousPage: plan.hasPreviousPage(rows.length),
          startCursor: edges[0]?.cursor ?? null,
          endCursor: edges.at(-1)?.cursor ?? null,
        },
      };
    },
  };
}
