import { canonicalJson } from './canonical-json.js';
import { isStoreError, StoreError } from './errors.js';
import type { ReserveWorkflowRunInput } from './run-reservation.js';
import { sha256Hex } from './values.js';

/**
 * A reservation by definition snapshot: the store computes the digest and the default source
 * identity (STORE.md §13.4) instead of the caller.
 */
export type DefinitionReservation = Omit<ReserveWorkflowRunInput, 'definitionDigest' | 'workflowSource'> & {
  /** Source identity; default `{kind:'file', path: workflowSourceRef, hash: <definition digest>}`. */
  workflowSource?: unknown;
};

/**
 * The definition digest of STORE.md §13.4: SHA-256 of the canonical JSON of the snapshot.
 *
 * @returns 64 lowercase hex characters
 * @throws StoreError(validation, field `definition`) for a value canonical JSON refuses (§2.1)
 */
export function definitionDigest(definition: unknown): string {
  try {
    return sha256Hex(canonicalJson(definition));
  } catch (error) {
    if (isStoreError(error) && error.kind === 'validation') throw new StoreError('validation', error.message, 'definition');
    throw error;
  }
}

/**
 * Completes a {@link DefinitionReservation} into the reservation input of STORE.md §6.1: the
 * digest of its snapshot, and the default file source identity when none is given (§13.4).
 *
 * @throws StoreError(validation) as {@link definitionDigest}
 */
export function reservationOf(input: DefinitionReservation): ReserveWorkflowRunInput {
  const digest = definitionDigest(input.definitionSnapshot);
  return {
    ...input,
    definitionDigest: digest,
    workflowSource: input.workflowSource ?? { kind: 'file', path: input.workflowSourceRef, hash: digest },
  };
}
