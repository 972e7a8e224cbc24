import { createServer, type Server } from 'node:http';
import type { ServerConfig } from '../config.js';

/**
 * Binds the HTTP server to `config.host:config.port`, before anything else of the server exists:
 * a start that cannot bind (EADDRINUSE) never opens the database file, so it writes nothing to it
 * (no migration, no blob prune, no WAL). No request is handled until a `request` listener is
 * attached (the gate, src/server/http/gate.ts, last).
 *
 * @returns the listening server
 * @throws the listen error (EADDRINUSE, EACCES), with nothing left open
 */
export async function listen(config: Pick<ServerConfig, 'host' | 'port'>): Promise<Server> {
  const httpServer = createServer();
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(config.port, config.host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  return httpServer;
}
