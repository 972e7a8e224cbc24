/**
 * docs/PI-WORKFLOWS-FILES.md §7: a pi-workflows state file has none of the lineage indexes of migration 0002,
 * so its run order lives in an in-process index. The same runs (built through the store in our
 * format, then copied into a pi-workflows file) give exactly the same answers from both files:
 * every list slice (filters, cursors, both directions), count, lineage slice, newest run of a
 * chain, chain size, chain viewer heads and children. The index follows commits of another
 * connection: new runs, deleted runs, a reused rowid.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkflowStore, type LineageKey, type RunKey, type RunOrder, type WorkflowRunFilter } from '../../src/store/index.js';
import { copyIntoPiWorkflowsFile, openLikePiWorkflows, PiWorkflowsWriter, type PiWorkflowsFileFacts } from '../../fixtures/pi-workflows-file.js';
import { reserveInput, T0, tempDir, TestClock } from '../helpers/store-fixtures.js';
import { storeInternals } from '../helpers/store-internals.js';

const LEASE = { runnerId: 'runner-1', leaseMs: 86_400_000 };

/**
 * Chains of 1 to 6 runs (continuations, and restarts after failures), several runs sharing a
 * created_at so the run id decides their order.
 *
 * @returns the root run ids
 */
function buildRuns(store: WorkflowStore, clock: TestClock): string[] {
  const roots: string[] = [];
  for (let chain = 0; chain < 14; chain += 1) {
    const session = `session-${chain % 4}-${chain}`;
    const length = 1 + (chain % 6);
    let parent: string | undefined;
    let parentToken = '';
    for (let step = 0; step < length; step += 1) {
      if (step % 2 === 0) clock.advance(1_000); // every other run shares the previous one's created_at
      const token = `token-${chain}-${step}`;
      let runId: string;
      if (parent === undefined) {
        runId = `c${String(chain).padStart(2, '0')}-root`;
        store.reserveWorkflowRun(reserveInput(runId, { originSessionId: session, workflowName: chain % 3 === 0 ? 'gamma' : 'demo' }), {
          ...LEASE,
          claimToken: token,
        });
        roots.push(runId);
      } else if (chain % 4 === 1 && step === 2) {
        store.settleWorkflowRun({ runId: parent, claimToken: parentToken, status: 'failed', error: `failure ${chain}` });
        runId = store.restartWorkflowRun({ runId: parent, originSessionId: session, claim: { ...LEASE, claimToken: token } }).run.runId;
      } else {
        runId = `c${String(chain).padStart(2, '0')}-${String.fromCharCode(122 - step)}`; // ids not in creation order
        store.reserveWorkflowRun(reserveInput(runId, { originSessionId: session, parentRunId: parent, workflowName: chain % 3 === 0 ? 'gamma' : 'demo' }), {
          ...LEASE,
          claimToken: token,
        });
      }
      const restartNext = chain % 4 === 1 && step === 1;
      if (!restartNext) store.parkWorkflowRun({ runId, claimToken: token });
      parent = runId;
      parentToken = token;
    }
  }
  return roots;
}

const slim = <Key>(slice: Array<{ run: { runId: string }; key: Key }>): Array<[string, Key]> => slice.map(({ run, key }) => [run.runId, key]);

describe('the in-process run order index answers like the lineage indexes', () => {
  let dir: string;
  let ours: WorkflowStore;
  let theirs: WorkflowStore;
  let roots: string[];
  let facts: PiWorkflowsFileFacts;
  let clock: TestClock;
  beforeAll(() => {
    dir = tempDir('run-index-');
    clock = new TestClock(T0);
    const ourPath = join(dir, 'ours.db');
    const builder = WorkflowStore.open({ path: ourPath, projectPath: dir, clock: clock.now });
    roots = buildRuns(builder, clock);
    builder.close();
    facts = copyIntoPiWorkflowsFile(ourPath, join(dir, 'state.sqlite'));
    ours = WorkflowStore.open({ path: ourPath, projectPath: dir, readOnly: true, clock: clock.now });
    theirs = WorkflowStore.open({ path: facts.path, projectPath: dir, clock: clock.now });
  });
  afterAll(() => {
    ours?.close();
    theirs?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the copied file as a pi-workflows state file with the same runs', () => {
    expect(theirs.file.kind).toBe('pi-workflows');
    const all = ours.listWorkflowRunSlice(undefined, { limit: 101, inverted: false });
    expect(all.length).toBeGreaterThan(40);
    expect(theirs.listWorkflowRunSlice(undefined, { limit: 101, inverted: false })).toEqual(all);
  });

  it('list slices: every filter, every cursor, both directions; and counts', () => {
    const filters: Array<WorkflowRunFilter | undefined> = [
      undefined,
      { rootRunId: 'c05-root' },
      { rootRunId: 'no-such-root' },
      { parentRunId: 'c03-root' },
      { lineageKind: 'restart' },
      { lineageKind: 'continuation', workflowName: 'gamma' },
      { status: ['failed'] },
      { queueStatus: ['parked'] },
      { originSessionId: 'session-1-5' },
      { rootRunId: 'c09-root', queueStatus: ['done', 'parked'] },
    ];
    const everyKey: RunKey[] = ours.listWorkflowRunSlice(undefined, { limit: 101, inverted: false }).map(({ key }) => key);
    const cursors: Array<RunKey | undefined> = [undefined, ...everyKey.filter((_, index) => index % 5 === 0), { at: 0, runId: '' }];
    let compared = 0;
    for (const filter of filters) {
      expect(theirs.countWorkflowRuns(filter), JSON.stringify(filter)).toBe(ours.countWorkflowRuns(filter));
      for (const inverted of [false, true]) {
        for (const after of cursors) {
          for (const before of [undefined, cursors[3], cursors[7]]) {
            for (const limit of [0, 3, 101]) {
              const request = { inverted, limit, ...(after === undefined ? {} : { after }), ...(before === undefined ? {} : { before }) };
              expect(slim(theirs.listWorkflowRunSlice(filter, request)), JSON.stringify({ filter, request })).toEqual(
                slim(ours.listWorkflowRunSlice(filter, request)),
              );
              compared += 1;
            }
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(1_000);
  });

  it('list slices in every order with the time and search filters, every cursor, both directions; and counts', () => {
    const orders: RunOrder[] = [
      { field: 'created_at', direction: 'desc' },
      { field: 'created_at', direction: 'asc' },
      { field: 'updated_at', direction: 'desc' },
      { field: 'updated_at', direction: 'asc' },
    ];
    const middle = T0 + 20_000;
    const filters: Array<WorkflowRunFilter | undefined> = [
      undefined,
      { createdAfter: middle },
      { createdBefore: middle, lineageKind: 'continuation' },
      { updatedAfter: middle },
      { updatedAfter: T0 + 5_000, updatedBefore: middle },
      { search: 'ROOT' },
      { search: 'c0', createdAfter: T0 + 3_000, updatedBefore: middle + 10_000 },
      { search: 'GAMMA', status: ['running', 'waiting', 'queued'] },
      { rootRunId: 'c05-root', updatedAfter: T0 },
      { rootRunId: 'c11-root', createdAfter: T0 + 1_000 },
      { queueStatus: ['parked'], createdAfter: middle },
    ];
    let compared = 0;
    for (const order of orders) {
      const everyKey: RunKey[] = ours.listWorkflowRunSlice(undefined, { limit: 101, inverted: false, order }).map(({ key }) => key);
      expect(slim(theirs.listWorkflowRunSlice(undefined, { limit: 101, inverted: false, order }))).toEqual(
        slim(ours.listWorkflowRunSlice(undefined, { limit: 101, inverted: false, order })),
      );
      const cursors: Array<RunKey | undefined> = [undefined, ...everyKey.filter((_, index) => index % 7 === 0), { at: 0, runId: '' }];
      for (const filter of filters) {
        expect(theirs.countWorkflowRuns(filter), JSON.stringify(filter)).toBe(ours.countWorkflowRuns(filter));
        for (const inverted of [false, true]) {
          for (const after of cursors) {
            for (const before of [undefined, cursors[2], cursors[5]]) {
              for (const limit of [0, 1, 3, 101]) {
                const request = { inverted, limit, order, ...(after === undefined ? {} : { after }), ...(before === undefined ? {} : { before }) };
                expect(slim(theirs.listWorkflowRunSlice(filter, request)), JSON.stringify({ filter, request })).toEqual(
                  slim(ours.listWorkflowRunSlice(filter, request)),
                );
                compared += 1;
              }
            }
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(4_000);
  });

  it('lineage slices from every position of every chain, both directions', () => {
    for (const root of [...roots, 'no-such-root', 'c05-y']) {
      const keys: LineageKey[] = ours.lineageSlice(root, { limit: 101, inverted: false }).map(({ key }) => key);
      const cursors: Array<LineageKey | undefined> = [undefined, ...keys];
      for (const inverted of [false, true]) {
        for (const after of cursors) {
          for (const before of [undefined, keys.at(-1), keys[0]]) {
            for (const limit of [0, 1, 2, 101]) {
              const request = { inverted, limit, ...(after === undefined ? {} : { after }), ...(before === undefined ? {} : { before }) };
              expect(slim(theirs.lineageSlice(root, request)), JSON.stringify({ root, request })).toEqual(slim(ours.lineageSlice(root, request)));
            }
          }
        }
      }
    }
    const all = [...roots, 'no-such-root'];
    expect(theirs.latestRunIdsOfChains(all)).toEqual(ours.latestRunIdsOfChains(all));
    expect(theirs.chainSizes(all)).toEqual(ours.chainSizes(all));
    for (const root of roots) expect(theirs.chainViewerHeads(root)).toEqual(ours.chainViewerHeads(root));
    const parents = ours.listWorkflowRunSlice(undefined, { limit: 101, inverted: false }).map(({ run }) => run.runId);
    expect(theirs.childrenOfRuns(parents)).toEqual(ours.childrenOfRuns(parents));
    expect(theirs.childrenOfRuns(parents, 'restart')).toEqual(ours.childrenOfRuns(parents, 'restart'));
  });

  it('follows commits of another connection: new runs, a deleted run, a reused rowid', () => {
    // Its own copy of the file: it writes, and the other tests of this file (any order) read.
    const facts = copyIntoPiWorkflowsFile(join(dir, 'ours.db'), join(dir, 'followed.sqlite'));
    const theirs = WorkflowStore.open({ path: facts.path, projectPath: dir, clock: clock.now });
    const writer = new PiWorkflowsWriter(openLikePiWorkflows(facts.path), facts);
    const index = storeInternals(theirs).runIndex;
    try {
      // The whole-record page (rows by primary key) and the id-only page (the index alone) agree at every step.
      const newest = (): string[] => {
        const ids = theirs.listWorkflowRunSlice(undefined, { limit: 3, inverted: false }).map(({ run }) => run.runId);
        expect(theirs.listWorkflowRunIdSlice(undefined, { limit: 3, inverted: false }).map(({ run }) => run.runId)).toEqual(ids);
        return ids;
      };
      const count = theirs.countWorkflowRuns();
      const latest = theirs.latestRunIdsOfChains(['c00-root'])[0];
      const rebuilds = index?.rebuilds ?? 0;
      const later = T0 + 86_400_000;
      writer.transaction(() => {
        writer.update('run_queue', { status: 'done' }, 'run_id = ?', latest);
        writer.reserveRun({ runId: 'aa-new-root', originSessionId: 'session-new', at: later });
        writer.reserveRun({ runId: 'zz-new-child', originSessionId: 'session-0-0', at: later, parentRunId: latest });
      });
      expect(newest()).toEqual(['zz-new-child', 'aa-new-root', newest()[2]]);
      expect(theirs.countWorkflowRuns()).toBe(count + 2);
      expect(theirs.latestRunIdsOfChains(['c00-root', 'aa-new-root'])).toEqual(['zz-new-child', 'aa-new-root']);
      expect(theirs.chainSizes(['c00-root'])).toEqual([2]);
      expect(theirs.lineageSlice('c00-root', { limit: 5, inverted: false }).map(({ run }) => run.runId)).toEqual(['c00-root', 'zz-new-child']);
      expect(theirs.lineageIdSlice('c00-root', { limit: 5, inverted: false }).map(({ run }) => run.runId)).toEqual(['c00-root', 'zz-new-child']);
      expect(index?.rebuilds).toBe(rebuilds); // caught up, not rebuilt

      // The UPDATED_AT order follows an update of another connection, read again once per unseen commit.
      const byUpdate = (): string[] =>
        theirs.listWorkflowRunSlice(undefined, { limit: 2, inverted: false, order: { field: 'updated_at', direction: 'desc' } }).map(({ run }) => run.runId);
      byUpdate();
      const reads = index?.updatedReads ?? 0;
      writer.transaction(() => writer.update('run_queue', { updated_at: later + 10 }, 'run_id = ?', 'c03-root'));
      expect(byUpdate()[0]).toBe('c03-root');
      expect(byUpdate()[0]).toBe('c03-root');
      expect(index?.updatedReads).toBe(reads + 1);
      expect(theirs.countWorkflowRuns({ updatedAfter: later + 9 })).toBe(1);

      // pi-workflows prunes a run (not the newest): its resource goes, and with it everything of the run.
      const removeRun = (runId: string): void => {
        const resourceId = (writer.connection.prepare('SELECT resource_id FROM runs WHERE run_id = ?').get(runId) as { resource_id: string }).resource_id;
        writer.transaction(() => {
          writer.run('DELETE FROM events WHERE resource_id = ?', resourceId);
          writer.run('DELETE FROM resources WHERE resource_id = ?', resourceId);
        });
      };
      removeRun('aa-new-root');
      expect(theirs.countWorkflowRuns()).toBe(count + 1);
      expect(newest()[0]).toBe('zz-new-child');
      expect(newest()).not.toContain('aa-new-root');
      expect(theirs.lineageIdSlice('aa-new-root', { limit: 5, inverted: false })).toEqual([]);
      expect(theirs.latestRunIdsOfChains(['aa-new-root'])).toEqual(['aa-new-root']);
      expect(index?.rebuilds).toBe(rebuilds + 1);

      // The newest run goes and the next one takes its rowid (same count, same rowid sum).
      writer.transaction(() => {
        writer.reserveRun({ runId: 'cc-one', originSessionId: 'session-cc', at: later + 1 });
        writer.reserveRun({ runId: 'dd-two', originSessionId: 'session-dd', at: later + 2 });
      });
      expect(newest()).toEqual(['dd-two', 'cc-one', 'zz-new-child']);
      const rowidOf = (runId: string): number => (writer.connection.prepare('SELECT rowid AS r FROM runs WHERE run_id = ?').get(runId) as { r: number }).r;
      const reusedRowid = rowidOf('dd-two');
      removeRun('dd-two');
      writer.transaction(() => writer.reserveRun({ runId: 'bb-reused', originSessionId: 'session-reused', at: later + 3 }));
      expect(rowidOf('bb-reused')).toBe(reusedRowid);
      expect(newest()).toEqual(['bb-reused', 'cc-one', 'zz-new-child']);
      expect(theirs.countWorkflowRuns()).toBe(count + 3);
      expect(index?.rebuilds).toBe(rebuilds + 2);
    } finally {
      writer.close();
      theirs.close();
    }
  });
});
