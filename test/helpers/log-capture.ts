/**
 * An in-memory pino log for tests that read what the server logs (request lines, scopes, and that
 * no token or claim token shows): one shared sink instead of a `Writable` per test file.
 */
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

/** What {@link captureLog} returns. */
export interface CapturedLog {
  /** Every non-empty line written so far, in order (pino JSON text, one record a line). */
  lines: string[];
  /** A pino logger at the chosen level writing into `lines`; pass it as `startTestServer({ logger })`. */
  logger: Logger;
}

/**
 * A pino logger writing into an array.
 *
 * @param level pino level name (`'trace'`, `'info'`, …)
 * @returns the growing `lines` array and the `logger`
 */
export function captureLog(level: string): CapturedLog {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((line) => line.length > 0),
      );
      callback();
    },
  });
  return { lines, logger: pino({ level }, sink) };
}
