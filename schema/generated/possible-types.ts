
      export type PossibleTypesResultData = {
  "possibleTypes": {
    "CancelWorkflowRunResult": [
      "CancelWorkflowRunSuccess",
      "ClaimLostError",
      "ConflictError",
      "ForbiddenError",
      "NotFoundError",
      "ValidationError"
    ],
    "ClaimWorkflowRunResult": [
      "ClaimWorkflowRunSuccess",
      "ConflictError",
      "ForbiddenError",
      "NotFoundError",
      "ValidationError"
    ],
    "Error": [
      "ClaimLostError",
      "ConflictError",
      "ForbiddenError",
      "LineageError",
      "NotFoundError",
      "RestartRejectedError",
      "ValidationError"
    ],
    "MarkWorkflowRunRunningResult": [
      "ClaimLostError",
      "ConflictError",
      "ForbiddenError",
      "MarkWorkflowRunRunningSuccess",
      "NotFoundError",
      "ValidationError"
    ],
    "Node": [
      "WorkflowRun"
    ],
    "ParkWorkflowRunResult": [
      "ClaimLostError",
      "ConflictError",
      "ForbiddenError",
      "NotFoundError",
      "ParkWorkflowRunSuccess",
      "ValidationError"
    ],
    "PauseWorkflowRunResult": [
      "ConflictError",
      "ForbiddenError",
      "NotFoundError",
      "PauseWorkflowRunSuccess",
      "ValidationError"
    ],
    "RenewWorkflowRunClaimResult": [
      "ClaimLostError",
      "ForbiddenError",
      "NotFoundError",
      "RenewWorkflowRunClaimSuccess",
      "ValidationError"
    ],
    "ReportWorkflowRunStateResult": [
      "ClaimLostError",
      "ConflictError",
      "ForbiddenError",
      "NotFoundError",
      "ReportWorkflowRunStateSuccess",
      "ValidationError"
    ],
    "ReserveWorkflowRunResult": [
      "ConflictError",
      "ForbiddenError",
      "LineageError",
      "NotFoundError",
      "ReserveWorkflowRunSuccess",
      "RestartRejectedError",
      "ValidationError"
    ],
    "RestartWorkflowRunResult": [
      "ConflictError",
      "ForbiddenError",
      "LineageError",
      "NotFoundError",
      "RestartRejectedError",
      "RestartWorkflowRunSuccess",
      "ValidationError"
    ],
    "ResumeWorkflowRunResult": [
      "ConflictError",
      "ForbiddenError",
      "NotFoundError",
      "ResumeWorkflowRunSuccess",
      "ValidationError"
    ],
    "SettleWorkflowRunResult": [
      "ClaimLostError",
      "ConflictError",
      "ForbiddenError",
      "NotFoundError",
      "SettleWorkflowRunSuccess",
      "ValidationError"
    ],
    "WorkflowRunChainEvent": [
      "WorkflowRunChainBatch",
      "WorkflowRunChainMoved",
      "WorkflowRunChainSnapshotRequired"
    ],
    "WorkflowRunChangeEvent": [
      "WorkflowRunChange",
      "WorkflowRunChangesResetRequired"
    ],
    "WorkflowRunDeltaEvent": [
      "ViewerDeltaBatch",
      "ViewerSnapshotRequired"
    ],
    "WorkflowRunViewEvent": [
      "WorkflowRunViewChanged",
      "WorkflowRunViewReset"
    ]
  }
};
      const result: PossibleTypesResultData = {
  "possibleTypes": {
    "CancelWorkflowRunResult": [
      "CancelWorkflowRunSuccess",
      "ClaimLostError",
      "ConflictError",
      "ForbiddenError",
      "NotFoundError",
      "ValidationError"
    ],
    "ClaimWorkflowRunResult": [
      "ClaimWorkflowRunSuccess",
      "ConflictError",
      "ForbiddenError",
      "NotFoundError",
      "ValidationError"
    ],
    "Error": [
      "ClaimLostError",
      "ConflictError",
      "ForbiddenError",
      "LineageError",
      "NotFoundError",
      "RestartRejectedError",
      "ValidationError"
    ],
    "MarkWorkflowRunRunningResult": [
      "ClaimLostError",
      "ConflictError",
      "ForbiddenError",
      "MarkWorkflowRunRunningSuccess",
      "NotFoundError",
      "ValidationError"
    ],
    "Node": [
      "WorkflowRun"
    ],
    "ParkWorkflowRunResult": [
      "ClaimLostError",
      "ConflictError",
      "ForbiddenError",
      "NotFoundError",
      "ParkWorkflowRunSuccess",
      "ValidationError"
    ],
    "PauseWorkflowRunResult": [
      "ConflictError",
      "ForbiddenError",
      "NotFoundError",
      "PauseWorkflowRunSuccess",
      "ValidationError"
    ],
    "RenewWorkflowRunClaimResult": [
      "ClaimLostError",
      "ForbiddenError",
      "NotFoundError",
      "RenewWorkflowRunClaimSuccess",
      "ValidationError"
    ],
    "ReportWorkflowRunStateResult": [
      "ClaimLostError",
      "ConflictError",
      "ForbiddenError",
      "NotFoundError",
      "ReportWorkflowRunStateSuccess",
      "ValidationError"
    ],
    "ReserveWorkflowRunResult": [
      "ConflictError",
      "ForbiddenError",
      "LineageError",
      "NotFoundError",
      "ReserveWorkflowRunSuccess",
      "RestartRejectedError",
      "ValidationError"
    ],
    "RestartWorkflowRunResult": [
      "ConflictError",
      "ForbiddenError",
      "LineageError",
      "NotFoundError",
      "RestartRejectedError",
      "RestartWorkflowRunSuccess",
      "ValidationError"
    ],
    "ResumeWorkflowRunResult": [
      "ConflictError",
      "ForbiddenError",
      "NotFoundError",
      "ResumeWorkflowRunSuccess",
      "ValidationError"
    ],
    "SettleWorkflowRunResult": [
      "ClaimLostError",
      "ConflictError",
      "ForbiddenError",
      "NotFoundError",
      "SettleWorkflowRunSuccess",
      "ValidationError"
    ],
    "WorkflowRunChainEvent": [
      "WorkflowRunChainBatch",
      "WorkflowRunChainMoved",
      "WorkflowRunChainSnapshotRequired"
    ],
    "WorkflowRunChangeEvent": [
      "WorkflowRunChange",
      "WorkflowRunChangesResetRequired"
    ],
    "WorkflowRunDeltaEvent": [
      "ViewerDeltaBatch",
      "ViewerSnapshotRequired"
    ],
    "WorkflowRunViewEvent": [
      "WorkflowRunViewChanged",
      "WorkflowRunViewReset"
    ]
  }
};
      export default result;
    