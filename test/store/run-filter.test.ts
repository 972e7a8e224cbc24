/**
 * One home for filter semantics: the record predicate (`matchesFilter`, the
 * run-list change feed's live matching) keeps exactly the runs the SQL of the same filter keeps,
 * for the time ranges and search (bounds and case folding included), alone and with the older
 * parts.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asciiLower, matchesFilter, WorkflowStore, type WorkflowRunFilter } from '../../src/store/index.js';
import { digestHex, reserveInput, T0, tempDir, TestClock } from '../helpers/store-fixtures.js';

describe('matchesFilter says what the SQL says', () => {
  let dir: string;
  let store: WorkflowStore;
  const clock = new TestClock(T0);
  beforeAll(() => {
    dir = tempDir('run-filter-');
    store = WorkflowStore.open({ path: join(dir, 'state.db'), projectPath: dir, clock: clock.now });
    const names = ['Deploy%Prod', 'etl_JOB', 'demo', 'Ünïcode-Name'];
    for (let index = 0; index < 16; index += 1) {
      if (index % 3 === 0) clock.advance(1_000);
      const runId = `${index % 2 === 0 ? 'Run' : 'run'}_${index}-${'abc'[index % 3]}`;
      const workflowName = names[index % names.length] as string;
      const definition = { name: workflowName };
      const overrides = {
        originSessionId: `session-${index}`,
        workflowName,
        definitionSnapshot: definition,
        definitionDigest: `sha256:${digestHex(definition)}`,
      };
      store.reserveWorkflowRun(reserveInput(runId, overrides), {
        runnerId: 'runner',
        claimToken: `token-${index}`,
        leaseMs: 60_000,
      });
      if (index % 4 === 0) {
        clock.advance(500);
        store.parkWorkflowRun({ runId, claimToken: `token-${index}` });
      }
    }
  });
  afterAll(() => {
    store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('for every bound, at and around each run’s own timestamps, and for searches', () => {
    const runs = store.listWorkflowRunSlice(undefined, { limit: 101, inverted: false }).map(({ run }) => run);
    expect(runs).toHaveLength(16);
    const instants = [...new Set(runs.flatMap((run) => [Date.parse(run.createdAt), Date.parse(run.updatedAt)]))].flatMap((t) => [t - 1, t, t + 1]);
    const filters: WorkflowRunFilter[] = [
      ...instants.flatMap((t) => [{ createdAfter: t }, { createdBefore: t }, { updatedAfter: t }, { updatedBefore: t }]),
      ...['', 'run_1', 'RUN_1', '%', 'y%p', '_', 'l_j', 'ü', 'Ü', 'ünï', 'NAME', '-a', 'x'].map((search) => ({ search })),
      { search: 'run', createdAfter: instants[3], updatedBefore: instants.at(-2) },
      { search: 'RUN_1', queueStatus: ['parked'], workflowName: 'demo' },
      { status: ['running', 'queued'], updatedAfter: instants[4], originSessionId: 'session-4' },
    ];
    for (const filter of filters) {
      const sql = store.listWorkflowRunSlice(filter, { limit: 101, inverted: false }).map(({ run }) => run.runId);
      const memory = runs.filter((run) => matchesFilter(run, filter)).map((run) => run.runId);
      expect(memory, JSON.stringify(filter)).toEqual(sql);
      expect(store.countWorkflowRuns(filter), JSON.stringify(filter)).toBe(sql.length);
    }
    // Only ASCII letters fold (as SQLite's lower() without ICU): Ü and ü are different letters.
    expect(asciiLower('RUN_Ü%')).toBe('run_Ü%');
    expect(store.countWorkflowRuns({ search: 'Ü' })).toBe(4);
    expect(store.countWorkflowRuns({ search: 'ü' })).toBe(0);
  });
});
