/**
 * Id-only slices: `listWorkflowRunIdSlice` and `lineageIdSlice` return the
 * same runs with the same keys in the same order as `listWorkflowRunSlice` and `lineageSlice`,
 * for every order, filter and cursor, on our own files (SQL over the order's index) and on a
 * pi-workflows state file (the in-process run index), and read no column beyond the ids and keys;
 * and the children of runs read as ids or as child keys are those whole records read.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WorkflowStore, type KeyedRun, type RunOrder, type RunSliceRequest, type WorkflowRunFilter } from '../../src/store/index.js';
import { createPiWorkflowsFile, seedPiWorkflowsRuns } from '../../fixtures/pi-workflows-file.js';
import { storeInternals } from '../helpers/store-internals.js';
import { claim, openTestStore, reserve, T0, tempDir, type TestStore } from '../helpers/store-fixtures.js';

const ORDERS: RunOrder[] = [
  { field: 'created_at', direction: 'desc' },
  { field: 'created_at', direction: 'asc' },
  { field: 'updated_at', direction: 'desc' },
  { field: 'updated_at', direction: 'asc' },
];

/** Ids and keys of a slice, the part an id-only read must equal. */
const idsAndKeys = <Key>(rows: Array<KeyedRun<Key, { runId: string }>>) => rows.map(({ run, key }) => ({ runId: run.runId, key }));

/** Checks every order × filter × cursor × direction for list and lineage parity. */
function expectParity(store: WorkflowStore, filters: Array<WorkflowRunFilter | undefined>, roots: string[]): void {
  let compared = 0;
  for (const order of ORDERS) {
    for (const filter of filters) {
      for (const inverted of [false, true]) {
        const whole = store.listWorkflowRunSlice(filter, { limit: 101, inverted, order });
        const label = `${JSON.stringify(order)} ${JSON.stringify(filter)} inverted=${inverted}`;
        expect(idsAndKeys(store.listWorkflowRunIdSlice(filter, { limit: 101, inverted, order })), label).toEqual(idsAndKeys(whole));
        // From the middle of the list, in pages of two, with each bound.
        const middle = whole[Math.floor(whole.length / 2)]?.key;
        if (middle !== undefined) {
          for (const bound of [{ after: middle }, { before: middle }, { after: whole[0]?.key, before: whole.at(-1)?.key }]) {
            const request: RunSliceRequest = { ...bound, limit: 3, inverted, order };
            expect(idsAndKeys(store.listWorkflowRunIdSlice(filter, request)), `${label} ${JSON.stringify(bound)}`).toEqual(
              idsAndKeys(store.listWorkflowRunSlice(filter, request)),
            );
          }
        }
        compared += whole.length;
      }
    }
  }
  expect(compared).toBeGreaterThan(0);
  for (const root of roots) {
    for (const inverted of [false, true]) {
      const whole = store.lineageSlice(root, { limit: 101, inverted });
      expect(whole.length).toBeGreaterThan(0);
      expect(idsAndKeys(store.lineageIdSlice(root, { limit: 101, inverted })), `${root} inverted=${inverted}`).toEqual(idsAndKeys(whole));
      for (const position of whole.keys()) {
        const key = (whole[position] as KeyedRun<unknown>).key as Parameters<WorkflowStore['lineageSlice']>[1]['after'];
        for (const bound of [{ after: key }, { before: key }]) {
          const request = { ...bound, limit: 2, inverted };
          expect(idsAndKeys(store.lineageIdSlice(root, request)), `${root} ${JSON.stringify(bound)}`).toEqual(idsAndKeys(store.lineageSlice(root, request)));
        }
      }
    }
  }
  // The children of every run, by kind: ids (childIdsOfRuns) and keys (childKeysOfRuns) as whole records read them.
  const parents = store.listWorkflowRunSlice(undefined, { limit: 101, inverted: false }).map(({ run }) => run.runId);
  let children = 0;
  for (const kind of [undefined, 'continuation', 'restart'] as const) {
    const whole = store.childrenOfRuns(parents, kind).map((list) => list.map(({ runId, rootRunId, parentRunId }) => ({ runId, rootRunId, parentRunId })));
    children += whole.flat().length;
    expect(store.childIdsOfRuns(parents, kind), `children of kind ${kind}`).toEqual(whole);
    expect(store.childKeysOfRuns(parents, kind), `child keys of kind ${kind}`).toEqual(
      whole.map((list) => list.map(({ runId, parentRunId }) => ({ runId, parentRunId }))),
    );
  }
  expect(children).toBeGreaterThan(0);
}

describe('id-only slices on our own file', () => {
  let t: TestStore;
  beforeAll(() => {
    t = openTestStore();
    // Two chains and singles, created and updated at different times, two workflows' sessions.
    for (const [index, runId] of ['alpha', 'Beta', 'gamma', 'delta', 'epsilon'].entries()) {
      reserve(t.store, runId, { originSessionId: `session-${index % 2}-${runId}` });
      t.clock.advance(10);
    }
    claim(t.store, 'alpha');
    t.store.parkWorkflowRun({ runId: 'alpha', claimToken: 'token-alpha' });
    t.clock.advance(10);
    reserve(t.store, 'alpha-2', { originSessionId: 'session-0-alpha', parentRunId: 'alpha', lineageKind: 'continuation' });
    t.clock.advance(10);
    claim(t.store, 'gamma');
    t.clock.advance(10);
    claim(t.store, 'Beta');
  });
  afterAll(() => t.close());

  it('returns the runs, keys and order of the whole-record slices', () => {
    expectParity(
      t.store,
      [
        undefined,
        { status: ['queued'] },
        { queueStatus: ['running', 'parked'] },
        { rootRunId: 'alpha' },
        { originSessionId: 'session-0-alpha' },
        { workflowName: 'demo' },
        { workflowName: 'other' },
        { createdAfter: T0 + 5, createdBefore: T0 + 45 },
        { updatedAfter: T0 + 15 },
        { search: 'BET' },
        { search: 'ALPHA', queueStatus: ['queued', 'parked'], updatedBefore: T0 + 1_000 },
      ],
      ['alpha', 'gamma'],
    );
  });

  it('reads no column of the run record beyond the ids and keys (no join the filter does not need)', () => {
    const spy = vi.spyOn(storeInternals(t.store).database, 'all');
    try {
      t.store.listWorkflowRunIdSlice(undefined, { limit: 3, inverted: false });
      t.store.listWorkflowRunIdSlice({ search: 'a' }, { limit: 3, inverted: false, order: { field: 'updated_at', direction: 'desc' } });
      t.store.lineageIdSlice('alpha', { limit: 3, inverted: false });
      t.store.childIdsOfRuns(['alpha', 'gamma']);
      expect(
        spy.mock.calls.map(([sql]) =>
          sql
            .replace(/\s+/g, ' ')
            .replace(/ WHERE.*| ORDER BY.*/, '')
            .trim(),
        ),
      ).toEqual([
        'SELECT r.run_id, r.root_run_id, r.parent_run_id, r.created_at AS run_created_at FROM runs r',
        'SELECT r.run_id, r.root_run_id, r.parent_run_id, r.created_at AS run_created_at, q.updated_at FROM runs r JOIN run_queue q ON q.run_id = r.run_id JOIN workflow_definitions d ON d.definition_digest = r.definition_digest',
        'SELECT r.run_id, r.root_run_id, r.parent_run_id, r.created_at AS run_created_at FROM runs r',
        'SELECT r.run_id, r.root_run_id, r.parent_run_id, r.created_at AS run_created_at FROM runs r',
        'SELECT r.run_id, r.root_run_id, r.parent_run_id, r.created_at AS run_created_at FROM runs r',
      ]);
    } finally {
      spy.mockRestore();
    }
    // Child keys: columns of runs_parent_kind_idx only (no table row), as one JSON row.
    const get = vi.spyOn(storeInternals(t.store).database, 'get');
    try {
      expect(t.store.childKeysOfRuns(['alpha', 'gamma', 'nobody'], 'continuation')).toEqual([[{ runId: 'alpha-2', parentRunId: 'alpha' }], [], []]);
      expect(get.mock.calls.map(([sql]) => sql.replace(/\s+/g, ' ').replace(/ WHERE.*/, ''))).toEqual([
        'SELECT json_group_array(json_array(r.parent_run_id, r.run_id, r.created_at)) AS children FROM runs r',
      ]);
    } finally {
      get.mockRestore();
    }
  });
});

describe('id-only slices on a pi-workflows state file (in-process run index)', () => {
  let dir: string;
  let store: WorkflowStore;
  beforeAll(() => {
    dir = tempDir('pi-file-ids-');
    const path = join(dir, 'state.sqlite');
    const writer = createPiWorkflowsFile(path);
    seedPiWorkflowsRuns(writer, T0);
    writer.close();
    store = WorkflowStore.open({ path, projectPath: dir });
  });
  afterAll(() => {
    store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('returns the runs, keys and order of the whole-record slices', () => {
    expectParity(
      store,
      [undefined, { status: ['failed'] }, { queueStatus: ['running'] }, { rootRunId: 'run-b' }, { lineageKind: 'restart' }, { search: 'RUN' }],
      ['run-a', 'run-b'],
    );
  });

  it('answers an unfiltered page and a lineage page from the index alone: no statement beyond the freshness check', () => {
    const expected = store.listWorkflowRunSlice(undefined, { limit: 3, inverted: false });
    const lineage = store.lineageSlice('run-b', { limit: 3, inverted: true });
    const database = storeInternals(store).database;
    const all = vi.spyOn(database, 'all');
    const get = vi.spyOn(database, 'get');
    try {
      expect(idsAndKeys(store.listWorkflowRunIdSlice(undefined, { limit: 3, inverted: false }))).toEqual(idsAndKeys(expected));
      expect(idsAndKeys(store.lineageIdSlice('run-b', { limit: 3, inverted: true }))).toEqual(idsAndKeys(lineage));
      expect(all.mock.calls).toEqual([]);
      expect(get.mock.calls.map(([sql]) => sql)).toEqual([
        'SELECT (SELECT data_version FROM pragma_data_version) AS v, total_changes() AS c',
        'SELECT (SELECT data_version FROM pragma_data_version) AS v, total_changes() AS c',
      ]);
    } finally {
      all.mockRestore();
      get.mockRestore();
    }
  });
});
