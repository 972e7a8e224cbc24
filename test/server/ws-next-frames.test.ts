/** ws-next-frames.ts: a shared result is serialised once; each frame is graphql-ws's message with its id. */
import { GraphQLError, type ExecutionResult } from 'graphql';
import { describe, expect, it } from 'vitest';
import { NextFrames, payloadJsonOf } from '../../src/server/ws-next-frames.js';

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

  it("each frame is graphql-ws's own text for the message, the id spliced in; other messages pass unchanged", () => {
    const frames = new NextFrames();
    const payload = { data: { value: 'a "quoted" \\ text ✓', list: [1, 2] } };
    const json = JSON.stringify(payload);
    for (const id of ['1', 'quote"and\\backslash', 'ünïcödé']) {
      const text = graphqlWsText(id, frames.marker(json));
      expect(frames.frame(text)).toBe(graphqlWsText(id, payload));
    }
    for (const other of [
      '{"id":"1","type":"complete"}',
      '{"type":"pong"}',
      graphqlWsText('2', payload),
      '{"id":"3","type":"error","payload":[{"message":"x"}]}',
    ]) {
      expect(frames.frame(other)).toBe(other);
    }
  });
});
