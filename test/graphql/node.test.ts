/** Relay global ids through `node(id)`, and `workflowRun(runId)`. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeDocument, WorkflowRunDocument } from '../../schema/generated/graphql.js';
import { reserve, reserveInput, startTestServer, type TestServer } from '../helpers/server-fixture.js';

describe('node and workflowRun', () => {
  let fx: TestServer;
  beforeAll(async () => {
    fx = await startTestServer();
    await reserve(fx, reserveInput('root-1'));
  });
  afterAll(async () => {
    await fx.close();
  });

  it('round-trips the global id of a run through node(id)', async () => {
    const { workflowRun } = await fx.data(WorkflowRunDocument, { runId: 'root-1' });
    const id = workflowRun?.id as string;
    expect(id).not.toBe('root-1');
    const { node } = await fx.data(NodeDocument, { id });
    expect(node).toEqual({ __typename: 'WorkflowRun', id, runId: 'root-1', workflowName: 'demo', status: 'QUEUED' });
  });

  it('answers null for the global id of a run that does not exist', async () => {
    // Pothos relay ids: base64 of `<type>:<id>`.
    const { workflowRun } = await fx.data(WorkflowRunDocument, { runId: 'root-1' });
    expect(Buffer.from(workflowRun?.id as string, 'base64').toString('utf8')).toBe('WorkflowRun:root-1');
    const missing = Buffer.from('WorkflowRun:missing-run').toString('base64');
    expect((await fx.data(NodeDocument, { id: missing })).node).toBeNull();
  });

  it('answers null for the global id of a type that does not exist', async () => {
    const unknownType = Buffer.from('Foo:bar').toString('base64');
    const response = await fx.gql(NodeDocument, { id: unknownType });
    expect(response.errors).toBeUndefined();
    expect(response.data?.node).toBeNull();
  });

  it('refuses a malformed global id with a GraphQL error', async () => {
    const response = await fx.gql(NodeDocument, { id: 'not-a-global-id' });
    expect(response.data?.node).toBeNull();
    expect(response.errors?.[0]?.message).toBe('Invalid global ID: not-a-global-id');
  });

  it('workflowRun(runId) returns the run, or null when it does not exist', async () => {
    expect((await fx.data(WorkflowRunDocument, { runId: 'root-1' })).workflowRun).toMatchObject({ runId: 'root-1', rootRunId: 'root-1' });
    expect((await fx.data(WorkflowRunDocument, { runId: 'nope' })).workflowRun).toBeNull();
  });
});
