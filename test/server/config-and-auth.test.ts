/**
 * Server options and the bearer check: defaults, the read-only environment flag, and the
 * case-insensitive `Bearer` scheme (RFC 7235).
 */
import { availableParallelism } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { isAuthorized } from '../../src/server/http/auth.js';
import { singleProcessReason } from '../../src/server/cluster/primary.js';
import { parseServerConfig } from '../../src/server/config.js';
import { runCli } from '../helpers/run-cli.js';

const saved = process.env.PI_WORKFLOWS_READ_ONLY;
afterEach(() => {
  if (saved === undefined) delete process.env.PI_WORKFLOWS_READ_ONLY;
  else process.env.PI_WORKFLOWS_READ_ONLY = saved;
});

describe('parseServerConfig', () => {
  it('defaults: loopback, port 4000, read-write, no token', () => {
    delete process.env.PI_WORKFLOWS_READ_ONLY;
    const config = parseServerConfig(['node', 'main']);
    expect(config).toMatchObject({ host: '127.0.0.1', port: 4000, readOnly: false, token: null });
  });

  it.each([
    ['true', true],
    ['TRUE', true],
    ['1', true],
    ['yes', true],
    ['on', true],
    ['false', false],
    ['0', false],
    ['no', false],
    ['off', false],
    ['', false],
  ])('PI_WORKFLOWS_READ_ONLY=%j gives readOnly %s', (value, expected) => {
    process.env.PI_WORKFLOWS_READ_ONLY = value;
    expect(parseServerConfig(['node', 'main']).readOnly).toBe(expected);
  });

  it('--read-only wins over the environment', () => {
    process.env.PI_WORKFLOWS_READ_ONLY = 'false';
    expect(parseServerConfig(['node', 'main', '--read-only']).readOnly).toBe(true);
  });

  it('--replica implies read-only; --primary-token and --replica-poll-ms go with it (docs/DEPLOYMENT.md)', () => {
    process.env.PI_WORKFLOWS_READ_ONLY = 'false';
    const config = parseServerConfig(['node', 'main', '--db', '/srv/replica.db', '--replica', 'http://primary:4000/graphql', '--primary-token', 'p']);
    expect([config.readOnly, config.replica, config.primaryToken, config.replicaPollMs]).toEqual([true, 'http://primary:4000/graphql', 'p', 1000]);
    const plain = parseServerConfig(['node', 'main']);
    expect([plain.readOnly, plain.replica, plain.primaryToken]).toEqual([false, null, null]);
  });

  it('--replica needs an http(s) URL and a database file; --primary-token needs --replica', () => {
    expect(runCli(['--replica', 'primary:4000'])).toMatchObject({
      code: 1,
      stderr: "error: option '--replica <primary URL>' argument 'primary:4000' is invalid. must be an http:// or https:// URL\n",
    });
    expect(runCli(['--replica', 'not a url'])).toMatchObject({
      code: 1,
      stderr: "error: option '--replica <primary URL>' argument 'not a url' is invalid. must be the primary server's URL, e.g. http://primary:4000/graphql\n",
    });
    expect(runCli(['--db', ':memory:', '--replica', 'http://primary:4000/graphql'])).toMatchObject({
      code: 1,
      stderr: 'error: --replica needs a database file (--db <path>), not :memory:\n',
    });
    expect(runCli(['--primary-token', 'p'])).toMatchObject({
      code: 1,
      stderr: "error: --primary-token goes with --replica <primary URL> (it is the token for the primary's /health)\n",
    });
  });

  it('--workers: default the cores, 1 … 256, PI_WORKFLOWS_WORKERS; :memory: and --replica keep one process (docs/OPERATIONS.md "Workers")', () => {
    const saved = process.env.PI_WORKFLOWS_WORKERS;
    delete process.env.PI_WORKFLOWS_WORKERS;
    try {
      expect(parseServerConfig(['node', 'main']).workers).toBe(availableParallelism());
      expect(parseServerConfig(['node', 'main', '--workers', '1']).workers).toBe(1);
      process.env.PI_WORKFLOWS_WORKERS = '3';
      expect(parseServerConfig(['node', 'main']).workers).toBe(3);
      expect(parseServerConfig(['node', 'main', '--workers', '2']).workers).toBe(2);
      expect(runCli(['--workers', '0'])).toMatchObject({
        code: 1,
        stderr: "error: option '--workers <n>' argument '0' is invalid. must be an integer from 1 to 256\n",
      });
    } finally {
      if (saved === undefined) delete process.env.PI_WORKFLOWS_WORKERS;
      else process.env.PI_WORKFLOWS_WORKERS = saved;
    }
    expect(singleProcessReason(parseServerConfig(['node', 'main', '--db', ':memory:']))).toBe(
      'an in-memory database (--db :memory:) exists in one process only',
    );
    expect(singleProcessReason(parseServerConfig(['node', 'main', '--db', '/srv/r.db', '--replica', 'http://primary:4000/graphql']))).toBe(
      'replica mode (--replica) reopens its copy when it is replaced, and workers would each serve the copy they opened',
    );
    expect(singleProcessReason(parseServerConfig(['node', 'main', '--db', '/srv/state.db']))).toBeNull();
  });
});

describe('isAuthorized', () => {
  it('accepts any request when no token is configured', () => {
    expect(isAuthorized(null, undefined)).toBe(true);
  });

  it('needs the exact token after a case-insensitive Bearer scheme', () => {
    expect(isAuthorized('s3cret', 'Bearer s3cret')).toBe(true);
    expect(isAuthorized('s3cret', 'bearer s3cret')).toBe(true);
    expect(isAuthorized('s3cret', 'BEARER s3cret')).toBe(true);
    expect(isAuthorized('s3cret', 'Bearer S3CRET')).toBe(false);
    expect(isAuthorized('s3cret', 'Basic s3cret')).toBe(false);
    expect(isAuthorized('s3cret', 's3cret')).toBe(false);
    expect(isAuthorized('s3cret', 'Bearer s3cret ')).toBe(false);
    expect(isAuthorized('s3cret', undefined)).toBe(false);
  });
});
