/** `GET /health` answers JSON with status ok. */
import { describe, expect } from 'vitest';
import { serverTest as it } from '../helpers/server-test.js';

describe('/health', () => {
  it('answers 200 JSON with status ok and the database state', async ({ fx }) => {
    const response = await fetch(fx.healthUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await response.json()) as { status: string; database: { path: string; readOnly: boolean; kind: string; quickCheck: string } };
    expect(body).toEqual({
      status: 'ok',
      database: {
        path: fx.dbPath,
        readOnly: false,
        kind: 'own',
        quickCheck: 'ok',
        runChanges: { databaseId: fx.store.runChangeHead().databaseId, head: fx.store.runChangeHead().head },
      },
    });
  });
});
