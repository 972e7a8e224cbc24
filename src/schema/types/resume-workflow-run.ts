import { builder } from '../builder.js';
import { ConflictError, ForbiddenError, mutationErrors, NotFoundError, runMutation, ValidationError } from '../errors.js';
import { limitedInput, limitedText } from '../input-limits.js';
import { runSuccessType } from './run-success.js';

const ResumeInputRef = builder.inputType('ResumeWorkflowRunInput', {
  description: 'Resume a paused interaction (docs/PI-WORKFLOWS-FILES.md §5 "resume a paused interaction").',
  validate: limitedInput({ runId: limitedText() }),
  fields: (t) => ({ runId: t.string({ required: true, description: 'The paused run.' }) }),
});

const ResumeSuccessRef = runSuccessType('ResumeWorkflowRunSuccess', 'The resumed run, waiting for input again.');

/** The typed errors resumeWorkflowRun can return, and when: its result union lists exactly these. */
const ERRORS = mutationErrors(
  'resumeWorkflowRun',
  [NotFoundError, ConflictError, ValidationError, ForbiddenError],
  'ResumeWorkflowRunSuccess, or: NotFoundError (no such run), ConflictError (the run cannot be resumed: not parked, not ' +
    'waiting, not paused, claimed, no pending interaction; the message says which), ValidationError (malformed input), ' +
    'ForbiddenError (read scope, read-only server).',
);

builder.mutationField('resumeWorkflowRun', (t) =>
  t.field({
    type: ResumeSuccessRef,
    description:
      'Resume a paused, parked, unclaimed run waiting for input: not paused, statusDetail `waiting for origin-session input`, ' + 'event run.resumed.',
    args: { input: t.arg({ type: ResumeInputRef, required: true, description: 'The run to resume.' }) },
    errors: ERRORS,
    resolve: (_root, { input }, context) => runMutation(context, () => ({ run: context.store.resumePausedInteractionOrThrow({ runId: input.runId }) })),
  }),
);
