/** Relay global ids through `node(id)`, and `workflowRun(runId)`. */
import { describe, expect } from 'vitest';
import { NodeDocument, WorkflowRunDocument } from '../../schema/generated/graphql.js';
import { reserve, reserveInput } from '../helpers/server-fixture.js';
import { serverTest as it } from '../helpers/server-test.js';

describe('node and workflowRun', () => {
  it.beforeAll(async ({ fx }) => {
    await reserve(fx, reserveInput('root-1'));
  });

  it('round-trips the global id of a run through node(id)', async ({ fx }) => {
    const { workflowRun } = await fx.data(WorkflowRunDocument, { runId: 'root-1' });
    const id = workflowRun?.id as string;
    expect(id).not.toBe('root-1');
    const { node } = await fx.data(NodeDocument, { id });
    expect(node).toEqual({ __typename: 'WorkflowRun', id, runId: 'root-1', workflowName: 'demo', status: 'QUEUED' });
  });

  it('answers null for the global id of a run that does not exist', async ({ fx }) => {
    // Pothos relay ids: base64 of `<type>:<id>`.
    const { workflowRun } = await fx.data(WorkflowRunDocument, { runId: 'root-1' });
    expect(Buffer.from(workflowRun?.id as string, 'base64').toString('utf8')).toBe('WorkflowRun:root-1');
    const missing = Buffer.from('WorkflowRun:missing-run').toString('base64');
    expect((await fx.data(NodeDocument, { id: missing })).node).toBeNull();
  });

  it('answers null for a well-formed WorkflowRun id of up to 1024 characters that names no run', async ({ fx }) => {
    const longest = Buffer.from(`WorkflowRun:${'r'.repeat(756)}`).toString('base64');
    expect(longest).toHaveLength(1_024);
    const response = await fx.gql(NodeDocument, { id: longest });
    expect(response.errors).toBeUndefined();
    expect(response.data).toEqual({ node: null });
  });

  const base64 = (text: string | Buffer) => Buffer.from(text).toString('base64');
  const malformed: Array<[string, string, string]> = [
    ['not base64', 'not-a-global-id', 'Invalid global ID "not-a-global-id": not base64'],
    // base64('WorkflowRun:a?>') is V29ya2Zsb3dSdW46YT8+; base64url writes its '+' as '-'.
    ['base64url instead of base64', 'V29ya2Zsb3dSdW46YT8-', 'Invalid global ID "V29ya2Zsb3dSdW46…": not base64'],
    ['empty', '', 'Invalid global ID "": not the base64 of <Type>:<id>'],
    ['no type separator', base64('WorkflowRun'), `Invalid global ID "${base64('WorkflowRun')}": not the base64 of <Type>:<id>`],
    ['an empty type', base64(':root-1'), `Invalid global ID "${base64(':root-1')}": not the base64 of <Type>:<id>`],
    ['an empty id', base64('WorkflowRun:'), `Invalid global ID "${base64('WorkflowRun:')}": not the base64 of <Type>:<id>`],
    ['not UTF-8', base64(Buffer.from([0xff, 0x3a, 0x61])), 'Invalid global ID "/zph": not the base64 of <Type>:<id>'],
    ['an unknown type', base64('Foo:bar'), `Invalid global ID "${base64('Foo:bar')}": not an id of a known type (WorkflowRun)`],
    [
      'over 1024 characters',
      base64(`WorkflowRun:${'r'.repeat(757)}`),
      `Invalid global ID "${base64('WorkflowRun:rrrr').slice(0, 16)}…": longer than 1024 characters`,
    ],
  ];
  it.for(malformed)('refuses a malformed global id (%s) with BAD_USER_INPUT', async ([, id, message], { fx }) => {
    const response = await fx.gql(NodeDocument, { id });
    expect(response.status).toBe(200);
    expect(response.data).toEqual({ node: null });
    expect(response.errors).toEqual([{ message, locations: [{ line: 3, column: 3 }], path: ['node'], extensions: { code: 'BAD_USER_INPUT' } }]);
  });

  it('quotes at most 16 characters of a 100 KB id', async ({ fx }) => {
    const id = base64(`WorkflowRun:${'r'.repeat(75_000)}`);
    expect(id.length).toBe(100_016);
    const response = await fx.gql(NodeDocument, { id });
    expect(response.errors?.map((error) => error.message)).toEqual([`Invalid global ID "${id.slice(0, 16)}…": longer than 1024 characters`]);
    expect(response.text.length).toBeLessThan(300);
  });

  it('workflowRun(runId) returns the run, or null when it does not exist', async ({ fx }) => {
    expect((await fx.data(WorkflowRunDocument, { runId: 'root-1' })).workflowRun).toMatchObject({ runId: 'root-1', rootRunId: 'root-1' });
    expect((await fx.data(WorkflowRunDocument, { runId: 'nope' })).workflowRun).toBeNull();
  });
});
