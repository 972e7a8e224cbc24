
      export type PossibleTypesResultData = {
  "possibleTypes": {
    "ClaimWorkflowRunResult": [
      "ClaimLostError",
      "ClaimWorkflowRunSuccess",
      "ConflictError",
      "ForbiddenError",
      "LineageError",
      "NotFoundError",
      "RestartRejectedError",
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
      "LineageError",
      "NotFoundError",
      "ParkWorkflowRunSuccess",
      "RestartRejectedError",
      "ValidationError"
    ],
    "ReserveWorkflowRunResult": [
      "ClaimLostError",
      "ConflictError",
      "ForbiddenError",
      "LineageError",
      "NotFoundError",
      "ReserveWorkflowRunSuccess",
      "RestartRejectedError",
      "ValidationError"
    ],
    "RestartWorkflowRunResult": [
      "ClaimLostError",
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
      "LineageError",
      "NotFoundError",
      "RestartRejectedError",
      "SettleWorkflowRunSuccess",
      "ValidationError"
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
      "ClaimLostError",
      "ClaimWorkflowRunSuccess",
      "ConflictError",
      "ForbiddenError",
      "LineageError",
      "NotFoundError",
      "RestartRejectedError",
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
      "LineageError",
      "NotFoundError",
      "ParkWorkflowRunSuccess",
      "RestartRejectedError",
      "ValidationError"
    ],
    "ReserveWorkflowRunResult": [
      "ClaimLostError",
      "ConflictError",
      "ForbiddenError",
      "LineageError",
      "NotFoundError",
      "ReserveWorkflowRunSuccess",
      "RestartRejectedError",
      "ValidationError"
    ],
    "RestartWorkflowRunResult": [
      "ClaimLostError",
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
      "LineageError",
      "NotFoundError",
      "RestartRejectedError",
      "SettleWorkflowRunSuccess",
      "ValidationError"
    ],
    "WorkflowRunDeltaEvent": [
      "ViewerDeltaBatch",
      "ViewerSnapshotRequired"
    ]
  }
};
      export default result;
    