/** ws-next-frames.ts: a shared result is serialised once; both routes write graphql-ws's message with its id. */
import { GraphQLError, type ExecutionResult } from 'graphql';
import { describe, expect, it } from 'vitest';
import { DirectFrames, nextPayload, payloadJsonOf } from '../../src/delivery/ws-next-frames.js';

/** What graphql-ws writes for a `next` message whose payload is `payload`. */
function graphqlWsText(id: string, payload: unknown): string {
  return JSON.stringify({ id, type: 'next', payload });
}

describe('ws next frames', () => {
  it('serialises one result object once, however many subscribers take it', () => {
    let reads = 0;
    const result = {
      get data() {
        reads += 1;
        return { workflowRunDeltas: { __typename: 'ViewerDeltaBatch', presentationRevision: 7 } };
      },
    } as ExecutionResult;
    const format = (error: GraphQLError) => error.toJSON();
    const texts = Array.from({ length: 1_000 }, () => payloadJsonOf(result, format));
    expect(reads).toBe(1);
    expect(new Set(texts)).toEqual(new Set(['{"data":{"workflowRunDeltas":{"__typename":"ViewerDeltaBatch","presentationRevision":7}}}']));
  });

  it('writes errors through the formatter, in the result’s key order', () => {
    const result: ExecutionResult = {
      errors: [new GraphQLError('Unexpected error.', { extensions: { code: 'INTERNAL_SERVER_ERROR', http: { status: 500 } } })],
      data: null,
    };
    const json = payloadJsonOf(result, (error) => ({ message: error.message, extensions: { code: error.extensions.code } }));
    expect(json).toBe('{"errors":[{"message":"Unexpected error.","extensions":{"code":"INTERNAL_SERVER_ERROR"}}],"data":null}');
  });

  it("the pulled route's payload is the direct route's text: graphql-ws writes the same bytes for every id", () => {
    const format = (error: GraphQLError) => ({ message: error.message });
    for (const result of [
      { data: { value: 'a "quoted" \\ text ✓', list: [1, 2] } },
      { errors: [new GraphQLError('Unexpected error.', { extensions: { http: { status: 500 } } })], data: null },
    ] as ExecutionResult[]) {
      for (const id of ['1', 'quote"and\\backslash', 'ünïcödé']) {
        expect(graphqlWsText(id, nextPayload(result, format))).toBe(`{"id":${JSON.stringify(id)},"type":"next","payload":${payloadJsonOf(result, format)}}`);
      }
    }
  });

  it('direct frames: the messages of one turn leave in one write, each a whole unmasked text frame (RFC 6455 §5.2)', async () => {
    const writes: Buffer[] = [];
    const state = { readyState: 1, OPEN: 1, extensions: '' };
    const direct = new DirectFrames(state, {
      write(data, callback) {
        writes.push(data);
        callback();
        return true;
      },
    });
    expect(direct.usable).toBe(true);
    const texts = ['{"id":"1","type":"next","payload":{}}', `{"x":"${'é'.repeat(100)}"}`, `{"big":"${'✓'.repeat(30_000)}"}`];
    const flushed: number[] = [];
    // Each message as a head and a tail, split anywhere (the server splits after `"payload":`).
    texts.forEach((text, index) => direct.add(Buffer.from(text.slice(0, 5)), Buffer.from(text.slice(5)), () => flushed.push(index)));
    expect(writes).toEqual([]); // written from a microtask, after the synchronous fan-out
    await Promise.resolve();
    expect(writes).toHaveLength(1);
    expect(flushed).toEqual([0, 1, 2]);
    // Decode: FIN + text opcode, no mask bit, 7/16/64-bit lengths.
    const decoded: string[] = [];
    const data = writes[0] as Buffer;
    let at = 0;
    while (at < data.length) {
      expect(data[at]).toBe(0x81);
      let length = (data[at + 1] as number) & 0x7f;
      expect((data[at + 1] as number) & 0x80).toBe(0);
      at += 2;
      if (length === 126) {
        length = data.readUInt16BE(at);
        at += 2;
      } else if (length === 127) {
        length = Number(data.readBigUInt64BE(at));
        at += 8;
      }
      decoded.push(data.subarray(at, at + length).toString('utf8'));
      at += length;
    }
    expect(decoded).toEqual(texts);

    // Once the WebSocket is no longer open (a close frame may be out), nothing more is written.
    state.readyState = 2;
    direct.add(Buffer.from('{"late"'), Buffer.from(':true}'), () => flushed.push(3));
    await Promise.resolve();
    expect(writes).toHaveLength(1);
    expect(flushed).toEqual([0, 1, 2]);
    expect(new DirectFrames({ ...state, extensions: 'permessage-deflate' }, { write: () => true }).usable).toBe(false);
  });
});
