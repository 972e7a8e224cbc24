/**
 * `GET /schema.graphql`: the schema's SDL at a stable URL, for IDE extensions and code
 * generators (docs/IDE.md). The text is `printedSchema()` of src/schema/print.ts, the same
 * bytes as the committed `schema/schema.graphql`; it is behind the token when one is set (the
 * caller of {@link serveSchemaSdl} checks it, as for `/metrics`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { printedSchema } from '../../schema/print.js';

/** The path the SDL is served at. */
export const SCHEMA_SDL_PATH = '/schema.graphql';

let sdl: string | undefined;

/**
 * Answers `GET`/`HEAD /schema.graphql` with the printed SDL (200, `text/plain; charset=utf-8`,
 * `cache-control: no-cache`: an IDE re-reads it after a server upgrade). Printed once per process.
 *
 * @returns false (nothing written) for any other method or path
 */
export function serveSchemaSdl(request: IncomingMessage, response: ServerResponse, path: string | undefined): boolean {
  if (path !== SCHEMA_SDL_PATH || (request.method !== 'GET' && request.method !== 'HEAD')) return false;
  sdl ??= printedSchema();
  response.writeHead(200, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(sdl),
    'cache-control': 'no-cache',
  });
  response.end(request.method === 'HEAD' ? undefined : sdl);
  return true;
}
