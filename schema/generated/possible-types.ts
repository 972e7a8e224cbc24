
      export type PossibleTypesResultData = {
  "possibleTypes": {
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
    "SettleWorkflowRunResult": [
      "ClaimLostError",
      "ConflictError",
      "ForbiddenError",
      "NotFoundError",
      "SettleWorkflowRunSuccess",
      "ValidationError"
    ],
    "WorkflowRunChangeEvent": [
      "WorkflowRunChange",
      "WorkflowRunChangesResetRequired"
    ],
    "WorkflowRunDeltaEvent": [
      "ViewerDeltaBatch",
      "ViewerSnapshotRequired"
    ]
  }
};
      const result: PossibleTypesResultData = {
  "possibleTypes": {
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
    "SettleWorkflowRunResult": [
      "ClaimLostError",
      "ConflictError",
      "ForbiddenError",
      "NotFoundError",
      "SettleWorkflowRunSuccess",
      "ValidationError"
    ],
    "WorkflowRunChangeEvent": [
      "WorkflowRunChange",
      "WorkflowRunChangesResetRequired"
    ],
    "WorkflowRunDeltaEvent": [
      "ViewerDeltaBatch",
      "ViewerSnapshotRequired"
    ]
  }
};
      export default result;
    