/**
 * Request logs: one JSON line per request with operationName and durationMs; claim tokens in
 * variables and the bearer token never reach the log. operationName comes from the document
 * when the request names none; a failed request carries its error code and, when the message
 * cannot quote variables, its reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaimWorkflowRunDocument, SettleWorkflowRunDocument } from '../../schema/generated/graphql.js';
import { reserve, reserveInput, startTestServer, type TestServer } from '../helpers/server-fixture.js';
import { captureLog } from '../helpers/log-capture.js';

const CLAIM_TOKEN = 'claim-token-that-must-never-be-logged';
const BEARER = 'bearer-token-that-must-never-be-logged';

describe('request logging', () => {
  let fx: TestServer;
  const { lines, logger } = captureLog('info');

  beforeAll(async () => {
    fx = await startTestServer({ token: BEARER, logger });
  });
  afterAll(async () => {
    await fx.close();
  });

  const records = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

  it('logs one line per request with operationName, status and durationMs', async () => {
    await reserve(fx, reserveInput('run-1'));
    const before = lines.length;
    const response = await fx.gql(ClaimWorkflowRunDocument, {
      input: { runId: 'run-1', runnerId: 'runner-1', claimToken: CLAIM_TOKEN, leaseMs: 1_000 },
    });
    expect(response.status).toBe(200);
    const added = records().slice(before);
    expect(added).toHaveLength(1);
    expect(added[0]).toEqual({
      level: 30,
      time: expect.any(Number),
      pid: process.pid,
      hostname: expect.any(String),
      msg: 'request',
      method: 'POST',
      path: '/graphql',
      operationName: 'ClaimWorkflowRun',
      scope: 'write',
      status: 200,
      durationMs: expect.any(Number),
    });
    expect(added[0]?.durationMs as number).toBeGreaterThanOrEqual(0);
  });

  it('logs requests without an operation name with operationName null', async () => {
    const before = lines.length;
    await fx.gql('{ workflowRuns { totalCount } }');
    expect(records().slice(before)).toEqual([expect.objectContaining({ msg: 'request', operationName: null, status: 200 })]);
  });

  it('never logs a claim token sent in variables, nor the bearer token', async () => {
    await fx.gql(SettleWorkflowRunDocument, { input: { runId: 'run-1', claimToken: CLAIM_TOKEN, status: 'COMPLETED' } });
    expect(records().some((record) => record.operationName === 'SettleWorkflowRun')).toBe(true);
    const output = lines.join('\n');
    expect(output).not.toContain(CLAIM_TOKEN);
    expect(output).not.toContain(BEARER);
  });

  it('logs a request refused before GraphQL (401) with its status and reason', async () => {
    const before = lines.length;
    const response = await fx.gql('{ workflowRuns { totalCount } }', undefined, { headers: { authorization: 'Bearer wrong' } });
    expect(response.status).toBe(401);
    expect(records().slice(before)).toEqual([
      expect.objectContaining({
        msg: 'request refused',
        method: 'POST',
        path: '/graphql',
        status: 401,
        reason:
          "Unauthorized: the token sent is not accepted: send Authorization: Bearer <token> with the server's --token, a --read-token or a --metadata-token",
      }),
    ]);
    expect(lines.join('\n')).not.toContain('wrong');
  });

  it('logs the name of the only operation of a document sent without operationName (also when the parse is cached)', async () => {
    const before = lines.length;
    for (let i = 0; i < 2; i++) {
      const response = await fx.gql('query Named { workflowRuns { totalCount } }', undefined, { operationName: null });
      expect(response.status).toBe(200);
    }
    expect(records().slice(before)).toEqual([
      expect.objectContaining({ msg: 'request', operationName: 'Named', status: 200 }),
      expect.objectContaining({ msg: 'request', operationName: 'Named', status: 200 }),
    ]);
  });

  it('logs the operation the request chose among several', async () => {
    const before = lines.length;
    await fx.gql('query A { __typename } query B { __typename }', undefined, { operationName: 'B' });
    expect(records().slice(before)).toEqual([expect.objectContaining({ operationName: 'B', status: 200 })]);
  });

  it.each([
    ['application/graphql-response+json', 400],
    ['application/json', 200],
  ])('logs a validation failure (Accept %s) with the status sent, its code and its reason', async (accept, status) => {
    const before = lines.length;
    const response = await fx.gql('query Broken { nope }', undefined, { operationName: null, headers: { accept } });
    expect(response.status).toBe(status);
    expect(records().slice(before)).toEqual([
      {
        level: 30,
        time: expect.any(Number),
        pid: process.pid,
        hostname: expect.any(String),
        msg: 'request',
        method: 'POST',
        path: '/graphql',
        operationName: 'Broken',
        scope: 'write',
        status,
        durationMs: expect.any(Number),
        errorCode: 'GRAPHQL_VALIDATION_FAILED',
        reason: 'Cannot query field "nope" on type "Query". Did you mean "node"?',
      },
    ]);
  });

  it('logs a syntax error and a request without a query with their reasons', async () => {
    const before = lines.length;
    expect((await fx.gql('query {', undefined, { operationName: null })).status).toBe(400);
    const noQuery = await fetch(fx.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${BEARER}`, accept: 'application/graphql-response+json' },
      body: '{"variables":{}}',
    });
    expect(noQuery.status).toBe(400);
    expect(records().slice(before)).toEqual([
      expect.objectContaining({ status: 400, operationName: null, errorCode: 'GRAPHQL_PARSE_FAILED', reason: 'Syntax Error: Expected Name, found <EOF>.' }),
      expect.objectContaining({ status: 400, operationName: null, errorCode: 'BAD_REQUEST', reason: 'Must provide query string.' }),
    ]);
  });

  it('logs a variable error as its variable and path only, never the value', async () => {
    const before = lines.length;
    const response = await fx.gql(SettleWorkflowRunDocument, { input: { runId: 'run-1', claimToken: { value: CLAIM_TOKEN }, status: 'COMPLETED' } } as never);
    expect(response.status).toBe(400);
    expect(records().slice(before)).toEqual([
      expect.objectContaining({
        operationName: 'SettleWorkflowRun',
        status: 400,
        errorCode: 'BAD_USER_INPUT',
        reason: 'Variable "$input" got invalid value at "input.claimToken"',
      }),
    ]);
    expect(lines.join('\n')).not.toContain(CLAIM_TOKEN);
  });

  it('logs a resolver user-input error by its code only (its message may quote input)', async () => {
    const before = lines.length;
    const response = await fx.gql('query Node { node(id: "not-a-global-id") { id } }', undefined, { operationName: null });
    expect(response.status).toBe(200);
    expect(records().slice(before)).toEqual([expect.objectContaining({ operationName: 'Node', status: 200, errorCode: 'BAD_USER_INPUT', reason: null })]);
  });
});
