/**
 * The server configuration the tests start real servers with. No vitest import: the fault and
 * live child processes use it too.
 */
import type { ServerConfig } from '../../src/server/config.js';

/**
 * A server on 127.0.0.1, port 0 (any free port), writable, no token, 25 ms poll interval,
 * 12 s keep-alive, 2 MiB body limit (2,097,152 bytes), silent log; `overrides` win.
 *
 * @param dbPath the state database file.
 * @param projectPath the project root workflow source refs resolve against.
 */
export function testServerConfig(dbPath: string, projectPath: string, overrides: Partial<ServerConfig> = {}): ServerConfig {
  return {
    dbPath,
    port: 0,
    host: '127.0.0.1',
    readOnly: false,
    token: null,
    projectPath,
    pollIntervalMs: 25,
    keepAliveMs: 12_000,
    maxBodyBytes: 2_097_152,
    logLevel: 'silent',
    ...overrides,
  };
}
