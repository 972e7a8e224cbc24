/**
 * Request bodies far past the server's limits, shared by limits.test.ts and its memory child
 * (test/children/limits-memory.ts): each is refused before anything runs.
 */

/** The server's `maxBodyBytes` in these tests (the default, 2 MiB). */
export const MAX_BODY_BYTES = 2_097_152;

/** `workflowRun { parent { parent { … runId } } }` of total depth `depth`. */
export function nested(depth: number, operation = 'query'): string {
  let selection = 'runId';
  for (let level = 0; level < depth - 2; level += 1) selection = `parent { ${selection} }`;
  return `${operation} Deep { workflowRun(runId: "run-1") { ${selection} } }`;
}

/** 10,000 aliased root fields: past the token limit. */
export const ALIASES_10K = `{ ${Array.from({ length: 10_000 }, (_, index) => `a${index}: workflowRuns { totalCount }`).join(' ')} }`;

/** Twenty wide, deep selections: past the cost limit. */
export const COSTLY = `{ ${Array.from({ length: 20 }, (_, index) => `a${index}: workflowRuns(first: 100) { edges { node { children { children { children { runId } } } } } }`).join(' ')} }`;

/** A mutation whose value literal nests `depth` lists. */
export const deepLiteral = (depth: number): string =>
  `mutation { settleWorkflowRun(input: { runId: "run-1", claimToken: "t", status: COMPLETED, output: ${'['.repeat(depth)}${']'.repeat(depth)} }) { __typename } }`;
