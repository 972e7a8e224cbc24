import { builder } from '../builder.js';

/** Patch operations of a viewer delta. */
export const PatchOpEnum = builder.enumType('PatchOp', {
  description: 'A viewer patch operation.',
  values: {
    ADD: { value: 'add', description: 'Add value at path.' },
    REPLACE: { value: 'replace', description: 'Replace the value at path.' },
    REMOVE: { value: 'remove', description: 'Remove the value at path.' },
    APPEND: { value: 'append', description: 'Append value to the list at path.' },
  } as const,
});
