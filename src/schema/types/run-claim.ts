import type { WorkflowRunRecord } from '../../store/index.js';
import { builder } from '../builder.js';

/** `WorkflowRun.claim`: a live lease, without its token. */
export const RunClaimRef = builder.objectRef<NonNullable<WorkflowRunRecord['claim']>>('RunClaim').implement({
  description:
    'A live claim (lease) on a run. A value type without an identity of its own: one lease of one run, replaced whole by the ' +
    'next claim (client caches keep it under its run, docs/CLIENTS.md "Client caches"). The claim token and its hash are never exposed.',
  fields: (t) => ({
    ownerId: t.exposeString('ownerId', { description: 'Runner id holding the lease.' }),
    leaseGeneration: t.exposeInt('leaseGeneration', { description: 'Lease generation: +1 on every claim.' }),
    expiresAt: t.field({ type: 'DateTime', description: 'When the lease expires.', resolve: (claim) => claim.expiresAt }),
  }),
});
