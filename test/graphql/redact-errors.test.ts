/**
 * A variable that fails coercion is reported with its path and reason but never its value:
 * graphql-js would echo the whole input, claim token included (issue 7: claim tokens never
 * appear in any response).
 */
import { describe, expect } from 'vitest';
import { serverTest as it } from '../helpers/server-test.js';

const SECRET = 'claim-token-never-echoed';
const SETTLE = 'mutation Settle($input: SettleWorkflowRunInput!) { settleWorkflowRun(input: $input) { __typename } }';
const CLAIM = 'mutation Claim($input: ClaimWorkflowRunInput!) { claimWorkflowRun(input: $input) { __typename } }';

describe('variable coercion errors carry no values', () => {

  it('an unknown enum value: path and reason, no value', async ({ fx }) => {
    const response = await fx.gql(SETTLE, { input: { runId: 'run-1', claimToken: SECRET, status: 'NOPE' } });
    expect(response.errors?.map((error) => error.message)).toEqual([
      'Variable "$input" got invalid value at "input.status"; Value "NOPE" does not exist in "SettleStatus" enum.',
    ]);
    expect(response.text).not.toContain(SECRET);
  });

  it('a missing required field and a wrong type', async ({ fx }) => {
    const missing = await fx.gql(SETTLE, { input: { runId: 'run-1', claimToken: SECRET } });
    expect(missing.errors?.map((error) => error.message)).toEqual([
      'Variable "$input" got invalid value; Field "status" of required type "SettleStatus!" was not provided.',
    ]);
    const wrongType = await fx.gql(CLAIM, { input: { runnerId: 'r', claimToken: SECRET, leaseMs: 'soon' } });
    expect(wrongType.errors?.map((error) => error.message)).toEqual([
      'Variable "$input" got invalid value at "input.leaseMs"; Int cannot represent non-integer value.',
    ]);
    expect(missing.text + wrongType.text).not.toContain(SECRET);
  });

  it('a claim token of the wrong type is not echoed either', async ({ fx }) => {
    const response = await fx.gql(CLAIM, { input: { runnerId: 'r', claimToken: { secret: SECRET }, leaseMs: 5 } });
    expect(response.errors?.map((error) => error.message)).toEqual([
      'Variable "$input" got invalid value at "input.claimToken"; String cannot represent a non string value.',
    ]);
    expect(response.text).not.toContain(SECRET);
  });

  it('a body that is not valid JSON: a clear error, and the body is not quoted back', async ({ fx }) => {
    const response = await fetch(fx.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: `{"query":"{ __typename }","variables":{"claimToken":"${SECRET}",}}`,
    });
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(text).not.toContain(SECRET);
    expect(JSON.parse(text)).toEqual({
      errors: [
        {
          message: 'POST body sent invalid JSON.',
          extensions: { code: 'BAD_REQUEST', originalError: { name: 'SyntaxError', message: 'The request body is not valid JSON' } },
        },
      ],
    });
  });
});
