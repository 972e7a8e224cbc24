/**
 * GraphQL over HTTP conformance: the `graphql-http` package's server audits run against the
 * real server (over real HTTP, port 0). Every MUST has to pass. A SHOULD that does not pass
 * must be listed below with its reason, and in docs/CLIENTS.md "GraphQL over HTTP conformance" — the
 * list is checked both ways, so it cannot go stale. MAY audits are run and reported only.
 */
import { serverAudits, type AuditResult } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server-fixture.js';

/** SHOULD audits the server knowingly does not pass: audit id → reason (keep docs/CLIENTS.md in sync). */
const KNOWN_SHOULD_FAILURES: Record<string, string> = {};

let fx: TestServer;
const audits = serverAudits({ url: () => fx.url });
/** Each audit runs once, by whichever test needs its result first (tests run in any order). */
const results = new Map<string, Promise<AuditResult>>();
const resultOf = (audit: (typeof audits)[number]): Promise<AuditResult> => {
  let result = results.get(audit.id);
  if (result === undefined) {
    result = audit.fn();
    results.set(audit.id, result);
  }
  return result;
};

function explain(result: AuditResult): string {
  return result.status === 'ok' ? 'ok' : `${result.status}: ${result.reason}`;
}

describe('GraphQL over HTTP (graphql-http server audits)', () => {
  beforeAll(async () => {
    fx = await startTestServer();
  });
  afterAll(async () => {
    await fx.close();
  });

  it('has audits of every level', () => {
    for (const level of ['MUST', 'SHOULD', 'MAY']) expect(audits.some((audit) => audit.name.startsWith(`${level} `))).toBe(true);
  });

  describe.each(['MUST', 'SHOULD', 'MAY'] as const)('%s', (level) => {
    const ofLevel = audits.filter((audit) => audit.name.startsWith(`${level} `));
    it.each(ofLevel.map((audit) => [audit.id, audit.name.slice(level.length + 1), audit] as const))('%s %s', async (id, _name, audit) => {
      const result = await resultOf(audit);
      if (level === 'MUST') expect(result.status, explain(result)).toBe('ok');
      if (level === 'SHOULD') {
        if (id in KNOWN_SHOULD_FAILURES) expect(result.status, `${id} passes now: remove it from the known failures and docs/CLIENTS.md`).not.toBe('ok');
        else expect(result.status, explain(result)).toBe('ok');
      }
    });
  });

  it('summary: every MUST passes; failing SHOULDs are exactly the documented ones', async () => {
    const all = await Promise.all(audits.map(resultOf));
    const failed = (level: string) => all.filter((result) => result.name.startsWith(`${level} `) && result.status !== 'ok').map((result) => result.id);
    expect(all.length).toBe(audits.length);
    expect(results.size).toBe(audits.length);
    expect(failed('MUST')).toEqual([]);
    expect(failed('SHOULD').sort()).toEqual(Object.keys(KNOWN_SHOULD_FAILURES).sort());
  });
});
