/**
 * HTTP and WebSocket requests with headers `fetch` will not send as given (`Host`, `Origin` on a
 * WebSocket upgrade): `node:http` and `ws` on a fresh connection each.
 */
import { request as httpRequestRaw, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
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

/** What a raw TCP client saw of one exchange. */
export interface RawExchange {
  /** Every byte received, as text. */
  received: string;
  /** The status code of the first response line, or undefined when none arrived. */
  status: number | undefined;
  /** The client-side socket error code (`EPIPE`, `ECONNRESET`), if any. */
  error: string | undefined;
  /** Bytes of the body the client handed to its socket. */
  bodyBytesWritten: number;
}

/** Options of {@link rawExchange}. */
export interface RawExchangeOptions {
  /**
   * Read nothing until every body chunk has been written (a client that writes its whole body
   * before looking at the answer); default false: read while writing, and stop writing once an
   * answer arrives.
   */
  readAfterWriting?: boolean;
  /** Keep writing the body after an answer arrived (a stuck uploader); default false. */
  keepWritingAfterAnswer?: boolean;
}

/**
 * Opens a TCP connection to 127.0.0.1:`port`, writes `head` (request line and headers, ending
 * with the blank line) and then `body` chunk by chunk (respecting back-pressure), and resolves
 * once the connection has closed.
 */
export async function rawExchange(port: number, head: string, body: Iterable<Buffer | string>, options: RawExchangeOptions = {}): Promise<RawExchange> {
  const socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  let error: string | undefined;
  let bodyBytesWritten = 0;
  if (options.readAfterWriting === true) socket.pause();
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', (cause: NodeJS.ErrnoException) => {
    error ??= cause.code ?? cause.message;
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.write(head);
  for (const chunk of body) {
    if (socket.destroyed || error !== undefined) break;
    if (options.readAfterWriting !== true && options.keepWritingAfterAnswer !== true && chunks.length > 0) break;
    bodyBytesWritten += Buffer.byteLength(chunk);
    if (!socket.write(chunk)) {
      await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), closed]);
    }
  }
  if (options.readAfterWriting === true) {
    // Everything handed to the kernel; now look at the answer.
    if (!socket.destroyed) await new Promise<void>((resolve) => socket.write('', () => resolve()));
    socket.resume();
  }
  await closed;
  const received = Buffer.concat(chunks).toString('utf8');
  const status = /^HTTP\/1\.1 (\d{3}) /.exec(received)?.[1];
  return { received, status: status === undefined ? undefined : Number(status), error, bodyBytesWritten };
}

/** `count` chunks of `size` bytes each (one shared buffer of `fill`), for bodies of any length. */
export function* repeatedChunks(count: number, size: number, fill = 'x'): Generator<Buffer> {
  const chunk = Buffer.alloc(size, fill);
  for (let index = 0; index < count; index += 1) yield chunk;
}

/** Frames `chunks` as a `Transfer-Encoding: chunked` body (with the final zero-size chunk). */
export function* chunkedEncoding(chunks: Iterable<Buffer | string>): Generator<Buffer | string> {
  for (const chunk of chunks) {
    const length = Buffer.byteLength(chunk);
    if (length === 0) continue;
    yield `${length.toString(16)}\r\n`;
    yield chunk;
    yield '\r\n';
  }
  yield '0\r\n\r\n';
}
