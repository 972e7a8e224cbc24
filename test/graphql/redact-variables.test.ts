/**
 * A variable that fails coercion is reported with its path and reason but never its value:
 * graphql-js would echo the whole input, claim token included (issue 7: claim tokens never
 * appear in any response).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server-fixture.js';

const SECRET = 'claim-token-never-echoed';
const SETTLE = 'mutation Settle($input: SettleWorkflowRunInput!) { settleWorkflowRun(input: $input) { __typename } }';
const CLAIM = 'mutation Claim($input: ClaimWorkflowRunInput!) { claimWorkflowRun(input: $input) { __typename } }';

describe('variable coercion errors carry no values', () => {
  let fx: TestServer;
  beforeAll(async () => {
    fx = await startTestServer();
  });
  afterAll(async () => {
    await fx.close();
  });

  it('an unknown enum value: path and reason, no value', async () => {
    const response = await fx.gql(SETTLE, { input: { runId: 'run-1', claimToken: SECRET, status: 'NOPE' } });
    expect(response.errors?.map((error) => error.message)).toEqual([
      'Variable "$input" got invalid value at "input.status"; Value "NOPE" does not exist in "SettleStatus" enum.',
    ]);
    expect(response.text).not.toContain(SECRET);
  });

  it('a missing required field and a wrong type', async () => {
    const missing = await fx.gql(SETTLE, { input: { runId: 'run-1', claimToken: SECRET } });
    expect(missing.errors?.map((error) => error.message)).toEqual([
      'Variable "$input" got invalid value; Field "status" of required type "SettleStatus!" was not provided.',
    ]);
    const wrongType = await fx.gql(CLAIM, { input: { runnerId: 'r', claimToken: SECRET, leaseMs: 'soon' } });
    expect(wrongType.errors?.map((error) => error.message)).toEqual([
      'Variable "$input" got invalid value at "input.leaseMs"; Int cannot represent non-integer value: "soon"',
    ]);
    expect(missing.text + wrongType.text).not.toContain(SECRET);
  });
});
