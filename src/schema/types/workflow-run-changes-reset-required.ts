import type { RunChangeEvent } from '../../delivery/index.js';
import { builder } from '../builder.js';

/** A `reset_required` event of the store's run-list change feed (`feed-run-changes.ts`). */
type ResetEvent = Extract<RunChangeEvent, { kind: 'reset_required' }>;

/** "Your cursor cannot be replayed: re-query the list, then continue after cursor". */
export const WorkflowRunChangesResetRequiredRef = builder.objectRef<ResetEvent>('WorkflowRunChangesResetRequired').implement({
  description:
    'The cursor cannot be replayed (it belongs to another database, is ahead of it, or is older than what it keeps): re-query the run list, then continue from cursor (the stream goes on after it by itself).',
  isTypeOf: (value) => typeof value === 'object' && value !== null && (value as { kind?: string }).kind === 'reset_required',
  fields: (t) => ({
    cursor: t.exposeString('cursor', { description: 'The position the stream continues after; resume from it after re-querying the list.' }),
  }),
});
