import { builder } from '../builder.js';

/** viewer_deltas.target_type. */
export const ViewerTargetTypeEnum = builder.enumType('ViewerTargetType', {
  description: 'The part of a live view a delta patches.',
  values: {
    SUMMARY: { value: 'summary', description: 'The run summary.' },
    GRAPH: { value: 'graph', description: 'The workflow graph.' },
    REPLAY: { value: 'replay', description: 'The replay log.' },
    TIMELINE: { value: 'timeline', description: 'The timeline.' },
    CONVERSATION: { value: 'conversation', description: 'The conversation.' },
    INSPECTOR: { value: 'inspector', description: 'The inspector (keyed by what it shows).' },
  } as const,
});
