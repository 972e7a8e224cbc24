import { builder } from '../builder.js';
import { ClaimLostError, ConflictError, ForbiddenError, mutationErrors, NotFoundError, runMutation, ValidationError } from '../errors.js';
import { limitedInput, limitedText } from '../input-limits.js';
import { runSuccessType } from './run-success.js';

const MarkRunningInputRef = builder.inputType('MarkWorkflowRunRunningInput', {
  description: 'The claim holder reports its worker running the run (docs/PI-WORKFLOWS-FILES.md §5 "mark running").',
  validate: limitedInput({ runId: limitedText(), claimToken: limitedText() }),
  fields: (t) => ({
    runId: t.string({ required: true, description: 'The claimed run.' }),
    claimToken: t.string({ required: true, description: 'The token the run was claimed with.' }),
  }),
});

const MarkRunningSuccessRef = runSuccessType('MarkWorkflowRunRunningSuccess', 'The run, queue RUNNING.');

/** The typed errors markWorkflowRunRunning can return, and when: its result union lists exactly these. */
const ERRORS = mutationErrors(
  'markWorkflowRunRunning',
  [NotFoundError, ClaimLostError, ConflictError, ValidationError, ForbiddenError],
  'MarkWorkflowRunRunningSuccess, or: NotFoundError (no such run), ClaimLostError (the token is not the live claim), ' +
    "ConflictError (the run's session already has another active run), ValidationError (malformed input), ForbiddenError " +
    '(read scope, read-only server).',
);

builder.mutationField('markWorkflowRunRunning', (t) =>
  t.field({
    type: MarkRunningSuccessRef,
    description:
      'The claim holder reports the run running: queue RUNNING, startedAt set the first time, event run.queue_running ' +
      '(docs/PI-WORKFLOWS-FILES.md §5 "mark running"). The run’s own status is reported with reportWorkflowRunState.',
    args: { input: t.arg({ type: MarkRunningInputRef, required: true, description: 'The claimed run.' }) },
    errors: ERRORS,
    resolve: (_root, { input }, context) =>
      runMutation(context, () => ({ run: context.store.markWorkflowRunRunningOrThrow({ runId: input.runId, claimToken: input.claimToken }) })),
  }),
);
