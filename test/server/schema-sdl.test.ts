/**
 * `GET /schema.graphql` serves the SDL for IDEs (docs/IDE.md): the committed
 * `schema/schema.graphql`, byte for byte; behind the token (full or read) when one is set.
 */
import { readFileSync } from 'node:fs';
import { buildSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA_FILE } from '../../src/schema/print.js';
import { startTestServer, type TestServer } from '../helpers/server-fixture.js';

const committed = readFileSync(SCHEMA_FILE, 'utf8');
const sdlUrl = (fx: TestServer): string => fx.url.replace(/\/graphql$/, '/schema.graphql');

describe('GET /schema.graphql', () => {
  describe('without a token', () => {
    let fx: TestServer;
    beforeAll(async () => {
      fx = await startTestServer();
    });
    afterAll(async () => {
      await fx.close();
    });

    it('answers the committed SDL with text/plain', async () => {
      const response = await fetch(sdlUrl(fx));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      const text = await response.text();
      expect(text).toBe(committed);
      expect(buildSchema(text).getSubscriptionType()?.name).toBe('Subscription');
    });

    it('HEAD answers the headers only', async () => {
      const response = await fetch(sdlUrl(fx), { method: 'HEAD' });
      expect(response.status).toBe(200);
      expect(Number(response.headers.get('content-length'))).toBe(Buffer.byteLength(committed));
      expect(await response.text()).toBe('');
    });
  });

  describe('with a token and a read token', () => {
    let fx: TestServer;
    beforeAll(async () => {
      fx = await startTestServer({ token: 'write-token', readTokens: ['read-token'] });
    });
    afterAll(async () => {
      await fx.close();
    });

    it('refuses a request without or with a wrong token with 401, as /graphql does', async () => {
      const cases: Array<[Record<string, string>, string]> = [
        [{}, 'Unauthorized: send Authorization: Bearer <token>'],
        [
          { authorization: 'Bearer wrong' },
          "Unauthorized: the token sent is not accepted: send Authorization: Bearer <token> with the server's --token, a --read-token or a --metadata-token",
        ],
      ];
      for (const [headers, message] of cases) {
        const response = await fetch(sdlUrl(fx), { headers });
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toBe('Bearer');
        expect(await response.json()).toEqual({ errors: [{ message }] });
      }
    });

    it('answers the SDL to the full token and to a read token', async () => {
      for (const token of ['write-token', 'read-token']) {
        const response = await fetch(sdlUrl(fx), { headers: { authorization: `Bearer ${token}` } });
        expect(response.status, token).toBe(200);
        expect(await response.text()).toBe(committed);
      }
    });
  });
});
