import { builder } from '../builder.js';
import { ClaimLostError, ConflictError, ForbiddenError, mutationErrors, NotFoundError, runMutation, ValidationError } from '../errors.js';
import { limitedInput, limitedJson, limitedText, MAX_LONG_TEXT_LENGTH } from '../input-limits.js';
import { runSuccessType } from './run-success.js';
import { SettleStatusEnum } from './settle-status.js';

const SettleInputRef = builder.inputType('SettleWorkflowRunInput', {
  description: 'Settle a claimed run terminal.',
  validate: limitedInput({ runId: limitedText(), claimToken: limitedText(), error: limitedText(MAX_LONG_TEXT_LENGTH), output: limitedJson }),
  fields: (t) => ({
    runId: t.string({ required: true, description: 'The claimed run.' }),
    claimToken: t.string({ required: true, description: 'The token the run was claimed with.' }),
    status: t.field({ type: SettleStatusEnum, required: true, description: 'The terminal outcome.' }),
    error: t.string({ required: false, description: 'Error text for FAILED / TIMED_OUT.' }),
    output: t.field({ type: 'JSON', required: false, description: 'Final output for COMPLETED.' }),
  }),
});

const SettleSuccessRef = runSuccessType('SettleWorkflowRunSuccess', 'The settled run.');

/** The typed errors settleWorkflowRun can return, and when: its result union lists exactly these. */
const ERRORS = mutationErrors(
  'settleWorkflowRun',
  [NotFoundError, ClaimLostError, ConflictError, ValidationError, ForbiddenError],
  'SettleWorkflowRunSuccess, or: NotFoundError (no such run), ClaimLostError (the token is not the live claim), ConflictError ' +
    '(a concurrent change), ValidationError (malformed input or output), ForbiddenError (read-only server).',
);

builder.mutationField('settleWorkflowRun', (t) =>
  t.field({
    type: SettleSuccessRef,
    description: 'Settle a claimed run COMPLETED, FAILED, TIMED_OUT or CANCELLED; releases the claim.',
    args: { input: t.arg({ type: SettleInputRef, required: true, description: 'The claimed run and its outcome.' }) },
    errors: ERRORS,
    resolve: (_root, { input }, context) =>
      runMutation(context, () => ({
        run: context.store.settleWorkflowRun({
          runId: input.runId,
          claimToken: input.claimToken,
          status: input.status,
          ...(input.error == null ? {} : { error: input.error }),
          ...(input.output === undefined ? {} : { output: input.output }),
        }),
      })),
  }),
);
