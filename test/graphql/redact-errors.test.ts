/**
 * A variable that fails coercion is reported with its path and reason but never its value:
 * graphql-js would echo the whole input, claim token included (claim tokens never
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

  // HTTP 400 with either Accept, as before the code was added (a validation failure, below, answers
  // application/json clients 200).
  it.for<[string, number]>([
    ['application/graphql-response+json', 400],
    ['application/json', 400],
  ])('variable coercion errors carry extensions.code BAD_USER_INPUT (Accept %s: HTTP %i)', async ([accept, status], { fx }) => {
    const headers = { accept };
    const cases: Array<[string, Record<string, unknown>, string]> = [
      [
        'query Runs($s: [WorkflowRunStatus!]) { workflowRuns(filter: { status: $s }) { totalCount } }',
        { s: ['DONE'] },
        'Variable "$s" got invalid value at "s[0]"; Value "DONE" does not exist in "WorkflowRunStatus" enum.',
      ],
      [
        'query Run($id: String!) { workflowRun(runId: $id) { id } }',
        { id: 42 },
        'Variable "$id" got invalid value; String cannot represent a non string value.',
      ],
      ['query Node($id: ID!) { node(id: $id) { id } }', {}, 'Variable "$id" of required type "ID!" was not provided.'],
      ['query Node($id: ID!) { node(id: $id) { id } }', { id: null }, 'Variable "$id" of non-null type "ID!" must not be null.'],
    ];
    for (const [query, variables, message] of cases) {
      const response = await fx.gql(query, variables, { headers });
      expect(response.status).toBe(status);
      expect(response.errors).toEqual([{ message, locations: [expect.any(Object)], extensions: { code: 'BAD_USER_INPUT' } }]);
    }
    // The same mistake inline is a validation error.
    const inline = await fx.gql('query Runs { workflowRuns(filter: { status: [DONE] }) { totalCount } }', undefined, { headers });
    expect(inline.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
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
