/**
 * The sharing key of subscription results (src/delivery/event-result-key.ts):
 * the variables the per-event execution reads, not those that only select the stream.
 */
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { eventResultKey, variablesReadPerEvent } from '../../src/delivery/event-result-key.js';

const DOCUMENT = parse(/* GraphQL */ `
  subscription Deltas($runId: String!, $after: Int, $withDeltas: Boolean!, $kind: LineageKind, $skipRoot: Boolean!) {
    workflowRunDeltas(runId: $runId, afterRevision: $after) @skip(if: $skipRoot) {
      ... on ViewerDeltaBatch { presentationRevision deltas @include(if: $withDeltas) { targetKey } }
      ...Snapshot
    }
  }
  fragment Snapshot on ViewerSnapshotRequired { run { children(kind: $kind) { runId } } }
  subscription Other($runId: String!, $first: Int) {
    workflowRunUpdated(runId: $runId) { lineage(first: $first) { totalCount } }
  }
`);

describe('variablesReadPerEvent', () => {
  it('reads nested arguments, directives and fragments; not the root field arguments', () => {
    expect(variablesReadPerEvent(DOCUMENT, 'Deltas')).toEqual(['kind', 'skipRoot', 'withDeltas']);
    expect(variablesReadPerEvent(DOCUMENT, 'Other')).toEqual(['first']);
  });

  it('a variable used both as a root argument and below the root is read', () => {
    const document = parse('subscription S($runId: String!) { workflowRunUpdated(runId: $runId) { children(kind: null) { runId } rootRun { runId } } }');
    expect(variablesReadPerEvent(document, null)).toEqual([]);
    const both = parse(
      'subscription S($id: String!) { workflowRunUpdated(runId: $id) { ...F } } fragment F on WorkflowRun { ... @include(if: true) { runId } lineageX: lineage(after: $id) { totalCount } }',
    );
    expect(variablesReadPerEvent(both, 'S')).toEqual(['id']);
  });

  it('an unknown operation reads nothing', () => {
    expect(variablesReadPerEvent(DOCUMENT, 'Missing')).toEqual([]);
  });
});

describe('eventResultKey', () => {
  const key = (variables: Record<string, unknown> | null, scope = 'full', operationName: string | null = 'Deltas'): string =>
    eventResultKey(DOCUMENT, operationName, variables, scope);
  const base = { runId: 'run-1', after: 3, withDeltas: true, kind: null, skipRoot: false };

  it('is the same for another cursor or another run', () => {
    expect(key({ ...base, after: 90, runId: 'run-2' })).toBe(key(base));
  });

  it('differs with a variable the selection reads, the scope, the operation or the document', () => {
    expect(key({ ...base, withDeltas: false })).not.toBe(key(base));
    expect(key(base, 'read')).not.toBe(key(base));
    expect(key(base, 'full', 'Other')).not.toBe(key(base));
    expect(eventResultKey(parse('subscription Deltas { workflowRunUpdated(runId: "x") { runId } }'), 'Deltas', base, 'full')).not.toBe(key(base));
  });

  it('a variable left out differs from one sent as null (its default applies)', () => {
    const { kind: _kind, ...withoutKind } = base;
    expect(key(withoutKind)).not.toBe(key(base));
  });
});
