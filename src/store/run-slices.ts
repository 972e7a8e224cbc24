import type { RunIdOnly } from './run-columns.js';
import type { WorkflowRunRecord } from './run-records.js';

/*
 * The shapes of a keyset slice of the run list or of a chain's lineage: orders, keys, requests
 * and keyed runs. Shared by the SQL queries (`run-queries.ts`) and the in-process index's
 * (`indexed-run-queries.ts`); `run-queries.ts` re-exports them.
 */

/** A field the run list orders by (docs/GRAPHQL-CONTRACT.md `WorkflowRunOrderField`). */
export type RunOrderField = 'created_at' | 'updated_at';

/**
 * An order of the run list (docs/GRAPHQL-CONTRACT.md `WorkflowRunOrder`): by `runs.created_at`
 * (`createdAt`) or `run_queue.updated_at` (`updatedAt`), then by run id in the same direction
 * (the tie-breaker: equal timestamps never make the order ambiguous).
 */
export interface RunOrder {
  field: RunOrderField;
  direction: 'asc' | 'desc';
}

/** The list's order when none is asked for: newest created first (docs/GRAPHQL-CONTRACT.md). */
export const DEFAULT_RUN_ORDER: RunOrder = { field: 'created_at', direction: 'desc' };

/**
 * A keyset position in a run order: the order field's value (epoch ms of created_at or
 * updated_at, whichever the order uses) and the run id.
 */
export interface RunKey {
  at: number;
  runId: string;
}

/**
 * One slice of a run order, as a Relay cursor connection asks for it: rows strictly after
 * `after` and before `before` in list order, at most `limit`, read from the list's start (or,
 * `inverted`, from its end, returned last first).
 */
export interface RunSliceRequest {
  after?: RunKey;
  before?: RunKey;
  /** Rows to read (page size + 1, so the caller can tell whether more exist). */
  limit: number;
  inverted: boolean;
  /** Default {@link DEFAULT_RUN_ORDER}. */
  order?: RunOrder;
}

/**
 * A run of a keyset page with its position in the list (from which a cursor is made): a whole
 * run record, or what a key-only read returns ({@link RunIdOnly}).
 */
export interface KeyedRun<Key, Run = WorkflowRunRecord> {
  run: Run;
  key: Key;
}

/** The runs of a slice, each with its keyset key, in the order the request reads them. */
export type RunSlice = Array<KeyedRun<RunKey>>;

/** {@link RunSlice} of a key-only read: run ids with their keys. */
export type RunIdSlice = Array<KeyedRun<RunKey, RunIdOnly>>;

/** A position in a chain's lineage order: the root, then (created_at, run id). */
export type LineageKey = { root: true } | { root: false; createdAt: number; runId: string };

/**
 * One slice of a chain's lineage order (root first, then by created_at, run id), as a Relay
 * cursor connection asks for it: runs strictly after `after` and before `before`, at most
 * `limit`, read from the root end (or, `inverted`, from the newest end).
 */
export interface LineageSliceRequest {
  after?: LineageKey;
  before?: LineageKey;
  /** Rows to read (page size + 1, so the caller can tell whether more exist). */
  limit: number;
  inverted: boolean;
}
