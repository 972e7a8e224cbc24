import type { GraphQLResolveInfo } from 'graphql';
import type { LineageKind, RunIdOnly, WorkflowRunRecord, WorkflowStore } from '../store/index.js';

/**
 * A run read as its ids alone: what a field returns where its selection reads
 * nothing but ids (and, when it carries root and parent ids, lineage links). Not a run record:
 * only `runId` (and, from a page or a batch of children, `rootRunId` and `parentRunId`) may be
 * read. It never enters the run loader's cache under its run id (types/workflow-run.ts), so a
 * later field or query of the request loads the whole record. A class rather than a marked
 * plain object: telling one apart is an `instanceof`, not a WeakSet entry per run (the
 * WeakSet's inserts and its garbage collection were a fifth of the nested page's CPU).
 */
export class IdOnlyRun {
  /**
   * @param runId the run's id
   * @param rootRunId its chain's root run id (undefined when only the run id is known)
   * @param parentRunId its parent's run id, null for a root (undefined when only the run id is known)
   * @param batch the runs read together with it, whose lineage reads it shares (see {@link RunBatch})
   */
  constructor(
    readonly runId: string,
    readonly rootRunId: string | undefined = undefined,
    readonly parentRunId: string | null | undefined = undefined,
    readonly batch: RunBatch | undefined = undefined,
  ) {}
}

/** Whether a `WorkflowRun` source is an id-only run rather than a whole record. */
export function isIdOnly(run: WorkflowRunRecord | IdOnlyRun): run is IdOnlyRun {
  return run instanceof IdOnlyRun;
}

/** An id-only run with its run id alone, typed as the `WorkflowRun` source (only `id`, `runId` may be read). */
export function runIdOnly(runId: string): WorkflowRunRecord {
  return new IdOnlyRun(runId) as unknown as WorkflowRunRecord;
}

/**
 * Runs of an id-only page as `WorkflowRun` sources, each typed as a record (only
 * `RUN_LINEAGE_ID_FIELDS` may be read). With a `batch`, their lineage fields read for the whole
 * page at once (see {@link RunBatch}); without one, through the request's DataLoaders.
 *
 * @returns the same list, in the same order
 */
export function idOnlyRuns<Key>(rows: ReadonlyArray<{ run: RunIdOnly; key: Key }>, batch?: RunBatch): Array<{ run: WorkflowRunRecord; key: Key }> {
  return rows.map(({ run, key }) => ({
    run: (batch?.add(run) ?? new IdOnlyRun(run.runId, run.rootRunId, run.parentRunId)) as unknown as WorkflowRunRecord,
    key,
  }));
}

/**
 * Whether a field sits under a list (its response path holds a list index). A field that does
 * not occurs a bounded number of times in an answer, whatever the data (once per alias).
 */
export function underList(info: GraphQLResolveInfo): boolean {
  for (let path = info.path.prev; path !== undefined; path = path.prev) {
    if (typeof path.key === 'number') return true;
  }
  return false;
}

/** What the children of a batch read: ids only (a new batch of id-only runs), or whole records. */
type ChildrenRead = { idsOnly: true; byParent: Map<string, IdOnlyRun[]> } | { idsOnly: false; byParent: Map<string, WorkflowRunRecord[]> };

/**
 * Id-only runs read together (a page, or the children of such a batch) whose lineage fields
 * (`children`, `continuation`, `restart`, `latestRun`) read for every run of the batch at once:
 * the first such field resolved on any of them runs one store statement for all of them and
 * keeps the answer, and every run of the batch then resolves that field synchronously, with no
 * promise and no DataLoader (graphql-js completes plain values far faster
 * than a promise per field). Same statements as the DataLoaders, which batch the runs of one
 * response path within a tick; a batch is made only where that bounds the statements just as
 * well: a page not under a list (see {@link underList}), and the children of a batch.
 *
 * Lives as long as the runs of one execution (never a cache across requests or events).
 */
export class RunBatch {
  private readonly runs: IdOnlyRun[] = [];
  /** Children read so far, by `${kind}/${idsOnly}`. */
  private readonly children = new Map<string, ChildrenRead>();
  /** Newest run id by root run id, once read. */
  private latest: Map<string, string> | undefined;

  /** @param store where the batch's lineage reads go */
  constructor(private readonly store: WorkflowStore) {}

  /** Adds a run read as ids (run, root, parent) to the batch; returns it as an id-only run. */
  add(run: RunIdOnly): IdOnlyRun {
    const idOnly = new IdOnlyRun(run.runId, run.rootRunId, run.parentRunId, this);
    this.runs.push(idOnly);
    return idOnly;
  }

  /**
   * The direct children of `runId` (a run of this batch), oldest first: ids only (themselves a
   * new batch) or whole records. Read for every run of the batch in one statement on the first call
   * with this kind and reading (`store.childKeysOfRuns` / `store.childrenOfRuns`).
   *
   * @param kind only children of this lineage kind; all when undefined
   * @param idsOnly whether the selection on the children reads only `RUN_LINEAGE_ID_FIELDS`
   */
  childrenOf(runId: string, kind: LineageKind | undefined, idsOnly: boolean): WorkflowRunRecord[] {
    const key = `${kind ?? '*'}/${idsOnly}`;
    let read = this.children.get(key);
    if (read === undefined) {
      const parentIds = this.runs.map((run) => run.runId);
      if (idsOnly) {
        // Child and parent ids from an index alone; a child's root is its parent's (docs/STORE-RULES.md §6.1).
        const batch = new RunBatch(this.store);
        const lists = this.store.childKeysOfRuns(parentIds, kind);
        read = {
          idsOnly,
          byParent: new Map(
            this.runs.map((parent, index) => [
              parent.runId,
              (lists[index] ?? []).map((child) => batch.add({ runId: child.runId, rootRunId: parent.rootRunId as string, parentRunId: parent.runId })),
            ]),
          ),
        };
      } else {
        const lists = this.store.childrenOfRuns(parentIds, kind);
        read = { idsOnly, byParent: new Map(parentIds.map((id, index) => [id, lists[index] ?? []])) };
      }
      this.children.set(key, read);
    }
    return (read.byParent.get(runId) ?? []) as unknown as WorkflowRunRecord[];
  }

  /**
   * The newest run id of the chain `rootRunId` (the root of a run of this batch), read for the
   * chains of every run of the batch in one statement on the first call (`store.latestRunIdsOfChains`).
   */
  latestRunIdOf(rootRunId: string): string {
    if (this.latest === undefined) {
      const roots = [...new Set(this.runs.map((run) => run.rootRunId as string))];
      const latest = this.store.latestRunIdsOfChains(roots);
      this.latest = new Map(roots.map((root, index) => [root, latest[index] ?? root]));
    }
    return this.latest.get(rootRunId) ?? rootRunId;
  }
}
