/**
 * Cross-origin pages and DNS rebinding:
 *
 * - A request whose `Origin` is present and not allowed is refused (403) before any GraphQL
 *   runs — JSON, `text/plain` and form-encoded POSTs, GET, preflights, /health, the page, an MCP
 *   tool call — and writes nothing; a WebSocket upgrade from such an origin gets 403 before the upgrade.
 * - The server's own origin, and origins given with `--cors-origin`, get CORS headers (no
 *   credentials); clients without `Origin` keep working.
 * - A `Host` other than the bound address, `localhost`, `127.0.0.1`, `[::1]` and
 *   `--allowed-host` names gets 421, on every path and on upgrades.
 * - With a token, /health tells a caller without it only `{status}`.
 * - The options parse as documented (repeatable, comma-separated environment variables, clear
 *   errors for values a browser would never send).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseServerConfig } from '../../src/server/config.js';
import { contentDigest } from '../helpers/fault-fixtures.js';
import { closeAfterSse, subscribeWs, wsClient } from '../helpers/live-fixtures.js';
import { httpRequest, tryUpgrade, type RawHttpResponse } from '../helpers/raw-http.js';
import { runCli } from '../helpers/run-cli.js';
import { reserveInput, startTestServer, type TestServer } from '../helpers/server-fixture.js';
import { connectionOf } from '../helpers/store-internals.js';

const RESERVE = 'mutation R($input: ReserveWorkflowRunInput!) { reserveWorkflowRun(input: $input) { __typename } }';
const COUNT = '{ workflowRuns { totalCount } }';
const FOREIGN_ORIGINS = ['http://localhost:9999', 'http://127.0.0.1:1', 'https://evil.example', 'null', 'http://localhost'];

function refusedOrigin(origin: string): string {
  return JSON.stringify({ errors: [{ message: `Origin "${origin}" is not allowed; start the server with --cors-origin <origin> to allow it` }] });
}

function refusedHost(host: string): string {
  return JSON.stringify({ errors: [{ message: `This server does not answer for host "${host}"; start it with --allowed-host <name> to allow a name` }] });
}

/** Every kind of request a page could make, as `[label, url suffix, options]`. */
function browserRequests(runId: string): Array<[string, string, { method: string; headers: Record<string, string>; body?: string }]> {
  const json = JSON.stringify({ query: RESERVE, variables: { input: reserveInput(runId, { originSessionId: `s-${runId}` }) } });
  const form = new URLSearchParams({ query: RESERVE, variables: JSON.stringify({ input: reserveInput(runId, { originSessionId: `s-${runId}` }) }) }).toString();
  return [
    ['JSON POST', '/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: json }],
    ['text/plain POST', '/graphql', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: json }],
    ['form-encoded POST', '/graphql', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form }],
    ['GET query', `/graphql?query=${encodeURIComponent(COUNT)}`, { method: 'GET', headers: { accept: 'application/json' } }],
    ['preflight', '/graphql', { method: 'OPTIONS', headers: { 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } }],
    ['health', '/health', { method: 'GET', headers: {} }],
    ['live page', '/', { method: 'GET', headers: { accept: 'text/html' } }],
    [
      'MCP tool call',
      '/mcp',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'cancel_run', arguments: { runId: 'xo-run' } } }),
      },
    ],
  ];
}

describe('a default server (no token, no --cors-origin)', () => {
  let fx: TestServer;
  let base: string;
  let own: string;

  beforeAll(async () => {
    fx = await startTestServer();
    base = `http://127.0.0.1:${fx.port}`;
    own = base;
    const reserved = await httpRequest(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: RESERVE, variables: { input: reserveInput('xo-run') } }),
    });
    expect(reserved.text).toBe('{"data":{"reserveWorkflowRun":{"__typename":"ReserveWorkflowRunSuccess"}}}');
  });
  afterAll(async () => {
    if (fx !== undefined) await closeAfterSse(fx);
  });

  it('refuses a foreign Origin with 403 before anything runs, on every kind of request; nothing is written', async () => {
    const before = contentDigest(connectionOf(fx.store));
    let refused = 0;
    for (const origin of FOREIGN_ORIGINS) {
      for (const [label, suffix, options] of browserRequests('xo-sneaked')) {
        const response = await httpRequest(base + suffix, { ...options, headers: { ...options.headers, origin } });
        expect(response.status, `${label} from ${origin}: ${response.text}`).toBe(403);
        expect(response.text).toBe(refusedOrigin(origin));
        expect(response.headers['access-control-allow-origin']).toBeUndefined();
        expect(response.headers['access-control-allow-credentials']).toBeUndefined();
        refused += 1;
      }
    }
    expect(refused).toBe(FOREIGN_ORIGINS.length * 8);
    expect(contentDigest(connectionOf(fx.store))).toBe(before);
    expect(fx.store.getWorkflowRun('xo-sneaked')).toBeUndefined();
  });

  it('serves the same requests without an Origin (curl, Node, IDE plugins): the mutation runs', async () => {
    const json = browserRequests('xo-plain')[0] as ReturnType<typeof browserRequests>[number];
    const form = browserRequests('xo-form')[2] as ReturnType<typeof browserRequests>[number];
    expect([json[0], form[0]]).toEqual(['JSON POST', 'form-encoded POST']);
    const response = await httpRequest(base + json[1], json[2]);
    expect(response.text).toBe('{"data":{"reserveWorkflowRun":{"__typename":"ReserveWorkflowRunSuccess"}}}');
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
    expect(fx.store.getWorkflowRun('xo-plain')?.status).toBe('queued');
    // A POST body that is not JSON is refused for its type (415), not its origin.
    const formResponse = await httpRequest(base + form[1], form[2]);
    expect(formResponse.status).toBe(415);
    expect(fx.store.getWorkflowRun('xo-form')).toBeUndefined();
  });

  it('answers its own origin (the live page, GraphiQL) with CORS headers and no credentials', async () => {
    const query = await httpRequest(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: own },
      body: JSON.stringify({ query: COUNT }),
    });
    expect(query.status).toBe(200);
    expect(query.headers['access-control-allow-origin']).toBe(own);
    expect(query.headers['access-control-allow-credentials']).toBeUndefined();
    const preflight = await httpRequest(`${base}/graphql`, {
      method: 'OPTIONS',
      headers: { origin: own, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, authorization' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers).toMatchObject({
      'access-control-allow-origin': own,
      'access-control-allow-methods': 'GET, POST, PUT, DELETE, OPTIONS',
      'access-control-allow-headers': 'content-type, authorization',
      'access-control-max-age': '600',
    });
    // The page reached as localhost: its origin is http://localhost:<port>.
    const viaLocalhost = await httpRequest(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', host: `localhost:${fx.port}`, origin: `http://localhost:${fx.port}` },
      body: JSON.stringify({ query: COUNT }),
    });
    expect(viaLocalhost.status).toBe(200);
    expect(viaLocalhost.headers['access-control-allow-origin']).toBe(`http://localhost:${fx.port}`);
    // Another port of the same host is another origin.
    const otherPort = await httpRequest(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: `http://127.0.0.1:${fx.port + 1}` },
      body: JSON.stringify({ query: COUNT }),
    });
    expect(otherPort.status).toBe(403);
  });

  it('refuses a WebSocket upgrade from a foreign Origin with 403 before the upgrade; its own origin and no Origin connect', async () => {
    for (const origin of FOREIGN_ORIGINS) {
      const outcome = await tryUpgrade(fx.url, { origin });
      expect(outcome, origin).toEqual({
        opened: false,
        status: 403,
        text: `Origin "${origin}" is not allowed; start the server with --cors-origin <origin> to allow it`,
      });
    }
    expect(await tryUpgrade(fx.url, { origin: own })).toEqual({ opened: true });
    expect(await tryUpgrade(fx.url, {})).toEqual({ opened: true });
    // A graphql-ws client without Origin is served.
    const client = wsClient(fx.url);
    try {
      const sub = subscribeWs(client, COUNT);
      await sub.collector.ended();
      expect(sub.collector.events).toEqual([{ data: { workflowRuns: { totalCount: fx.store.countWorkflowRuns() } } }]);
    } finally {
      await client.dispose();
    }
  });

  it('refuses a Host it does not answer for with 421 on every path and on upgrades; nothing is written', async () => {
    const before = contentDigest(connectionOf(fx.store));
    const hosts = [
      'evil.example',
      `evil.example:${fx.port}`,
      `localhost.evil.example:${fx.port}`,
      `127.0.0.1.nip.io:${fx.port}`,
      `[::2]:${fx.port}`,
      '0.0.0.0',
    ];
    for (const host of hosts) {
      for (const [label, suffix, options] of browserRequests('xo-rebound')) {
        const response = await httpRequest(base + suffix, { ...options, headers: { ...options.headers, host } });
        expect(response.status, `${label} for ${host}: ${response.text}`).toBe(421);
        expect(response.text).toBe(refusedHost(host));
        // Same-origin from the rebound page's point of view: still refused.
        const sameOrigin = await httpRequest(base + suffix, { ...options, headers: { ...options.headers, host, origin: `http://${host}` } });
        expect(sameOrigin.status, `${label} for ${host} with its own origin`).toBe(421);
      }
      expect(await tryUpgrade(fx.url, { host })).toEqual({ opened: false, status: 421, text: JSON.parse(refusedHost(host)).errors[0].message });
    }
    expect(contentDigest(connectionOf(fx.store))).toBe(before);
    for (const host of [`localhost:${fx.port}`, `LocalHost:${fx.port}`, `127.0.0.1:${fx.port}`, `[::1]:${fx.port}`, 'localhost', '127.0.0.1']) {
      const response = await httpRequest(`${base}/graphql`, {
        method: 'POST',
        headers: { host, 'content-type': 'application/json' },
        body: JSON.stringify({ query: COUNT }),
      });
      expect(response.status, host).toBe(200);
      expect(await tryUpgrade(fx.url, { host }), host).toEqual({ opened: true });
    }
  });
});

describe('with --cors-origin, --allowed-host and a token', () => {
  const TOKEN = 'xo-secret';
  const ALLOWED = ['http://localhost:5173', 'https://dash.example'];
  let fx: TestServer;
  let base: string;

  beforeAll(async () => {
    fx = await startTestServer({ token: TOKEN, corsOrigins: ALLOWED, allowedHosts: ['my-box.local', '192.168.7.20'] });
    base = `http://127.0.0.1:${fx.port}`;
  });
  afterAll(async () => {
    if (fx !== undefined) await closeAfterSse(fx);
  });

  function post(headers: Record<string, string>, query = COUNT): Promise<RawHttpResponse> {
    return httpRequest(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, ...headers },
      body: JSON.stringify({ query }),
    });
  }

  it('serves the listed origins exactly as given, with CORS headers; refuses the rest', async () => {
    for (const origin of ALLOWED) {
      const response = await post({ origin });
      expect(response.text).toBe('{"data":{"workflowRuns":{"totalCount":0}}}');
      expect(response.headers['access-control-allow-origin']).toBe(origin);
      expect(response.headers.vary).toMatch(/Origin/);
      // The browser's preflight carries no Authorization header: it passes, runs nothing.
      const preflight = await httpRequest(`${base}/graphql`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe(origin);
      expect(preflight.headers['access-control-allow-headers']).toBe('authorization, content-type');
      expect(await tryUpgrade(fx.url, { origin })).toEqual({ opened: true });
    }
    for (const origin of ['http://localhost:5174', 'http://dash.example', 'https://dash.example.evil', 'HTTP://LOCALHOST:5173']) {
      const response = await post({ origin });
      expect(response.status, origin).toBe(403);
      expect(response.text).toBe(refusedOrigin(origin));
      expect((await tryUpgrade(fx.url, { origin })).opened).toBe(false);
    }
  });

  it('answers the allowed host names (case-insensitive), and their own origins', async () => {
    for (const host of [`my-box.local:${fx.port}`, 'MY-BOX.LOCAL', `192.168.7.20:${fx.port}`]) {
      const response = await post({ host });
      expect(response.status, host).toBe(200);
    }
    const own = await post({ host: `my-box.local:${fx.port}`, origin: `http://my-box.local:${fx.port}` });
    expect(own.status).toBe(200);
    expect(own.headers['access-control-allow-origin']).toBe(`http://my-box.local:${fx.port}`);
    expect((await post({ host: `other.local:${fx.port}` })).status).toBe(421);
  });

  it('/health without the token says only its status; with the token, the database too', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong' }] as Array<Record<string, string>>) {
      const response = await httpRequest(`${base}/health`, { headers });
      expect(response.status).toBe(200);
      expect(response.text).toBe('{"status":"ok"}');
    }
    const full = await httpRequest(`${base}/health`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(JSON.parse(full.text)).toEqual({
      status: 'ok',
      database: {
        path: fx.dbPath,
        kind: 'own',
        readOnly: false,
        quickCheck: 'ok',
        runChanges: { databaseId: fx.store.runChangeHead().databaseId, head: fx.store.runChangeHead().head },
      },
    });
  });
});

describe('--cors-origin and --allowed-host options', () => {
  const saved = { origins: process.env.PI_WORKFLOWS_CORS_ORIGINS, hosts: process.env.PI_WORKFLOWS_ALLOWED_HOSTS };
  afterEach(() => {
    for (const [name, value] of [
      ['PI_WORKFLOWS_CORS_ORIGINS', saved.origins],
      ['PI_WORKFLOWS_ALLOWED_HOSTS', saved.hosts],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('default to none; repeat on the command line; take a comma-separated environment variable; the command line wins', () => {
    delete process.env.PI_WORKFLOWS_CORS_ORIGINS;
    delete process.env.PI_WORKFLOWS_ALLOWED_HOSTS;
    expect(parseServerConfig(['node', 'main'])).toMatchObject({ corsOrigins: [], allowedHosts: [] });
    expect(
      parseServerConfig([
        'node',
        'main',
        '--cors-origin',
        'http://localhost:5173',
        '--cors-origin',
        'https://a.example,https://b.example:8443',
        '--allowed-host',
        'My-Box',
        '--allowed-host',
        '::1',
      ]),
    ).toMatchObject({ corsOrigins: ['http://localhost:5173', 'https://a.example', 'https://b.example:8443'], allowedHosts: ['my-box', '[::1]'] });
    process.env.PI_WORKFLOWS_CORS_ORIGINS = 'http://localhost:5173, https://a.example';
    process.env.PI_WORKFLOWS_ALLOWED_HOSTS = 'box-1,box-2';
    expect(parseServerConfig(['node', 'main'])).toMatchObject({
      corsOrigins: ['http://localhost:5173', 'https://a.example'],
      allowedHosts: ['box-1', 'box-2'],
    });
    expect(parseServerConfig(['node', 'main', '--cors-origin', 'http://x.example', '--allowed-host', 'box-3'])).toMatchObject({
      corsOrigins: ['http://x.example'],
      allowedHosts: ['box-3'],
    });
  });

  it('refuse values a browser never sends or a Host never holds, with a usage error; --help lists them', () => {
    const cases: Array<[string[], string]> = [
      [
        ['--cors-origin', 'http://localhost:5173/'],
        `error: option '--cors-origin <origin>' argument 'http://localhost:5173/' is invalid. "http://localhost:5173/" is not an origin: write it as a browser sends it, scheme://host[:port] without a path or trailing slash ("http://localhost:5173")`,
      ],
      [
        ['--cors-origin', '*'],
        `"*" is not an origin: write it as a browser sends it, scheme://host[:port] without a path or trailing slash (for example http://localhost:5173)`,
      ],
      [['--cors-origin', 'HTTP://Example.com'], '("http://example.com")'],
      [['--allowed-host', 'http://box'], `"http://box" is not a host name: give a name or IP address without scheme or port (for example my-box.local)`],
      [['--allowed-host', 'box:4000'], `"box:4000" is not a host name`],
    ];
    for (const [args, message] of cases) {
      const run = runCli(args);
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr).toContain(message);
    }
    const help = runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--cors-origin <origin>');
    expect(help.stdout).toContain('PI_WORKFLOWS_CORS_ORIGINS');
    expect(help.stdout).toContain('--allowed-host <name>');
    expect(help.stdout).toContain('PI_WORKFLOWS_ALLOWED_HOSTS');
  });
});
