/**
 * The page's run list merged from pages of `workflowRuns` and run-list change events:
 * filter matching, order, no run going backwards, the loaded window, chains.
 */
import { describe, expect, it } from 'vitest';
import {
  chainsOf,
  compareRuns,
  DEFAULT_ORDER,
  emptyFilter,
  graphqlFilter,
  matchesFilter,
  mergeChange,
  mergePage,
} from '../../../src/server/public/run-list.js';

interface Run {
  runId: string;
  rootRunId: string;
  workflowName: string;
  status: string;
  createdAt: string;
  updatedAt: string;
  presentationRevision: number;
}

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, second)).toISOString();
const run = (runId: string, created: number, patch: Partial<Run> = {}): Run => ({
  runId,
  rootRunId: runId,
  workflowName: 'triage-issue',
  status: 'RUNNING',
  createdAt: at(created),
  updatedAt: at(created),
  presentationRevision: 2,
  ...patch,
});
const ids = (runs: Run[]) => runs.map((item) => item.runId);
const ALL = { filter: emptyFilter(), order: DEFAULT_ORDER, complete: true };

describe('matchesFilter / graphqlFilter', () => {
  it('every part must hold; time bounds exclusive; search ignores ASCII case on runId or workflowName', () => {
    const subject = run('D1-c2-1', 10, { workflowName: 'Deploy-Service', status: 'FAILED' });
    expect(matchesFilter(subject, emptyFilter())).toBe(true);
    expect(matchesFilter(subject, { ...emptyFilter(), statuses: ['FAILED', 'COMPLETED'] })).toBe(true);
    expect(matchesFilter(subject, { ...emptyFilter(), statuses: ['RUNNING'] })).toBe(false);
    expect(matchesFilter(subject, { ...emptyFilter(), workflowName: 'Deploy-Service' })).toBe(true);
    expect(matchesFilter(subject, { ...emptyFilter(), workflowName: 'deploy-service' })).toBe(false);
    expect(matchesFilter(subject, { ...emptyFilter(), createdAfter: at(9), createdBefore: at(11) })).toBe(true);
    expect(matchesFilter(subject, { ...emptyFilter(), createdAfter: at(10) })).toBe(false);
    expect(matchesFilter(subject, { ...emptyFilter(), createdBefore: at(10) })).toBe(false);
    expect(matchesFilter(subject, { ...emptyFilter(), search: 'c2-' })).toBe(true);
    expect(matchesFilter(subject, { ...emptyFilter(), search: 'DEPLOY' })).toBe(true);
    expect(matchesFilter(subject, { ...emptyFilter(), search: 'triage' })).toBe(false);
    expect(matchesFilter(subject, { ...emptyFilter(), search: '' })).toBe(true);
    // ASCII case only, as the server: Ä and ä are different characters.
    expect(matchesFilter(run('r-Ä', 1), { ...emptyFilter(), search: 'ä' })).toBe(false);
    expect(matchesFilter(run('r-Ä', 1), { ...emptyFilter(), search: 'R-Ä' })).toBe(true);
  });

  it('graphqlFilter: null when empty; else the given parts', () => {
    expect(graphqlFilter(emptyFilter())).toBeNull();
    const filter = { statuses: ['FAILED'], workflowName: 'w', createdAfter: at(1), createdBefore: null, search: 'x' };
    expect(graphqlFilter(filter)).toEqual({ status: ['FAILED'], workflowName: 'w', createdAfter: at(1), search: 'x' });
    expect(graphqlFilter({ ...emptyFilter(), search: '' })).toBeNull();
  });
});

describe('compareRuns', () => {
  it('created or updated, either direction; ties by run id', () => {
    const a = run('a', 1, { updatedAt: at(9) });
    const b = run('b', 2, { updatedAt: at(3) });
    const c = run('c', 2, { updatedAt: at(3) });
    expect([c, a, b].sort((x, y) => compareRuns(x, y, DEFAULT_ORDER)).map((x) => x.runId)).toEqual(['c', 'b', 'a']);
    expect([c, a, b].sort((x, y) => compareRuns(x, y, { field: 'CREATED_AT', direction: 'ASC' })).map((x) => x.runId)).toEqual(['a', 'b', 'c']);
    expect([c, a, b].sort((x, y) => compareRuns(x, y, { field: 'UPDATED_AT', direction: 'DESC' })).map((x) => x.runId)).toEqual(['a', 'c', 'b']);
  });
});

describe('mergeChange', () => {
  const list = [run('r3', 3), run('r2', 2), run('r1', 1)];

  it('a new run is added at its place; a changed run is replaced in place', () => {
    const added = mergeChange(list, run('r4', 4), ALL);
    expect(added.change).toBe('added');
    expect(ids(added.runs)).toEqual(['r4', 'r3', 'r2', 'r1']);
    const updated = mergeChange(list, run('r2', 2, { status: 'COMPLETED', updatedAt: at(20) }), ALL);
    expect(updated.change).toBe('updated');
    expect(ids(updated.runs)).toEqual(['r3', 'r2', 'r1']);
    expect(updated.runs[1]?.status).toBe('COMPLETED');
    expect(list[1]?.status).toBe('RUNNING');
  });

  it('an older state of a listed run is ignored (a run never goes backwards)', () => {
    const newer = mergeChange(list, run('r2', 2, { updatedAt: at(20), presentationRevision: 9, status: 'COMPLETED' }), ALL).runs;
    const stale = mergeChange(newer, run('r2', 2, { updatedAt: at(10), presentationRevision: 5 }), ALL);
    expect(stale).toEqual({ runs: newer, change: 'ignored' });
    const sameTimeLowerRevision = mergeChange(newer, run('r2', 2, { updatedAt: at(20), presentationRevision: 8 }), ALL);
    expect(sameTimeLowerRevision.change).toBe('ignored');
    expect(mergeChange(newer, run('r2', 2, { updatedAt: at(20), presentationRevision: 10 }), ALL).change).toBe('updated');
  });

  it('a replay of the state the list holds is a no-op (a feed resumed from a page’s changeCursor)', () => {
    const page = mergePage([], [run('r3', 3), run('r2', 2, { updatedAt: at(20), presentationRevision: 5 })], DEFAULT_ORDER);
    const again = mergeChange(page, run('r2', 2, { updatedAt: at(20), presentationRevision: 5 }), ALL);
    expect(again).toEqual({ runs: page, change: 'unchanged' });
    expect(again.runs).toBe(page);
    // An older state (the page read after the change it replays) is ignored; a newer one updates.
    expect(mergeChange(page, run('r2', 2, { updatedAt: at(10), presentationRevision: 3 }), ALL)).toEqual({ runs: page, change: 'ignored' });
    const newer = mergeChange(page, run('r2', 2, { updatedAt: at(20), presentationRevision: 6, status: 'COMPLETED' }), ALL);
    expect(newer.change).toBe('updated');
    expect(newer.runs.map((item) => [item.runId, item.status, item.presentationRevision])).toEqual([
      ['r3', 'RUNNING', 2],
      ['r2', 'COMPLETED', 6],
    ]);
  });

  it('a run that stops matching the filter leaves the list; one that never matched is ignored', () => {
    const view = { ...ALL, filter: { ...emptyFilter(), statuses: ['RUNNING'] } };
    const left = mergeChange(list, run('r2', 2, { status: 'FAILED', updatedAt: at(30) }), view);
    expect(left.change).toBe('removed');
    expect(ids(left.runs)).toEqual(['r3', 'r1']);
    expect(mergeChange(list, run('r9', 9, { status: 'FAILED' }), view)).toEqual({ runs: list, change: 'ignored' });
  });

  it('with more pages to load, a run sorting after the last loaded one waits for its page', () => {
    const partial = { ...ALL, complete: false };
    expect(mergeChange(list, run('r0', 0), partial)).toEqual({ runs: list, change: 'ignored' });
    expect(ids(mergeChange(list, run('r0', 0), ALL).runs)).toEqual(['r3', 'r2', 'r1', 'r0']);
    // Ordered by update: a listed run updated long ago that sorts past the window leaves it.
    const byUpdate = { ...partial, order: { field: 'UPDATED_AT' as const, direction: 'ASC' as const } };
    const moved = mergeChange(list, run('r3', 3, { updatedAt: at(50) }), byUpdate);
    expect(moved.change).toBe('removed');
    expect(ids(moved.runs)).toEqual(['r2', 'r1']);
  });
});

describe('mergePage / chainsOf', () => {
  it('a page adds its runs without duplicates, keeping newer states from events', () => {
    const fromEvents = [run('r5', 5, { status: 'COMPLETED', updatedAt: at(40), presentationRevision: 7 })];
    const merged = mergePage(fromEvents, [run('r5', 5), run('r4', 4), run('r3', 3)], DEFAULT_ORDER);
    expect(ids(merged)).toEqual(['r5', 'r4', 'r3']);
    expect(merged[0]?.status).toBe('COMPLETED');
    expect(ids(mergePage(merged, [run('r3', 3), run('r2', 2)], DEFAULT_ORDER))).toEqual(['r5', 'r4', 'r3', 'r2']);
  });

  it('groups by chain in list order with the count of listed runs', () => {
    const runs = [run('c1-r', 9, { rootRunId: 'c1' }), run('c2', 8), run('c1', 7), run('c1-c', 6, { rootRunId: 'c1' })];
    expect(chainsOf(runs).map((chain) => [chain.rootRunId, chain.run.runId, chain.listed])).toEqual([
      ['c1', 'c1-r', 3],
      ['c2', 'c2', 1],
    ]);
  });
});
