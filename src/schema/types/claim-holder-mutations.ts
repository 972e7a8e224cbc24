/**
 * The mutations of a run's claim holder, with their inputs and enums: `markWorkflowRunRunning`,
 * `reportWorkflowRunState` (`ReportedRunState`), `parkWorkflowRun` and `settleWorkflowRun`
 * (`SettleStatus`) (docs/PI-WORKFLOWS-FILES.md §5).
 */
import type { WorkflowRunRecord } from '../../store/index.js';
import { builder } from '../builder.js';
import { ClaimLostError, ConflictError, ForbiddenError, mutationErrors, NotFoundError, runMutation, ValidationError } from '../errors.js';
import { limitedInput, limitedJson, limitedText, MAX_LONG_TEXT_LENGTH } from '../input-limits.js';
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
const MARK_RUNNING_ERRORS = mutationErrors(
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
    errors: MARK_RUNNING_ERRORS,
    resolve: (_root, { input }, context) =>
      runMutation(context, () => ({ run: context.store.markWorkflowRunRunningOrThrow({ runId: input.runId, claimToken: input.claimToken }) })),
  }),
);

/** The run states a claim holder reports with reportWorkflowRunState: those pi-workflows' store accepts from a worker. */
export const ReportedRunStateEnum = builder.enumType('ReportedRunState', {
  description: 'A run state the claim holder reports (runs.status); terminal states are settled with settleWorkflowRun.',
  values: {
    RUNNING: { value: 'running', description: 'The engine started or resumed the run.' },
    WAITING: { value: 'waiting', description: 'The run waits for input from its origin session.' },
  } as const,
});

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
const REPORT_STATE_ERRORS = mutationErrors(
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
    errors: REPORT_STATE_ERRORS,
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

const ParkInputRef = builder.inputType('ParkWorkflowRunInput', {
  description:
    'Release a claim to parked; with noProgressDetail, park for worker no progress instead (docs/PI-WORKFLOWS-FILES.md §5 "park", ' + '"park, no progress").',
  validate: limitedInput({ runId: limitedText(), claimToken: limitedText(), noProgressDetail: limitedText(MAX_LONG_TEXT_LENGTH) }),
  fields: (t) => ({
    runId: t.string({ required: true, description: 'The claimed run.' }),
    claimToken: t.string({ required: true, description: 'The token the run was claimed with.' }),
    noProgressDetail: t.string({
      required: false,
      description: 'When given: park for worker no progress (error code workerNoProgress; detail cut to 8192 characters).',
    }),
  }),
});

const ParkSuccessRef = runSuccessType('ParkWorkflowRunSuccess', 'The parked run.');

/** The typed errors parkWorkflowRun can return, and when: its result union lists exactly these. */
const PARK_ERRORS = mutationErrors(
  'parkWorkflowRun',
  [NotFoundError, ClaimLostError, ConflictError, ValidationError, ForbiddenError],
  'ParkWorkflowRunSuccess, or: NotFoundError (no such run), ClaimLostError (the token is not the live claim), ConflictError ' +
    '(a waiting run parked for no progress, a concurrent change), ValidationError (malformed input), ForbiddenError ' +
    '(read-only server).',
);

builder.mutationField('parkWorkflowRun', (t) =>
  t.field({
    type: ParkSuccessRef,
    description:
      'Release a live claim to parked (event run.queue_parked), or, with noProgressDetail, park for worker no progress: error code ' +
      'workerNoProgress and the detail as statusDetail and error, event run.worker_no_progress; claimWorkflowRun without runId ' +
      'skips such a run (docs/PI-WORKFLOWS-FILES.md §5 "park", "park, no progress").',
    args: { input: t.arg({ type: ParkInputRef, required: true, description: 'The claimed run to park.' }) },
    errors: PARK_ERRORS,
    resolve: (_root, { input }, context) =>
      runMutation(context, () => ({
        run: context.store.parkClaimedWorkflowRun({
          runId: input.runId,
          claimToken: input.claimToken,
          ...(input.noProgressDetail == null ? {} : { noProgressDetail: input.noProgressDetail }),
        }),
      })),
  }),
);

/** Terminal outcomes accepted by settleWorkflowRun. */
export const SettleStatusEnum = builder.enumType('SettleStatus', {
  description: 'Terminal outcome a claim holder settles a run with.',
  values: {
    COMPLETED: { value: 'completed', description: 'Finished successfully.' },
    FAILED: { value: 'failed', description: 'Finished with an error (give error).' },
    TIMED_OUT: { value: 'timed_out', description: 'Ran out of time (give error).' },
    CANCELLED: { value: 'cancelled', description: 'Cancelled.' },
  } as const,
});

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
const SETTLE_ERRORS = mutationErrors(
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
    errors: SETTLE_ERRORS,
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
