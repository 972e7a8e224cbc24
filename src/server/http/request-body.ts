/**
 * Request bodies and the size cap (`--max-body-bytes`): no body is read past the
 * cap, and a refused body does not cost the client its answer.
 *
 * - A declared `Content-Length` over the cap is answered 413 at once; then at most
 *   {@link LINGER_MAX_BYTES} of the body are read and discarded, for at most
 *   {@link LINGER_MS}, before the connection closes. A client that writes its whole body
 *   before reading (most do) can read the answer instead of meeting a reset (RFC 9112 §9.6,
 *   "tear-down").
 * - A body of unknown length (`Transfer-Encoding: chunked`) is read into memory up to the cap;
 *   the moment it crosses the cap it gets 413 and the connection closes, nothing more read.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

/** At most this many bytes of a refused body are still read (and discarded) before closing. */
export const LINGER_MAX_BYTES = 64 * 1024 * 1024;

/** A refused body is read (and discarded) for at most this many ms before closing. */
export const LINGER_MS = 5_000;

/**
 * The body a request announces: its `Content-Length` (0 when it has none and is not chunked),
 * or `'chunked'` when its length is unknown. Node's parser has already refused (400) a
 * malformed `Content-Length` and one sent together with `Transfer-Encoding`.
 */
export function declaredBodyLength(request: IncomingMessage): number | 'chunked' {
  if (request.headers['transfer-encoding'] !== undefined) return 'chunked';
  const length = request.headers['content-length'];
  return length === undefined ? 0 : Number(length);
}

/**
 * Reads a body of unknown length into memory, stopping the moment it crosses `maxBytes`: the
 * request is then paused and nothing past the chunk that crossed is read.
 *
 * @returns the body's chunks; `'too-large'` when it crossed `maxBytes`; `'aborted'` when the
 *   client went away first
 */
export function readBodyUpTo(request: IncomingMessage, maxBytes: number): Promise<Buffer[] | 'too-large' | 'aborted'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const done = (outcome: Buffer[] | 'too-large' | 'aborted'): void => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('close', onClose);
      resolve(outcome);
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > maxBytes) {
        request.pause();
        done('too-large');
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => done(chunks);
    const onClose = (): void => done('aborted');
    request.on('data', onData);
    request.once('end', onEnd);
    request.once('close', onClose);
  });
}

/**
 * Hands a body read by {@link readBodyUpTo} to yoga: its Node adapter (whatwg-node) takes a
 * request's `body` property, when set, as the body instead of reading the request stream — the
 * hook body-parsing middleware (Express's) uses. A stream, so that nothing is copied.
 */
export function setPreReadBody(request: IncomingMessage, chunks: Buffer[]): void {
  (request as IncomingMessage & { body?: Readable }).body = Readable.from(chunks);
}

/**
 * Answers a request whose body has not been (fully) read, then closes the connection: the
 * answer goes out whole first; then up to `drainBytes` more bytes of the body are read and
 * discarded (for at most {@link LINGER_MS}) so a client still writing can finish and read the
 * answer; the connection closes when the body ends, or is cut when either bound is crossed.
 *
 * @param drainBytes how many more body bytes may be read; 0 closes right after the answer
 */
export function answerThenClose(
  request: IncomingMessage,
  response: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: string,
  drainBytes: number,
): void {
  response.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(body)), connection: 'close' });
  if (request.complete || drainBytes <= 0) {
    // Node closes a `connection: close` response's socket once the answer is flushed.
    response.end(body);
    return;
  }
  // Written but not ended: Node would close the socket at `end()`, cutting the body short.
  response.write(body);
  const socket = request.socket;
  const cut = (): void => {
    socket.destroy();
  };
  const timer = setTimeout(cut, LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  let drained = 0;
  request.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > drainBytes) cut();
  });
  request.once('end', () => {
    clearTimeout(timer);
    response.end();
  });
}
