/**
 * Request bodies against the cap, over raw TCP so the test controls exactly what
 * is written and when the client reads:
 *
 * - A chunked POST (no Content-Length) within the cap runs like any other; one byte over gets
 *   413 the moment it crosses the cap and the connection closes — the server never reads past
 *   the cap (measured on the server's sockets), also for 20 uploads at once.
 * - An oversized Content-Length gets its 413 first; a client that writes the whole body before
 *   reading still reads it (5 of 5 tries), and the connection then closes. What the server reads
 *   of a refused body is bounded (LINGER_MAX_BYTES).
 * - None of it writes anything.
 */
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINGER_MAX_BYTES } from '../../src/server/http/request-body.js';
import { contentDigest } from '../helpers/fault-fixtures.js';
import { chunkedEncoding, rawExchange, repeatedChunks } from '../helpers/raw-http.js';
import { reserveInput, startTestServer, type TestServer } from '../helpers/server-fixture.js';
import { connectionOf } from '../helpers/store-internals.js';

const CAP = 65_536;
const RESERVE = 'mutation R($input: ReserveWorkflowRunInput!) { reserveWorkflowRun(input: $input) { __typename } }';
const TOO_LARGE = JSON.stringify({ errors: [{ message: `Request body larger than ${CAP} bytes` }] });
/** Headers, chunk framing and a socket read or two: what the server may read beyond the body cap. */
const SLACK = 256 * 1024;

/** A reserve mutation as JSON, padded with trailing spaces (valid JSON) to exactly `bytes`. */
function reserveBody(runId: string, bytes: number): Buffer {
  const json = JSON.stringify({ query: RESERVE, variables: { input: reserveInput(runId, { originSessionId: `s-${runId}` }) } });
  expect(json.length).toBeLessThan(bytes);
  return Buffer.from(json + ' '.repeat(bytes - json.length));
}

function head(headers: Record<string, string>): string {
  const lines = Object.entries({ host: '127.0.0.1', 'content-type': 'application/json', ...headers }).map(([name, value]) => `${name}: ${value}`);
  return `POST /graphql HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}

/** The body of a raw answer (after the blank line). */
function bodyOf(received: string): string {
  return received.slice(received.indexOf('\r\n\r\n') + 4);
}

describe('request bodies and the cap', () => {
  let fx: TestServer;
  /** Server-side sockets of the current test, to read how many bytes the server took in. */
  let sockets: Socket[] = [];

  beforeAll(async () => {
    fx = await startTestServer({ maxBodyBytes: CAP });
    fx.server.httpServer.on('connection', (socket: Socket) => sockets.push(socket));
  });
  afterAll(async () => {
    if (fx !== undefined) await fx.close();
  });

  /** Bytes each server-side socket of this test read, once all of them have closed. */
  async function serverBytesRead(): Promise<number[]> {
    await Promise.all(sockets.map((socket) => (socket.closed ? undefined : new Promise((resolve) => socket.once('close', resolve)))));
    const read = sockets.map((socket) => socket.bytesRead);
    sockets = [];
    return read;
  }

  it('a chunked POST within the cap runs (up to exactly the cap); one byte over gets 413', async () => {
    sockets = [];
    const atCap = reserveBody('chunked-at-cap', CAP);
    const ran = await rawExchange(
      fx.port,
      head({ 'transfer-encoding': 'chunked', connection: 'close' }),
      chunkedEncoding([atCap.subarray(0, 1000), atCap.subarray(1000)]),
    );
    expect(ran.status, ran.received).toBe(200);
    expect(bodyOf(ran.received)).toBe('{"data":{"reserveWorkflowRun":{"__typename":"ReserveWorkflowRunSuccess"}}}');
    expect(fx.store.getWorkflowRun('chunked-at-cap')?.status).toBe('queued');

    const before = contentDigest(connectionOf(fx.store));
    const over = reserveBody('chunked-over-cap', CAP + 1);
    const refused = await rawExchange(fx.port, head({ 'transfer-encoding': 'chunked' }), chunkedEncoding([over.subarray(0, 1000), over.subarray(1000)]));
    expect(refused.status, refused.received).toBe(413);
    expect(refused.received.toLowerCase()).toContain('connection: close');
    expect(bodyOf(refused.received)).toBe(TOO_LARGE);
    expect(contentDigest(connectionOf(fx.store))).toBe(before);
    await serverBytesRead();
  });

  it('a chunked upload far over the cap: 413 as it crosses, the connection closes, nothing read past the cap', async () => {
    sockets = [];
    const before = contentDigest(connectionOf(fx.store));
    const prefix = `{"query":${JSON.stringify(RESERVE)},"variables":{"input":${JSON.stringify(reserveInput('chunked-huge'))},"pad":"`;
    const outcome = await rawExchange(fx.port, head({ 'transfer-encoding': 'chunked' }), chunkedEncoding([prefix, ...repeatedChunks(2_048, 16_384)]));
    expect(outcome.status, outcome.received.slice(0, 300)).toBe(413);
    expect(bodyOf(outcome.received)).toBe(TOO_LARGE);
    const [read] = await serverBytesRead();
    expect(read).toBeLessThanOrEqual(CAP + SLACK);
    expect(outcome.bodyBytesWritten).toBeLessThan(32 * 1024 * 1024); // it stopped: the server closed
    expect(contentDigest(connectionOf(fx.store))).toBe(before);
  });

  it('20 chunked uploads over the cap at once: each gets 413 and is closed having read at most the cap', async () => {
    sockets = [];
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, () => rawExchange(fx.port, head({ 'transfer-encoding': 'chunked' }), chunkedEncoding(repeatedChunks(1_024, 16_384)))),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual(Array.from({ length: 20 }, () => 413));
    const read = await serverBytesRead();
    expect(read).toHaveLength(20);
    for (const bytes of read) expect(bytes).toBeLessThanOrEqual(CAP + SLACK);
  });

  it('an oversized Content-Length: a client that writes the whole body before reading reads the 413 (5 of 5), then the connection closes', async () => {
    sockets = [];
    const before = contentDigest(connectionOf(fx.store));
    const size = 16 * 1024 * 1024;
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const outcome = await rawExchange(fx.port, head({ 'content-length': String(size) }), repeatedChunks(size / 65_536, 65_536), { readAfterWriting: true });
      expect(outcome.error, `attempt ${attempt}`).toBeUndefined();
      expect(outcome.bodyBytesWritten).toBe(size);
      expect(outcome.status, `attempt ${attempt}: ${outcome.received.slice(0, 200)}`).toBe(413);
      expect(outcome.received.toLowerCase()).toContain('connection: close');
      expect(bodyOf(outcome.received)).toBe(TOO_LARGE);
    }
    const read = await serverBytesRead();
    expect(read).toHaveLength(5);
    expect(contentDigest(connectionOf(fx.store))).toBe(before);
  });

  it('what the server reads of a refused body is bounded: a 1 GiB Content-Length is cut after LINGER_MAX_BYTES', async () => {
    sockets = [];
    const size = 1024 * 1024 * 1024;
    // Reads while writing (so it sees the 413 at once) but keeps writing, as a stuck uploader would.
    const outcome = await rawExchange(fx.port, head({ 'content-length': String(size) }), repeatedChunks(size / 65_536, 65_536), {
      keepWritingAfterAnswer: true,
    });
    expect(outcome.status).toBe(413);
    expect(outcome.bodyBytesWritten).toBeLessThan(size);
    const [read] = await serverBytesRead();
    expect(read).toBeLessThanOrEqual(LINGER_MAX_BYTES + SLACK);
  });

  it('a refusal before the size check (foreign Origin) reads a chunked body up to the cap at most', async () => {
    sockets = [];
    const outcome = await rawExchange(
      fx.port,
      head({ 'transfer-encoding': 'chunked', origin: 'http://evil.example' }),
      chunkedEncoding(repeatedChunks(2_048, 16_384)),
    );
    expect(outcome.status).toBe(403);
    const [read] = await serverBytesRead();
    expect(read).toBeLessThanOrEqual(CAP + SLACK);
  });
});
