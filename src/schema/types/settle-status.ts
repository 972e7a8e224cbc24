import { builder } from '../builder.js';

/** Terminal outcomes accepted by settleWorkflowRun. */
export const SettleStatusEnum = builder.enumType('SettleStatus', {
  description: 'Terminal outcome a claim holder settles a run with.',
  values: {
    COMPLETED: { value: 'completed', description: 'Finished successfully.' },
    FAILED: { value: 'failed', description: 'Finished with an error (give error).' },
    TIMED_OUT: { value: 'timed_out', description: 'Ran out of time (give error).' },
    CANCELLED: { value: 'cancelled', description: 'Cancelled.' },
  } as const,
});
