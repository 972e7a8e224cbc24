/**
 * Relay subscriptions and a mutation (compiled by relay-compiler in
 * test/clients/relay-compiler.test.ts; never executed): a run's updates, its chain's updates and
 * its viewer deltas, and a claim whose typed errors are read through the Error interface.
 */
const graphql = String.raw;

export const RunUpdatesRelaySubscription = graphql`
  subscription RunUpdatesRelaySubscription($runId: String!) {
    workflowRunUpdated(runId: $runId) {
      id
      status
      queueStatus
      presentationRevision
      ...RunLineageRelay_run
    }
  }
`;

export const RunUpdatesRelayChainSubscription = graphql`
  subscription RunUpdatesRelayChainSubscription($rootRunId: String!) {
    workflowRunLineageUpdated(rootRunId: $rootRunId) {
      id
      runId
      status
    }
  }
`;

export const RunUpdatesRelayDeltasSubscription = graphql`
  subscription RunUpdatesRelayDeltasSubscription($runId: String!, $afterRevision: Int) {
    workflowRunDeltas(runId: $runId, afterRevision: $afterRevision) {
      __typename
      ... on ViewerDeltaBatch {
        runId
        presentationRevision
        deltas {
          deltaIndex
          targetType
          targetKey
          patch {
            op
            path
            value
          }
        }
      }
      ... on ViewerSnapshotRequired {
        currentRevision
        run {
          id
          presentationRevision
        }
      }
    }
  }
`;

export const RunUpdatesRelayClaimMutation = graphql`
  mutation RunUpdatesRelayClaimMutation($input: ClaimWorkflowRunInput!) {
    claimWorkflowRun(input: $input) {
      __typename
      ... on ClaimWorkflowRunSuccess {
        run {
          id
          queueStatus
          claim {
            ownerId
            leaseGeneration
            expiresAt
          }
        }
      }
      ... on Error {
        code
        message
      }
    }
  }
`;
