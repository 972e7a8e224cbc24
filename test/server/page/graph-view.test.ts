/**
 * The run's GRAPH view state rebuilt from viewer deltas, with the delta shapes
 * the demo host records (demo/workflow-host.ts: `replace /nodes/<step>/state`).
 */
import { describe, expect, it } from 'vitest';
import { applyGraphBatch, emptyGraph, stateCounts } from '../../../src/server/public/graph-view.js';

const marker = (revision: number) => [{ op: 'REPLACE', path: '/presentationRevision', value: revision }];
const graphBatch = (revision: number, key: string, ops: Array<{ op: string; path: string; value?: unknown }>) => ({
  presentationRevision: revision,
  deltas: [
    {
      targetType: 'SUMMARY',
      patch: [
        { op: 'REPLACE', path: '/presentationRevision', value: revision },
        { op: 'REPLACE', path: '/step', value: key },
      ],
    },
    { targetType: 'GRAPH', targetKey: key, patch: [...marker(revision), ...ops] },
  ],
});

describe('applyGraphBatch', () => {
  it('follows a run through its steps: running, completed + next running, failed', () => {
    let graph = emptyGraph();
    graph = applyGraphBatch(graph, graphBatch(3, 'checkout', [{ op: 'REPLACE', path: '/nodes/checkout/state', value: 'running' }]));
    expect(graph).toEqual({ revision: 3, nodes: [{ name: 'checkout', state: 'running', revision: 3 }] });
    graph = applyGraphBatch(
      graph,
      graphBatch(6, 'checkout', [
        { op: 'REPLACE', path: '/nodes/checkout/state', value: 'completed' },
        { op: 'REPLACE', path: '/nodes/build/state', value: 'running' },
      ]),
    );
    graph = applyGraphBatch(graph, graphBatch(9, 'build', [{ op: 'REPLACE', path: '/nodes/build/state', value: 'failed' }]));
    expect(graph).toEqual({
      revision: 9,
      nodes: [
        { name: 'checkout', state: 'completed', revision: 6 },
        { name: 'build', state: 'failed', revision: 9 },
      ],
    });
    expect(stateCounts(graph)).toEqual({ completed: 1, failed: 1 });
  });

  it('a revision without a graph delta answers the same graph object', () => {
    const graph = applyGraphBatch(emptyGraph(), graphBatch(2, 'a', [{ op: 'REPLACE', path: '/nodes/a/state', value: 'running' }]));
    const summaryOnly = { presentationRevision: 3, deltas: [{ targetType: 'SUMMARY', patch: [{ op: 'REPLACE', path: '/progress', value: 40 }] }] };
    expect(applyGraphBatch(graph, summaryOnly)).toBe(graph);
  });

  it('a bump graph delta (marker only) moves the revision, not the nodes', () => {
    const graph = applyGraphBatch(emptyGraph(), graphBatch(2, 'a', [{ op: 'REPLACE', path: '/nodes/a/state', value: 'running' }]));
    const bumped = applyGraphBatch(graph, { presentationRevision: 5, deltas: [{ targetType: 'GRAPH', patch: marker(5) }] });
    expect(bumped).toEqual({ revision: 5, nodes: [{ name: 'a', state: 'running', revision: 2 }] });
  });

  it('whole nodes, removals, a replaced node map and escaped names; lower-case names too', () => {
    let graph = applyGraphBatch(emptyGraph(), {
      presentationRevision: 2,
      deltas: [
        {
          targetType: 'graph',
          patch: [
            { op: 'add', path: '/nodes/a~1b', value: { state: 'queued', label: 'A/B' } },
            { op: 'add', path: '/nodes/c~0d', value: 'running' },
            { op: 'replace', path: '/edges/0', value: ['a', 'b'] },
          ],
        },
      ],
    });
    expect(graph.nodes).toEqual([
      { name: 'a/b', state: 'queued', revision: 2 },
      { name: 'c~d', state: 'running', revision: 2 },
    ]);
    graph = applyGraphBatch(graph, { presentationRevision: 3, deltas: [{ targetType: 'GRAPH', patch: [{ op: 'REMOVE', path: '/nodes/a~1b' }] }] });
    expect(graph.nodes.map((node) => node.name)).toEqual(['c~d']);
    graph = applyGraphBatch(graph, {
      presentationRevision: 4,
      deltas: [{ targetType: 'GRAPH', patch: [{ op: 'REPLACE', path: '/nodes', value: { x: { state: 'completed' }, y: 7 } }] }],
    });
    expect(graph.nodes).toEqual([
      { name: 'x', state: 'completed', revision: 4 },
      { name: 'y', state: 'unknown', revision: 4 },
    ]);
  });

  it('an unchanged state keeps the revision it last changed at', () => {
    let graph = applyGraphBatch(emptyGraph(), graphBatch(2, 'a', [{ op: 'REPLACE', path: '/nodes/a/state', value: 'running' }]));
    graph = applyGraphBatch(graph, graphBatch(4, 'a', [{ op: 'REPLACE', path: '/nodes/a/state', value: 'running' }]));
    expect(graph.nodes).toEqual([{ name: 'a', state: 'running', revision: 2 }]);
    expect(graph.revision).toBe(4);
  });
});
