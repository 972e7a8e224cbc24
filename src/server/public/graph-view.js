// @ts-check
/**
 * The run's GRAPH view state, rebuilt from its viewer deltas. A workflow host
 * records graph deltas keyed by node (`targetKey` = node name) with JSON-patch operations on
 * `/nodes/<name>/state` — e.g. the demo host: `replace /nodes/build/state "running"`, then
 * `"completed"` or `"failed"` (demo/workflow-host.ts). Also understood: `add`/`replace` of a
 * whole node `/nodes/<name>` `{state, …}`, `remove /nodes/<name>`, and `replace /nodes` with
 * an object of nodes. The graph's revision is the presentation revision of the last batch
 * holding a graph delta. Other targets and paths are ignored. Pure: every function answers a new value.
 */

/**
 * @typedef {{ name: string, state: string, revision: number }} GraphNode
 * @typedef {{ revision: number | null, nodes: GraphNode[] }} GraphView
 * @typedef {{ op: string, path: string, value?: unknown }} PatchOp
 * @typedef {{ targetType: string, patch: PatchOp[] }} Delta
 */

/** @returns {GraphView} a graph with no node and no revision */
export function emptyGraph() {
  return { revision: null, nodes: [] };
}

/**
 * One JSON-pointer segment decoded (RFC 6901: `~1` is `/`, `~0` is `~`).
 *
 * @param {string} segment
 * @returns {string}
 */
function decodeSegment(segment) {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/**
 * The state a node value carries: a string as it is, `{state}` of an object, else `unknown`.
 *
 * @param {unknown} value
 * @returns {string}
 */
function stateOf(value) {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object' && 'state' in value && typeof value.state === 'string') return value.state;
  return 'unknown';
}

/**
 * Applies the GRAPH deltas of one presentation revision.
 *
 * @param {GraphView} graph the view before the revision
 * @param {{ presentationRevision: number, deltas: Delta[] }} batch the revision's deltas
 *   (targetType and op names in any case: GraphQL sends `GRAPH`/`REPLACE`)
 * @returns {GraphView} the view after it; `graph` itself when the revision has no graph delta.
 *   Nodes keep the order they first appeared in; a node's `revision` is the one its state last
 *   changed at.
 */
export function applyGraphBatch(graph, batch) {
  const deltas = batch.deltas.filter((delta) => delta.targetType.toUpperCase() === 'GRAPH');
  if (deltas.length === 0) return graph;
  const revision = batch.presentationRevision;
  const nodes = new Map(graph.nodes.map((node) => [node.name, node]));
  const set = (/** @type {string} */ name, /** @type {string} */ state) => {
    const current = nodes.get(name);
    if (current === undefined || current.state !== state) nodes.set(name, { name, state, revision: batch.presentationRevision });
  };
  for (const delta of deltas) {
    for (const op of delta.patch) {
      const kind = op.op.toUpperCase();
      const segments = op.path.split('/').slice(1).map(decodeSegment);
      if (segments[0] !== 'nodes') continue;
      const [, name, field] = segments;
      if (name === undefined) {
        if ((kind === 'REPLACE' || kind === 'ADD') && op.value !== null && typeof op.value === 'object') {
          nodes.clear();
          for (const [key, value] of Object.entries(op.value)) set(key, stateOf(value));
        } else if (kind === 'REMOVE') nodes.clear();
        continue;
      }
      if (field === undefined) {
        if (kind === 'REMOVE') nodes.delete(name);
        else if (kind === 'REPLACE' || kind === 'ADD') set(name, stateOf(op.value));
      } else if (field === 'state' && segments.length === 3) {
        if (kind === 'REMOVE') set(name, 'unknown');
        else if (kind === 'REPLACE' || kind === 'ADD') set(name, stateOf(op.value));
      }
    }
  }
  return { revision, nodes: [...nodes.values()] };
}

/**
 * Counts of nodes per state, e.g. `{running: 1, completed: 2}`.
 *
 * @param {GraphView} graph
 * @returns {Record<string, number>}
 */
export function stateCounts(graph) {
  /** @type {Record<string, number>} */
  const counts = {};
  for (const node of graph.nodes) counts[node.state] = (counts[node.state] ?? 0) + 1;
  return counts;
}
