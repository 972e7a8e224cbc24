import { builder } from '../builder.js';

/** run_bindings.execution_mode. */
export const ExecutionModeEnum = builder.enumType('ExecutionMode', {
  description: 'Whether a Pi session drives the run (interactive) or not (headless).',
  values: {
    INTERACTIVE: { value: 'interactive', description: 'A Pi session drives the run.' },
    HEADLESS: { value: 'headless', description: 'No session drives the run.' },
  } as const,
});
