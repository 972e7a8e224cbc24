import { builder } from '../builder.js';

/** What a `ViewerDeltaPage` holds (an enum, not a string). */
export const ViewerDeltaPageKindEnum = builder.enumType('ViewerDeltaPageKind', {
  description: 'What a catch-up read of the delta log answered.',
  values: {
    DELTAS: { value: 'deltas', description: 'batches holds every revision after the cursor, in order (none when the cursor is current).' },
    SNAPSHOT_REQUIRED: {
      value: 'snapshot_required',
      description: 'The cursor cannot be served (0, ahead of the run, or older than the retained window): reload the run; batches is empty.',
    },
  } as const,
});
