// @ts-check
/**
 * The run's graph: the nodes of the definition it executes, in order from its start node along
 * the edges, each with its state from the view: its latest step's outcome once it has one;
 * running or waiting only for the node a live run is on now (its current node or the node it
 * waits on, with no step yet or a new attempt under way). A node the view knows nothing of yet
 * takes the state its GRAPH viewer deltas gave it (/app/graph-view.js); nodes only the deltas
 * name come last.
 */
import { $, el } from '/app/dom.js';

/**
 * @typedef {import('/app/state.js').RunView} RunView
 * @typedef {import('/app/graph-view.js').GraphView} GraphView
 * @typedef {{ name: string, type: string, state: string, attempt: number | null }} ShownNode
 */

/** A step outcome as a node state. */
const OUTCOME_STATE = /** @type {Record<string, string>} */ ({ OK: 'completed', FAILED: 'failed', CANCELLED: 'cancelled', TIMED_OUT: 'timed-out' });

/**
 * The definition's node ids from its start node along the edges (breadth first), then any
 * node no edge reaches.
 *
 * @param {NonNullable<RunView['definition']>} definition
 * @returns {string[]}
 */
export function nodeOrder(definition) {
  const ids = definition.nodes.map((node) => node.nodeId);
  const order = [];
  const seen = new Set();
  const queue = ids.includes(definition.startAt) ? [definition.startAt] : [];
  while (queue.length > 0) {
    const id = /** @type {string} */ (queue.shift());
    if (seen.has(id)) continue;
    seen.add(id);
    order.push(id);
    for (const edge of definition.edges) if (edge.from === id && !seen.has(edge.to)) queue.push(edge.to);
  }
  return [...order.filter((id) => ids.includes(id)), ...ids.filter((id) => !seen.has(id))];
}

/**
 * The nodes to draw, each with its state.
 *
 * @param {RunView | null} view
 * @param {GraphView} deltas the graph the viewer deltas built
 * @returns {ShownNode[]}
 */
export function shownNodes(view, deltas) {
  const fromDeltas = new Map(deltas.nodes.map((node) => [node.name, node.state]));
  if (view === null) return deltas.nodes.map((node) => ({ name: node.name, type: '', state: node.state, attempt: null }));
  const types = new Map((view.definition?.nodes ?? []).map((node) => [node.nodeId, node.nodeType]));
  const latest = new Map(view.graphSteps.map((step) => [step.nodeId, step]));
  // Without a definition in pi-workflows' form: the nodes its steps name, and where it is now.
  const names =
    view.definition === null
      ? [...new Set([...view.graphSteps.map((step) => step.nodeId), view.currentNode, view.waitingOn].filter((name) => typeof name === 'string'))]
      : nodeOrder(view.definition);
  const nodes = names.map((name) => {
    const step = latest.get(name);
    let state = step === undefined ? 'pending' : (OUTCOME_STATE[step.outcome] ?? step.outcome.toLowerCase());
    // On it now: a live run's node with no finished step yet, or with another attempt under way.
    const onNow = view.live && (step === undefined || (view.currentAttemptId !== null && view.currentAttemptId !== step.attemptId));
    if (onNow && view.currentNode === name) state = 'running';
    if (onNow && view.waitingOn === name) state = 'waiting';
    if (state === 'pending') state = fromDeltas.get(name) ?? state;
    return { name, type: types.get(name) ?? '', state, attempt: step?.attempt ?? null };
  });
  const named = new Set(nodes.map((node) => node.name));
  for (const node of deltas.nodes) if (!named.has(node.name)) nodes.push({ name: node.name, type: '', state: node.state, attempt: null });
  return nodes;
}

/**
 * Draws the selected run's graph.
 *
 * @param {import('/app/state.js').SelectedRun} run
 */
export function renderGraph(run) {
  const nodes = shownNodes(run.view, run.graph);
  const revision = run.view?.revision ?? run.graph.revision;
  $('graph-rev').textContent = revision === null || revision === undefined ? '' : `revision ${revision}`;
  $('graph').dataset.revision = revision === null || revision === undefined ? '' : String(revision);
  $('graph').replaceChildren(
    ...(nodes.length === 0
      ? [el('li', { class: 'empty' }, run.view === null ? 'Reading the run…' : 'No node to show yet.')]
      : nodes.map((node) =>
          el(
            'li',
            {
              class: `g-node g-${node.state}`,
              dataset: { node: node.name, state: node.state },
              title: `${node.name}${node.type ? ` (${node.type})` : ''}: ${node.state}${node.attempt && node.attempt > 1 ? `, attempt ${node.attempt}` : ''}`,
            },
            el('span', { class: 'g-name' }, node.name),
            el('span', { class: 'g-state' }, node.type ? `${node.type} · ${node.state}` : node.state),
          ),
        )),
  );
}
