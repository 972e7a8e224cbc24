/**
 * Each mutation's result union lists only the errors that mutation can return,
 * and `ViewerDeltaPage.kind` is an enum; read over HTTP through introspection, as a client's
 * code generator sees them.
 */
import { describe, expect } from 'vitest';
import type { TestServer } from '../helpers/server-fixture.js';
import { serverTest as it } from '../helpers/server-test.js';

interface TypeInfo {
  __type: {
    possibleTypes: Array<{ name: string }> | null;
    fields: Array<{ name: string; type: { kind: string; name: string | null; ofType: { kind: string; name: string } | null } }> | null;
    enumValues: Array<{ name: string }> | null;
  } | null;
}

const TYPE = `query Type($name: String!) {
  __type(name: $name) {
    possibleTypes { name }
    fields { name type { kind name ofType { kind name } } }
    enumValues { name }
  }
}`;

const typeInfo = async (fx: TestServer, name: string) => (await fx.data<TypeInfo, { name: string }>(TYPE, { name })).__type;

describe('mutation result unions and ViewerDeltaPage.kind', () => {
  it.for<[string, string[]]>([
    [
      'ReserveWorkflowRunResult',
      ['ConflictError', 'ForbiddenError', 'LineageError', 'NotFoundError', 'ReserveWorkflowRunSuccess', 'RestartRejectedError', 'ValidationError'],
    ],
    [
      'RestartWorkflowRunResult',
      ['ConflictError', 'ForbiddenError', 'LineageError', 'NotFoundError', 'RestartRejectedError', 'RestartWorkflowRunSuccess', 'ValidationError'],
    ],
    ['ClaimWorkflowRunResult', ['ClaimWorkflowRunSuccess', 'ConflictError', 'ForbiddenError', 'NotFoundError', 'ValidationError']],
    ['ParkWorkflowRunResult', ['ClaimLostError', 'ConflictError', 'ForbiddenError', 'NotFoundError', 'ParkWorkflowRunSuccess', 'ValidationError']],
    ['SettleWorkflowRunResult', ['ClaimLostError', 'ConflictError', 'ForbiddenError', 'NotFoundError', 'SettleWorkflowRunSuccess', 'ValidationError']],
    ['RenewWorkflowRunClaimResult', ['ClaimLostError', 'ForbiddenError', 'NotFoundError', 'RenewWorkflowRunClaimSuccess', 'ValidationError']],
    [
      'MarkWorkflowRunRunningResult',
      ['ClaimLostError', 'ConflictError', 'ForbiddenError', 'MarkWorkflowRunRunningSuccess', 'NotFoundError', 'ValidationError'],
    ],
    [
      'ReportWorkflowRunStateResult',
      ['ClaimLostError', 'ConflictError', 'ForbiddenError', 'NotFoundError', 'ReportWorkflowRunStateSuccess', 'ValidationError'],
    ],
    ['CancelWorkflowRunResult', ['CancelWorkflowRunSuccess', 'ClaimLostError', 'ConflictError', 'ForbiddenError', 'NotFoundError', 'ValidationError']],
    ['PauseWorkflowRunResult', ['ConflictError', 'ForbiddenError', 'NotFoundError', 'PauseWorkflowRunSuccess', 'ValidationError']],
    ['ResumeWorkflowRunResult', ['ConflictError', 'ForbiddenError', 'NotFoundError', 'ResumeWorkflowRunSuccess', 'ValidationError']],
  ])('%s offers exactly its success type and the errors it can return', async ([union, members], { fx }) => {
    const info = await typeInfo(fx, union);
    expect(info?.possibleTypes?.map((type) => type.name).sort()).toEqual(members);
  });

  it('ViewerDeltaPage.kind is the non-null enum ViewerDeltaPageKind { DELTAS SNAPSHOT_REQUIRED }', async ({ fx }) => {
    const page = await typeInfo(fx, 'ViewerDeltaPage');
    expect(page?.fields?.find((field) => field.name === 'kind')?.type).toEqual({
      kind: 'NON_NULL',
      name: null,
      ofType: { kind: 'ENUM', name: 'ViewerDeltaPageKind' },
    });
    expect((await typeInfo(fx, 'ViewerDeltaPageKind'))?.enumValues?.map((value) => value.name)).toEqual(['DELTAS', 'SNAPSHOT_REQUIRED']);
  });
});
