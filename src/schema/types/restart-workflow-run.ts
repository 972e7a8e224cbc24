import { builder } from '../builder.js';
import { ConflictError, ForbiddenError, LineageError, mutationErrors, NotFoundError, RestartRejectedError, runMutation, ValidationError } from '../errors.js';
import { limitedInput, limitedText } from '../input-limits.js';
import { claimInputLimits, claimRequest, ClaimInputRef } from './claim-input.js';
import { adoptedRunSuccessType } from './run-success.js';

const RestartInputRef = builder.inputType('RestartWorkflowRunInput', {
  description: 'Restart a terminal run (docs/STORE-RULES.md §13.1). Idempotent: a retry adopts the existing restart.',
  validate: limitedInput({
    runId: limitedText(),
    originSessionId: limitedText(),
    parentTerminalFingerprint: limitedText(),
    restartRunId: limitedText(),
    claim: claimInputLimits.nullish(),
  }),
  fields: (t) => ({
    runId: t.string({ required: true, description: 'The terminal run to restart.' }),
    originSessionId: t.string({
      required: true,
      description: 'The Pi session asking for the restart: the origin session of the run.',
    }),
    parentTerminalFingerprint: t.string({
      required: false,
      description: "Optional: when absent the server uses the run's own terminalFingerprint.",
    }),
    restartRunId: t.string({
      required: false,
      description: 'Optional: default is derived deterministically from the parent and its fingerprint.',
    }),
    claim: t.field({ type: ClaimInputRef, required: false, description: 'Also claim the restart in the same transaction.' }),
  }),
});

const RestartSuccessRef = adoptedRunSuccessType('RestartWorkflowRunSuccess', 'The restart run (new, or adopted on retry).');

/** The typed errors restartWorkflowRun can return, and when: its result union lists exactly these. */
const ERRORS = mutationErrors(
  'restartWorkflowRun',
  [NotFoundError, LineageError, ConflictError, RestartRejectedError, ValidationError, ForbiddenError],
  'RestartWorkflowRunSuccess, or: NotFoundError (no such run), ForbiddenError (not an interactive run of this session, or ' +
    'read-only server), RestartRejectedError (cancelled run, restart limit, repeated terminal outcome), LineageError (run not ' +
    'terminal, malformed fingerprint), ConflictError (fingerprint of another outcome, the claim could not be taken), ' +
    'ValidationError (malformed input).',
);

builder.mutationField('restartWorkflowRun', (t) =>
  t.field({
    type: RestartSuccessRef,
    description:
      'Restart a terminal run; a retry returns the same restart with adopted: true. Only runs of the same origin session (else ForbiddenError) that are interactive (else RestartRejectedError) can be restarted.',
    args: { input: t.arg({ type: RestartInputRef, required: true, description: 'What to restart.' }) },
    errors: ERRORS,
    resolve: (_root, { input }, context) =>
      runMutation(context, () => {
        const claim = claimRequest(input.claim);
        return context.store.restartWorkflowRun({
          runId: input.runId,
          originSessionId: input.originSessionId,
          ...(input.parentTerminalFingerprint == null ? {} : { parentTerminalFingerprint: input.parentTerminalFingerprint }),
          ...(input.restartRunId == null ? {} : { restartRunId: input.restartRunId }),
          ...(claim === undefined ? {} : { claim }),
        });
      }),
  }),
);
