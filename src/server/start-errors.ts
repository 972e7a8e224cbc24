/**
 * One clear line for the errors a server start commonly hits: a busy port
 * or a port the user may not bind, instead of a stack trace.
 */

/**
 * Describes why the server could not start.
 *
 * @param error what `startServer` threw (a listen error carries `code`, e.g. `EADDRINUSE`)
 * @param where the address asked for: `host` and `port`, and `portOption`, how the user changes
 *   the port (e.g. `--port N`)
 * @returns one line without a trailing newline; the error's own message for anything unknown
 */
export function describeStartError(error: unknown, where: { host: string; port: number; portOption: string }): string {
  const code = (error as { code?: unknown } | null)?.code;
  const address = `${where.host.includes(':') ? `[${where.host}]` : where.host}:${where.port}`;
  if (code === 'EADDRINUSE') {
    return `port ${where.port} is already in use on ${where.host} (another server or demo running?): stop it, or pass ${where.portOption} (0 = any free port)`;
  }
  if (code === 'EACCES') return `not allowed to listen on ${address} (ports below 1024 need privileges): pass ${where.portOption}`;
  if (code === 'EADDRNOTAVAIL') return `cannot listen on ${address}: no such local address, check --host`;
  return error instanceof Error ? error.message : String(error);
}
