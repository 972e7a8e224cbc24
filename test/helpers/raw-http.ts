/**
 * HTTP and WebSocket requests with headers `fetch` will not send as given (`Host`, `Origin` on a
 * WebSocket upgrade): `node:http` and `ws` on a fresh connection each.
 */
import { request as httpRequestRaw, type IncomingHttpHeaders } from 'node:http';
import WebSocket from 'ws';
import { wsUrlOf } from './live-fixtures.js';

/** One HTTP answer, read to the end. */
export interface RawHttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** Options of {@link httpRequest}. */
export interface RawHttpOptions {
  method?: string;
  /** Sent exactly (a `host` entry replaces the URL's host in the header, not the address). */
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** Sends one request on its own connection to `url` and reads the whole answer. */
export function httpRequest(url: string, options: RawHttpOptions = {}): Promise<RawHttpResponse> {
  return new Promise((resolve, reject) => {
    const request = httpRequestRaw(url, { method: options.method ?? 'GET', headers: options.headers ?? {}, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

/** What became of a WebSocket upgrade: opened (then closed by the caller), or an HTTP answer instead. */
export type UpgradeOutcome = { opened: true } | { opened: false; status: number; text: string };

/**
 * Tries a graphql-transport-ws upgrade of `httpUrl` with these headers (`origin`, `host`, …);
 * closes the socket at once when it opens.
 */
export function tryUpgrade(httpUrl: string, headers: Record<string, string>): Promise<UpgradeOutcome> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrlOf(httpUrl), 'graphql-transport-ws', { headers });
    ws.once('open', () => {
      ws.close();
      resolve({ opened: true });
    });
    ws.once('unexpected-response', (request, response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        request.destroy();
        resolve({ opened: false, status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    ws.once('error', (error) => {
      reject(error);
    });
  });
}
