/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
/** Cancel a run: with its claim, or without one as pi-workflows’ control surface does (docs/PI-WORKFLOWS-FILES.md §5). */
export type CancelWorkflowRunInput = {
  /** The live claim to cancel with. Without it: a queued or starting run nobody claimed is cancelled directly, any other through a control claim taken and released in the same transaction; a run under a live claim is refused. */
  claimToken?: string | null | undefined;
  /** The run to cancel. */
  runId: string;
};

/** Claim the run in the same transaction. The token is stored only as a SHA-256 hash and never returned. */
export type ClaimInput = {
  /** Secret chosen by the caller; stored only as a SHA-256 hash, never returned. */
  claimToken: string;
  /** Lease duration in ms, 1 … 86400000. */
  leaseMs: number;
  /** Id of the runner taking the lease (stored as the claim owner). */
  runnerId: string;
};

/** Claim a run by id, or the next eligible run. */
export type ClaimWorkflowRunInput = {
  /** Chosen by the caller; stored only as a SHA-256 hash. */
  claimToken: string;
  /** Lease duration in ms, 1 … 86400000. */
  leaseMs: number;
  /** Claim this run; else the next eligible one. A run that is not claimable now (settled, or under another runner’s live lease) answers run: null, as when nothing is eligible. */
  runId?: string | null | undefined;
  /** Id of the runner taking the lease (stored as the claim owner). */
  runnerId: string;
  /** For the next eligible run: only runs of this origin session (else headless or already started runs). */
  sessionId?: string | null | undefined;
};

/** Whether a Pi session drives the run (interactive) or not (headless). */
export type ExecutionMode =
  /** No session drives the run. */
  | 'HEADLESS'
  /** A Pi session drives the run. */
  | 'INTERACTIVE';

/** How a child run relates to its parent. */
export type LineageKind =
  /** The child goes on from where its parent stopped (same restart number). */
  | 'CONTINUATION'
  /** The child runs its terminal parent again (restart number + 1). */
  | 'RESTART';

/** The claim holder reports its worker running the run (docs/PI-WORKFLOWS-FILES.md §5 "mark running"). */
export type MarkWorkflowRunRunningInput = {
  /** The token the run was claimed with. */
  claimToken: string;
  /** The claimed run. */
  runId: string;
};

/** The direction of an order. */
export type OrderDirection =
  /** Smallest (oldest) first. */
  | 'ASC'
  /** Largest (newest) first. */
  | 'DESC';

/** Release a claim to parked; with noProgressDetail, park for worker no progress instead (docs/PI-WORKFLOWS-FILES.md §5 "park", "park, no progress"). */
export type ParkWorkflowRunInput = {
  /** The token the run was claimed with. */
  claimToken: string;
  /** When given: park for worker no progress (error code workerNoProgress; detail cut to 8192 characters). */
  noProgressDetail?: string | null | undefined;
  /** The claimed run. */
  runId: string;
};

/** A viewer patch operation. */
export type PatchOp =
  /** Add value at path. */
  | 'ADD'
  /** Append value to the list at path. */
  | 'APPEND'
  /** Remove the value at path. */
  | 'REMOVE'
  /** Replace the value at path. */
  | 'REPLACE';

/** Pause a parked run waiting for input (docs/PI-WORKFLOWS-FILES.md §5 "pause a parked run"). */
export type PauseWorkflowRunInput = {
  /** The parked run. */
  runId: string;
};

/** Heartbeat: extend the live claim of a run (docs/PI-WORKFLOWS-FILES.md §5 "renew claim (heartbeat)"). */
export type RenewWorkflowRunClaimInput = {
  /** The token the run was claimed with. */
  claimToken: string;
  /** The new lease duration from now, in ms, 1 … 86400000. */
  leaseMs: number;
  /** The claimed run. */
  runId: string;
};

/** The claim holder reports the run’s own state, RUNNING or WAITING (docs/PI-WORKFLOWS-FILES.md §5, an operation pi-workflows’ store has not: its engine writes the run state). */
export type ReportWorkflowRunStateInput = {
  /** The token the run was claimed with. */
  claimToken: string;
  /** The status detail (statusDetail); default none for RUNNING, `waiting for origin-session input` for WAITING. */
  detail?: string | null | undefined;
  /** The claimed run. */
  runId: string;
  /** The state the run is now in. */
  state: ReportedRunState;
};

/** A run state the claim holder reports (runs.status); terminal states are settled with settleWorkflowRun. */
export type ReportedRunState =
  /** The engine started or resumed the run. */
  | 'RUNNING'
  /** The run waits for input from its origin session. */
  | 'WAITING';

/** Reserve a root run, a continuation or a restart (docs/STORE-RULES.md §6.1); with claim, prepare-or-adopt (§6.2). */
export type ReserveWorkflowRunInput = {
  /** Also claim the run in the same transaction (or adopt an identical one). */
  claim?: ClaimInput | null | undefined;
  /** Definition snapshot; its digest is SHA-256 of its canonical JSON (keys ordered as pi-workflows orders them, docs/PI-WORKFLOWS-FILES.md §8). */
  definition: unknown;
  /** INTERACTIVE (a Pi session drives it, the default) or HEADLESS. */
  executionMode?: ExecutionMode | null | undefined;
  /** The run input (any JSON value). */
  input?: unknown;
  /** Launch options of the run (any JSON value). */
  launchOptions?: unknown;
  /** How the run relates to parentRunId; set exactly with a parent. */
  lineageKind?: LineageKind | null | undefined;
  /** The Pi session reserving the run (one active run per session). */
  originSessionId: string;
  /** For a continuation or restart: the parent run; null for a root run. */
  parentRunId?: string | null | undefined;
  /** For a restart: the parent's terminalFingerprint (64 hex characters). */
  parentTerminalFingerprint?: string | null | undefined;
  /** For a restart: the parent's restartNumber + 1; a continuation keeps its parent's. */
  restartNumber?: number | null | undefined;
  /** Id of the new run, chosen by the caller. With claim, a retry with the same parameters adopts the existing run (adopted: true, docs/STORE-RULES.md §6.2); without claim, an existing id is a ConflictError. */
  runId: string;
  /** The reserving runner, stored as the run queue affinity (run_queue.affinity_runner_id) as pi-workflows stores it; null or absent: no affinity. With claim, the claim's runnerId is stored instead (docs/PI-WORKFLOWS-FILES.md §8). */
  runnerId?: string | null | undefined;
  /** Name of the workflow definition. Definitions are stored once per definition digest, first name wins (docs/STORE-RULES.md §3.6): when a run with the same definition was reserved before under another name, this run reports (and is filtered and searched by) that first name, not this one. Give distinct workflows distinct definitions. */
  workflowName: string;
  /** Source ref of the workflow at launch (runs.workflow_ref). */
  workflowRef: string;
  /** Source identity; default {kind:'file', path: workflowRef, hash: <definition digest>}. */
  workflowSource?: unknown;
};

/** Restart a terminal run (docs/STORE-RULES.md §13.1). Idempotent: a retry adopts the existing restart. */
export type RestartWorkflowRunInput = {
  /** Also claim the restart in the same transaction. */
  claim?: ClaimInput | null | undefined;
  /** The Pi session asking for the restart: the origin session of the run. */
  originSessionId: string;
  /** Optional: when absent the server uses the run's own terminalFingerprint. */
  parentTerminalFingerprint?: string | null | undefined;
  /** Optional: default is derived deterministically from the parent and its fingerprint. */
  restartRunId?: string | null | undefined;
  /** The terminal run to restart. */
  runId: string;
};

/** Resume a paused interaction (docs/PI-WORKFLOWS-FILES.md §5 "resume a paused interaction"). */
export type ResumeWorkflowRunInput = {
  /** The paused run. */
  runId: string;
};

/** Who is executing a running run. */
export type RunActivity =
  /** A turn of the Pi session that started the run. */
  | 'ORIGIN_TURN'
  /** A worker process supervised by pi-workflows' host. */
  | 'SUPERVISED_WORKER';

/** What a person may do with a run now (pi-workflows’ viewer controls). */
export type RunControl =
  /** Answer the question it waits on. */
  | 'ANSWER'
  /** Cancel it (cancelWorkflowRun). */
  | 'CANCEL'
  /** Pause it (pauseWorkflowRun). */
  | 'PAUSE'
  /** Resume it (resumeWorkflowRun). */
  | 'RESUME'
  /** Review an effect of unknown outcome. */
  | 'REVIEW';

/** What pi-workflows' viewer shows a run as: the durable status, the queue and what is live, reduced to one word. */
export type RunDisplayStatus =
  /** An effect of the run has an unknown outcome: a person must review it. */
  | 'AMBIGUOUS'
  /** Cancelled. */
  | 'CANCELLED'
  /** Finished successfully. */
  | 'COMPLETED'
  /** Finished with an error. */
  | 'FAILED'
  /** Paused by a person. */
  | 'PAUSED'
  /** Queued, not started yet (or parked with nothing live). */
  | 'QUEUED'
  /** A worker or the origin session is executing it. */
  | 'RUNNING'
  /** Ran out of time. */
  | 'TIMED_OUT'
  /** It waits for input or a decision. */
  | 'WAITING';

/** Scheduling state (run_queue.status): who may execute the run now. */
export type RunQueueStatus =
  /** Cancelled. */
  | 'CANCELLED'
  /** Finished: completed, or handed on to a continuation. */
  | 'DONE'
  /** Failed or timed out (errorCode is the run status). */
  | 'FAILED'
  /** Not executing: released by its runner, waiting for an interaction, or paused. */
  | 'PARKED'
  /** Waiting for a runner to claim it. */
  | 'QUEUED'
  /** Executing under its runner. */
  | 'RUNNING'
  /** Claimed; the runner is starting or resuming it. */
  | 'STARTING';

/** Terminal outcome a claim holder settles a run with. */
export type SettleStatus =
  /** Cancelled. */
  | 'CANCELLED'
  /** Finished successfully. */
  | 'COMPLETED'
  /** Finished with an error (give error). */
  | 'FAILED'
  /** Ran out of time (give error). */
  | 'TIMED_OUT';

/** Settle a claimed run terminal. */
export type SettleWorkflowRunInput = {
  /** The token the run was claimed with. */
  claimToken: string;
  /** Error text for FAILED / TIMED_OUT. */
  error?: string | null | undefined;
  /** Final output for COMPLETED. */
  output?: unknown;
  /** The claimed run. */
  runId: string;
  /** The terminal outcome. */
  status: SettleStatus;
};

/** How a step ended (pi-workflows' step outcome). */
export type StepOutcome =
  /** Cancelled. */
  | 'CANCELLED'
  /** Failed with an error. */
  | 'FAILED'
  /** Finished with an output. */
  | 'OK'
  /** Ran past its deadline. */
  | 'TIMED_OUT';

/** What a trace event is about (pi-workflows' trace scope). */
export type TraceScope =
  /** An action node. */
  | 'ACTION'
  /** An agent node’s model work. */
  | 'AGENT'
  /** A node attempt. */
  | 'NODE'
  /** The run, its queue entry and its lease. */
  | 'RUN'
  /** The captured Pi session. */
  | 'SESSION';

/** What a catch-up read of the delta log answered. */
export type ViewerDeltaPageKind =
  /** batches holds every revision after the cursor, in order (none when the cursor is current). */
  | 'DELTAS'
  /** The cursor cannot be served (0, ahead of the run, or older than the retained window): reload the run; batches is empty. */
  | 'SNAPSHOT_REQUIRED';

/** The part of a live view a delta patches. */
export type ViewerTargetType =
  /** The conversation. */
  | 'CONVERSATION'
  /** The workflow graph. */
  | 'GRAPH'
  /** The inspector (keyed by what it shows). */
  | 'INSPECTOR'
  /** The replay log. */
  | 'REPLAY'
  /** The run summary. */
  | 'SUMMARY'
  /** The timeline. */
  | 'TIMELINE';

/** Filters for workflowRuns; all optional, combined with AND. */
export type WorkflowRunFilter = {
  /** Runs created strictly after this instant (exclusive). */
  createdAfter?: string | null | undefined;
  /** Runs created strictly before this instant (exclusive). */
  createdBefore?: string | null | undefined;
  /** Children of this kind only (root runs have none). */
  lineageKind?: LineageKind | null | undefined;
  /** Runs of this Pi session. */
  originSessionId?: string | null | undefined;
  /** Direct children of this run. */
  parentRunId?: string | null | undefined;
  /** Runs in any of these scheduling states. */
  queueStatus?: Array<RunQueueStatus> | null | undefined;
  /** Runs of this chain (its root run id). */
  rootRunId?: string | null | undefined;
  /** Runs whose runId or workflowName contains this text, ignoring ASCII case (A-Z = a-z); every other character, % and _ included, matches only itself. At most 256 characters. No index can answer it: a page walks its order until it is full, so a rare text costs a walk of the whole (otherwise filtered) list. */
  search?: string | null | undefined;
  /** Runs in any of these durable states. */
  status?: Array<WorkflowRunStatus> | null | undefined;
  /** Runs whose updatedAt is strictly after this instant (exclusive). */
  updatedAfter?: string | null | undefined;
  /** Runs whose updatedAt is strictly before this instant (exclusive). */
  updatedBefore?: string | null | undefined;
  /** Runs of this workflow. */
  workflowName?: string | null | undefined;
};

/** An order of workflowRuns (GitHub style). Default: {field: CREATED_AT, direction: DESC}, newest first. */
export type WorkflowRunOrder = {
  /** ASC or DESC, for the field and the runId tie-breaker. */
  direction: OrderDirection;
  /** The field to order by (then runId). */
  field: WorkflowRunOrderField;
};

/** What workflowRuns orders by; runs with equal values are ordered by runId, in the same direction. */
export type WorkflowRunOrderField =
  /** WorkflowRun.createdAt: when the run was reserved. Runs never move in this order. */
  | 'CREATED_AT'
  /** WorkflowRun.updatedAt: when the run last changed. A run that changes while you page moves to the newest end: paging forward with DESC never returns a run twice, but misses a run that changed after you paged past its old place (a new first page shows it on top); paging forward with ASC misses nothing, but returns a run again, in its new state, near the end when it changed after you saw it. Backward paging (last/before) is the mirror image. */
  | 'UPDATED_AT';

/** Durable run state (runs.status). */
export type WorkflowRunStatus =
  /** Cancelled (terminal). */
  | 'CANCELLED'
  /** Finished successfully (terminal). */
  | 'COMPLETED'
  /** Finished with an error (terminal). */
  | 'FAILED'
  /** Reserved, not started yet. */
  | 'QUEUED'
  /** Executing. */
  | 'RUNNING'
  /** Ran out of time (terminal). */
  | 'TIMED_OUT'
  /** Waiting for an interaction (input). */
  | 'WAITING';

export type RunFieldsFragment = { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, executionMode: ExecutionMode, originSessionId: string | null, input: unknown, launchOptions: unknown, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, parentTerminalFingerprint: string | null, terminalFingerprint: string | null, presentationRevision: number, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null };

export type PageInfoFieldsFragment = { hasNextPage: boolean, hasPreviousPage: boolean, startCursor: string | null, endCursor: string | null };

type ErrorFields_ClaimLostError_Fragment = { message: string, code: string };

type ErrorFields_ConflictError_Fragment = { message: string, code: string };

type ErrorFields_ForbiddenError_Fragment = { message: string, code: string };

type ErrorFields_LineageError_Fragment = { message: string, code: string };

type ErrorFields_NotFoundError_Fragment = { message: string, code: string };

type ErrorFields_RestartRejectedError_Fragment = { message: string, code: string };

type ErrorFields_ValidationError_Fragment = { field: string | null, message: string, code: string };

export type ErrorFieldsFragment =
  | ErrorFields_ClaimLostError_Fragment
  | ErrorFields_ConflictError_Fragment
  | ErrorFields_ForbiddenError_Fragment
  | ErrorFields_LineageError_Fragment
  | ErrorFields_NotFoundError_Fragment
  | ErrorFields_RestartRejectedError_Fragment
  | ErrorFields_ValidationError_Fragment
;

export type LivePageListRunFragment = { id: string, runId: string, rootRunId: string, workflowName: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, lineageKind: LineageKind | null, restartNumber: number, createdAt: string, updatedAt: string, presentationRevision: number, claim: { expiresAt: string } | null, expiredClaim: { expiresAt: string } | null, rootRun: { id: string, runId: string, workflowName: string, createdAt: string, lineage: { totalCount: number }, latestRun: { id: string, runId: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, lineageKind: LineageKind | null, restartNumber: number, updatedAt: string, claim: { expiresAt: string } | null, expiredClaim: { expiresAt: string } | null } } };

export type LivePageTreeRunFragment = { id: string, runId: string, parentRunId: string | null, lineageKind: LineageKind | null, restartNumber: number, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, errorCode: string | null, errorMessage: string | null, createdAt: string, presentationRevision: number, parentTerminalFingerprint: string | null, claim: { expiresAt: string } | null, expiredClaim: { expiresAt: string } | null };

export type LivePageRunRecordFragment = { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, originSessionId: string | null, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, parentTerminalFingerprint: string | null, terminalFingerprint: string | null, presentationRevision: number, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null };

export type LivePageRunsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  filter?: WorkflowRunFilter | null | undefined;
  orderBy?: WorkflowRunOrder | null | undefined;
}>;


export type LivePageRunsQuery = { workflowRuns: { totalCount: number, changeCursor: string, edges: Array<{ cursor: string, node: { id: string, runId: string, rootRunId: string, workflowName: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, lineageKind: LineageKind | null, restartNumber: number, createdAt: string, updatedAt: string, presentationRevision: number, claim: { expiresAt: string } | null, expiredClaim: { expiresAt: string } | null, rootRun: { id: string, runId: string, workflowName: string, createdAt: string, lineage: { totalCount: number }, latestRun: { id: string, runId: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, lineageKind: LineageKind | null, restartNumber: number, updatedAt: string, claim: { expiresAt: string } | null, expiredClaim: { expiresAt: string } | null } } } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type LivePageChainQueryVariables = Exact<{
  rootRunId: string;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type LivePageChainQuery = { workflowRun: { id: string, runId: string, workflowName: string, lineage: { totalCount: number, changeCursor: string, edges: Array<{ node: { id: string, runId: string, parentRunId: string | null, lineageKind: LineageKind | null, restartNumber: number, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, errorCode: string | null, errorMessage: string | null, createdAt: string, presentationRevision: number, parentTerminalFingerprint: string | null, claim: { expiresAt: string } | null, expiredClaim: { expiresAt: string } | null } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } } | null };

export type LivePageRunQueryVariables = Exact<{
  runId: string;
}>;


export type LivePageRunQuery = { workflowRun: { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, originSessionId: string | null, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, parentTerminalFingerprint: string | null, terminalFingerprint: string | null, presentationRevision: number, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null } | null };

export type LivePageDeltasSubscriptionVariables = Exact<{
  runId: string;
  after?: number | null | undefined;
}>;


export type LivePageDeltasSubscription = { workflowRunDeltas:
    | { __typename: 'ViewerDeltaBatch', runId: string, presentationRevision: number, deltas: Array<{ deltaIndex: number, targetType: ViewerTargetType, targetKey: string, recordedAt: string, patch: Array<{ op: PatchOp, path: string, value: unknown }> }> }
    | { __typename: 'ViewerSnapshotRequired', runId: string, currentRevision: number, retainedFromRevision: number, run: { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, originSessionId: string | null, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, parentTerminalFingerprint: string | null, terminalFingerprint: string | null, presentationRevision: number, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null } }
   };

export type LivePageRunUpdatedSubscriptionVariables = Exact<{
  runId: string;
}>;


export type LivePageRunUpdatedSubscription = { workflowRunUpdated: { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, originSessionId: string | null, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, parentTerminalFingerprint: string | null, terminalFingerprint: string | null, presentationRevision: number, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null } };

export type LivePageRunChangesSubscriptionVariables = Exact<{
  filter?: WorkflowRunFilter | null | undefined;
  after?: string | null | undefined;
}>;


export type LivePageRunChangesSubscription = { workflowRunChanges:
    | { __typename: 'WorkflowRunChange', cursor: string, run: { id: string, runId: string, rootRunId: string, workflowName: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, lineageKind: LineageKind | null, restartNumber: number, createdAt: string, updatedAt: string, presentationRevision: number, claim: { expiresAt: string } | null, expiredClaim: { expiresAt: string } | null, rootRun: { id: string, runId: string, workflowName: string, createdAt: string, lineage: { totalCount: number }, latestRun: { id: string, runId: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, lineageKind: LineageKind | null, restartNumber: number, updatedAt: string, claim: { expiresAt: string } | null, expiredClaim: { expiresAt: string } | null } } } }
    | { __typename: 'WorkflowRunChangesResetRequired', cursor: string }
   };

export type LivePageStepFragment = { stepIndex: number, nodeId: string, nodeType: string, attempt: number, outcome: StepOutcome, startedAt: string | null, finishedAt: string | null, prompt: { byteLength: number, mediaType: string, text: string | null } | null, output: { byteLength: number, mediaType: string, text: string | null } | null, error: { byteLength: number, mediaType: string, text: string | null } | null };

export type LivePageRequestFragment = { requestId: string, kind: string, status: string, createdAt: string, settledAt: string | null, contract: { byteLength: number, mediaType: string, text: string | null } };

export type LivePageTraceEventFragment = { seq: number, at: string, type: string, scope: TraceScope, nodeId: string | null, actorType: string, payload: { byteLength: number, mediaType: string, text: string | null } | null };

export type LivePageSessionEntryFragment = { seq: number, at: string, entryType: string | null, customType: string | null, role: string | null, text: string | null, toolCallId: string | null, toolName: string | null, toolCalls: Array<{ id: string, name: string, arguments: unknown }> | null };

export type LivePageUpdateFragment = { updateId: string, type: string, key: string, nodeId: string, at: string, data: { byteLength: number, mediaType: string, text: string | null } };

export type LivePageViewHeadFragment = { runId: string, revision: number, title: string | null, workflowName: string, status: WorkflowRunStatus, statusDetail: string | null, live: boolean, paused: boolean, possiblyInterrupted: boolean, currentNode: string | null, currentAttemptId: string | null, waitingOn: string | null, createdAt: string, updatedAt: string, finishedAt: string | null, carriedStepCount: number, display: { status: RunDisplayStatus, reason: string | null, activity: RunActivity | null, controls: Array<RunControl> }, definition: { name: string, startAt: string, nodes: Array<{ nodeId: string, nodeType: string }>, edges: Array<{ from: string, to: string }> } | null, graphSteps: Array<{ nodeId: string, attemptId: string, outcome: StepOutcome, attempt: number }>, takenTransitions: Array<{ from: string, to: string }>, input: { byteLength: number, mediaType: string, text: string | null }, finalOutput: { byteLength: number, mediaType: string, text: string | null } | null, error: { byteLength: number, mediaType: string, text: string | null } | null, pendingRequest: { requestId: string, kind: string, status: string, createdAt: string, settledAt: string | null, contract: { byteLength: number, mediaType: string, text: string | null } } | null, session: { piSessionId: string | null, captureStatus: string, integrity: string } | null };

export type LivePageViewQuestionsFragment = { followUps: { totalCount: number, edges: Array<{ node: { followUpId: string, state: string, actorType: string, createdAt: string, prompt: { byteLength: number, mediaType: string, text: string | null }, reason: { byteLength: number, mediaType: string, text: string | null } | null } }> }, interactiveRequests: { totalCount: number, edges: Array<{ node: { requestId: string, kind: string, status: string, createdAt: string, settledAt: string | null, contract: { byteLength: number, mediaType: string, text: string | null } } }> }, humanDecisions: { totalCount: number, edges: Array<{ node: { decisionId: string, title: string, audience: string, createdAt: string, deadlineAt: string | null, choices: { byteLength: number, mediaType: string, text: string | null }, resolution: { outcome: string, reason: string | null, resolvedAt: string } | null } }> } };

export type LivePageViewListsFragment = { steps: { totalCount: number, edges: Array<{ node: { stepIndex: number, nodeId: string, nodeType: string, attempt: number, outcome: StepOutcome, startedAt: string | null, finishedAt: string | null, prompt: { byteLength: number, mediaType: string, text: string | null } | null, output: { byteLength: number, mediaType: string, text: string | null } | null, error: { byteLength: number, mediaType: string, text: string | null } | null } }> }, trace: { totalCount: number, edges: Array<{ node: { seq: number, at: string, type: string, scope: TraceScope, nodeId: string | null, actorType: string, payload: { byteLength: number, mediaType: string, text: string | null } | null } }> }, session: { piSessionId: string | null, captureStatus: string, integrity: string, entries: { totalCount: number, edges: Array<{ node: { seq: number, at: string, entryType: string | null, customType: string | null, role: string | null, text: string | null, toolCallId: string | null, toolName: string | null, toolCalls: Array<{ id: string, name: string, arguments: unknown }> | null } }> } } | null, updates: { totalCount: number, edges: Array<{ node: { updateId: string, type: string, key: string, nodeId: string, at: string, data: { byteLength: number, mediaType: string, text: string | null } } }> } };

export type LivePageRunViewQueryVariables = Exact<{
  runId: string;
}>;


export type LivePageRunViewQuery = { workflowRun: { id: string, runId: string, view: { cursor: string, runId: string, revision: number, title: string | null, workflowName: string, status: WorkflowRunStatus, statusDetail: string | null, live: boolean, paused: boolean, possiblyInterrupted: boolean, currentNode: string | null, currentAttemptId: string | null, waitingOn: string | null, createdAt: string, updatedAt: string, finishedAt: string | null, carriedStepCount: number, display: { status: RunDisplayStatus, reason: string | null, activity: RunActivity | null, controls: Array<RunControl> }, definition: { name: string, startAt: string, nodes: Array<{ nodeId: string, nodeType: string }>, edges: Array<{ from: string, to: string }> } | null, graphSteps: Array<{ nodeId: string, attemptId: string, outcome: StepOutcome, attempt: number }>, takenTransitions: Array<{ from: string, to: string }>, input: { byteLength: number, mediaType: string, text: string | null }, finalOutput: { byteLength: number, mediaType: string, text: string | null } | null, error: { byteLength: number, mediaType: string, text: string | null } | null, pendingRequest: { requestId: string, kind: string, status: string, createdAt: string, settledAt: string | null, contract: { byteLength: number, mediaType: string, text: string | null } } | null, session: { piSessionId: string | null, captureStatus: string, integrity: string, entries: { totalCount: number, edges: Array<{ node: { seq: number, at: string, entryType: string | null, customType: string | null, role: string | null, text: string | null, toolCallId: string | null, toolName: string | null, toolCalls: Array<{ id: string, name: string, arguments: unknown }> | null } }> } } | null, followUps: { totalCount: number, edges: Array<{ node: { followUpId: string, state: string, actorType: string, createdAt: string, prompt: { byteLength: number, mediaType: string, text: string | null }, reason: { byteLength: number, mediaType: string, text: string | null } | null } }> }, interactiveRequests: { totalCount: number, edges: Array<{ node: { requestId: string, kind: string, status: string, createdAt: string, settledAt: string | null, contract: { byteLength: number, mediaType: string, text: string | null } } }> }, humanDecisions: { totalCount: number, edges: Array<{ node: { decisionId: string, title: string, audience: string, createdAt: string, deadlineAt: string | null, choices: { byteLength: number, mediaType: string, text: string | null }, resolution: { outcome: string, reason: string | null, resolvedAt: string } | null } }> }, steps: { totalCount: number, edges: Array<{ node: { stepIndex: number, nodeId: string, nodeType: string, attempt: number, outcome: StepOutcome, startedAt: string | null, finishedAt: string | null, prompt: { byteLength: number, mediaType: string, text: string | null } | null, output: { byteLength: number, mediaType: string, text: string | null } | null, error: { byteLength: number, mediaType: string, text: string | null } | null } }> }, trace: { totalCount: number, edges: Array<{ node: { seq: number, at: string, type: string, scope: TraceScope, nodeId: string | null, actorType: string, payload: { byteLength: number, mediaType: string, text: string | null } | null } }> }, updates: { totalCount: number, edges: Array<{ node: { updateId: string, type: string, key: string, nodeId: string, at: string, data: { byteLength: number, mediaType: string, text: string | null } } }> } } } | null };

export type LivePageRunQuestionsQueryVariables = Exact<{
  runId: string;
}>;


export type LivePageRunQuestionsQuery = { workflowRun: { id: string, runId: string, view: { revision: number, followUps: { totalCount: number, edges: Array<{ node: { followUpId: string, state: string, actorType: string, createdAt: string, prompt: { byteLength: number, mediaType: string, text: string | null }, reason: { byteLength: number, mediaType: string, text: string | null } | null } }> }, interactiveRequests: { totalCount: number, edges: Array<{ node: { requestId: string, kind: string, status: string, createdAt: string, settledAt: string | null, contract: { byteLength: number, mediaType: string, text: string | null } } }> }, humanDecisions: { totalCount: number, edges: Array<{ node: { decisionId: string, title: string, audience: string, createdAt: string, deadlineAt: string | null, choices: { byteLength: number, mediaType: string, text: string | null }, resolution: { outcome: string, reason: string | null, resolvedAt: string } | null } }> } } } | null };

export type LivePageViewFollowSubscriptionVariables = Exact<{
  runId: string;
  after?: string | null | undefined;
}>;


export type LivePageViewFollowSubscription = { workflowRunView:
    | { __typename: 'WorkflowRunViewChanged', fromRevision: number, revision: number, cursor: string, view: { runId: string, revision: number, title: string | null, workflowName: string, status: WorkflowRunStatus, statusDetail: string | null, live: boolean, paused: boolean, possiblyInterrupted: boolean, currentNode: string | null, currentAttemptId: string | null, waitingOn: string | null, createdAt: string, updatedAt: string, finishedAt: string | null, carriedStepCount: number, display: { status: RunDisplayStatus, reason: string | null, activity: RunActivity | null, controls: Array<RunControl> }, definition: { name: string, startAt: string, nodes: Array<{ nodeId: string, nodeType: string }>, edges: Array<{ from: string, to: string }> } | null, graphSteps: Array<{ nodeId: string, attemptId: string, outcome: StepOutcome, attempt: number }>, takenTransitions: Array<{ from: string, to: string }>, input: { byteLength: number, mediaType: string, text: string | null }, finalOutput: { byteLength: number, mediaType: string, text: string | null } | null, error: { byteLength: number, mediaType: string, text: string | null } | null, pendingRequest: { requestId: string, kind: string, status: string, createdAt: string, settledAt: string | null, contract: { byteLength: number, mediaType: string, text: string | null } } | null, session: { piSessionId: string | null, captureStatus: string, integrity: string } | null }, steps: Array<{ stepIndex: number, nodeId: string, nodeType: string, attempt: number, outcome: StepOutcome, startedAt: string | null, finishedAt: string | null, prompt: { byteLength: number, mediaType: string, text: string | null } | null, output: { byteLength: number, mediaType: string, text: string | null } | null, error: { byteLength: number, mediaType: string, text: string | null } | null }>, traceEvents: Array<{ seq: number, at: string, type: string, scope: TraceScope, nodeId: string | null, actorType: string, payload: { byteLength: number, mediaType: string, text: string | null } | null }>, sessionEntries: Array<{ seq: number, at: string, entryType: string | null, customType: string | null, role: string | null, text: string | null, toolCallId: string | null, toolName: string | null, toolCalls: Array<{ id: string, name: string, arguments: unknown }> | null }>, updates: Array<{ updateId: string, type: string, key: string, nodeId: string, at: string, data: { byteLength: number, mediaType: string, text: string | null } }> }
    | { __typename: 'WorkflowRunViewReset', revision: number, cursor: string, view: { runId: string, revision: number, title: string | null, workflowName: string, status: WorkflowRunStatus, statusDetail: string | null, live: boolean, paused: boolean, possiblyInterrupted: boolean, currentNode: string | null, currentAttemptId: string | null, waitingOn: string | null, createdAt: string, updatedAt: string, finishedAt: string | null, carriedStepCount: number, display: { status: RunDisplayStatus, reason: string | null, activity: RunActivity | null, controls: Array<RunControl> }, definition: { name: string, startAt: string, nodes: Array<{ nodeId: string, nodeType: string }>, edges: Array<{ from: string, to: string }> } | null, graphSteps: Array<{ nodeId: string, attemptId: string, outcome: StepOutcome, attempt: number }>, takenTransitions: Array<{ from: string, to: string }>, input: { byteLength: number, mediaType: string, text: string | null }, finalOutput: { byteLength: number, mediaType: string, text: string | null } | null, error: { byteLength: number, mediaType: string, text: string | null } | null, pendingRequest: { requestId: string, kind: string, status: string, createdAt: string, settledAt: string | null, contract: { byteLength: number, mediaType: string, text: string | null } } | null, session: { piSessionId: string | null, captureStatus: string, integrity: string, entries: { totalCount: number, edges: Array<{ node: { seq: number, at: string, entryType: string | null, customType: string | null, role: string | null, text: string | null, toolCallId: string | null, toolName: string | null, toolCalls: Array<{ id: string, name: string, arguments: unknown }> | null } }> } } | null, followUps: { totalCount: number, edges: Array<{ node: { followUpId: string, state: string, actorType: string, createdAt: string, prompt: { byteLength: number, mediaType: string, text: string | null }, reason: { byteLength: number, mediaType: string, text: string | null } | null } }> }, interactiveRequests: { totalCount: number, edges: Array<{ node: { requestId: string, kind: string, status: string, createdAt: string, settledAt: string | null, contract: { byteLength: number, mediaType: string, text: string | null } } }> }, humanDecisions: { totalCount: number, edges: Array<{ node: { decisionId: string, title: string, audience: string, createdAt: string, deadlineAt: string | null, choices: { byteLength: number, mediaType: string, text: string | null }, resolution: { outcome: string, reason: string | null, resolvedAt: string } | null } }> }, steps: { totalCount: number, edges: Array<{ node: { stepIndex: number, nodeId: string, nodeType: string, attempt: number, outcome: StepOutcome, startedAt: string | null, finishedAt: string | null, prompt: { byteLength: number, mediaType: string, text: string | null } | null, output: { byteLength: number, mediaType: string, text: string | null } | null, error: { byteLength: number, mediaType: string, text: string | null } | null } }> }, trace: { totalCount: number, edges: Array<{ node: { seq: number, at: string, type: string, scope: TraceScope, nodeId: string | null, actorType: string, payload: { byteLength: number, mediaType: string, text: string | null } | null } }> }, updates: { totalCount: number, edges: Array<{ node: { updateId: string, type: string, key: string, nodeId: string, at: string, data: { byteLength: number, mediaType: string, text: string | null } } }> } } }
   };

export type McpRunFieldsFragment = { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, executionMode: ExecutionMode, originSessionId: string | null, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, terminalFingerprint: string | null, presentationRevision: number, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null };

type McpErrorFields_ClaimLostError_Fragment = { message: string, code: string };

type McpErrorFields_ConflictError_Fragment = { message: string, code: string };

type McpErrorFields_ForbiddenError_Fragment = { message: string, code: string };

type McpErrorFields_LineageError_Fragment = { message: string, code: string };

type McpErrorFields_NotFoundError_Fragment = { message: string, code: string };

type McpErrorFields_RestartRejectedError_Fragment = { message: string, code: string };

type McpErrorFields_ValidationError_Fragment = { field: string | null, message: string, code: string };

export type McpErrorFieldsFragment =
  | McpErrorFields_ClaimLostError_Fragment
  | McpErrorFields_ConflictError_Fragment
  | McpErrorFields_ForbiddenError_Fragment
  | McpErrorFields_LineageError_Fragment
  | McpErrorFields_NotFoundError_Fragment
  | McpErrorFields_RestartRejectedError_Fragment
  | McpErrorFields_ValidationError_Fragment
;

export type McpListRunsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  filter?: WorkflowRunFilter | null | undefined;
  orderBy?: WorkflowRunOrder | null | undefined;
}>;


export type McpListRunsQuery = { workflowRuns: { totalCount: number, edges: Array<{ node: { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, executionMode: ExecutionMode, originSessionId: string | null, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, terminalFingerprint: string | null, presentationRevision: number, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type McpInspectRunQueryVariables = Exact<{
  runId: string;
}>;


export type McpInspectRunQuery = { workflowRun: { input: unknown, launchOptions: unknown, parentTerminalFingerprint: string | null, id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, executionMode: ExecutionMode, originSessionId: string | null, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, terminalFingerprint: string | null, presentationRevision: number, view: { revision: number, cursor: string, title: string | null, currentNode: string | null, waitingOn: string | null, display: { status: RunDisplayStatus, activity: RunActivity | null, reason: string | null, controls: Array<RunControl> }, error: { text: string | null } | null, finalOutput: { byteLength: number, text: string | null } | null, pendingRequest: { requestId: string, kind: string, status: string, revision: number } | null, steps: { totalCount: number, edges: Array<{ node: { stepIndex: number, nodeId: string, nodeType: string, attempt: number, outcome: StepOutcome, startedAt: string | null, finishedAt: string | null, error: { text: string | null } | null } }> } }, continuation: { id: string, runId: string } | null, restart: { id: string, runId: string } | null, latestRun: { id: string, runId: string }, lineage: { totalCount: number, edges: Array<{ node: { id: string, runId: string, parentRunId: string | null, lineageKind: LineageKind | null, restartNumber: number, status: WorkflowRunStatus, queueStatus: RunQueueStatus, createdAt: string } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } }, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null } | null };

export type McpViewerDeltasQueryVariables = Exact<{
  runId: string;
  afterRevision: number;
}>;


export type McpViewerDeltasQuery = { workflowRun: { id: string, viewerDeltas: { kind: ViewerDeltaPageKind, currentRevision: number, retainedFromRevision: number, batches: Array<{ presentationRevision: number, deltas: Array<{ deltaIndex: number, targetType: ViewerTargetType, targetKey: string, recordedAt: string, patch: Array<{ op: PatchOp, path: string, value: unknown }> }> }> } } | null };

export type McpRunChangeSubscriptionVariables = Exact<{
  runId: string;
  afterRevision: number;
}>;


export type McpRunChangeSubscription = { workflowRunDeltas:
    | { __typename: 'ViewerDeltaBatch', runId: string, presentationRevision: number, deltas: Array<{ deltaIndex: number, targetType: ViewerTargetType, targetKey: string, recordedAt: string, patch: Array<{ op: PatchOp, path: string, value: unknown }> }> }
    | { __typename: 'ViewerSnapshotRequired', runId: string, currentRevision: number, retainedFromRevision: number }
   };

export type McpViewChangesSubscriptionVariables = Exact<{
  runId: string;
  after: string;
}>;


export type McpViewChangesSubscription = { workflowRunView:
    | { __typename: 'WorkflowRunViewChanged', fromRevision: number, revision: number, cursor: string, view: { title: string | null, currentNode: string | null, waitingOn: string | null, display: { status: RunDisplayStatus, activity: RunActivity | null, reason: string | null, controls: Array<RunControl> }, error: { text: string | null } | null }, steps: Array<{ stepIndex: number, nodeId: string, nodeType: string, attempt: number, outcome: StepOutcome, finishedAt: string | null, output: { byteLength: number, text: string | null } | null, error: { text: string | null } | null }>, traceEvents: Array<{ seq: number, at: string, type: string, nodeId: string | null }>, sessionEntries: Array<{ seq: number, role: string | null, text: string | null, toolCalls: Array<{ id: string, name: string }> | null }> }
    | { __typename: 'WorkflowRunViewReset', revision: number, cursor: string }
   };

export type McpRunQueryVariables = Exact<{
  runId: string;
}>;


export type McpRunQuery = { workflowRun: { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, executionMode: ExecutionMode, originSessionId: string | null, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, terminalFingerprint: string | null, presentationRevision: number, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null } | null };

export type McpRestartRunMutationVariables = Exact<{
  input: RestartWorkflowRunInput;
}>;


export type McpRestartRunMutation = { restartWorkflowRun:
    | { __typename: 'ConflictError', message: string, code: string }
    | { __typename: 'ForbiddenError', message: string, code: string }
    | { __typename: 'LineageError', message: string, code: string }
    | { __typename: 'NotFoundError', message: string, code: string }
    | { __typename: 'RestartRejectedError', message: string, code: string }
    | { __typename: 'RestartWorkflowRunSuccess', adopted: boolean, run: { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, executionMode: ExecutionMode, originSessionId: string | null, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, terminalFingerprint: string | null, presentationRevision: number, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null } }
    | { __typename: 'ValidationError', field: string | null, message: string, code: string }
   };

export type McpCancelRunMutationVariables = Exact<{
  input: CancelWorkflowRunInput;
}>;


export type McpCancelRunMutation = { cancelWorkflowRun:
    | { __typename: 'CancelWorkflowRunSuccess', run: { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, executionMode: ExecutionMode, originSessionId: string | null, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, terminalFingerprint: string | null, presentationRevision: number, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null } }
    | { __typename: 'ClaimLostError', message: string, code: string }
    | { __typename: 'ConflictError', message: string, code: string }
    | { __typename: 'ForbiddenError', message: string, code: string }
    | { __typename: 'NotFoundError', message: string, code: string }
    | { __typename: 'ValidationError', field: string | null, message: string, code: string }
   };

export type McpPauseRunMutationVariables = Exact<{
  input: PauseWorkflowRunInput;
}>;


export type McpPauseRunMutation = { pauseWorkflowRun:
    | { __typename: 'ConflictError', message: string, code: string }
    | { __typename: 'ForbiddenError', message: string, code: string }
    | { __typename: 'NotFoundError', message: string, code: string }
    | { __typename: 'PauseWorkflowRunSuccess', run: { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, executionMode: ExecutionMode, originSessionId: string | null, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, terminalFingerprint: string | null, presentationRevision: number, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null } }
    | { __typename: 'ValidationError', field: string | null, message: string, code: string }
   };

export type McpResumeRunMutationVariables = Exact<{
  input: ResumeWorkflowRunInput;
}>;


export type McpResumeRunMutation = { resumeWorkflowRun:
    | { __typename: 'ConflictError', message: string, code: string }
    | { __typename: 'ForbiddenError', message: string, code: string }
    | { __typename: 'NotFoundError', message: string, code: string }
    | { __typename: 'ResumeWorkflowRunSuccess', run: { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, executionMode: ExecutionMode, originSessionId: string | null, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, terminalFingerprint: string | null, presentationRevision: number, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null } }
    | { __typename: 'ValidationError', field: string | null, message: string, code: string }
   };

export type ReserveWorkflowRunMutationVariables = Exact<{
  input: ReserveWorkflowRunInput;
}>;


export type ReserveWorkflowRunMutation = { reserveWorkflowRun:
    | { __typename: 'ConflictError', message: string, code: string }
    | { __typename: 'ForbiddenError', message: string, code: string }
    | { __typename: 'LineageError', message: string, code: string }
    | { __typename: 'NotFoundError', message: string, code: string }
    | { __typename: 'ReserveWorkflowRunSuccess', adopted: boolean, run: { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, executionMode: ExecutionMode, originSessionId: string | null, input: unknown, launchOptions: unknown, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, parentTerminalFingerprint: string | null, terminalFingerprint: string | null, presentationRevision: number, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null } }
    | { __typename: 'RestartRejectedError', message: string, code: string }
    | { __typename: 'ValidationError', field: string | null, message: string, code: string }
   };

export type RestartWorkflowRunMutationVariables = Exact<{
  input: RestartWorkflowRunInput;
}>;


export type RestartWorkflowRunMutation = { restartWorkflowRun:
    | { __typename: 'ConflictError', message: string, code: string }
    | { __typename: 'ForbiddenError', message: string, code: string }
    | { __typename: 'LineageError', message: string, code: string }
    | { __typename: 'NotFoundError', message: string, code: string }
    | { __typename: 'RestartRejectedError', message: string, code: string }
    | { __typename: 'RestartWorkflowRunSuccess', adopted: boolean, run: { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, executionMode: ExecutionMode, originSessionId: string | null, input: unknown, launchOptions: unknown, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, parentTerminalFingerprint: string | null, terminalFingerprint: string | null, presentationRevision: number, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null } }
    | { __typename: 'ValidationError', field: string | null, message: string, code: string }
   };

export type ClaimWorkflowRunMutationVariables = Exact<{
  input: ClaimWorkflowRunInput;
}>;


export type ClaimWorkflowRunMutation = { claimWorkflowRun:
    | { __typename: 'ClaimWorkflowRunSuccess', run: { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, executionMode: ExecutionMode, originSessionId: string | null, input: unknown, launchOptions: unknown, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, parentTerminalFingerprint: string | null, terminalFingerprint: string | null, presentationRevision: number, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null } | null }
    | { __typename: 'ConflictError', message: string, code: string }
    | { __typename: 'ForbiddenError', message: string, code: string }
    | { __typename: 'NotFoundError', message: string, code: string }
    | { __typename: 'ValidationError', field: string | null, message: string, code: string }
   };

export type ParkWorkflowRunMutationVariables = Exact<{
  input: ParkWorkflowRunInput;
}>;


export type ParkWorkflowRunMutation = { parkWorkflowRun:
    | { __typename: 'ClaimLostError', message: string, code: string }
    | { __typename: 'ConflictError', message: string, code: string }
    | { __typename: 'ForbiddenError', message: string, code: string }
    | { __typename: 'NotFoundError', message: string, code: string }
    | { __typename: 'ParkWorkflowRunSuccess', run: { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, executionMode: ExecutionMode, originSessionId: string | null, input: unknown, launchOptions: unknown, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, parentTerminalFingerprint: string | null, terminalFingerprint: string | null, presentationRevision: number, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null } }
    | { __typename: 'ValidationError', field: string | null, message: string, code: string }
   };

export type SettleWorkflowRunMutationVariables = Exact<{
  input: SettleWorkflowRunInput;
}>;


export type SettleWorkflowRunMutation = { settleWorkflowRun:
    | { __typename: 'ClaimLostError', message: string, code: string }
    | { __typename: 'ConflictError', message: string, code: string }
    | { __typename: 'ForbiddenError', message: string, code: string }
    | { __typename: 'NotFoundError', message: string, code: string }
    | { __typename: 'SettleWorkflowRunSuccess', run: { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, executionMode: ExecutionMode, originSessionId: string | null, input: unknown, launchOptions: unknown, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, parentTerminalFingerprint: string | null, terminalFingerprint: string | null, presentationRevision: number, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null } }
    | { __typename: 'ValidationError', field: string | null, message: string, code: string }
   };

export type RenewWorkflowRunClaimMutationVariables = Exact<{
  input: RenewWorkflowRunClaimInput;
}>;


export type RenewWorkflowRunClaimMutation = { renewWorkflowRunClaim:
    | { __typename: 'ClaimLostError', message: string, code: string }
    | { __typename: 'ForbiddenError', message: string, code: string }
    | { __typename: 'NotFoundError', message: string, code: string }
    | { __typename: 'RenewWorkflowRunClaimSuccess', run: { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, executionMode: ExecutionMode, originSessionId: string | null, input: unknown, launchOptions: unknown, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, parentTerminalFingerprint: string | null, terminalFingerprint: string | null, presentationRevision: number, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null } }
    | { __typename: 'ValidationError', field: string | null, message: string, code: string }
   };

export type MarkWorkflowRunRunningMutationVariables = Exact<{
  input: MarkWorkflowRunRunningInput;
}>;


export type MarkWorkflowRunRunningMutation = { markWorkflowRunRunning:
    | { __typename: 'ClaimLostError', message: string, code: string }
    | { __typename: 'ConflictError', message: string, code: string }
    | { __typename: 'ForbiddenError', message: string, code: string }
    | { __typename: 'MarkWorkflowRunRunningSuccess', run: { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, executionMode: ExecutionMode, originSessionId: string | null, input: unknown, launchOptions: unknown, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, parentTerminalFingerprint: string | null, terminalFingerprint: string | null, presentationRevision: number, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null } }
    | { __typename: 'NotFoundError', message: string, code: string }
    | { __typename: 'ValidationError', field: string | null, message: string, code: string }
   };

export type ReportWorkflowRunStateMutationVariables = Exact<{
  input: ReportWorkflowRunStateInput;
}>;


export type ReportWorkflowRunStateMutation = { reportWorkflowRunState:
    | { __typename: 'ClaimLostError', message: string, code: string }
    | { __typename: 'ConflictError', message: string, code: string }
    | { __typename: 'ForbiddenError', message: string, code: string }
    | { __typename: 'NotFoundError', message: string, code: string }
    | { __typename: 'ReportWorkflowRunStateSuccess', run: { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, executionMode: ExecutionMode, originSessionId: string | null, input: unknown, launchOptions: unknown, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, parentTerminalFingerprint: string | null, terminalFingerprint: string | null, presentationRevision: number, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null } }
    | { __typename: 'ValidationError', field: string | null, message: string, code: string }
   };

export type CancelWorkflowRunMutationVariables = Exact<{
  input: CancelWorkflowRunInput;
}>;


export type CancelWorkflowRunMutation = { cancelWorkflowRun:
    | { __typename: 'CancelWorkflowRunSuccess', run: { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, executionMode: ExecutionMode, originSessionId: string | null, input: unknown, launchOptions: unknown, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, parentTerminalFingerprint: string | null, terminalFingerprint: string | null, presentationRevision: number, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null } }
    | { __typename: 'ClaimLostError', message: string, code: string }
    | { __typename: 'ConflictError', message: string, code: string }
    | { __typename: 'ForbiddenError', message: string, code: string }
    | { __typename: 'NotFoundError', message: string, code: string }
    | { __typename: 'ValidationError', field: string | null, message: string, code: string }
   };

export type PauseWorkflowRunMutationVariables = Exact<{
  input: PauseWorkflowRunInput;
}>;


export type PauseWorkflowRunMutation = { pauseWorkflowRun:
    | { __typename: 'ConflictError', message: string, code: string }
    | { __typename: 'ForbiddenError', message: string, code: string }
    | { __typename: 'NotFoundError', message: string, code: string }
    | { __typename: 'PauseWorkflowRunSuccess', run: { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, executionMode: ExecutionMode, originSessionId: string | null, input: unknown, launchOptions: unknown, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, parentTerminalFingerprint: string | null, terminalFingerprint: string | null, presentationRevision: number, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null } }
    | { __typename: 'ValidationError', field: string | null, message: string, code: string }
   };

export type ResumeWorkflowRunMutationVariables = Exact<{
  input: ResumeWorkflowRunInput;
}>;


export type ResumeWorkflowRunMutation = { resumeWorkflowRun:
    | { __typename: 'ConflictError', message: string, code: string }
    | { __typename: 'ForbiddenError', message: string, code: string }
    | { __typename: 'NotFoundError', message: string, code: string }
    | { __typename: 'ResumeWorkflowRunSuccess', run: { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, executionMode: ExecutionMode, originSessionId: string | null, input: unknown, launchOptions: unknown, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, parentTerminalFingerprint: string | null, terminalFingerprint: string | null, presentationRevision: number, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null } }
    | { __typename: 'ValidationError', field: string | null, message: string, code: string }
   };

export type WorkflowRunQueryVariables = Exact<{
  runId: string;
}>;


export type WorkflowRunQuery = { workflowRun: { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, executionMode: ExecutionMode, originSessionId: string | null, input: unknown, launchOptions: unknown, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, parentTerminalFingerprint: string | null, terminalFingerprint: string | null, presentationRevision: number, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null } | null };

export type WorkflowRunsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  last?: number | null | undefined;
  before?: string | null | undefined;
  filter?: WorkflowRunFilter | null | undefined;
  orderBy?: WorkflowRunOrder | null | undefined;
}>;


export type WorkflowRunsQuery = { workflowRuns: { totalCount: number, edges: Array<{ cursor: string, node: { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, executionMode: ExecutionMode, originSessionId: string | null, input: unknown, launchOptions: unknown, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, parentTerminalFingerprint: string | null, terminalFingerprint: string | null, presentationRevision: number, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null } }>, pageInfo: { hasNextPage: boolean, hasPreviousPage: boolean, startCursor: string | null, endCursor: string | null } } };

export type NodeQueryVariables = Exact<{
  id: string | number;
}>;


export type NodeQuery = { node: { __typename: 'WorkflowRun', runId: string, workflowName: string, status: WorkflowRunStatus, id: string } | null };

export type WorkflowRunLineageQueryVariables = Exact<{
  runId: string;
  first?: number | null | undefined;
  after?: string | null | undefined;
  last?: number | null | undefined;
  before?: string | null | undefined;
}>;


export type WorkflowRunLineageQuery = { workflowRun: { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, executionMode: ExecutionMode, originSessionId: string | null, input: unknown, launchOptions: unknown, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, parentTerminalFingerprint: string | null, terminalFingerprint: string | null, presentationRevision: number, parent: { id: string, runId: string } | null, rootRun: { id: string, runId: string }, children: Array<{ id: string, runId: string, lineageKind: LineageKind | null }>, continuations: Array<{ id: string, runId: string }>, restarts: Array<{ id: string, runId: string }>, continuation: { id: string, runId: string } | null, restart: { id: string, runId: string } | null, latestRun: { id: string, runId: string }, lineage: { totalCount: number, edges: Array<{ cursor: string, node: { id: string, runId: string, parentRunId: string | null, lineageKind: LineageKind | null, restartNumber: number } }>, pageInfo: { hasNextPage: boolean, hasPreviousPage: boolean, startCursor: string | null, endCursor: string | null } }, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null } | null };

export type WorkflowRunsLineageOverviewQueryVariables = Exact<{
  first?: number | null | undefined;
}>;


export type WorkflowRunsLineageOverviewQuery = { workflowRuns: { edges: Array<{ node: { id: string, runId: string, parent: { id: string, runId: string } | null, rootRun: { id: string, runId: string }, children: Array<{ id: string, runId: string }>, latestRun: { id: string, runId: string }, lineage: { totalCount: number } } }> } };

export type ViewerDeltasQueryVariables = Exact<{
  runId: string;
  afterRevision: number;
}>;


export type ViewerDeltasQuery = { workflowRun: { id: string, runId: string, presentationRevision: number, viewerDeltas: { kind: ViewerDeltaPageKind, currentRevision: number, retainedFromRevision: number, batches: Array<{ runId: string, presentationRevision: number, deltas: Array<{ deltaIndex: number, targetType: ViewerTargetType, targetKey: string, recordedAt: string, patch: Array<{ op: PatchOp, path: string, value: unknown }> }> }> } } | null };

export type RunChainQueryVariables = Exact<{
  runId: string;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type RunChainQuery = { workflowRun: { id: string, runId: string, rootRunId: string, presentationRevision: number, rootRun: { id: string, runId: string, workflowName: string, lineage: { totalCount: number, edges: Array<{ node: { id: string, runId: string, parentRunId: string | null, lineageKind: LineageKind | null, restartNumber: number, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, errorMessage: string | null, parentTerminalFingerprint: string | null, createdAt: string } }>, pageInfo: { hasNextPage: boolean, hasPreviousPage: boolean, startCursor: string | null, endCursor: string | null } } } } | null };

export type WorkflowRunChangeCursorQueryVariables = Exact<{
  filter?: WorkflowRunFilter | null | undefined;
}>;


export type WorkflowRunChangeCursorQuery = { workflowRuns: { changeCursor: string } };

export type WorkflowRunCountsQueryVariables = Exact<{
  filter?: WorkflowRunFilter | null | undefined;
}>;


export type WorkflowRunCountsQuery = { workflowRunCounts: { total: number, byStatus: Array<{ status: WorkflowRunStatus, count: number }>, byQueueStatus: Array<{ status: RunQueueStatus, count: number }> } };

export type WorkflowRunViewQueryVariables = Exact<{
  runId: string;
  steps?: number | null | undefined;
  trace?: number | null | undefined;
  entries?: number | null | undefined;
}>;


export type WorkflowRunViewQuery = { workflowRun: { id: string, runId: string, view: { revision: number, title: string | null, workflowName: string, status: WorkflowRunStatus, paused: boolean, statusDetail: string | null, createdAt: string, finishedAt: string | null, currentNode: string | null, waitingOn: string | null, display: { status: RunDisplayStatus, activity: RunActivity | null, reason: string | null, controls: Array<RunControl> }, input: { byteLength: number, json: unknown }, finalOutput: { byteLength: number, mediaType: string, text: string | null } | null, error: { text: string | null } | null, pendingRequest: { requestId: string, kind: string, status: string, revision: number } | null, definition: { name: string, startAt: string, nodes: Array<{ nodeId: string, nodeType: string }>, edges: Array<{ from: string, to: string }> } | null, graphSteps: Array<{ nodeId: string, outcome: StepOutcome }>, takenTransitions: Array<{ from: string, to: string }>, steps: { totalCount: number, pageInfo: { hasPreviousPage: boolean, startCursor: string | null }, edges: Array<{ node: { stepIndex: number, attemptId: string, nodeId: string, nodeType: string, attempt: number, outcome: StepOutcome, startedAt: string | null, finishedAt: string | null, prompt: { byteLength: number, text: string | null } | null, output: { byteLength: number, mediaType: string, text: string | null } | null, error: { text: string | null } | null } }> }, trace: { totalCount: number, pageInfo: { hasPreviousPage: boolean, startCursor: string | null }, edges: Array<{ node: { seq: number, at: string, scope: TraceScope, type: string, nodeId: string | null, attemptId: string | null } }> }, session: { piSessionId: string | null, cwd: string | null, captureStatus: string, entries: { totalCount: number, pageInfo: { hasPreviousPage: boolean, startCursor: string | null }, edges: Array<{ node: { seq: number, at: string, role: string | null, customType: string | null, text: string | null, toolCallId: string | null, toolName: string | null, toolCalls: Array<{ id: string, name: string, arguments: unknown }> | null } }> } } | null, updates: { edges: Array<{ node: { type: string, key: string, nodeId: string, data: { json: unknown } } }> }, humanDecisions: { edges: Array<{ node: { decisionId: string, title: string, deadlineAt: string | null, resolution: { outcome: string } | null } }> } } } | null };

export type WorkflowRunDeltasSubscriptionVariables = Exact<{
  runId: string;
  afterRevision?: number | null | undefined;
}>;


export type WorkflowRunDeltasSubscription = { workflowRunDeltas:
    | { __typename: 'ViewerDeltaBatch', runId: string, presentationRevision: number, deltas: Array<{ deltaIndex: number, targetType: ViewerTargetType, targetKey: string, recordedAt: string, patch: Array<{ op: PatchOp, path: string, value: unknown }> }> }
    | { __typename: 'ViewerSnapshotRequired', runId: string, currentRevision: number, retainedFromRevision: number, run: { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, executionMode: ExecutionMode, originSessionId: string | null, input: unknown, launchOptions: unknown, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, parentTerminalFingerprint: string | null, terminalFingerprint: string | null, presentationRevision: number, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null } }
   };

export type WorkflowRunUpdatedSubscriptionVariables = Exact<{
  runId: string;
}>;


export type WorkflowRunUpdatedSubscription = { workflowRunUpdated: { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, executionMode: ExecutionMode, originSessionId: string | null, input: unknown, launchOptions: unknown, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, parentTerminalFingerprint: string | null, terminalFingerprint: string | null, presentationRevision: number, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null } };

export type WorkflowRunLineageUpdatedSubscriptionVariables = Exact<{
  rootRunId: string;
}>;


export type WorkflowRunLineageUpdatedSubscription = { workflowRunLineageUpdated: { id: string, runId: string, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, status: WorkflowRunStatus, queueStatus: RunQueueStatus, presentationRevision: number } };

export type WorkflowRunChangesSubscriptionVariables = Exact<{
  filter?: WorkflowRunFilter | null | undefined;
  after?: string | null | undefined;
}>;


export type WorkflowRunChangesSubscription = { workflowRunChanges:
    | { __typename: 'WorkflowRunChange', cursor: string, run: { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, executionMode: ExecutionMode, originSessionId: string | null, input: unknown, launchOptions: unknown, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, parentTerminalFingerprint: string | null, terminalFingerprint: string | null, presentationRevision: number, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null } }
    | { __typename: 'WorkflowRunChangesResetRequired', cursor: string }
   };

export type WorkflowRunChainDeltasSubscriptionVariables = Exact<{
  runId: string;
  after?: string | null | undefined;
}>;


export type WorkflowRunChainDeltasSubscription = { workflowRunChainDeltas:
    | { __typename: 'WorkflowRunChainBatch', cursor: string, batch: { runId: string, presentationRevision: number, deltas: Array<{ deltaIndex: number, targetType: ViewerTargetType, targetKey: string, recordedAt: string, patch: Array<{ op: PatchOp, path: string, value: unknown }> }> } }
    | { __typename: 'WorkflowRunChainMoved', cursor: string, fromRunId: string, runId: string, lineageKind: LineageKind, currentRevision: number, run: { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, executionMode: ExecutionMode, originSessionId: string | null, input: unknown, launchOptions: unknown, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, parentTerminalFingerprint: string | null, terminalFingerprint: string | null, presentationRevision: number, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null } }
    | { __typename: 'WorkflowRunChainSnapshotRequired', cursor: string, runId: string, currentRevision: number, retainedFromRevision: number, run: { id: string, runId: string, workflowName: string, workflowRef: string, status: WorkflowRunStatus, queueStatus: RunQueueStatus, paused: boolean, statusDetail: string | null, executionMode: ExecutionMode, originSessionId: string | null, input: unknown, launchOptions: unknown, errorCode: string | null, errorMessage: string | null, createdAt: string, updatedAt: string, startedAt: string | null, finishedAt: string | null, parentRunId: string | null, rootRunId: string, lineageKind: LineageKind | null, restartNumber: number, parentTerminalFingerprint: string | null, terminalFingerprint: string | null, presentationRevision: number, claim: { ownerId: string, leaseGeneration: number, expiresAt: string } | null } }
   };

export type WorkflowRunViewFollowSubscriptionVariables = Exact<{
  runId: string;
  after?: string | null | undefined;
}>;


export type WorkflowRunViewFollowSubscription = { workflowRunView:
    | { __typename: 'WorkflowRunViewChanged', runId: string, fromRevision: number, revision: number, cursor: string, view: { title: string | null, status: WorkflowRunStatus, paused: boolean, statusDetail: string | null, currentNode: string | null, waitingOn: string | null, display: { status: RunDisplayStatus, activity: RunActivity | null, reason: string | null, controls: Array<RunControl> }, finalOutput: { byteLength: number, text: string | null } | null, error: { text: string | null } | null }, steps: Array<{ stepIndex: number, nodeId: string, nodeType: string, attempt: number, outcome: StepOutcome, startedAt: string | null, finishedAt: string | null, prompt: { byteLength: number, text: string | null } | null, output: { byteLength: number, text: string | null } | null, error: { text: string | null } | null }>, traceEvents: Array<{ seq: number, at: string, scope: TraceScope, type: string, nodeId: string | null, attemptId: string | null }>, sessionEntries: Array<{ seq: number, at: string, role: string | null, customType: string | null, text: string | null, toolCalls: Array<{ id: string, name: string, arguments: unknown }> | null }>, sessionEvents: Array<{ seq: number, at: string, type: string }>, updates: Array<{ seq: number, type: string, key: string, nodeId: string, data: { json: unknown } }> }
    | { __typename: 'WorkflowRunViewReset', runId: string, revision: number, cursor: string, view: { title: string | null, status: WorkflowRunStatus, paused: boolean, statusDetail: string | null, currentNode: string | null, waitingOn: string | null, display: { status: RunDisplayStatus, activity: RunActivity | null, reason: string | null, controls: Array<RunControl> }, finalOutput: { byteLength: number, text: string | null } | null, error: { text: string | null } | null, steps: { totalCount: number, edges: Array<{ node: { stepIndex: number, nodeId: string, nodeType: string, attempt: number, outcome: StepOutcome, startedAt: string | null, finishedAt: string | null, prompt: { byteLength: number, text: string | null } | null, output: { byteLength: number, text: string | null } | null, error: { text: string | null } | null } }> }, trace: { totalCount: number, edges: Array<{ node: { seq: number, at: string, scope: TraceScope, type: string, nodeId: string | null, attemptId: string | null } }> }, session: { entries: { totalCount: number, edges: Array<{ node: { seq: number, at: string, role: string | null, customType: string | null, text: string | null, toolCalls: Array<{ id: string, name: string, arguments: unknown }> | null } }> } } | null } }
   };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}
export const RunFieldsFragmentDoc = new TypedDocumentString(`
    fragment RunFields on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  executionMode
  originSessionId
  input
  launchOptions
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  parentTerminalFingerprint
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}
    `, {"fragmentName":"RunFields"}) as unknown as TypedDocumentString<RunFieldsFragment, unknown>;
export const PageInfoFieldsFragmentDoc = new TypedDocumentString(`
    fragment PageInfoFields on PageInfo {
  hasNextPage
  hasPreviousPage
  startCursor
  endCursor
}
    `, {"fragmentName":"PageInfoFields"}) as unknown as TypedDocumentString<PageInfoFieldsFragment, unknown>;
export const ErrorFieldsFragmentDoc = new TypedDocumentString(`
    fragment ErrorFields on Error {
  message
  code
  ... on ValidationError {
    field
  }
}
    `, {"fragmentName":"ErrorFields"}) as unknown as TypedDocumentString<ErrorFieldsFragment, unknown>;
export const LivePageListRunFragmentDoc = new TypedDocumentString(`
    fragment LivePageListRun on WorkflowRun {
  id
  runId
  rootRunId
  workflowName
  status
  queueStatus
  paused
  lineageKind
  restartNumber
  createdAt
  updatedAt
  presentationRevision
  claim {
    expiresAt
  }
  expiredClaim {
    expiresAt
  }
  rootRun {
    id
    runId
    workflowName
    createdAt
    lineage(first: 1) {
      totalCount
    }
    latestRun {
      id
      runId
      status
      queueStatus
      lineageKind
      restartNumber
      updatedAt
      claim {
        expiresAt
      }
      expiredClaim {
        expiresAt
      }
    }
  }
}
    `, {"fragmentName":"LivePageListRun"}) as unknown as TypedDocumentString<LivePageListRunFragment, unknown>;
export const LivePageTreeRunFragmentDoc = new TypedDocumentString(`
    fragment LivePageTreeRun on WorkflowRun {
  id
  runId
  parentRunId
  lineageKind
  restartNumber
  status
  queueStatus
  paused
  statusDetail
  errorCode
  errorMessage
  createdAt
  presentationRevision
  parentTerminalFingerprint
  claim {
    expiresAt
  }
  expiredClaim {
    expiresAt
  }
}
    `, {"fragmentName":"LivePageTreeRun"}) as unknown as TypedDocumentString<LivePageTreeRunFragment, unknown>;
export const LivePageRunRecordFragmentDoc = new TypedDocumentString(`
    fragment LivePageRunRecord on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  originSessionId
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  parentTerminalFingerprint
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}
    `, {"fragmentName":"LivePageRunRecord"}) as unknown as TypedDocumentString<LivePageRunRecordFragment, unknown>;
export const LivePageSessionEntryFragmentDoc = new TypedDocumentString(`
    fragment LivePageSessionEntry on SessionEntry {
  seq
  at
  entryType
  customType
  role
  text
  toolCallId
  toolName
  toolCalls {
    id
    name
    arguments
  }
}
    `, {"fragmentName":"LivePageSessionEntry"}) as unknown as TypedDocumentString<LivePageSessionEntryFragment, unknown>;
export const LivePageRequestFragmentDoc = new TypedDocumentString(`
    fragment LivePageRequest on InteractiveRequest {
  requestId
  kind
  status
  createdAt
  settledAt
  contract {
    byteLength
    mediaType
    text
  }
}
    `, {"fragmentName":"LivePageRequest"}) as unknown as TypedDocumentString<LivePageRequestFragment, unknown>;
export const LivePageViewHeadFragmentDoc = new TypedDocumentString(`
    fragment LivePageViewHead on WorkflowRunView {
  runId
  revision
  title
  workflowName
  status
  statusDetail
  live
  paused
  possiblyInterrupted
  currentNode
  currentAttemptId
  waitingOn
  createdAt
  updatedAt
  finishedAt
  carriedStepCount
  display {
    status
    reason
    activity
    controls
  }
  definition {
    name
    startAt
    nodes {
      nodeId
      nodeType
    }
    edges {
      from
      to
    }
  }
  graphSteps {
    nodeId
    attemptId
    outcome
    attempt
  }
  takenTransitions {
    from
    to
  }
  input {
    byteLength
    mediaType
    text
  }
  finalOutput {
    byteLength
    mediaType
    text
  }
  error {
    byteLength
    mediaType
    text
  }
  pendingRequest {
    ...LivePageRequest
  }
  session {
    piSessionId
    captureStatus
    integrity
  }
}
    fragment LivePageRequest on InteractiveRequest {
  requestId
  kind
  status
  createdAt
  settledAt
  contract {
    byteLength
    mediaType
    text
  }
}`, {"fragmentName":"LivePageViewHead"}) as unknown as TypedDocumentString<LivePageViewHeadFragment, unknown>;
export const LivePageViewQuestionsFragmentDoc = new TypedDocumentString(`
    fragment LivePageViewQuestions on WorkflowRunView {
  followUps {
    totalCount
    edges {
      node {
        followUpId
        state
        actorType
        createdAt
        prompt {
          byteLength
          mediaType
          text
        }
        reason {
          byteLength
          mediaType
          text
        }
      }
    }
  }
  interactiveRequests {
    totalCount
    edges {
      node {
        ...LivePageRequest
      }
    }
  }
  humanDecisions {
    totalCount
    edges {
      node {
        decisionId
        title
        audience
        createdAt
        deadlineAt
        choices {
          byteLength
          mediaType
          text
        }
        resolution {
          outcome
          reason
          resolvedAt
        }
      }
    }
  }
}
    fragment LivePageRequest on InteractiveRequest {
  requestId
  kind
  status
  createdAt
  settledAt
  contract {
    byteLength
    mediaType
    text
  }
}`, {"fragmentName":"LivePageViewQuestions"}) as unknown as TypedDocumentString<LivePageViewQuestionsFragment, unknown>;
export const LivePageStepFragmentDoc = new TypedDocumentString(`
    fragment LivePageStep on RunStep {
  stepIndex
  nodeId
  nodeType
  attempt
  outcome
  startedAt
  finishedAt
  prompt {
    byteLength
    mediaType
    text
  }
  output {
    byteLength
    mediaType
    text
  }
  error {
    byteLength
    mediaType
    text
  }
}
    `, {"fragmentName":"LivePageStep"}) as unknown as TypedDocumentString<LivePageStepFragment, unknown>;
export const LivePageTraceEventFragmentDoc = new TypedDocumentString(`
    fragment LivePageTraceEvent on TraceEvent {
  seq
  at
  type
  scope
  nodeId
  actorType
  payload {
    byteLength
    mediaType
    text
  }
}
    `, {"fragmentName":"LivePageTraceEvent"}) as unknown as TypedDocumentString<LivePageTraceEventFragment, unknown>;
export const LivePageUpdateFragmentDoc = new TypedDocumentString(`
    fragment LivePageUpdate on WorkflowUpdate {
  updateId
  type
  key
  nodeId
  at
  data {
    byteLength
    mediaType
    text
  }
}
    `, {"fragmentName":"LivePageUpdate"}) as unknown as TypedDocumentString<LivePageUpdateFragment, unknown>;
export const LivePageViewListsFragmentDoc = new TypedDocumentString(`
    fragment LivePageViewLists on WorkflowRunView {
  steps {
    totalCount
    edges {
      node {
        ...LivePageStep
      }
    }
  }
  trace {
    totalCount
    edges {
      node {
        ...LivePageTraceEvent
      }
    }
  }
  session {
    piSessionId
    captureStatus
    integrity
    entries {
      totalCount
      edges {
        node {
          seq
          at
          entryType
          customType
          role
          text
          toolCallId
          toolName
          toolCalls {
            id
            name
            arguments
          }
        }
      }
    }
  }
  updates {
    totalCount
    edges {
      node {
        ...LivePageUpdate
      }
    }
  }
}
    fragment LivePageStep on RunStep {
  stepIndex
  nodeId
  nodeType
  attempt
  outcome
  startedAt
  finishedAt
  prompt {
    byteLength
    mediaType
    text
  }
  output {
    byteLength
    mediaType
    text
  }
  error {
    byteLength
    mediaType
    text
  }
}
fragment LivePageTraceEvent on TraceEvent {
  seq
  at
  type
  scope
  nodeId
  actorType
  payload {
    byteLength
    mediaType
    text
  }
}
fragment LivePageUpdate on WorkflowUpdate {
  updateId
  type
  key
  nodeId
  at
  data {
    byteLength
    mediaType
    text
  }
}`, {"fragmentName":"LivePageViewLists"}) as unknown as TypedDocumentString<LivePageViewListsFragment, unknown>;
export const McpRunFieldsFragmentDoc = new TypedDocumentString(`
    fragment McpRunFields on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  executionMode
  originSessionId
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}
    `, {"fragmentName":"McpRunFields"}) as unknown as TypedDocumentString<McpRunFieldsFragment, unknown>;
export const McpErrorFieldsFragmentDoc = new TypedDocumentString(`
    fragment McpErrorFields on Error {
  message
  code
  ... on ValidationError {
    field
  }
}
    `, {"fragmentName":"McpErrorFields"}) as unknown as TypedDocumentString<McpErrorFieldsFragment, unknown>;
export const LivePageRunsDocument = new TypedDocumentString(`
    query LivePageRuns($first: Int, $after: String, $filter: WorkflowRunFilter, $orderBy: WorkflowRunOrder) {
  workflowRuns(first: $first, after: $after, filter: $filter, orderBy: $orderBy) {
    totalCount
    changeCursor
    edges {
      cursor
      node {
        ...LivePageListRun
      }
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    fragment LivePageListRun on WorkflowRun {
  id
  runId
  rootRunId
  workflowName
  status
  queueStatus
  paused
  lineageKind
  restartNumber
  createdAt
  updatedAt
  presentationRevision
  claim {
    expiresAt
  }
  expiredClaim {
    expiresAt
  }
  rootRun {
    id
    runId
    workflowName
    createdAt
    lineage(first: 1) {
      totalCount
    }
    latestRun {
      id
      runId
      status
      queueStatus
      lineageKind
      restartNumber
      updatedAt
      claim {
        expiresAt
      }
      expiredClaim {
        expiresAt
      }
    }
  }
}`, {"hash":"sha256:5d49ffdc529adc1a9aba0313f5415bc07bda7ad74b97c2943dc50034d8966728"}) as unknown as TypedDocumentString<LivePageRunsQuery, LivePageRunsQueryVariables>;
export const LivePageChainDocument = new TypedDocumentString(`
    query LivePageChain($rootRunId: String!, $first: Int, $after: String) {
  workflowRun(runId: $rootRunId) {
    id
    runId
    workflowName
    lineage(first: $first, after: $after) {
      totalCount
      changeCursor
      edges {
        node {
          ...LivePageTreeRun
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
}
    fragment LivePageTreeRun on WorkflowRun {
  id
  runId
  parentRunId
  lineageKind
  restartNumber
  status
  queueStatus
  paused
  statusDetail
  errorCode
  errorMessage
  createdAt
  presentationRevision
  parentTerminalFingerprint
  claim {
    expiresAt
  }
  expiredClaim {
    expiresAt
  }
}`, {"hash":"sha256:9c016e02e484a0a79352c1dadd86710f03601a7e7c80a6ea30ee111f855ebf1b"}) as unknown as TypedDocumentString<LivePageChainQuery, LivePageChainQueryVariables>;
export const LivePageRunDocument = new TypedDocumentString(`
    query LivePageRun($runId: String!) {
  workflowRun(runId: $runId) {
    ...LivePageRunRecord
  }
}
    fragment LivePageRunRecord on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  originSessionId
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  parentTerminalFingerprint
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}`, {"hash":"sha256:67ac865543ca6f9b49864a1945160211aee19c387eb619a9058c8091b4c8fca6"}) as unknown as TypedDocumentString<LivePageRunQuery, LivePageRunQueryVariables>;
export const LivePageDeltasDocument = new TypedDocumentString(`
    subscription LivePageDeltas($runId: String!, $after: Int) {
  workflowRunDeltas(runId: $runId, afterRevision: $after) {
    __typename
    ... on ViewerDeltaBatch {
      runId
      presentationRevision
      deltas {
        deltaIndex
        targetType
        targetKey
        recordedAt
        patch {
          op
          path
          value
        }
      }
    }
    ... on ViewerSnapshotRequired {
      runId
      currentRevision
      retainedFromRevision
      run {
        ...LivePageRunRecord
      }
    }
  }
}
    fragment LivePageRunRecord on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  originSessionId
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  parentTerminalFingerprint
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}`, {"hash":"sha256:14661796f5203f8bf7d361f294b214745bf272879835657767b5410affe9561a"}) as unknown as TypedDocumentString<LivePageDeltasSubscription, LivePageDeltasSubscriptionVariables>;
export const LivePageRunUpdatedDocument = new TypedDocumentString(`
    subscription LivePageRunUpdated($runId: String!) {
  workflowRunUpdated(runId: $runId) {
    ...LivePageRunRecord
  }
}
    fragment LivePageRunRecord on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  originSessionId
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  parentTerminalFingerprint
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}`, {"hash":"sha256:cb3e86eec9b82342d06986e7442e26bd2d4c6e3c3673b6c3a3122ab85b4a553a"}) as unknown as TypedDocumentString<LivePageRunUpdatedSubscription, LivePageRunUpdatedSubscriptionVariables>;
export const LivePageRunChangesDocument = new TypedDocumentString(`
    subscription LivePageRunChanges($filter: WorkflowRunFilter, $after: String) {
  workflowRunChanges(filter: $filter, after: $after) {
    __typename
    ... on WorkflowRunChange {
      cursor
      run {
        ...LivePageListRun
      }
    }
    ... on WorkflowRunChangesResetRequired {
      cursor
    }
  }
}
    fragment LivePageListRun on WorkflowRun {
  id
  runId
  rootRunId
  workflowName
  status
  queueStatus
  paused
  lineageKind
  restartNumber
  createdAt
  updatedAt
  presentationRevision
  claim {
    expiresAt
  }
  expiredClaim {
    expiresAt
  }
  rootRun {
    id
    runId
    workflowName
    createdAt
    lineage(first: 1) {
      totalCount
    }
    latestRun {
      id
      runId
      status
      queueStatus
      lineageKind
      restartNumber
      updatedAt
      claim {
        expiresAt
      }
      expiredClaim {
        expiresAt
      }
    }
  }
}`, {"hash":"sha256:f02f6d611dc6e6548e2a565101ad5ce5b4441bef70cbb0fa8d86f933bcaf1fd1"}) as unknown as TypedDocumentString<LivePageRunChangesSubscription, LivePageRunChangesSubscriptionVariables>;
export const LivePageRunViewDocument = new TypedDocumentString(`
    query LivePageRunView($runId: String!) {
  workflowRun(runId: $runId) {
    id
    runId
    view {
      cursor
      ...LivePageViewHead
      ...LivePageViewQuestions
      ...LivePageViewLists
    }
  }
}
    fragment LivePageStep on RunStep {
  stepIndex
  nodeId
  nodeType
  attempt
  outcome
  startedAt
  finishedAt
  prompt {
    byteLength
    mediaType
    text
  }
  output {
    byteLength
    mediaType
    text
  }
  error {
    byteLength
    mediaType
    text
  }
}
fragment LivePageRequest on InteractiveRequest {
  requestId
  kind
  status
  createdAt
  settledAt
  contract {
    byteLength
    mediaType
    text
  }
}
fragment LivePageTraceEvent on TraceEvent {
  seq
  at
  type
  scope
  nodeId
  actorType
  payload {
    byteLength
    mediaType
    text
  }
}
fragment LivePageUpdate on WorkflowUpdate {
  updateId
  type
  key
  nodeId
  at
  data {
    byteLength
    mediaType
    text
  }
}
fragment LivePageViewHead on WorkflowRunView {
  runId
  revision
  title
  workflowName
  status
  statusDetail
  live
  paused
  possiblyInterrupted
  currentNode
  currentAttemptId
  waitingOn
  createdAt
  updatedAt
  finishedAt
  carriedStepCount
  display {
    status
    reason
    activity
    controls
  }
  definition {
    name
    startAt
    nodes {
      nodeId
      nodeType
    }
    edges {
      from
      to
    }
  }
  graphSteps {
    nodeId
    attemptId
    outcome
    attempt
  }
  takenTransitions {
    from
    to
  }
  input {
    byteLength
    mediaType
    text
  }
  finalOutput {
    byteLength
    mediaType
    text
  }
  error {
    byteLength
    mediaType
    text
  }
  pendingRequest {
    ...LivePageRequest
  }
  session {
    piSessionId
    captureStatus
    integrity
  }
}
fragment LivePageViewQuestions on WorkflowRunView {
  followUps {
    totalCount
    edges {
      node {
        followUpId
        state
        actorType
        createdAt
        prompt {
          byteLength
          mediaType
          text
        }
        reason {
          byteLength
          mediaType
          text
        }
      }
    }
  }
  interactiveRequests {
    totalCount
    edges {
      node {
        ...LivePageRequest
      }
    }
  }
  humanDecisions {
    totalCount
    edges {
      node {
        decisionId
        title
        audience
        createdAt
        deadlineAt
        choices {
          byteLength
          mediaType
          text
        }
        resolution {
          outcome
          reason
          resolvedAt
        }
      }
    }
  }
}
fragment LivePageViewLists on WorkflowRunView {
  steps {
    totalCount
    edges {
      node {
        ...LivePageStep
      }
    }
  }
  trace {
    totalCount
    edges {
      node {
        ...LivePageTraceEvent
      }
    }
  }
  session {
    piSessionId
    captureStatus
    integrity
    entries {
      totalCount
      edges {
        node {
          seq
          at
          entryType
          customType
          role
          text
          toolCallId
          toolName
          toolCalls {
            id
            name
            arguments
          }
        }
      }
    }
  }
  updates {
    totalCount
    edges {
      node {
        ...LivePageUpdate
      }
    }
  }
}`, {"hash":"sha256:07f12c2ae334e34e3fe712474c0098c501e554635832cef927358653a67ee2d1"}) as unknown as TypedDocumentString<LivePageRunViewQuery, LivePageRunViewQueryVariables>;
export const LivePageRunQuestionsDocument = new TypedDocumentString(`
    query LivePageRunQuestions($runId: String!) {
  workflowRun(runId: $runId) {
    id
    runId
    view {
      revision
      ...LivePageViewQuestions
    }
  }
}
    fragment LivePageRequest on InteractiveRequest {
  requestId
  kind
  status
  createdAt
  settledAt
  contract {
    byteLength
    mediaType
    text
  }
}
fragment LivePageViewQuestions on WorkflowRunView {
  followUps {
    totalCount
    edges {
      node {
        followUpId
        state
        actorType
        createdAt
        prompt {
          byteLength
          mediaType
          text
        }
        reason {
          byteLength
          mediaType
          text
        }
      }
    }
  }
  interactiveRequests {
    totalCount
    edges {
      node {
        ...LivePageRequest
      }
    }
  }
  humanDecisions {
    totalCount
    edges {
      node {
        decisionId
        title
        audience
        createdAt
        deadlineAt
        choices {
          byteLength
          mediaType
          text
        }
        resolution {
          outcome
          reason
          resolvedAt
        }
      }
    }
  }
}`, {"hash":"sha256:5cfbdc50c8be42539f25b8025837f71260ec275e03d278a031c64adaaa280a89"}) as unknown as TypedDocumentString<LivePageRunQuestionsQuery, LivePageRunQuestionsQueryVariables>;
export const LivePageViewFollowDocument = new TypedDocumentString(`
    subscription LivePageViewFollow($runId: String!, $after: String) {
  workflowRunView(runId: $runId, after: $after) {
    __typename
    ... on WorkflowRunViewReset {
      revision
      cursor
      view {
        ...LivePageViewHead
        ...LivePageViewQuestions
        ...LivePageViewLists
      }
    }
    ... on WorkflowRunViewChanged {
      fromRevision
      revision
      cursor
      view {
        ...LivePageViewHead
      }
      steps {
        ...LivePageStep
      }
      traceEvents {
        ...LivePageTraceEvent
      }
      sessionEntries {
        ...LivePageSessionEntry
      }
      updates {
        ...LivePageUpdate
      }
    }
  }
}
    fragment LivePageStep on RunStep {
  stepIndex
  nodeId
  nodeType
  attempt
  outcome
  startedAt
  finishedAt
  prompt {
    byteLength
    mediaType
    text
  }
  output {
    byteLength
    mediaType
    text
  }
  error {
    byteLength
    mediaType
    text
  }
}
fragment LivePageRequest on InteractiveRequest {
  requestId
  kind
  status
  createdAt
  settledAt
  contract {
    byteLength
    mediaType
    text
  }
}
fragment LivePageTraceEvent on TraceEvent {
  seq
  at
  type
  scope
  nodeId
  actorType
  payload {
    byteLength
    mediaType
    text
  }
}
fragment LivePageSessionEntry on SessionEntry {
  seq
  at
  entryType
  customType
  role
  text
  toolCallId
  toolName
  toolCalls {
    id
    name
    arguments
  }
}
fragment LivePageUpdate on WorkflowUpdate {
  updateId
  type
  key
  nodeId
  at
  data {
    byteLength
    mediaType
    text
  }
}
fragment LivePageViewHead on WorkflowRunView {
  runId
  revision
  title
  workflowName
  status
  statusDetail
  live
  paused
  possiblyInterrupted
  currentNode
  currentAttemptId
  waitingOn
  createdAt
  updatedAt
  finishedAt
  carriedStepCount
  display {
    status
    reason
    activity
    controls
  }
  definition {
    name
    startAt
    nodes {
      nodeId
      nodeType
    }
    edges {
      from
      to
    }
  }
  graphSteps {
    nodeId
    attemptId
    outcome
    attempt
  }
  takenTransitions {
    from
    to
  }
  input {
    byteLength
    mediaType
    text
  }
  finalOutput {
    byteLength
    mediaType
    text
  }
  error {
    byteLength
    mediaType
    text
  }
  pendingRequest {
    ...LivePageRequest
  }
  session {
    piSessionId
    captureStatus
    integrity
  }
}
fragment LivePageViewQuestions on WorkflowRunView {
  followUps {
    totalCount
    edges {
      node {
        followUpId
        state
        actorType
        createdAt
        prompt {
          byteLength
          mediaType
          text
        }
        reason {
          byteLength
          mediaType
          text
        }
      }
    }
  }
  interactiveRequests {
    totalCount
    edges {
      node {
        ...LivePageRequest
      }
    }
  }
  humanDecisions {
    totalCount
    edges {
      node {
        decisionId
        title
        audience
        createdAt
        deadlineAt
        choices {
          byteLength
          mediaType
          text
        }
        resolution {
          outcome
          reason
          resolvedAt
        }
      }
    }
  }
}
fragment LivePageViewLists on WorkflowRunView {
  steps {
    totalCount
    edges {
      node {
        ...LivePageStep
      }
    }
  }
  trace {
    totalCount
    edges {
      node {
        ...LivePageTraceEvent
      }
    }
  }
  session {
    piSessionId
    captureStatus
    integrity
    entries {
      totalCount
      edges {
        node {
          seq
          at
          entryType
          customType
          role
          text
          toolCallId
          toolName
          toolCalls {
            id
            name
            arguments
          }
        }
      }
    }
  }
  updates {
    totalCount
    edges {
      node {
        ...LivePageUpdate
      }
    }
  }
}`, {"hash":"sha256:1a19906a1b6f9f1b3a814cbcba4d12cde89386e7bb5ea9a352c1022c1de8bcf3"}) as unknown as TypedDocumentString<LivePageViewFollowSubscription, LivePageViewFollowSubscriptionVariables>;
export const McpListRunsDocument = new TypedDocumentString(`
    query McpListRuns($first: Int, $after: String, $filter: WorkflowRunFilter, $orderBy: WorkflowRunOrder) {
  workflowRuns(first: $first, after: $after, filter: $filter, orderBy: $orderBy) {
    totalCount
    edges {
      node {
        ...McpRunFields
      }
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    fragment McpRunFields on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  executionMode
  originSessionId
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}`, {"hash":"sha256:aafd66847ee8862d0a364e331b6d30b9f0eb2e9b3b26526cda4511bca8b8c261"}) as unknown as TypedDocumentString<McpListRunsQuery, McpListRunsQueryVariables>;
export const McpInspectRunDocument = new TypedDocumentString(`
    query McpInspectRun($runId: String!) {
  workflowRun(runId: $runId) {
    ...McpRunFields
    input
    launchOptions
    parentTerminalFingerprint
    view {
      revision
      cursor
      title
      display {
        status
        activity
        reason
        controls
      }
      error {
        text
      }
      finalOutput {
        byteLength
        text
      }
      currentNode
      waitingOn
      pendingRequest {
        requestId
        kind
        status
        revision
      }
      steps(last: 50) {
        totalCount
        edges {
          node {
            stepIndex
            nodeId
            nodeType
            attempt
            outcome
            startedAt
            finishedAt
            error {
              text
            }
          }
        }
      }
    }
    continuation {
      id
      runId
    }
    restart {
      id
      runId
    }
    latestRun {
      id
      runId
    }
    lineage(first: 100) {
      totalCount
      edges {
        node {
          id
          runId
          parentRunId
          lineageKind
          restartNumber
          status
          queueStatus
          createdAt
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
}
    fragment McpRunFields on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  executionMode
  originSessionId
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}`, {"hash":"sha256:ca15cad32c514b5b0c47e16cc0c768d10808fe6ffe8f0f83a260c317e2aed4bd"}) as unknown as TypedDocumentString<McpInspectRunQuery, McpInspectRunQueryVariables>;
export const McpViewerDeltasDocument = new TypedDocumentString(`
    query McpViewerDeltas($runId: String!, $afterRevision: Int!) {
  workflowRun(runId: $runId) {
    id
    viewerDeltas(afterRevision: $afterRevision) {
      kind
      currentRevision
      retainedFromRevision
      batches {
        presentationRevision
        deltas {
          deltaIndex
          targetType
          targetKey
          recordedAt
          patch {
            op
            path
            value
          }
        }
      }
    }
  }
}
    `, {"hash":"sha256:cc564a6d232a2e473954aede8dfd9b80f388ce17eeb16d15e5be5a38458e8b69"}) as unknown as TypedDocumentString<McpViewerDeltasQuery, McpViewerDeltasQueryVariables>;
export const McpRunChangeDocument = new TypedDocumentString(`
    subscription McpRunChange($runId: String!, $afterRevision: Int!) {
  workflowRunDeltas(runId: $runId, afterRevision: $afterRevision) {
    __typename
    ... on ViewerDeltaBatch {
      runId
      presentationRevision
      deltas {
        deltaIndex
        targetType
        targetKey
        recordedAt
        patch {
          op
          path
          value
        }
      }
    }
    ... on ViewerSnapshotRequired {
      runId
      currentRevision
      retainedFromRevision
    }
  }
}
    `, {"hash":"sha256:a1419b39f0894de6cf7be50bd9f400ccaaee7a4be0b57b1d5d5106e323f42d71"}) as unknown as TypedDocumentString<McpRunChangeSubscription, McpRunChangeSubscriptionVariables>;
export const McpViewChangesDocument = new TypedDocumentString(`
    subscription McpViewChanges($runId: String!, $after: String!) {
  workflowRunView(runId: $runId, after: $after) {
    __typename
    ... on WorkflowRunViewReset {
      revision
      cursor
    }
    ... on WorkflowRunViewChanged {
      fromRevision
      revision
      cursor
      view {
        title
        display {
          status
          activity
          reason
          controls
        }
        currentNode
        waitingOn
        error {
          text
        }
      }
      steps {
        stepIndex
        nodeId
        nodeType
        attempt
        outcome
        finishedAt
        output {
          byteLength
          text
        }
        error {
          text
        }
      }
      traceEvents {
        seq
        at
        type
        nodeId
      }
      sessionEntries {
        seq
        role
        text
        toolCalls {
          id
          name
        }
      }
    }
  }
}
    `, {"hash":"sha256:b14b0631b7a77ad76303e6106ccf96d171009c62a05689b53aad6cf4aadb47b3"}) as unknown as TypedDocumentString<McpViewChangesSubscription, McpViewChangesSubscriptionVariables>;
export const McpRunDocument = new TypedDocumentString(`
    query McpRun($runId: String!) {
  workflowRun(runId: $runId) {
    ...McpRunFields
  }
}
    fragment McpRunFields on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  executionMode
  originSessionId
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}`, {"hash":"sha256:75b950adc594f34d25dfdde4d0883dce74882c547b16e9eb2891f88559eaa218"}) as unknown as TypedDocumentString<McpRunQuery, McpRunQueryVariables>;
export const McpRestartRunDocument = new TypedDocumentString(`
    mutation McpRestartRun($input: RestartWorkflowRunInput!) {
  restartWorkflowRun(input: $input) {
    __typename
    ... on RestartWorkflowRunSuccess {
      adopted
      run {
        ...McpRunFields
      }
    }
    ...McpErrorFields
  }
}
    fragment McpRunFields on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  executionMode
  originSessionId
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}
fragment McpErrorFields on Error {
  message
  code
  ... on ValidationError {
    field
  }
}`, {"hash":"sha256:a2acf7c4864f4cb0716ede71e24f46666551a9e81e2964477098ee89bcc2b5f0"}) as unknown as TypedDocumentString<McpRestartRunMutation, McpRestartRunMutationVariables>;
export const McpCancelRunDocument = new TypedDocumentString(`
    mutation McpCancelRun($input: CancelWorkflowRunInput!) {
  cancelWorkflowRun(input: $input) {
    __typename
    ... on CancelWorkflowRunSuccess {
      run {
        ...McpRunFields
      }
    }
    ...McpErrorFields
  }
}
    fragment McpRunFields on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  executionMode
  originSessionId
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}
fragment McpErrorFields on Error {
  message
  code
  ... on ValidationError {
    field
  }
}`, {"hash":"sha256:f3730620a620694ce24dd74393d7fb66b191bee3de673f580e945dfe6c70db08"}) as unknown as TypedDocumentString<McpCancelRunMutation, McpCancelRunMutationVariables>;
export const McpPauseRunDocument = new TypedDocumentString(`
    mutation McpPauseRun($input: PauseWorkflowRunInput!) {
  pauseWorkflowRun(input: $input) {
    __typename
    ... on PauseWorkflowRunSuccess {
      run {
        ...McpRunFields
      }
    }
    ...McpErrorFields
  }
}
    fragment McpRunFields on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  executionMode
  originSessionId
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}
fragment McpErrorFields on Error {
  message
  code
  ... on ValidationError {
    field
  }
}`, {"hash":"sha256:bed45d891852253f2495583d6a64c0b46950331f1b1a63d30142eec9a4c5f498"}) as unknown as TypedDocumentString<McpPauseRunMutation, McpPauseRunMutationVariables>;
export const McpResumeRunDocument = new TypedDocumentString(`
    mutation McpResumeRun($input: ResumeWorkflowRunInput!) {
  resumeWorkflowRun(input: $input) {
    __typename
    ... on ResumeWorkflowRunSuccess {
      run {
        ...McpRunFields
      }
    }
    ...McpErrorFields
  }
}
    fragment McpRunFields on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  executionMode
  originSessionId
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}
fragment McpErrorFields on Error {
  message
  code
  ... on ValidationError {
    field
  }
}`, {"hash":"sha256:12e4e48f6bf478feeb556da7c7f1538211bcbcbf3c666bc5af5987dd10d5467c"}) as unknown as TypedDocumentString<McpResumeRunMutation, McpResumeRunMutationVariables>;
export const ReserveWorkflowRunDocument = new TypedDocumentString(`
    mutation ReserveWorkflowRun($input: ReserveWorkflowRunInput!) {
  reserveWorkflowRun(input: $input) {
    __typename
    ... on ReserveWorkflowRunSuccess {
      adopted
      run {
        ...RunFields
      }
    }
    ...ErrorFields
  }
}
    fragment RunFields on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  executionMode
  originSessionId
  input
  launchOptions
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  parentTerminalFingerprint
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}
fragment ErrorFields on Error {
  message
  code
  ... on ValidationError {
    field
  }
}`, {"hash":"sha256:d1b986235764b9980624cbc9327c9d92d2f945a520a8dce6c85d145d620a0fd1"}) as unknown as TypedDocumentString<ReserveWorkflowRunMutation, ReserveWorkflowRunMutationVariables>;
export const RestartWorkflowRunDocument = new TypedDocumentString(`
    mutation RestartWorkflowRun($input: RestartWorkflowRunInput!) {
  restartWorkflowRun(input: $input) {
    __typename
    ... on RestartWorkflowRunSuccess {
      adopted
      run {
        ...RunFields
      }
    }
    ...ErrorFields
  }
}
    fragment RunFields on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  executionMode
  originSessionId
  input
  launchOptions
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  parentTerminalFingerprint
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}
fragment ErrorFields on Error {
  message
  code
  ... on ValidationError {
    field
  }
}`, {"hash":"sha256:8a152046b4b6178f40a037ac5673b31302b1a6147954c343535b3c6478697a55"}) as unknown as TypedDocumentString<RestartWorkflowRunMutation, RestartWorkflowRunMutationVariables>;
export const ClaimWorkflowRunDocument = new TypedDocumentString(`
    mutation ClaimWorkflowRun($input: ClaimWorkflowRunInput!) {
  claimWorkflowRun(input: $input) {
    __typename
    ... on ClaimWorkflowRunSuccess {
      run {
        ...RunFields
      }
    }
    ...ErrorFields
  }
}
    fragment RunFields on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  executionMode
  originSessionId
  input
  launchOptions
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  parentTerminalFingerprint
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}
fragment ErrorFields on Error {
  message
  code
  ... on ValidationError {
    field
  }
}`, {"hash":"sha256:fed8287a8c2b70e469fa2683e536046fc886ad396a5afb60135368a3212e1741"}) as unknown as TypedDocumentString<ClaimWorkflowRunMutation, ClaimWorkflowRunMutationVariables>;
export const ParkWorkflowRunDocument = new TypedDocumentString(`
    mutation ParkWorkflowRun($input: ParkWorkflowRunInput!) {
  parkWorkflowRun(input: $input) {
    __typename
    ... on ParkWorkflowRunSuccess {
      run {
        ...RunFields
      }
    }
    ...ErrorFields
  }
}
    fragment RunFields on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  executionMode
  originSessionId
  input
  launchOptions
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  parentTerminalFingerprint
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}
fragment ErrorFields on Error {
  message
  code
  ... on ValidationError {
    field
  }
}`, {"hash":"sha256:4097d5936e726a6c4d8ea36b0a7862e34745fdfbcc3767471fd3dd40b0f79ea2"}) as unknown as TypedDocumentString<ParkWorkflowRunMutation, ParkWorkflowRunMutationVariables>;
export const SettleWorkflowRunDocument = new TypedDocumentString(`
    mutation SettleWorkflowRun($input: SettleWorkflowRunInput!) {
  settleWorkflowRun(input: $input) {
    __typename
    ... on SettleWorkflowRunSuccess {
      run {
        ...RunFields
      }
    }
    ...ErrorFields
  }
}
    fragment RunFields on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  executionMode
  originSessionId
  input
  launchOptions
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  parentTerminalFingerprint
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}
fragment ErrorFields on Error {
  message
  code
  ... on ValidationError {
    field
  }
}`, {"hash":"sha256:4b1962db723d6d16392b3c33eb26f3dad58a350c180a5249c42c93f5160d9014"}) as unknown as TypedDocumentString<SettleWorkflowRunMutation, SettleWorkflowRunMutationVariables>;
export const RenewWorkflowRunClaimDocument = new TypedDocumentString(`
    mutation RenewWorkflowRunClaim($input: RenewWorkflowRunClaimInput!) {
  renewWorkflowRunClaim(input: $input) {
    __typename
    ... on RenewWorkflowRunClaimSuccess {
      run {
        ...RunFields
      }
    }
    ...ErrorFields
  }
}
    fragment RunFields on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  executionMode
  originSessionId
  input
  launchOptions
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  parentTerminalFingerprint
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}
fragment ErrorFields on Error {
  message
  code
  ... on ValidationError {
    field
  }
}`, {"hash":"sha256:53354863a3590c9a41dc68bb5a25392492b782a638c62b692ede601e8f05f224"}) as unknown as TypedDocumentString<RenewWorkflowRunClaimMutation, RenewWorkflowRunClaimMutationVariables>;
export const MarkWorkflowRunRunningDocument = new TypedDocumentString(`
    mutation MarkWorkflowRunRunning($input: MarkWorkflowRunRunningInput!) {
  markWorkflowRunRunning(input: $input) {
    __typename
    ... on MarkWorkflowRunRunningSuccess {
      run {
        ...RunFields
      }
    }
    ...ErrorFields
  }
}
    fragment RunFields on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  executionMode
  originSessionId
  input
  launchOptions
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  parentTerminalFingerprint
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}
fragment ErrorFields on Error {
  message
  code
  ... on ValidationError {
    field
  }
}`, {"hash":"sha256:bfdbdbe3ba7a053ecf74e8bdebc25bced09906c697b56b29fe5aa9a2e2fe1584"}) as unknown as TypedDocumentString<MarkWorkflowRunRunningMutation, MarkWorkflowRunRunningMutationVariables>;
export const ReportWorkflowRunStateDocument = new TypedDocumentString(`
    mutation ReportWorkflowRunState($input: ReportWorkflowRunStateInput!) {
  reportWorkflowRunState(input: $input) {
    __typename
    ... on ReportWorkflowRunStateSuccess {
      run {
        ...RunFields
      }
    }
    ...ErrorFields
  }
}
    fragment RunFields on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  executionMode
  originSessionId
  input
  launchOptions
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  parentTerminalFingerprint
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}
fragment ErrorFields on Error {
  message
  code
  ... on ValidationError {
    field
  }
}`, {"hash":"sha256:ae34e5a7c63186722f2c8a384e1b36f09deaa76abb69dffa183768f0a779a554"}) as unknown as TypedDocumentString<ReportWorkflowRunStateMutation, ReportWorkflowRunStateMutationVariables>;
export const CancelWorkflowRunDocument = new TypedDocumentString(`
    mutation CancelWorkflowRun($input: CancelWorkflowRunInput!) {
  cancelWorkflowRun(input: $input) {
    __typename
    ... on CancelWorkflowRunSuccess {
      run {
        ...RunFields
      }
    }
    ...ErrorFields
  }
}
    fragment RunFields on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  executionMode
  originSessionId
  input
  launchOptions
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  parentTerminalFingerprint
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}
fragment ErrorFields on Error {
  message
  code
  ... on ValidationError {
    field
  }
}`, {"hash":"sha256:a72b0faaea3b162880edd44bb6a8e352a3fb40014fb4cfa30b3c4809dd3af3c9"}) as unknown as TypedDocumentString<CancelWorkflowRunMutation, CancelWorkflowRunMutationVariables>;
export const PauseWorkflowRunDocument = new TypedDocumentString(`
    mutation PauseWorkflowRun($input: PauseWorkflowRunInput!) {
  pauseWorkflowRun(input: $input) {
    __typename
    ... on PauseWorkflowRunSuccess {
      run {
        ...RunFields
      }
    }
    ...ErrorFields
  }
}
    fragment RunFields on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  executionMode
  originSessionId
  input
  launchOptions
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  parentTerminalFingerprint
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}
fragment ErrorFields on Error {
  message
  code
  ... on ValidationError {
    field
  }
}`, {"hash":"sha256:54ee29e6518fd882d811201bed352cb0f14eced72be3ffb217f6e075dbf17708"}) as unknown as TypedDocumentString<PauseWorkflowRunMutation, PauseWorkflowRunMutationVariables>;
export const ResumeWorkflowRunDocument = new TypedDocumentString(`
    mutation ResumeWorkflowRun($input: ResumeWorkflowRunInput!) {
  resumeWorkflowRun(input: $input) {
    __typename
    ... on ResumeWorkflowRunSuccess {
      run {
        ...RunFields
      }
    }
    ...ErrorFields
  }
}
    fragment RunFields on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  executionMode
  originSessionId
  input
  launchOptions
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  parentTerminalFingerprint
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}
fragment ErrorFields on Error {
  message
  code
  ... on ValidationError {
    field
  }
}`, {"hash":"sha256:558382b760eb4f7c786e82b1d87f0fb00be8bfb406bf20eec1e5b9f019807868"}) as unknown as TypedDocumentString<ResumeWorkflowRunMutation, ResumeWorkflowRunMutationVariables>;
export const WorkflowRunDocument = new TypedDocumentString(`
    query WorkflowRun($runId: String!) {
  workflowRun(runId: $runId) {
    ...RunFields
  }
}
    fragment RunFields on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  executionMode
  originSessionId
  input
  launchOptions
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  parentTerminalFingerprint
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}`, {"hash":"sha256:8a242c5b92dfcbf6872452b3d9c7a1d22b26321748547b5e1ad01722ade95490"}) as unknown as TypedDocumentString<WorkflowRunQuery, WorkflowRunQueryVariables>;
export const WorkflowRunsDocument = new TypedDocumentString(`
    query WorkflowRuns($first: Int, $after: String, $last: Int, $before: String, $filter: WorkflowRunFilter, $orderBy: WorkflowRunOrder) {
  workflowRuns(
    first: $first
    after: $after
    last: $last
    before: $before
    filter: $filter
    orderBy: $orderBy
  ) {
    totalCount
    edges {
      cursor
      node {
        ...RunFields
      }
    }
    pageInfo {
      ...PageInfoFields
    }
  }
}
    fragment RunFields on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  executionMode
  originSessionId
  input
  launchOptions
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  parentTerminalFingerprint
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}
fragment PageInfoFields on PageInfo {
  hasNextPage
  hasPreviousPage
  startCursor
  endCursor
}`, {"hash":"sha256:af700ef494f7ae0925c7be9e2114ca4612c58ba487200e3db2fb8156bb6fcbd1"}) as unknown as TypedDocumentString<WorkflowRunsQuery, WorkflowRunsQueryVariables>;
export const NodeDocument = new TypedDocumentString(`
    query Node($id: ID!) {
  node(id: $id) {
    __typename
    id
    ... on WorkflowRun {
      runId
      workflowName
      status
    }
  }
}
    `, {"hash":"sha256:988b8d860819e15730e911be26e8232860878f25b4fee9ae6a14d7ce8980eb73"}) as unknown as TypedDocumentString<NodeQuery, NodeQueryVariables>;
export const WorkflowRunLineageDocument = new TypedDocumentString(`
    query WorkflowRunLineage($runId: String!, $first: Int, $after: String, $last: Int, $before: String) {
  workflowRun(runId: $runId) {
    ...RunFields
    parent {
      id
      runId
    }
    rootRun {
      id
      runId
    }
    children {
      id
      runId
      lineageKind
    }
    continuations: children(kind: CONTINUATION) {
      id
      runId
    }
    restarts: children(kind: RESTART) {
      id
      runId
    }
    continuation {
      id
      runId
    }
    restart {
      id
      runId
    }
    latestRun {
      id
      runId
    }
    lineage(first: $first, after: $after, last: $last, before: $before) {
      totalCount
      edges {
        cursor
        node {
          id
          runId
          parentRunId
          lineageKind
          restartNumber
        }
      }
      pageInfo {
        ...PageInfoFields
      }
    }
  }
}
    fragment RunFields on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  executionMode
  originSessionId
  input
  launchOptions
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  parentTerminalFingerprint
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}
fragment PageInfoFields on PageInfo {
  hasNextPage
  hasPreviousPage
  startCursor
  endCursor
}`, {"hash":"sha256:c1c51f66790b85d20d9514b0ffda8c026e07f89d6bce4c6439854b944141c058"}) as unknown as TypedDocumentString<WorkflowRunLineageQuery, WorkflowRunLineageQueryVariables>;
export const WorkflowRunsLineageOverviewDocument = new TypedDocumentString(`
    query WorkflowRunsLineageOverview($first: Int) {
  workflowRuns(first: $first) {
    edges {
      node {
        id
        runId
        parent {
          id
          runId
        }
        rootRun {
          id
          runId
        }
        children {
          id
          runId
        }
        latestRun {
          id
          runId
        }
        lineage {
          totalCount
        }
      }
    }
  }
}
    `, {"hash":"sha256:c594d44ae6439560af6e1b271ff9538db9139025f718e4c7c8c8beb1763f8a0d"}) as unknown as TypedDocumentString<WorkflowRunsLineageOverviewQuery, WorkflowRunsLineageOverviewQueryVariables>;
export const ViewerDeltasDocument = new TypedDocumentString(`
    query ViewerDeltas($runId: String!, $afterRevision: Int!) {
  workflowRun(runId: $runId) {
    id
    runId
    presentationRevision
    viewerDeltas(afterRevision: $afterRevision) {
      kind
      currentRevision
      retainedFromRevision
      batches {
        runId
        presentationRevision
        deltas {
          deltaIndex
          targetType
          targetKey
          recordedAt
          patch {
            op
            path
            value
          }
        }
      }
    }
  }
}
    `, {"hash":"sha256:83c4046deea3d343f4bb44dce54a3de0480b601d69c0efc88bfebd2780d49aaa"}) as unknown as TypedDocumentString<ViewerDeltasQuery, ViewerDeltasQueryVariables>;
export const RunChainDocument = new TypedDocumentString(`
    query RunChain($runId: String!, $first: Int, $after: String) {
  workflowRun(runId: $runId) {
    id
    runId
    rootRunId
    presentationRevision
    rootRun {
      id
      runId
      workflowName
      lineage(first: $first, after: $after) {
        totalCount
        edges {
          node {
            id
            runId
            parentRunId
            lineageKind
            restartNumber
            status
            queueStatus
            paused
            statusDetail
            errorMessage
            parentTerminalFingerprint
            createdAt
          }
        }
        pageInfo {
          ...PageInfoFields
        }
      }
    }
  }
}
    fragment PageInfoFields on PageInfo {
  hasNextPage
  hasPreviousPage
  startCursor
  endCursor
}`, {"hash":"sha256:ed718a8a559ed4701d37e2608cc3e6c94e3942bd7b30990bc651dba712cb8286"}) as unknown as TypedDocumentString<RunChainQuery, RunChainQueryVariables>;
export const WorkflowRunChangeCursorDocument = new TypedDocumentString(`
    query WorkflowRunChangeCursor($filter: WorkflowRunFilter) {
  workflowRuns(first: 0, filter: $filter) {
    changeCursor
  }
}
    `, {"hash":"sha256:5fd43f630c7cc9224a21a719d8a3352fcc8793cf0987e8560bb3290f0184d347"}) as unknown as TypedDocumentString<WorkflowRunChangeCursorQuery, WorkflowRunChangeCursorQueryVariables>;
export const WorkflowRunCountsDocument = new TypedDocumentString(`
    query WorkflowRunCounts($filter: WorkflowRunFilter) {
  workflowRunCounts(filter: $filter) {
    total
    byStatus {
      status
      count
    }
    byQueueStatus {
      status
      count
    }
  }
}
    `, {"hash":"sha256:913acab5725210f9acbc3afb3672749c0123fe4ec3d20aae1e28af7dbaba3d16"}) as unknown as TypedDocumentString<WorkflowRunCountsQuery, WorkflowRunCountsQueryVariables>;
export const WorkflowRunViewDocument = new TypedDocumentString(`
    query WorkflowRunView($runId: String!, $steps: Int = 50, $trace: Int = 50, $entries: Int = 50) {
  workflowRun(runId: $runId) {
    id
    runId
    view {
      revision
      title
      workflowName
      status
      paused
      statusDetail
      createdAt
      finishedAt
      display {
        status
        activity
        reason
        controls
      }
      input {
        byteLength
        json
      }
      finalOutput {
        byteLength
        mediaType
        text
      }
      error {
        text
      }
      currentNode
      waitingOn
      pendingRequest {
        requestId
        kind
        status
        revision
      }
      definition {
        name
        startAt
        nodes {
          nodeId
          nodeType
        }
        edges {
          from
          to
        }
      }
      graphSteps {
        nodeId
        outcome
      }
      takenTransitions {
        from
        to
      }
      steps(last: $steps) {
        totalCount
        pageInfo {
          hasPreviousPage
          startCursor
        }
        edges {
          node {
            stepIndex
            attemptId
            nodeId
            nodeType
            attempt
            outcome
            startedAt
            finishedAt
            prompt {
              byteLength
              text
            }
            output {
              byteLength
              mediaType
              text
            }
            error {
              text
            }
          }
        }
      }
      trace(last: $trace) {
        totalCount
        pageInfo {
          hasPreviousPage
          startCursor
        }
        edges {
          node {
            seq
            at
            scope
            type
            nodeId
            attemptId
          }
        }
      }
      session {
        piSessionId
        cwd
        captureStatus
        entries(last: $entries) {
          totalCount
          pageInfo {
            hasPreviousPage
            startCursor
          }
          edges {
            node {
              seq
              at
              role
              customType
              text
              toolCalls {
                id
                name
                arguments
              }
              toolCallId
              toolName
            }
          }
        }
      }
      updates {
        edges {
          node {
            type
            key
            nodeId
            data {
              json
            }
          }
        }
      }
      humanDecisions {
        edges {
          node {
            decisionId
            title
            deadlineAt
            resolution {
              outcome
            }
          }
        }
      }
    }
  }
}
    `, {"hash":"sha256:57a9d46581e0891177f83ca14b046ab326fce49c2fa01a2e94e8e54b6d009dd9"}) as unknown as TypedDocumentString<WorkflowRunViewQuery, WorkflowRunViewQueryVariables>;
export const WorkflowRunDeltasDocument = new TypedDocumentString(`
    subscription WorkflowRunDeltas($runId: String!, $afterRevision: Int) {
  workflowRunDeltas(runId: $runId, afterRevision: $afterRevision) {
    __typename
    ... on ViewerDeltaBatch {
      runId
      presentationRevision
      deltas {
        deltaIndex
        targetType
        targetKey
        recordedAt
        patch {
          op
          path
          value
        }
      }
    }
    ... on ViewerSnapshotRequired {
      runId
      currentRevision
      retainedFromRevision
      run {
        ...RunFields
      }
    }
  }
}
    fragment RunFields on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  executionMode
  originSessionId
  input
  launchOptions
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  parentTerminalFingerprint
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}`, {"hash":"sha256:414b5109d6e674e5410cfb69703ffd9bb95675b4b0c5808e97d882c7d73dc158"}) as unknown as TypedDocumentString<WorkflowRunDeltasSubscription, WorkflowRunDeltasSubscriptionVariables>;
export const WorkflowRunUpdatedDocument = new TypedDocumentString(`
    subscription WorkflowRunUpdated($runId: String!) {
  workflowRunUpdated(runId: $runId) {
    ...RunFields
  }
}
    fragment RunFields on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  executionMode
  originSessionId
  input
  launchOptions
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  parentTerminalFingerprint
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}`, {"hash":"sha256:1795e226b374bc9a18c009e1abe91a89cff15114d3c105c742b56bda3d5337af"}) as unknown as TypedDocumentString<WorkflowRunUpdatedSubscription, WorkflowRunUpdatedSubscriptionVariables>;
export const WorkflowRunLineageUpdatedDocument = new TypedDocumentString(`
    subscription WorkflowRunLineageUpdated($rootRunId: String!) {
  workflowRunLineageUpdated(rootRunId: $rootRunId) {
    id
    runId
    parentRunId
    rootRunId
    lineageKind
    restartNumber
    status
    queueStatus
    presentationRevision
  }
}
    `, {"hash":"sha256:3afb317ec4c5424b843cf3404a2063d06e0ecae66ba4ecd90db1b71778ca9c46"}) as unknown as TypedDocumentString<WorkflowRunLineageUpdatedSubscription, WorkflowRunLineageUpdatedSubscriptionVariables>;
export const WorkflowRunChangesDocument = new TypedDocumentString(`
    subscription WorkflowRunChanges($filter: WorkflowRunFilter, $after: String) {
  workflowRunChanges(filter: $filter, after: $after) {
    __typename
    ... on WorkflowRunChange {
      cursor
      run {
        ...RunFields
      }
    }
    ... on WorkflowRunChangesResetRequired {
      cursor
    }
  }
}
    fragment RunFields on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  executionMode
  originSessionId
  input
  launchOptions
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  parentTerminalFingerprint
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}`, {"hash":"sha256:e43db7f5d095256ae399f1d1ac393271873fdad28ad1237ae75270f12104e7df"}) as unknown as TypedDocumentString<WorkflowRunChangesSubscription, WorkflowRunChangesSubscriptionVariables>;
export const WorkflowRunChainDeltasDocument = new TypedDocumentString(`
    subscription WorkflowRunChainDeltas($runId: String!, $after: String) {
  workflowRunChainDeltas(runId: $runId, after: $after) {
    __typename
    ... on WorkflowRunChainBatch {
      cursor
      batch {
        runId
        presentationRevision
        deltas {
          deltaIndex
          targetType
          targetKey
          recordedAt
          patch {
            op
            path
            value
          }
        }
      }
    }
    ... on WorkflowRunChainSnapshotRequired {
      cursor
      runId
      currentRevision
      retainedFromRevision
      run {
        ...RunFields
      }
    }
    ... on WorkflowRunChainMoved {
      cursor
      fromRunId
      runId
      lineageKind
      currentRevision
      run {
        ...RunFields
      }
    }
  }
}
    fragment RunFields on WorkflowRun {
  id
  runId
  workflowName
  workflowRef
  status
  queueStatus
  paused
  statusDetail
  executionMode
  originSessionId
  input
  launchOptions
  errorCode
  errorMessage
  createdAt
  updatedAt
  startedAt
  finishedAt
  parentRunId
  rootRunId
  lineageKind
  restartNumber
  parentTerminalFingerprint
  terminalFingerprint
  presentationRevision
  claim {
    ownerId
    leaseGeneration
    expiresAt
  }
}`, {"hash":"sha256:75b3203c47a1f55f553edaaa56b8ed6fbbaaea1c966d42f9c2bfb0936c4a171e"}) as unknown as TypedDocumentString<WorkflowRunChainDeltasSubscription, WorkflowRunChainDeltasSubscriptionVariables>;
export const WorkflowRunViewFollowDocument = new TypedDocumentString(`
    subscription WorkflowRunViewFollow($runId: String!, $after: String) {
  workflowRunView(runId: $runId, after: $after) {
    __typename
    ... on WorkflowRunViewReset {
      runId
      revision
      cursor
      view {
        title
        status
        paused
        statusDetail
        display {
          status
          activity
          reason
          controls
        }
        currentNode
        waitingOn
        finalOutput {
          byteLength
          text
        }
        error {
          text
        }
        steps {
          totalCount
          edges {
            node {
              stepIndex
              nodeId
              nodeType
              attempt
              outcome
              startedAt
              finishedAt
              prompt {
                byteLength
                text
              }
              output {
                byteLength
                text
              }
              error {
                text
              }
            }
          }
        }
        trace {
          totalCount
          edges {
            node {
              seq
              at
              scope
              type
              nodeId
              attemptId
            }
          }
        }
        session {
          entries {
            totalCount
            edges {
              node {
                seq
                at
                role
                customType
                text
                toolCalls {
                  id
                  name
                  arguments
                }
              }
            }
          }
        }
      }
    }
    ... on WorkflowRunViewChanged {
      runId
      fromRevision
      revision
      cursor
      view {
        title
        status
        paused
        statusDetail
        display {
          status
          activity
          reason
          controls
        }
        currentNode
        waitingOn
        finalOutput {
          byteLength
          text
        }
        error {
          text
        }
      }
      steps {
        stepIndex
        nodeId
        nodeType
        attempt
        outcome
        startedAt
        finishedAt
        prompt {
          byteLength
          text
        }
        output {
          byteLength
          text
        }
        error {
          text
        }
      }
      traceEvents {
        seq
        at
        scope
        type
        nodeId
        attemptId
      }
      sessionEntries {
        seq
        at
        role
        customType
        text
        toolCalls {
          id
          name
          arguments
        }
      }
      sessionEvents {
        seq
        at
        type
      }
      updates {
        seq
        type
        key
        nodeId
        data {
          json
        }
      }
    }
  }
}
    `, {"hash":"sha256:f424eee43060681ac2a6618ce0003b9a1ceb8758133cce9caa6e98da87271ce0"}) as unknown as TypedDocumentString<WorkflowRunViewFollowSubscription, WorkflowRunViewFollowSubscriptionVariables>;