/**
 * Relay documents over one run (compiled by relay-compiler in
 * test/clients/relay-compiler.test.ts; never executed): the run refetchable through
 * `node(id)` (@refetchable on a Node type) and its `lineage` connection with @connection.
 */
const graphql = String.raw;

export const RunLineageRelayFragment = graphql`
  fragment RunLineageRelay_run on WorkflowRun
  @refetchable(queryName: "RunLineageRelayRefetchQuery")
  @argumentDefinitions(lineageFirst: { type: "Int", defaultValue: 20 }, lineageAfter: { type: "String" }) {
    id
    runId
    rootRunId
    lineageKind
    restartNumber
    parent {
      id
      runId
    }
    latestRun {
      id
      runId
      status
    }
    lineage(first: $lineageFirst, after: $lineageAfter) @connection(key: "RunLineageRelay_lineage") {
      totalCount
      edges {
        node {
          id
          runId
          parentRunId
          lineageKind
          status
        }
      }
    }
  }
`;

export const RunLineageRelayQuery = graphql`
  query RunLineageRelayQuery($runId: String!) {
    workflowRun(runId: $runId) {
      ...RunLineageRelay_run
    }
  }
`;
