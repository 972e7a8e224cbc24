/**
 * Store errors. Every rule failure of docs/STORE-RULES.md throws a {@link StoreError} whose `message` is
 * the exact text of docs/STORE-RULES.md §11 (or of the rule that raised it) and whose `kind` classifies
 * it for callers (the GraphQL layer maps kinds to typed errors, docs/STORE-RULES.md §13.10).
 */

/**
 * Classification of a store failure.
 * - `validation`: malformed input (run id, timestamp, digest, fingerprint syntax, lease time).
 * - `not_found`: a named run or parent does not exist.
 * - `lineage`: a lineage rule of docs/STORE-RULES.md §6.1 failed.
 * - `conflict`: already reserved, preparation conflict, a concurrent change, a unique slot taken.
 * - `claim_lost`: the claim token is not the live claim of the run.
 * - `restart_rejected`: the restart policy of docs/STORE-RULES.md §7 / §13.1 refused.
 * - `forbidden`: another Pi session's run, or the store is read-only.
 * - `integrity`: the stored data breaks an invariant (never the caller's fault).
 */
export type StoreErrorKind = 'validation' | 'not_found' | 'lineage' | 'conflict' | 'claim_lost' | 'restart_rejected' | 'forbidden' | 'integrity';

/** An expected, classified store failure; `message` is the store's exact text. */
export class StoreError extends Error {
  /** What kind of failure this is (see {@link StoreErrorKind}). */
  readonly kind: StoreErrorKind;
  /** For `validation` errors: the input field at fault, when known. */
  readonly field: string | undefined;

  /**
   * @param kind classification of the failure
   * @param message exact error text (docs/STORE-RULES.md §11)
   * @param field for validation errors, the offending input field
   */
  constructor(kind: StoreErrorKind, message: string, field?: string) {
    super(message);
    this.name = 'StoreError';
    this.kind = kind;
    this.field = field;
  }
}

/** Returns true when `error` is a {@link StoreError}. */
export function isStoreError(error: unknown): error is StoreError {
  return error instanceof StoreError;
}

/**
 * Text of a claim token that is not the run's live claim (our text; docs/STORE-RULES.md §5 has the rule,
 * not a message).
 */
export function claimNotLiveMessage(runId: string): string {
  return `Claim token is not the live claim of workflow run: ${runId}`;
}

/**
 * What `read` returns, or the {@link StoreError} it threw (a per-item answer of a batch read);
 * any other error is thrown on.
 */
export function storeErrorOr<T>(read: () => T): T | StoreError {
  try {
    return read();
  } catch (error) {
    if (isStoreError(error)) return error;
    throw error;
  }
}
