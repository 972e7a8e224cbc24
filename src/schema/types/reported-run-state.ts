import { builder } from '../builder.js';

/** The run states a claim holder reports with reportWorkflowRunState: those pi-workflows' store accepts from a worker. */
export const ReportedRunStateEnum = builder.enumType('ReportedRunState', {
  description: 'A run state the claim holder reports (runs.status); terminal states are settled with settleWorkflowRun.',
  values: {
    RUNNING: { value: 'running', description: 'The engine started or resumed the run.' },
    WAITING: { value: 'waiting', description: 'The run waits for input from its origin session.' },
  } as const,
});
