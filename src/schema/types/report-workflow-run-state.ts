import type { WorkflowRunRecord } from '../../store/index.js';
import { builder } from '../builder.js';
import { ClaimLostError, ConflictError, ForbiddenError, mutationErrors, NotFoundError, runMutation, ValidationError } from '../errors.js';
import { limitedInput, limitedText, MAX_LONG_TEXT_LENGTH } from '../input-limits.js';
import { ReportedRunStateEnum } from './reported-run-state.js';
import { runSuccessType } from './run-success.js';

const ReportStateInputRef = builder.inputType('ReportWorkflowRunStateInput', {
  description:
    'The claim holder reports the run’s own state, RUNNING or WAITING (docs/PI-WORKFLOWS-FILES.md §5, an operation pi-workflows’ store has not: its engine writes the run state).',
  validate: limitedInput({ runId: limitedText(), claimToken: limitedText(), detail: limitedText(MAX_LONG_TEXT_LENGTH) }),
  fields: (t) => ({
    runId: t.string({ required: true, description: 'The claimed run.' }),
    claimToken: t.string({ required: true, description: 'The token the run was claimed with.' }),
    state: t.field({ type: ReportedRunStateEnum, required: true, description: 'The state the run is now in.' }),
    detail: t.string({
      required: false,
      description: 'The status detail (statusDetail); default none for RUNNING, `waiting for origin-session input` for WAITING.',
    }),
  }),
});

const ReportStateSuccessRef = runSuccessType('ReportWorkflowRunStateSuccess', 'The run in its reported state.');

/** The typed errors reportWorkflowRunState can return, and when: its result union lists exactly these. */
const ERRORS = mutationErrors(
  'reportWorkflowRunState',
  [NotFoundError, ClaimLostError, ConflictError, ValidationError, ForbiddenError],
  'ReportWorkflowRunStateSuccess, or: NotFoundError (no such run), ClaimLostError (the token is not the live claim), ' +
    'ConflictError (the run is terminal), ValidationError (malformed input), ForbiddenError (read scope, read-only server).',
);

builder.mutationField('reportWorkflowRunState', (t) =>
  t.field({
    type: ReportStateSuccessRef,
    description:
      'The claim holder reports the run RUNNING or WAITING (runs.status and statusDetail; WAITING sets finishedAt), event ' +
      'run.running / run.waiting; the queue is not touched (markWorkflowRunRunning, parkWorkflowRun move it).',
    args: { input: t.arg({ type: ReportStateInputRef, required: true, description: 'The claimed run and its state.' }) },
    errors: ERRORS,
    resolve: (_root, { input }, context) =>
      runMutation(context, () => {
        context.store.reportWorkflowRunState({
          runId: input.runId,
          claimToken: input.claimToken,
          status: input.state,
          ...(input.detail == null ? {} : { detail: input.detail }),
        });
        return { run: context.store.getWorkflowRun(input.runId) as WorkflowRunRecord };
      }),
  }),
);
