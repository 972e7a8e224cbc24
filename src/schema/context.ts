import DataLoader from 'dataloader';
import type { ChangeFeed, LineageKind, WorkflowRunRecord, WorkflowStore } from '../store/index.js';
import { readOnlyMessage } from './errors.js';

/** Per-request DataLoaders over the store: each batch is one SQL statement (API.md). */
export interface RunLoaders {
  /** Runs by run id; undefined for unknown ids. */
  run: DataLoader<string, WorkflowRunRecord | undefined>;
  /** Direct children by `{runId, kind}`, oldest first. */
  children: DataLoader<{ runId: string; kind: LineageKind | null }, WorkflowRunRecord[], string>;
  /** Newest run id of a chain, by root run id. */
  latestRunId: DataLoader<string, string>;
  /** Number of runs in a chain, by root run id. */
  chainSize: DataLoader<string, number>;
}

/**
 * What the caller's credential may do (issue 10.11): `read` (queries, subscriptions) or `write`
 * (everything). The server decides it from the bearer token (src/server/auth.ts).
 */
export type Scope = 'read' | 'write';

/** The GraphQL context of one request (or of one subscription event). */
export interface GraphQLContext {
  store: WorkflowStore;
  /** Loaders; subscriptions replace them for every event so each event shows committed state. */
  loaders: RunLoaders;
  /**
   * Null when mutations are allowed; else the `ForbiddenError` text every mutation answers (a
   * server started read-only, or one serving a pi-workflows state file).
   */
  readOnly: string | null;
  /** The caller's scope: with `read` every mutation answers ForbiddenError (issue 10.11). */
  scope: Scope;
  /** Wakes subscriptions when the delta log may have changed. */
  feed: ChangeFeed;
}

/**
 * Creates a fresh set of loaders over `store`. Loaded children are primed into the run loader.
 *
 * @returns loaders whose caches live as long as the returned object
 */
export function createRunLoaders(store: WorkflowStore): RunLoaders {
  // Each loader is made on first use: a subscription event that selects no lineage field
  // (the common case) allocates none of them.
  let run: RunLoaders['run'] | undefined;
  let children: RunLoaders['children'] | undefined;
  let latestRunId: RunLoaders['latestRunId'] | undefined;
  let chainSize: RunLoaders['chainSize'] | undefined;
  const loaders: RunLoaders = {
    get run() {
      run ??= new DataLoader<string, WorkflowRunRecord | undefined>(async (ids) => store.getWorkflowRuns(ids));
      return run;
    },
    get children() {
      children ??= new DataLoader<{ runId: string; kind: LineageKind | null }, WorkflowRunRecord[], string>(
        async (keys) => {
          const byKind = new Map<LineageKind | null, string[]>();
          for (const key of keys) byKind.set(key.kind, [...(byKind.get(key.kind) ?? []), key.runId]);
          const results = new Map<string, WorkflowRunRecord[]>();
          for (const [kind, ids] of byKind) {
            const lists = store.childrenOfRuns(ids, kind ?? undefined);
            ids.forEach((id, index) => {
              const list = lists[index] ?? [];
              for (const child of list) loaders.run.prime(child.runId, child);
              results.set(`${id}\u0000${kind ?? ''}`, list);
            });
          }
          return keys.map((key) => results.get(`${key.runId}\u0000${key.kind ?? ''}`) ?? []);
        },
        { cacheKeyFn: (key) => `${key.runId}\u0000${key.kind ?? ''}` },
      );
      return children;
    },
    get latestRunId() {
      latestRunId ??= new DataLoader<string, string>(async (roots) => store.latestRunIdsOfChains(roots));
      return latestRunId;
    },
    get chainSize() {
      chainSize ??= new DataLoader<string, number>(async (roots) => store.chainSizes(roots));
      return chainSize;
    },
  };
  return loaders;
}

/**
 * Builds the context of a request.
 *
 * @param readOnly the server's read-only flag; a store opened read-only (a pi-workflows state
 *   file is, whatever the flag) refuses mutations too, with its reason
 * @param feed the server's change feed
 * @param scope the caller's scope (issue 10.11)
 */
export function createContext(store: WorkflowStore, readOnly: boolean, feed: ChangeFeed, scope: Scope): GraphQLContext {
  const refusal = readOnly || store.readOnly ? readOnlyMessage(store.file) : null;
  return { store, loaders: createRunLoaders(store), readOnly: refusal, feed, scope };
}
