import type { Socket } from 'node:net';
import type { ExecutionResult, FormattedExecutionResult, GraphQLError, GraphQLFormattedError } from 'graphql';
import type { DirectNext } from './shared-event-execution.js';

/**
 * The framing step of delivery (src/delivery/index.ts): the graphql-ws `next` message of a result,
 * `{"id":…,"type":"next","payload":…}`, byte for byte what graphql-ws writes.
 *
 * - The pulled route: graphql-ws builds and stringifies the message itself, from the payload
 *   `onNext` returns ({@link nextPayload}: errors formatted as yoga writes them on HTTP and SSE).
 * - The direct route: {@link directNext} frames the message without graphql-ws and `ws`: the
 *   subscription's head bytes and the result's tail bytes ({@link payloadTailOf}, its payload
 *   serialised once per result object, however many subscribers share the result), a
 *   connection's frames of one turn in one write to its TCP socket ({@link DirectFrames}).
 */

/** Payload JSON per result object (a shared result is serialised once for all its subscribers). */
const payloadJson = new WeakMap<object, string>();

/**
 * The JSON text of a `next` payload: the result as graphql-ws writes it — `errors` formatted
 * by `formatError` in the result's own key order, `errors: undefined` left out.
 *
 * @param formatError how each error is written (the same function for every subscriber)
 * @returns the text, computed once per result object
 */
export function payloadJsonOf(result: ExecutionResult, formatError: (error: GraphQLError) => GraphQLFormattedError): string {
  let json = payloadJson.get(result);
  if (json === undefined) {
    json = JSON.stringify(nextPayload(result, formatError));
    payloadJson.set(result, json);
  }
  return json;
}

/**
 * The payload of the `next` message of `result`, as graphql-ws's `onNext` returns it (the pulled
 * route): `result` itself without `errors`, else a copy with each error formatted by
 * `formatError`, in the result's own key order. Its JSON is {@link payloadJsonOf}'s text.
 */
export function nextPayload(result: ExecutionResult, formatError: (error: GraphQLError) => GraphQLFormattedError): FormattedExecutionResult {
  return result.errors === undefined ? (result as FormattedExecutionResult) : { ...result, errors: result.errors.map(formatError) };
}

/** The message bytes after the id of a `next` message, per result object: `<payload JSON>}`. */
const payloadTails = new WeakMap<object, Buffer>();

/**
 * The UTF-8 bytes that follow `"payload":` in the `next` message of `result` — its
 * {@link payloadJsonOf} text and the message's closing brace — encoded once per result object
 * (the direct route copies them into every subscriber's frame).
 */
export function payloadTailOf(result: ExecutionResult, formatError: (error: GraphQLError) => GraphQLFormattedError): Buffer {
  let tail = payloadTails.get(result);
  if (tail === undefined) {
    tail = Buffer.from(`${payloadJsonOf(result, formatError)}}`);
    payloadTails.set(result, tail);
  }
  return tail;
}

/** The parts of a `ws` WebSocket {@link DirectFrames} uses. */
interface OpenState {
  readonly readyState: number;
  readonly OPEN: number;
  /** Negotiated extensions: direct frames only without any (no permessage-deflate). */
  readonly extensions: string;
}

/** Length of the header of an unmasked frame whose payload is `length` bytes (RFC 6455 §5.2). */
function headerLength(length: number): number {
  return length < 126 ? 2 : length < 65_536 ? 4 : 10;
}

/**
 * Writes the header of an unmasked, final text frame whose payload is `length` bytes at `at`
 * (RFC 6455 §5.2: FIN + opcode 1, then the 7, 16 or 64-bit length).
 *
 * @returns the offset after the header ({@link headerLength} bytes on)
 */
function writeHeader(data: Buffer, at: number, length: number): number {
  data[at] = 0x81; // FIN, text
  if (length < 126) {
    data[at + 1] = length;
  } else if (length < 65_536) {
    data[at + 1] = 126;
    data.writeUInt16BE(length, at + 2);
  } else {
    data[at + 1] = 127;
    data.writeBigUInt64BE(BigInt(length), at + 2);
  }
  return at + headerLength(length);
}

/**
 * One connection's `next` messages of the fan-out's direct route, written in
 * ONE write to its TCP socket per turn instead of two `ws` writes each. Each message is one
 * whole, unmasked, uncompressed text frame (RFC 6455 §5.2: FIN + opcode 1, the 7/16/64-bit
 * length, the bytes): the subscription's head (`{"id":…,"type":"next","payload":`) and the
 * result's tail ({@link payloadTailOf}, encoded once per result) copied into one buffer for
 * the whole turn — the profile at 50,000 subscribers showed a `Buffer` per frame (`ws`'s
 * framing) at ≈ 20 % of the fan-out. Written from a microtask queued at the first message: a
 * subscription's later messages (graphql-ws's own sends) start only after its direct frame
 * was queued, from continuations queued behind that microtask, so each subscription's order
 * holds. Nothing is written once the WebSocket is no longer open (a close frame may be out).
 */
export class DirectFrames {
  private heads: Buffer[] = [];
  private tails: Buffer[] = [];
  private bytes = 0;
  private flushedCallbacks: Array<() => void> = [];
  private scheduled = false;

  /**
   * @param socket the WebSocket (its state and extensions)
   * @param raw the TCP socket under it (the upgrade request's), where `ws` writes too
   */
  constructor(
    private readonly socket: OpenState,
    private readonly raw: { write(data: Buffer, callback: (error?: Error | null) => void): boolean },
  ) {}

  /** False when messages must go through `ws` (an extension such as permessage-deflate is on). */
  get usable(): boolean {
    return this.socket.extensions === '';
  }

  /**
   * Queues one text message: the bytes of `head` then of `tail`.
   *
   * @param flushed called once the write that carries it completed (not on a failed write)
   */
  add(head: Buffer, tail: Buffer, flushed: () => void): void {
    const length = head.length + tail.length;
    this.heads.push(head);
    this.tails.push(tail);
    this.bytes += headerLength(length) + length;
    this.flushedCallbacks.push(flushed);
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(this.flush);
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const { heads, tails, bytes } = this;
    const callbacks = this.flushedCallbacks;
    this.heads = [];
    this.tails = [];
    this.bytes = 0;
    this.flushedCallbacks = [];
    if (this.socket.readyState !== this.socket.OPEN) return;
    const data = Buffer.allocUnsafe(bytes);
    let at = 0;
    for (let index = 0; index < heads.length; index += 1) {
      const head = heads[index] as Buffer;
      const tail = tails[index] as Buffer;
      at = writeHeader(data, at, head.length + tail.length);
      at += head.copy(data, at);
      at += tail.copy(data, at);
    }
    this.raw.write(data, (error) => {
      if (error == null) for (const callback of callbacks) callback();
    });
  };
}

/** What {@link directNext} uses of one graphql-ws connection (graphql-ws.ts `GraphQLWsExtra`). */
export interface DirectNextConnection {
  /** The WebSocket: its state, and `send` for when {@link DirectFrames} is not usable. */
  socket: { readonly readyState: number; readonly OPEN: number; send(data: string, callback: (error?: Error) => void): void };
  /** The connection's {@link writeBatcher}. */
  batch: () => void;
  direct: DirectFrames;
}

/**
 * The {@link DirectNext} of subscription `id` (shared-event-execution.ts), the direct route's
 * framing: its `next` frames go straight to the socket, the same bytes graphql-ws writes
 * (`{"id":…,"type":"next","payload":…}`, the payload from {@link payloadJsonOf}), the
 * connection's frames of one fan-out in one write ({@link DirectFrames}; through `ws`'s `send`
 * when an extension is negotiated). Ready only while the socket is open, graphql-ws still holds the
 * operation (`complete` and close remove it) and the previous direct frame was flushed: at most
 * one frame of the subscription waits in Node, as when graphql-ws awaits each send.
 *
 * @param active whether graphql-ws still holds the operation
 */
export function directNext(connection: DirectNextConnection, id: string, active: () => boolean): DirectNext {
  const { socket, batch, direct } = connection;
  const prefix = `{"id":${JSON.stringify(id)},"type":"next","payload":`;
  const head = Buffer.from(prefix);
  let unflushed = false;
  // After a failed write the socket closes (graphql-ws ends the operation): stay not ready.
  // DirectFrames calls it only after a write that succeeded; `ws`'s send passes the error.
  const flushed = (error?: Error | null): void => {
    if (error == null) unflushed = false;
  };
  return {
    ready: () => !unflushed && socket.readyState === socket.OPEN && active(),
    handOver(result) {
      unflushed = true;
      if (direct.usable) {
        direct.add(head, payloadTailOf(result, formatError), flushed);
      } else {
        batch();
        socket.send(`${prefix}${payloadJsonOf(result, formatError)}}`, flushed);
      }
    },
  };
}

/**
 * An error as yoga writes it on HTTP and SSE (the `formatError` of every graphql-ws payload): without the `http` and `unexpected` extensions it
 * uses internally (status codes, the masking marker), and without `extensions` when nothing is
 * left.
 */
export function formatError(error: GraphQLError): GraphQLFormattedError {
  const formatted = error.toJSON();
  if (formatted.extensions === undefined) return formatted;
  const { http: _http, unexpected: _unexpected, ...extensions } = formatted.extensions;
  const { extensions: _all, ...rest } = formatted;
  return Object.keys(extensions).length > 0 ? { ...rest, extensions } : rest;
}

/**
 * Groups the frames written to one connection within one turn of the event loop into one
 * write: the first frame corks the connection's TCP socket, and it is uncorked on the next
 * turn (`setImmediate`). A revision fanned out to the 100 subscriptions of one socket then
 * costs one `writev` instead of 100 (the profile showed `writev` at ≈ 11 µs
 * per frame). Order and content of the frames are unchanged.
 *
 * @param raw the upgrade request's TCP socket, the one the WebSocket writes to
 * @returns call before each `send`
 */
export function writeBatcher(raw: Pick<Socket, 'cork' | 'uncork' | 'destroyed'>): () => void {
  let corked = false;
  const flush = (): void => {
    corked = false;
    raw.uncork();
  };
  return () => {
    if (corked || raw.destroyed) return;
    corked = true;
    raw.cork();
    setImmediate(flush);
  };
}
