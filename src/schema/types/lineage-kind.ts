import { builder } from '../builder.js';

/** runs.lineage_kind. */
export const LineageKindEnum = builder.enumType('LineageKind', {
  description: 'How a child run relates to its parent.',
  values: {
    CONTINUATION: { value: 'continuation', description: 'The child goes on from where its parent stopped (same restart number).' },
    RESTART: { value: 'restart', description: 'The child runs its terminal parent again (restart number + 1).' },
  } as const,
});
