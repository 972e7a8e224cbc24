import type { ClaimRequest } from '../../store/index.js';
import { builder } from '../builder.js';
import { limitedInput, limitedText } from '../input-limits.js';

/**
 * The limits of a `ClaimInput`, checked in place by the input that holds it (reserve and restart
 * put `claim: claimInputLimits.nullish()` last in their shapes, where the field is), so its
 * fields are reported in the holder's definition order.
 */
export const claimInputLimits = limitedInput({ runnerId: limitedText(), claimToken: limitedText() });

/** `ClaimInput`: reserve and claim in one transaction (prepare-or-adopt); limits: {@link claimInputLimits}. */
export const ClaimInputRef = builder.inputType('ClaimInput', {
  description: 'Claim the run in the same transaction. The token is stored only as a SHA-256 hash and never returned.',
  fields: (t) => ({
    runnerId: t.string({ required: true, description: 'Id of the runner taking the lease (stored as the claim owner).' }),
    claimToken: t.string({
      required: true,
      description: 'Secret chosen by the caller; stored only as a SHA-256 hash, never returned.',
    }),
    leaseMs: t.int({ required: true, description: 'Lease duration in ms, 1 … 86400000.' }),
  }),
});

/**
 * Converts a `ClaimInput` (its limits are checked by the holder's `validate`, {@link claimInputLimits}).
 *
 * @returns undefined when no claim was given
 */
export function claimRequest(claim: typeof ClaimInputRef.$inferInput | null | undefined): ClaimRequest | undefined {
  if (claim == null) return undefined;
  return { runnerId: claim.runnerId, claimToken: claim.claimToken, leaseMs: claim.leaseMs };
}
