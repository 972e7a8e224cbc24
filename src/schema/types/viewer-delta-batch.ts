import type { ViewerDeltaBatch } from '../../store/index.js';
import { builder } from '../builder.js';
import { ViewerDeltaRef } from './viewer-delta.js';

/** One presentation revision of a run with its deltas. */
export const ViewerDeltaBatchRef = builder.objectRef<ViewerDeltaBatch>('ViewerDeltaBatch').implement({
  description: 'All deltas of one presentation revision, in order.',
  isTypeOf: (value) => typeof value === 'object' && value !== null && 'deltas' in value,
  fields: (t) => ({
    runId: t.exposeString('runId', { description: 'The run whose view changed.' }),
    presentationRevision: t.exposeInt('presentationRevision', { description: 'The revision these deltas make (the next cursor).' }),
    deltas: t.field({ type: [ViewerDeltaRef], description: 'Every delta of the revision, in order.', resolve: (batch) => batch.deltas }),
  }),
});
