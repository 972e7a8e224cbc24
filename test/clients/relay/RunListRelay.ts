/**
 * Relay documents over the run list (compiled by relay-compiler in
 * test/clients/relay-compiler.test.ts; never executed): the `workflowRuns` connection paged
 * both ways with @connection, refetchable with other variables (@refetchable on Query).
 */
const graphql = String.raw;

export const RunListRelayQuery = graphql`
  query RunListRelayQuery($first: Int, $after: String, $filter: WorkflowRunFilter) {
    ...RunListRelay_query @arguments(first: $first, after: $after, filter: $filter)
  }
`;

export const RunListRelayFragment = graphql`
  fragment RunListRelay_query on Query
  @refetchable(queryName: "RunListRelayRefetchQuery")
  @argumentDefinitions(
    first: { type: "Int", defaultValue: 20 }
    after: { type: "String" }
    last: { type: "Int" }
    before: { type: "String" }
    filter: { type: "WorkflowRunFilter" }
  ) {
    workflowRuns(first: $first, after: $after, last: $last, before: $before, filter: $filter)
      @connection(key: "RunListRelay_workflowRuns", filters: ["filter"]) {
      totalCount
      edges {
        node {
          id
          runId
          workflowName
          status
          queueStatus
          claim {
            ownerId
            leaseGeneration
            expiresAt
          }
          ...RunLineageRelay_run
        }
      }
    }
  }
`;
