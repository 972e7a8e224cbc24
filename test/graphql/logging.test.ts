/**
 * Request logs: one JSON line per request with operationName and durationMs; claim tokens in
 * variables and the bearer token never reach the log.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaimWorkflowRunDocument, SettleWorkflowRunDocument } from '../../schema/generated/graphql.js';
import { reserve, reserveInput, startTestServer, type TestServer } from '../helpers/server-fixture.js';

const CLAIM_TOKEN = 'claim-token-that-must-never-be-logged';
const BEARER = 'bearer-token-that-must-never-be-logged';

describe('request logging', () => {
  let fx: TestServer;
  const lines: string[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        lines.push(...chunk.toString('utf8').split('\n').filter((line) => line.length > 0));
        callback();
      },
    });
    fx = await startTestServer({ token: BEARER, logger: pino({ level: 'info' }, sink) });
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
        reason: 'Unauthorized: send Authorization: Bearer <token>',
      }),
    ]);
    expect(lines.join('\n')).not.toContain('wrong');
  });
});
