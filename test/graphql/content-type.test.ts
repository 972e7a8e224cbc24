/**
 * POST bodies other than JSON: `curl -d '{…}'` sends
 * `application/x-www-form-urlencoded`; it used to get "Must provide query string." and now gets
 * 415 saying what to send, with `Accept-Post`, logged as a refusal, and nothing runs.
 */
import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reserveInput, snapshotTables, startTestServer, type TestServer } from '../helpers/server-fixture.js';

const RESERVE = 'mutation R($input: ReserveWorkflowRunInput!) { reserveWorkflowRun(input: $input) { __typename } }';
const BODY = JSON.stringify({ query: RESERVE, variables: { input: reserveInput('run-form') } });
const HOW = `send the GraphQL request as JSON, with "Content-Type: application/json" and a body like {"query": "…", "variables": {…}, "operationName": "…"} — for example: curl -H 'content-type: application/json' -d '{"query": "{ __typename }"}' <url>/graphql`;

/** A POST with exactly these headers (fetch would add a Content-Type of its own). */
function post(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: 'POST', headers: { 'content-length': String(Buffer.byteLength(body)), ...headers } }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

describe('POST content types', () => {
  let fx: TestServer;
  const lines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        for (const line of chunk.toString('utf8').split('\n')) if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
        callback();
      },
    });
    fx = await startTestServer({ logger: pino({ level: 'info' }, sink) });
  });
  afterAll(async () => {
    await fx.close();
  });

  it.each([
    ['application/x-www-form-urlencoded', 'Unsupported Content-Type application/x-www-form-urlencoded'], // curl -d
    ['text/plain;charset=UTF-8', 'Unsupported Content-Type text/plain'],
    ['multipart/form-data; boundary=x', 'Unsupported Content-Type multipart/form-data'],
    ['Application/JSON', 'Unsupported Content-Type Application/JSON'], // yoga matches lower case only
    [undefined, 'POST without a Content-Type'],
  ])('Content-Type %s: 415 saying what to send, logged, nothing run', async (contentType, received) => {
    const before = snapshotTables(fx.store);
    const logged = lines.length;
    const response = await post(fx.url, contentType === undefined ? {} : { 'content-type': contentType }, BODY);
    expect(response.status).toBe(415);
    expect(response.headers['content-type']).toBe('application/json');
    expect(response.headers['accept-post']).toBe('application/json, application/graphql+json, application/graphql');
    expect(JSON.parse(response.body)).toEqual({ errors: [{ message: `${received}: ${HOW}` }] });
    expect(lines.slice(logged)).toEqual([
      expect.objectContaining({ msg: 'request refused', method: 'POST', path: '/graphql', status: 415, reason: `${received}: ${HOW}` }),
    ]);
    expect(snapshotTables(fx.store)).toEqual(before);
  });

  it.each(['application/json', 'application/json; charset=utf-8', 'application/graphql+json'])('Content-Type %s is served', async (contentType) => {
    const response = await post(fx.url, { 'content-type': contentType }, '{"query":"{ __typename }"}');
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ data: { __typename: 'Query' } });
  });

  it('Content-Type application/graphql (the query as the body) is served', async () => {
    const response = await post(fx.url, { 'content-type': 'application/graphql' }, '{ __typename }');
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ data: { __typename: 'Query' } });
  });

  it('GET requests carry no body and are not affected', async () => {
    const response = await fetch(`${fx.url}?query=${encodeURIComponent('{ __typename }')}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: { __typename: 'Query' } });
  });
});

describe('POST content types with a token', () => {
  it('an unauthorized form POST gets 401 first: the 415 tells nothing to a caller without the token', async () => {
    const fx = await startTestServer({ token: 's3cret' });
    try {
      const response = await post(fx.url, { 'content-type': 'application/x-www-form-urlencoded' }, BODY);
      expect(response.status).toBe(401);
      const authorized = await post(fx.url, { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Bearer s3cret' }, BODY);
      expect(authorized.status).toBe(415);
    } finally {
      await fx.close();
    }
  });
});
