/** This file's server: { token: 's3cret-token' }. */
const it = serverTest.extend('serverOptions', { scope: 'file' }, { token: 's3cret-token' });

/** Bearer token on HTTP (docs/GRAPHQL-CONTRACT.md "Access"): 401 without or with a wrong Authorization header, 200 with it. */
import { describe, expect } from 'vitest';
import { WorkflowRunsDocument } from '../../schema/generated/graphql.js';
import { serverTest } from '../helpers/server-test.js';

describe('auth', () => {
  it('refuses a request without Authorization with 401', async ({ fx }) => {
    const response = await fx.gql(WorkflowRunsDocument, {}, { authorization: null });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(response.data).toBeUndefined();
    expect(response.errors?.[0]?.message).toBe('Unauthorized: send Authorization: Bearer <token>');
  });

  it('refuses a wrong token, another scheme or a token without scheme with 401', async ({ fx }) => {
    for (const authorization of ['Bearer wrong', 'Bearer s3cret-token-and-more', 'Basic s3cret-token', 's3cret-token', 'Bearer ']) {
      const response = await fx.gql(WorkflowRunsDocument, {}, { authorization });
      expect(response.status, authorization).toBe(401);
      expect(response.data).toBeUndefined();
    }
  });

  it('answers 200 with the token, for POST and GET', async ({ fx }) => {
    const response = await fx.gql(WorkflowRunsDocument, {}, { authorization: 'Bearer s3cret-token' });
    expect(response.status).toBe(200);
    expect(response.errors).toBeUndefined();
    expect(response.data?.workflowRuns.totalCount).toBe(0);

    const query = encodeURIComponent('{ workflowRuns { totalCount } }');
    expect((await fetch(`${fx.url}?query=${query}`)).status).toBe(401);
    const get = await fetch(`${fx.url}?query=${query}`, { headers: { authorization: 'Bearer s3cret-token' } });
    expect(get.status).toBe(200);
    expect(await get.json()).toEqual({ data: { workflowRuns: { totalCount: 0 } } });
  });
});
